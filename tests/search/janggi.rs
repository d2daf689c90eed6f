//! The search on Janggi: legal answers, two passes scored as a draw, the rule sets'
//! judgement of cycles and counts. (Its mates are in the mate set, `mate_set.rs`.)

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::janggi::adjudicate::RuleSet;
use chuhe::rules::janggi::{Game, Position};
use chuhe::rules::types::Move;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params, Score, Searchable, UnderRules, search};

fn analyse(game: &Game, depth: u32) -> chuhe::search::Outcome {
    let tt = TranspositionTable::new(8);
    let stop = AtomicBool::new(false);
    let params = Params { limits: Limits { depth: Some(depth), ..Limits::default() }, ..Params::default() };
    search(game, &params, &tt, &stop, None, &mut |_| {})
}

#[test]
fn best_moves_are_legal_along_a_game() {
    let mut game = Game::new(Position::startpos());
    for _ in 0..8 {
        let outcome = analyse(&game, 3);
        let best = outcome.best.expect("a move");
        assert!(game.is_legal(best), "{best} is illegal");
        // The principal variation is a legal line from the game's position.
        let mut pos = game.position().clone();
        for &m in &outcome.report.lines[0].pv {
            assert!(pos.is_legal(m), "pv {:?}: {m} is illegal", outcome.report.lines[0].pv);
            pos.play_unchecked(m);
        }
        game.play(best).unwrap();
    }
}

#[test]
fn a_second_pass_scores_as_a_draw() {
    // Han is a chariot down and Cho just passed: passing back ends the game in a draw,
    // which is all Han can hope for; the search sees it.
    let start = fen::janggi("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 1").unwrap();
    let mut game = Game::new(start);
    game.play(Move::PASS).unwrap();
    let outcome = analyse(&game, 4);
    assert_eq!(outcome.best, Some(Move::PASS));
    assert_eq!(outcome.report.lines[0].score, Score::Centipawns(0));
    // After two passes there is nothing left to search.
    game.play(Move::PASS).unwrap();
    let outcome = analyse(&game, 4);
    assert_eq!(outcome.best, None);
    assert_eq!(outcome.report.lines[0].score, Score::Centipawns(0));
}

#[test]
fn only_a_pass_that_answers_a_pass_may_end_the_game() {
    // The search may prune a pass like a quiet move, but not the one that would end the
    // game (a draw under the casual rules, the count under the tournament rules).
    let mut pos = Position::startpos();
    assert!(!pos.pass_may_end_game());
    pos.play(Move::PASS).unwrap();
    assert!(pos.pass_may_end_game());
    pos.play(Move::parse_iccs("a6a5").unwrap()).unwrap();
    assert!(!pos.pass_may_end_game());
}

fn analyse_under(game: &Game, rules: RuleSet, params: &Params) -> chuhe::search::Outcome {
    let tt = TranspositionTable::new(1);
    search(&UnderRules { game, rules }, params, &tt, &AtomicBool::new(false), None, &mut |_| {})
}

fn only(m: Move, depth: u32) -> Params {
    Params { search_moves: vec![m], limits: Limits { depth: Some(depth), ..Limits::default() }, ..Params::default() }
}

#[test]
fn perpetual_check_draws_casual_and_loses_in_tournament_search() {
    // Cho's chariot checks from the a-file as Han's general steps between f9 and f8; the
    // next check completes the cycle.
    let start = fen::janggi("5k3/9/R8/9/9/9/9/9/9/3K5 w - - 0 1").unwrap();
    let mut game = Game::new(start);
    for m in "a7a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9".split_whitespace() {
        game.play(Move::parse_iccs(m).unwrap()).unwrap();
    }
    let check = Move::parse_iccs("a8a9").unwrap();
    let casual = analyse_under(&game, RuleSet::CasualV1, &only(check, 2));
    assert_eq!(casual.report.lines[0].score, Score::Centipawns(0));
    let tournament = analyse_under(&game, RuleSet::TournamentV1, &only(check, 2));
    assert!(matches!(tournament.report.lines[0].score, Score::Centipawns(c) if c < -10_000));
}

#[test]
fn a_second_pass_goes_to_counting_under_tournament_rules() {
    // From the start Han counts 73.5 against Cho's 72: after Cho's pass, Han's pass wins
    // on points under the tournament rules and only draws under the casual rules.
    let mut game = Game::new(Position::startpos());
    game.play(Move::PASS).unwrap();
    let casual = analyse_under(&game, RuleSet::CasualV1, &only(Move::PASS, 1));
    assert_eq!(casual.report.lines[0].score, Score::Centipawns(0));
    let tournament = analyse_under(&game, RuleSet::TournamentV1, &only(Move::PASS, 1));
    assert!(matches!(tournament.report.lines[0].score, Score::Centipawns(c) if c > 10_000));
    // So Cho, behind on points, must not pass: Han would pass back and win the count.
    let mut cho = Game::new(Position::startpos());
    cho.play(Move::PASS).unwrap();
    cho.play(Move::parse_iccs("a6a5").unwrap()).unwrap();
    let tournament = analyse_under(&cho, RuleSet::TournamentV1, &only(Move::PASS, 2));
    assert!(matches!(tournament.report.lines[0].score, Score::Centipawns(c) if c < -10_000));
    let casual = analyse_under(&cho, RuleSet::CasualV1, &only(Move::PASS, 2));
    assert!(matches!(casual.report.lines[0].score, Score::Centipawns(c) if c > -10_000));
}

/// Under the tournament rules two passes end the game on the count, which Han leads from
/// the start (73.5 to 72). The count goes to its winner whichever side passed last, and
/// a count already decided scores beyond one a pass away: a nearer win is better, a
/// nearer loss worse.
#[test]
fn a_count_goes_to_its_winner_and_is_scored_by_its_distance() {
    let depth = |d: u32| Params { limits: Limits { depth: Some(d), ..Limits::default() }, ..Params::default() };
    let count =
        |game: &Game, params: &Params| match analyse_under(game, RuleSet::TournamentV1, params).report.lines[0].score {
            Score::Centipawns(c) => c,
            other => panic!("a count scored as {other:?}"),
        };
    let a3a4 = Move::parse_iccs("a3a4").unwrap();

    // Han passed first: Cho's pass back ends the game on a count Han wins.
    let mut cho = Game::new(Position::startpos());
    cho.play(a3a4).unwrap();
    cho.play(Move::PASS).unwrap();
    let cho_passes = count(&cho, &only(Move::PASS, 1));
    assert!(cho_passes < -10_000, "Cho's pass back scores {cho_passes}");
    let free = analyse_under(&cho, RuleSet::TournamentV1, &depth(3));
    assert!(free.best.is_some_and(|m| m != Move::PASS), "Cho passes: {:?}", free.best);
    // After both passes Han is to move and has won.
    let mut han_won = cho.clone();
    han_won.play(Move::PASS).unwrap();
    let han_decided = count(&han_won, &depth(1));

    // Cho passed first: Han's pass back wins the count.
    let mut han = Game::new(Position::startpos());
    han.play(Move::PASS).unwrap();
    let han_passes = count(&han, &only(Move::PASS, 1));
    assert!(han_passes > 10_000, "Han's pass back scores {han_passes}");
    // After both passes Cho is to move and has lost.
    let mut cho_lost = han.clone();
    cho_lost.play(Move::PASS).unwrap();
    let cho_decided = count(&cho_lost, &depth(1));

    assert!(han_decided > han_passes, "a decided win {han_decided}, a win a pass away {han_passes}");
    assert!(cho_decided < cho_passes, "a decided loss {cho_decided}, a loss a pass away {cho_passes}");
}
