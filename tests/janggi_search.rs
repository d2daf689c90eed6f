//! The search on Janggi: mates found and proven by brute force (passes included), legal
//! answers, two passes scored as a draw.

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::Status;
use chuhe::rules::janggi::{Game, Position};
use chuhe::rules::types::{Move, MoveList};
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params, Score, search};

/// After `m`, is the opponent checkmated?
fn mates(pos: &mut Position, m: Move) -> bool {
    let undo = pos.play_unchecked(m);
    let mate = pos.status() == Status::Checkmate;
    pos.undo(m, undo);
    mate
}

/// Does `m` force checkmate within `n` moves of the mover (`n >= 1`)? Plain minimax over
/// the legal moves, passes included; a game ended by two passes is not a win.
fn forces_mate(pos: &mut Position, m: Move, n: u32) -> bool {
    let undo = pos.play_unchecked(m);
    let result = match pos.status() {
        Status::Checkmate => true,
        Status::Ended | Status::Stalemate => false,
        Status::Ongoing if n <= 1 => false,
        Status::Ongoing => {
            let mut replies = MoveList::new();
            pos.legal_moves(&mut replies);
            replies.iter().all(|&r| {
                let undo = pos.play_unchecked(r);
                let mut ours = MoveList::new();
                pos.legal_moves(&mut ours);
                let wins = ours.iter().any(|&k| forces_mate(pos, k, n - 1));
                pos.undo(r, undo);
                wins
            })
        }
    };
    pos.undo(m, undo);
    result
}

fn analyse(game: &Game, depth: u32) -> chuhe::search::Outcome {
    let tt = TranspositionTable::new(8);
    let stop = AtomicBool::new(false);
    let params = Params { limits: Limits { depth: Some(depth), ..Limits::default() }, ..Params::default() };
    search(game, &params, &tt, &stop, None, &mut |_| {})
}

#[test]
fn finds_mate_in_one() {
    let start = fen::janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1").unwrap();
    let outcome = analyse(&Game::new(start.clone()), 4);
    let best = outcome.best.expect("a move");
    let mut pos = start;
    assert!(mates(&mut pos, best), "{best} does not mate");
    assert_eq!(outcome.report.lines[0].score, Score::Mate(1));
}

#[test]
fn finds_mate_in_two_and_no_mate_in_one_exists() {
    let start = fen::janggi("3bkb3/2n6/9/9/9/7R1/9/9/9/3K5 w - - 0 1").unwrap();
    let mut pos = start.clone();
    let mut all = MoveList::new();
    pos.legal_moves(&mut all);
    assert!(!all.iter().any(|&m| mates(&mut pos, m)), "no mate in one");
    let outcome = analyse(&Game::new(start), 6);
    assert_eq!(outcome.report.lines[0].score, Score::Mate(2));
    let best = outcome.best.expect("a move");
    assert!(forces_mate(&mut pos, best, 2), "{best} does not force mate in two");
}

#[test]
fn best_moves_are_legal_along_a_game() {
    let mut game = Game::new(Position::startpos());
    for _ in 0..8 {
        let outcome = analyse(&game, 3);
        let best = outcome.best.expect("a move");
        assert!(game.is_legal(best), "{best} is illegal");
        for &m in &outcome.report.lines[0].pv {
            assert!(m.is_pass() || m.from() != m.to());
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
