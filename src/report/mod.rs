//! The audit page: an AuditGame answer as one self-contained HTML page (inline SVG and
//! CSS, no script, nothing fetched), for a reviewer to look at and send on: the header
//! with the game and every audit parameter, the evaluation graph with the flagged
//! plies marked, each side's figures, a board diagram for each of the worst mistakes
//! and blunders with the others listed, and the table of every audited ply.
//!
//! The page is built from the answer alone, and from the audited game when it is known
//! (the board diagrams, the players' names and the result need it): the command line
//! renders its own audit, or an answer read back from the RPC's JSON.

pub mod board;
pub mod escape;
pub mod fairplay;
pub mod graph;
pub mod mistakes;
pub mod page;
pub mod palette;
pub mod tables;

use crate::api::convert::ContentLimits;
use crate::api::error::Error;
use crate::api::game::request_game;
use crate::api::{audit, proto};
use crate::game::{AnyGame, BoardGame, Variant};
use crate::rules::board::Board;
use crate::rules::types::Move;
use crate::search::Score;

pub use mistakes::MAX_DIAGRAMS;
pub use page::render_page;

/// What the page is made of: the answer, and the game when it is known.
pub struct AuditPage<'a> {
    /// AuditGame's answer (or AuditGameStream's plies and summary, gathered).
    pub answer: &'a proto::AuditGameResponse,
    /// The audited game.
    pub game: Option<&'a AuditedGame>,
}

/// The audited game, as far as the page shows it.
pub struct AuditedGame {
    /// The start, under the audit's rule set.
    start: BoardGame,
    moves: Vec<Move>,
    /// The players' names (Red or Cho first), empty when unknown.
    pub names: [String; 2],
    /// The result and how it was decided, in prose.
    pub result: String,
}

/// The result a game record states, when it states one.
pub struct StatedResult {
    /// The result.
    pub result: proto::GameResult,
    /// The winner, for a win.
    pub winner: proto::Player,
}

impl AuditedGame {
    /// The game of an audit request's `position` under its `rule_set`, the players named
    /// by the record's `tags` (`Red`/`Black`, a Janggi record's `초대국자`/`한대국자`),
    /// and its result: the rules' ruling at the last move, else the one the record
    /// states.
    pub fn new(
        position: &proto::Position,
        rule_set: i32,
        tags: &[proto::RecordTag],
        stated: Option<StatedResult>,
    ) -> Result<AuditedGame, Error> {
        let limits = ContentLimits { max_game_plies: usize::MAX };
        let end = match request_game(Some(position), rule_set, limits)? {
            AnyGame::Board(end) => end.with_default_rules(),
            AnyGame::ThreeKingdoms(_) => {
                return Err(crate::api::error::bad_request("position.variant", "audits serve Xiangqi and Janggi"));
            }
        };
        let variant = end.variant();
        let tag = |names: &[&str]| {
            tags.iter().find(|t| names.contains(&t.name.as_str())).map_or_else(String::new, |t| t.value.clone())
        };
        let names = [tag(&["Red", "초대국자"]), tag(&["Black", "한대국자"])];
        let ruling = crate::api::rules::adjudicate(
            &proto::AdjudicateRequest { position: Some(position.clone()), rule_set, events: Vec::new() },
            limits,
        )?;
        let result = result_text(variant, &ruling, stated);
        Ok(AuditedGame { start: end.at_start(), moves: end.moves(), names, result })
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.start.variant()
    }

    /// The number of moves.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The move of index `index` (from 0) in canonical move text.
    pub fn move_text(&self, index: usize) -> Option<String> {
        self.moves.get(index).map(|m| m.to_string())
    }

    /// The boards before the moves of the given indices (ascending), each once with its
    /// index; indices past the game are left out.
    pub fn boards_before(&self, indices: &[usize]) -> Vec<(usize, Board)> {
        let mut game = self.start.clone();
        let mut boards = Vec::new();
        let mut wanted = indices.iter().copied().peekable();
        for (i, &m) in self.moves.iter().enumerate() {
            while let Some(w) = wanted.next_if(|&w| w <= i) {
                if w == i && boards.last().is_none_or(|b: &(usize, Board)| b.0 != i) {
                    boards.push((i, game.board().clone()));
                }
            }
            game.play_unchecked(m);
        }
        boards
    }

    /// Checks that `answer` is an audit of this game: each ply's move is the game's
    /// move of its index.
    pub fn check(&self, answer: &proto::AuditGameResponse) -> Result<(), String> {
        for p in &answer.plies {
            let index = p.move_index as usize;
            match self.move_text(index) {
                Some(m) if m == p.played_move => {}
                Some(m) => {
                    return Err(format!(
                        "ply {} of the answer played {:?}, the game's move is {m:?}: give the game that was audited",
                        index + 1,
                        p.played_move
                    ));
                }
                None => {
                    return Err(format!("ply {} of the answer is past the game's {} moves", index + 1, self.plies()));
                }
            }
        }
        Ok(())
    }
}

/// The result in prose: the ruling of the rules when they end the game, else what the
/// record states, else that the game was left unfinished.
fn result_text(variant: Variant, ruling: &proto::AdjudicateResponse, stated: Option<StatedResult>) -> String {
    let winner = |p: i32| side_name(variant, p);
    match proto::GameResult::try_from(ruling.result) {
        Ok(proto::GameResult::Win) => {
            format!("{} wins at ply {}: {}", winner(ruling.winner), ruling.decided_at_ply, ruling.explanation)
        }
        Ok(proto::GameResult::Draw) => format!("Draw at ply {}: {}", ruling.decided_at_ply, ruling.explanation),
        _ => match stated {
            Some(StatedResult { result: proto::GameResult::Win, winner: w }) => format!(
                "{} wins, as the record states (the moves end with no rule deciding: a resignation, the clock or an agreement)",
                winner(w as i32)
            ),
            Some(StatedResult { result: proto::GameResult::Draw, .. }) => {
                "Draw, as the record states (by agreement or a rule off the board)".to_string()
            }
            _ => "Unfinished: the moves end with no result".to_string(),
        },
    }
}

/// A side's name: Red and Black, in Janggi Cho and Han.
pub fn side_name(variant: Variant, player: i32) -> &'static str {
    let janggi = variant == Variant::Janggi;
    match proto::Player::try_from(player) {
        Ok(proto::Player::Red) if janggi => "Cho",
        Ok(proto::Player::Red) => "Red",
        Ok(proto::Player::Black) if janggi => "Han",
        Ok(proto::Player::Black) => "Black",
        _ => "?",
    }
}

/// A class's name in lower case (`best`, ..., `blunder`; `?` for an unknown one).
pub fn class_name(class: i32) -> String {
    proto::AuditMoveClass::try_from(class)
        .map_or("?", |c| c.as_str_name().trim_start_matches("AUDIT_MOVE_CLASS_"))
        .to_lowercase()
}

/// Why a ply is left out of its side's figures: `forced`, `decided`, both or none.
pub fn ply_notes(p: &proto::AuditPly) -> Vec<&'static str> {
    [(p.forced, "forced"), (p.decided, "decided")].iter().filter(|n| n.0).map(|n| n.1).collect()
}

/// The variant of the page: the game's, else the one the audit's rule set belongs to.
pub fn page_variant(page: &AuditPage) -> Variant {
    if let Some(game) = page.game {
        return game.variant();
    }
    let rule_set = page.answer.summary.as_ref().and_then(|s| s.parameters.as_ref()).map_or(0, |p| p.rule_set);
    match proto::RuleSet::try_from(rule_set) {
        Ok(proto::RuleSet::JanggiCasualV1 | proto::RuleSet::JanggiTournamentV1) => Variant::Janggi,
        _ => Variant::Xiangqi,
    }
}

/// A score of the answer in centipawns as the audit counts it (a mate in n moves as
/// `MATE_CP - n`), from the mover's view.
pub fn centipawns(s: Option<&proto::Score>) -> Option<i32> {
    match s?.value? {
        proto::score::Value::Cp(c) => Some(audit::centipawns(Score::Centipawns(c))),
        proto::score::Value::Mate(n) => Some(audit::centipawns(Score::Mate(n))),
    }
}

/// A score as the tables write it: `+35` centipawns, `M3` for a mate in 3 moves, `-M2`
/// for being mated in 2, `-` for none.
pub fn score_text(s: Option<&proto::Score>) -> String {
    match s.and_then(|s| s.value) {
        Some(proto::score::Value::Cp(c)) => format!("{c:+}"),
        Some(proto::score::Value::Mate(n)) if n > 0 => format!("M{n}"),
        Some(proto::score::Value::Mate(n)) => format!("-M{}", n.unsigned_abs()),
        None => "-".into(),
    }
}

/// The scale of the answer's win probability (the audit's own when the answer has none).
pub fn win_probability_scale(answer: &proto::AuditGameResponse) -> f64 {
    answer
        .summary
        .as_ref()
        .and_then(|s| s.parameters.as_ref())
        .map(|p| p.win_probability_scale)
        .filter(|k| k.is_finite() && *k > 0.0)
        .unwrap_or(audit::WP_SCALE)
}

/// Red's (Cho's) win probability after the ply: the played move's score, the mover's
/// view, turned to Red's.
pub fn red_win_probability(p: &proto::AuditPly, scale: f64) -> f64 {
    let cp = centipawns(p.played_score.as_ref()).unwrap_or(0);
    let wp = 1.0 / (1.0 + (-scale * f64::from(cp)).exp());
    if p.mover == proto::Player::Black as i32 { 1.0 - wp } else { wp }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(moves: &[&str]) -> AuditedGame {
        let position = proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ..Default::default()
        };
        AuditedGame::new(&position, 0, &[], None).expect("a legal game")
    }

    #[test]
    fn boards_are_those_before_the_asked_moves() {
        let g = game(&["h2e2", "h9g7", "h0g2"]);
        let boards = g.boards_before(&[0, 2, 2, 7]);
        assert_eq!(boards.iter().map(|b| b.0).collect::<Vec<_>>(), vec![0, 2]);
        let at =
            |b: &Board, sq: &str| b.piece_at(crate::rules::types::Square::parse(sq).unwrap()).map(|p| p.fen_char());
        assert_eq!((at(&boards[0].1, "h2"), at(&boards[0].1, "e2")), (Some('C'), None));
        assert_eq!(
            (at(&boards[1].1, "e2"), at(&boards[1].1, "g7"), at(&boards[1].1, "h0")),
            (Some('C'), Some('n'), Some('N'))
        );
        assert_eq!(g.result, "Unfinished: the moves end with no result");
    }

    #[test]
    fn an_answer_of_another_game_is_refused() {
        let g = game(&["h2e2", "h9g7"]);
        let ply =
            |index: u32, mv: &str| proto::AuditPly { move_index: index, played_move: mv.into(), ..Default::default() };
        let answer = |plies| proto::AuditGameResponse { plies, summary: None };
        assert_eq!(g.check(&answer(vec![ply(0, "h2e2"), ply(1, "h9g7")])), Ok(()));
        assert!(g.check(&answer(vec![ply(1, "b9c7")])).unwrap_err().contains("give the game that was audited"));
        assert!(g.check(&answer(vec![ply(2, "h0g2")])).unwrap_err().contains("past the game's 2 moves"));
    }

    #[test]
    fn scores_and_sides_read_as_the_audit_counts_them() {
        let mate = proto::Score { value: Some(proto::score::Value::Mate(-2)) };
        assert_eq!(centipawns(Some(&mate)), Some(-(audit::MATE_CP - 2)));
        assert_eq!(score_text(Some(&mate)), "-M2");
        assert_eq!(score_text(Some(&proto::Score { value: Some(proto::score::Value::Cp(35)) })), "+35");
        let black_ahead = proto::AuditPly {
            mover: proto::Player::Black as i32,
            played_score: Some(proto::Score { value: Some(proto::score::Value::Cp(300)) }),
            ..Default::default()
        };
        assert!(red_win_probability(&black_ahead, audit::WP_SCALE) < 0.3);
        assert_eq!(side_name(Variant::Janggi, proto::Player::Red as i32), "Cho");
    }
}
