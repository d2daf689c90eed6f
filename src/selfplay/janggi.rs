//! Janggi games for the match runner, judged by the casual rules
//! ([`RuleSet::CasualV1`]): a side not in check may pass, two passes in a row end the
//! game in a draw, a third repetition draws, facing generals are no ending (nobody
//! claims bikjang), and a checkmated side loses.
//!
//! A pass is written `pass` by an engine with ranks from 0 (chuhe) and as the mover's
//! general's point twice (`e2e2`) by one with ranks from 1 (Fairy-Stockfish, whose
//! `janggicasual` variant plays by the same casual rules).

use super::{Budget, Engine, MatchRules, Ranks, Verdict, judged};
use crate::rules::janggi::adjudicate::{RuleSet, judge_position};
use crate::rules::janggi::{Game, Position};
use crate::rules::types::Move;

/// The usual Janggi start (horses outside on both sides), as every engine reads it.
pub const JANGGI_START_FEN: &str = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";

/// The text of `m`, played in `pos`, in an engine's ranks.
pub fn write_janggi_move(ranks: Ranks, pos: &Position, m: Move) -> String {
    match (m.is_pass(), ranks, pos.board().general(pos.turn())) {
        (true, Ranks::FromOne, Some(general)) => ranks.write(Move::new(general, general)),
        (true, _, _) => "pass".into(),
        (false, _, _) => ranks.write(m),
    }
}

/// A move an engine wrote in its ranks, in `pos` (`None` if the text is no move; its
/// legality is not checked). With ranks from 1, the mover's general's point twice is
/// a pass.
pub fn read_janggi_move(ranks: Ranks, pos: &Position, text: &str) -> Option<Move> {
    if let Some(m) = ranks.read(text).or_else(|| Move::parse_iccs(text).filter(|m| m.is_pass())) {
        return Some(m);
    }
    let general = pos.board().general(pos.turn())?;
    (ranks == Ranks::FromOne && text.trim() == ranks.write(Move::new(general, general))).then_some(Move::PASS)
}

/// The referee of a Janggi game: has it ended (by the casual rules, or at
/// `max_plies`)? The verdict for A (who plays Cho if `a_plays_red`) and why.
pub fn janggi_referee(game: &Game, a_plays_red: bool, max_plies: usize) -> Option<(Verdict, String)> {
    judged(judge_position(game, RuleSet::CasualV1), game.plies().len(), a_plays_red, max_plies)
}

/// `count` different Janggi openings of `plies` random legal moves, passes left out
/// (the same ones for the same `seed`).
pub fn random_janggi_openings(count: usize, plies: usize, seed: u64) -> Vec<Vec<Move>> {
    let moves_of = |pos: &Position, list: &mut crate::rules::types::MoveList| {
        let mut all = crate::rules::types::MoveList::new();
        pos.legal_moves(&mut all);
        for &m in all.as_slice().iter().filter(|m| !m.is_pass()) {
            list.push(m);
        }
    };
    super::openings::random_lines(count, plies, seed, Position::startpos(), moves_of, |pos, m| {
        pos.play_unchecked(m);
    })
}

/// Janggi's match rules: judged by [`janggi_referee`], a pass written as the engine
/// writes it.
pub const JANGGI: MatchRules<Position> = MatchRules {
    start: Position::startpos,
    start_fen: JANGGI_START_FEN,
    referee: janggi_referee,
    write: write_janggi_move,
    read: read_janggi_move,
    side_name: crate::rules::janggi::side_name,
};

/// Plays one Janggi game from the start after `opening`; the rules judge each move (an
/// illegal one loses) and each ending. The verdict, the plies, why it ended, the moves.
pub fn play_janggi_game_recorded(
    a: &mut Engine,
    b: &mut Engine,
    opening: &[Move],
    a_plays_red: bool,
    budget: Budget,
    max_plies: usize,
) -> Result<(Verdict, usize, String, Vec<Move>), String> {
    super::play_recorded(&JANGGI, a, b, opening, a_plays_red, budget, max_plies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game_of(fen: &str, moves: &[&str]) -> Game {
        super::super::game_from(crate::notation::fen::janggi(fen).unwrap(), moves)
    }

    #[test]
    fn a_pass_is_the_general_s_point_twice_in_ranks_from_one() {
        let pos = Position::startpos();
        // Cho's general stands on e1 (ICCS), e2 in ranks from 1.
        assert_eq!(write_janggi_move(Ranks::FromOne, &pos, Move::PASS), "e2e2");
        assert_eq!(write_janggi_move(Ranks::FromZero, &pos, Move::PASS), "pass");
        assert_eq!(read_janggi_move(Ranks::FromOne, &pos, "e2e2"), Some(Move::PASS));
        assert_eq!(read_janggi_move(Ranks::FromZero, &pos, "pass"), Some(Move::PASS));
        // Another point twice is no move; Han's general's point is not Cho's pass.
        assert_eq!(read_janggi_move(Ranks::FromOne, &pos, "d2d2"), None);
        assert_eq!(read_janggi_move(Ranks::FromOne, &pos, "e9e9"), None);
        let mut han = pos.clone();
        han.play_unchecked(Move::PASS);
        assert_eq!(write_janggi_move(Ranks::FromOne, &han, Move::PASS), "e9e9");
        assert_eq!(read_janggi_move(Ranks::FromOne, &han, "e9e9"), Some(Move::PASS));
        // Ordinary moves convert as in Xiangqi: a0b2 (ICCS) is a1b3.
        let horse = Move::parse_iccs("b0c2").unwrap();
        assert_eq!(write_janggi_move(Ranks::FromOne, &pos, horse), "b1c3");
        assert_eq!(read_janggi_move(Ranks::FromOne, &pos, "b1c3"), Some(horse));
        let top = Move::parse_iccs("a9a8").unwrap();
        assert_eq!(read_janggi_move(Ranks::FromOne, &han, "a10a9"), Some(top));
    }

    #[test]
    fn two_passes_in_a_row_draw_and_one_does_not() {
        let one = game_of(JANGGI_START_FEN, &["pass"]);
        assert!(janggi_referee(&one, true, 300).is_none());
        let two = game_of(JANGGI_START_FEN, &["pass", "pass"]);
        let (verdict, reason) = janggi_referee(&two, true, 300).expect("two passes end the game");
        assert_eq!(verdict, Verdict::Draw, "{reason}");
        assert!(reason.contains("two passes"), "{reason}");
    }

    #[test]
    fn facing_generals_end_nothing_and_mate_wins() {
        // The generals face each other on the e-file: play goes on.
        let facing = game_of("4k4/9/9/9/9/9/9/9/4K4/R8 w - - 0 1", &[]);
        assert!(facing.position().bikjang());
        assert!(janggi_referee(&facing, true, 300).is_none());
        // Two chariots mate Han's general on its back rank; Han may not pass in check.
        let mate = game_of("3k5/8R/9/9/9/9/9/9/4K4/R8 w - - 0 1", &["a0a9"]);
        let (verdict, reason) = janggi_referee(&mate, true, 300).expect("mate ends the game");
        assert_eq!(verdict, Verdict::AWins, "{reason}");
        assert_eq!(janggi_referee(&mate, false, 300).map(|v| v.0), Some(Verdict::BWins));
    }

    #[test]
    fn a_third_repetition_draws_and_long_games_stop() {
        let shuffle = ["a0a1", "i9i8", "a1a0", "i8i9"];
        let moves: Vec<&str> = shuffle.iter().cycle().take(8).copied().collect();
        let game = game_of("3k4r/9/9/9/9/9/9/9/5K3/R8 w - - 0 1", &moves);
        let (verdict, reason) = janggi_referee(&game, true, 300).expect("the repetition ends the game");
        assert_eq!(verdict, Verdict::Draw, "{reason}");
        let short = game_of("3k4r/9/9/9/9/9/9/9/5K3/R8 w - - 0 1", &moves[..2]);
        assert!(janggi_referee(&short, true, 300).is_none());
        assert_eq!(janggi_referee(&short, true, 2).map(|v| v.0), Some(Verdict::Draw));
    }

    #[test]
    fn random_janggi_openings_are_legal_and_pass_free() {
        let book = random_janggi_openings(30, 6, 3);
        assert_eq!(book.len(), 30);
        assert_eq!(book, random_janggi_openings(30, 6, 3));
        for line in &book {
            let mut pos = Position::startpos();
            for &m in line {
                assert!(!m.is_pass() && pos.is_legal(m), "{line:?}");
                pos.play_unchecked(m);
            }
        }
    }
}
