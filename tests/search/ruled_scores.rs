//! Games decided by a rule, not by mate, scored by their exact distance: a win by the
//! rules scores 20,000 less the plies to it (below the mate range), a loss the
//! opposite, so a nearer win is worth more and a nearer loss less. The values are worked
//! out by hand from lines that are forced.

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::janggi;
use chuhe::rules::types::Move;
use chuhe::rules::xiangqi;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params, Score, SearchGame, UnderRules, search};

/// What a game won by the rules scores at the ply it ends on.
const RULED_WIN: i32 = 20_000;

fn centipawns<G: SearchGame>(game: &G, params: &Params) -> i32 {
    let tt = TranspositionTable::new(1);
    let outcome = search(game, params, &tt, &AtomicBool::new(false), None, &mut |_| {});
    match outcome.report.lines[0].score {
        Score::Centipawns(c) => c,
        other => panic!("a game decided by the rules scored as {other:?}"),
    }
}

fn depth(d: u32) -> Params {
    Params { limits: Limits { depth: Some(d), ..Limits::default() }, ..Params::default() }
}

fn only(m: Move, d: u32) -> Params {
    Params { search_moves: vec![m], ..depth(d) }
}

fn mv(iccs: &str) -> Move {
    Move::parse_iccs(iccs).unwrap()
}

/// The forced perpetual check of `cycles.rs`: every Red move but the checks lets Black
/// mate at once, and Black's only move is the general's step, so Red's loss by the rules
/// comes exactly when the position first repeats.
#[test]
fn a_perpetual_check_loses_at_the_ply_the_position_repeats() {
    let start = fen::xiangqi("5k3/8R/5a3/2c6/r8/9/4p4/9/3p1p3/4K4 w - - 0 1").unwrap();
    for rules in [xiangqi::adjudicate::RuleSet::AsianV1, xiangqi::adjudicate::RuleSet::SimplifiedV1] {
        let mut game = xiangqi::Game::new(start.clone());
        // The start comes back four plies on.
        assert_eq!(centipawns(&UnderRules { game: &game, rules }, &depth(6)), -(RULED_WIN - 4), "{}", rules.name());
        // After a check and the step, the start (in the game's history) is two plies on.
        game.play(mv("i8i9")).unwrap();
        game.play(mv("f9f8")).unwrap();
        assert_eq!(centipawns(&UnderRules { game: &game, rules }, &depth(6)), -(RULED_WIN - 2), "{}", rules.name());
        // With Black to move, the repetition two plies on is Black's win.
        game.play(mv("i9i8")).unwrap();
        assert_eq!(centipawns(&UnderRules { game: &game, rules }, &depth(5)), RULED_WIN - 1, "{}", rules.name());
        // The cycle played out: the game stands at the start again, which is no reason for
        // the search to stop at its root; Red's check comes back to the game's second
        // position one ply on.
        game.play(mv("f8f9")).unwrap();
        let under = UnderRules { game: &game, rules };
        assert_eq!(centipawns(&under, &depth(6)), -(RULED_WIN - 1), "{}", rules.name());
        let outcome =
            search(&under, &depth(6), &TranspositionTable::new(1), &AtomicBool::new(false), None, &mut |_| {});
        assert_eq!(outcome.best, Some(mv("i8i9")), "{}", rules.name());
    }
}

/// Janggi's tournament rules end the game on the count after two passes in a row; Han
/// leads from the start (73.5 to 72).
#[test]
fn a_count_scores_its_winner_by_the_plies_to_it() {
    let rules = janggi::adjudicate::RuleSet::TournamentV1;
    let mut game = janggi::Game::new(janggi::Position::startpos());
    game.play(Move::PASS).unwrap();
    // Han's pass back ends the game one ply on, won.
    assert_eq!(centipawns(&UnderRules { game: &game, rules }, &only(Move::PASS, 1)), RULED_WIN - 1);
    // After the second pass the game has ended: Cho, to move, has lost.
    game.play(Move::PASS).unwrap();
    assert_eq!(centipawns(&UnderRules { game: &game, rules }, &depth(1)), -RULED_WIN);

    // Han passed first: Cho's pass back ends it one ply on, lost for Cho; then Han, to
    // move, has won.
    let mut game = janggi::Game::new(janggi::Position::startpos());
    game.play(mv("a3a4")).unwrap();
    game.play(Move::PASS).unwrap();
    assert_eq!(centipawns(&UnderRules { game: &game, rules }, &only(Move::PASS, 1)), -(RULED_WIN - 1));
    game.play(Move::PASS).unwrap();
    assert_eq!(centipawns(&UnderRules { game: &game, rules }, &depth(1)), RULED_WIN);
}
