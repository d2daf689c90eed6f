//! Draw offers in Three Kingdoms judged by the search at fixed depths: the kingdom to
//! move compares its value with its strongest rival's at the deepest depth that every
//! kingdom's search completed, a multiple of the number of kingdoms in play.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chuhe::rules::three_kingdoms::outcome::Game;
use chuhe::rules::three_kingdoms::{Kingdom, MoveList, Position};
use chuhe::search::draw_offer::{DrawAnswer, LEVEL_MARGIN};
use chuhe::search::three_kingdoms::{DrawVerdict, Limits, WIN, WIN_BOUND, judge_draw_offer};
use chuhe::search::tt::TranspositionTable;

/// Three bare generals on the same points of their halves: every kingdom's value is 0.
const BARE: &str = "3K5/9/9/9/9 3K5/9/9/9/9 3K5/9/9/9/9 R RGB - 0 1";
/// Wu defeated with nothing left; Shu's and Wei's bare generals.
const BARE_TWO: &str = "3K5/9/9/9/9 9/9/9/9/9 3K5/9/9/9/9 R RRB - 0 1";
/// Shu, a bare general, against Wu's and Wei's chariots.
const LOST: &str = "3K5/9/9/9/9 R2K5/9/9/9/9 R2K5/9/9/9/9 R RGB - 0 1";
/// Shu's two chariots against Wu's and Wei's bare generals.
const AHEAD: &str = "R2K4R/9/9/9/9 3K5/9/9/9/9 3K5/9/9/9/9 R RGB - 0 1";
/// Wu is out; Shu's Bh3-Bh1 leaves Wei without a legal move, and Shu is the last
/// kingdom (the position of `three_kingdoms.rs`).
const WON: &str = "1bP1K5/9/9/9/9 9/9/9/9/9 3K5/8rR/7rR1/9/9 R RRB F 0 1";

fn judge(text: &str, depth: u32) -> DrawVerdict {
    let game = Game::new(Position::from_text(text).unwrap());
    let tt = TranspositionTable::new(4);
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    judge_draw_offer(&game, limits, &tt, &AtomicBool::new(false), None)
}

#[test]
fn level_and_quiet_is_accepted_at_a_multiple_of_the_kingdoms_in_play() {
    for (limit, depth) in [(2, 0), (3, 3), (5, 3), (6, 6)] {
        let verdict = judge(BARE, limit);
        assert_eq!(verdict, DrawVerdict { answer: DrawAnswer::LevelAndQuiet, score: 0, depth }, "depth {limit}");
        assert!(verdict.answer.accept());
    }
    // Two kingdoms in play: depths in steps of two.
    for (limit, depth) in [(1, 0), (3, 2), (5, 4)] {
        let verdict = judge(BARE_TWO, limit);
        assert_eq!(verdict, DrawVerdict { answer: DrawAnswer::LevelAndQuiet, score: 0, depth }, "depth {limit}");
    }
}

#[test]
fn a_kingdom_ahead_declines_and_one_behind_accepts() {
    let ahead = judge(AHEAD, 3);
    assert_eq!((ahead.answer, ahead.depth), (DrawAnswer::StandsBetter, 3));
    assert!(ahead.score > 2 * LEVEL_MARGIN, "{ahead:?}");
    assert!(!ahead.answer.accept());
    let behind = judge(LOST, 3);
    assert_eq!((behind.answer, behind.depth), (DrawAnswer::StandsWorse, 3));
    assert!(behind.score < -2 * LEVEL_MARGIN && behind.score > -WIN_BOUND, "{behind:?}");
    assert!(behind.answer.accept());
    // Searched deeper the loss is proven, and the score tells it.
    let lost = judge(LOST, 6);
    assert_eq!(lost.answer, DrawAnswer::StandsWorse);
    assert!(lost.score < -WIN_BOUND, "{lost:?}");
}

#[test]
fn a_won_game_declines_with_the_win_and_its_distance() {
    // The win one ply away is seen at depth 2, the first depth of two kingdoms in play.
    for limit in [2, 4] {
        let verdict = judge(WON, limit);
        assert_eq!(
            verdict,
            DrawVerdict { answer: DrawAnswer::StandsBetter, score: WIN - 1, depth: 2 },
            "depth {limit}"
        );
    }
}

fn judge_with(text: &str, limits: Limits, deadline: Option<Instant>) -> DrawVerdict {
    let game = Game::new(Position::from_text(text).unwrap());
    let tt = TranspositionTable::new(4);
    judge_draw_offer(&game, limits, &tt, &AtomicBool::new(false), deadline)
}

#[test]
fn without_a_depth_the_search_stops_at_its_deepest_ply() {
    // Bare generals cost few nodes a depth; the search's bound is 88 plies (its 96 less
    // a margin), and the deepest multiple of three within it is 87.
    let limits = Limits { nodes: Some(300_000), ..Limits::default() };
    let verdict = judge_with(BARE, limits, None);
    assert_eq!(verdict, DrawVerdict { answer: DrawAnswer::LevelAndQuiet, score: 0, depth: 87 });
}

#[test]
fn a_deadline_far_off_leaves_the_verdict_as_it_is() {
    // The time left is shared among the kingdoms' searches; a minute is far more than
    // these depths need.
    let deadline = Some(Instant::now() + Duration::from_secs(60));
    for (text, limit) in [(BARE, 3), (WON, 4), (AHEAD, 3), (LOST, 6)] {
        let limits = Limits { depth: Some(limit), ..Limits::default() };
        assert_eq!(judge_with(text, limits, deadline), judge(text, limit), "{text}");
    }
}

#[test]
fn a_budget_below_one_node_a_kingdom_completes_nothing() {
    // The node budget is shared among the kingdoms' searches: two nodes give each of
    // three none, so no depth completes and no value is known (0 for every kingdom),
    // while three nodes each complete depth 0 and see Shu's two chariots.
    let starved = judge_with(AHEAD, Limits { nodes: Some(2), ..Limits::default() }, None);
    assert_eq!(starved, DrawVerdict { answer: DrawAnswer::LevelAndQuiet, score: 0, depth: 0 });
    let fed = judge_with(AHEAD, Limits { nodes: Some(9), ..Limits::default() }, None);
    assert_eq!((fed.answer, fed.depth), (DrawAnswer::StandsBetter, 0));
}

/// Shu's chariot on Ra4 can take Wu's soldier on Re4 along Shu's fourth rank; no
/// general is attacked (the three generals stand on d1 of their halves, off the lines
/// of the chariot and the soldier's steps).
const CAPTURE_TO_MAKE: &str = "3K5/9/9/R3gP4/9 3K5/9/9/9/9 3K5/9/9/9/9 R RGB - 0 1";
/// Wei's general on Be2 faces Shu's on Re1 along the triangle's edge (the position of
/// `three_kingdoms.rs`), so each attacks the other: Wei, to move, is in check, and its
/// bare general has no capture.
const GENERAL_ATTACKED: &str = "4K4/9/9/9/9 3K5/9/9/9/9 9/4K4/9/9/9 B RGB - 0 1";

#[test]
fn level_but_not_quiet_declines_when_either_half_of_quiet_fails() {
    // A node budget below one node a kingdom completes no depth: every value is 0, so
    // the standing is level whatever the pieces, and the answer rests on quietness
    // alone (as for the bare generals in `a_budget_below_one_node_a_kingdom_completes_nothing`).
    let starved = Limits { nodes: Some(2), ..Limits::default() };
    let captures = |text: &str| {
        let pos = Position::from_text(text).unwrap();
        let mut list = MoveList::new();
        pos.legal_captures(&mut list);
        list.as_slice().iter().map(|m| m.to_string()).collect::<Vec<_>>()
    };
    let attacked = |text: &str| {
        let pos = Position::from_text(text).unwrap();
        Kingdom::ALL.into_iter().filter(|&k| !pos.attackers_of_general(k).is_empty()).collect::<Vec<_>>()
    };
    assert_eq!((captures(CAPTURE_TO_MAKE), attacked(CAPTURE_TO_MAKE)), (vec!["Ra4-Re4".to_string()], vec![]));
    assert_eq!((captures(GENERAL_ATTACKED), attacked(GENERAL_ATTACKED)), (vec![], vec![Kingdom::Shu, Kingdom::Wei]));
    for text in [CAPTURE_TO_MAKE, GENERAL_ATTACKED] {
        let verdict = judge_with(text, starved, None);
        assert_eq!(verdict, DrawVerdict { answer: DrawAnswer::NotQuiet, score: 0, depth: 0 }, "{text}");
        assert!(!verdict.answer.accept());
    }
    let quiet = judge_with(BARE, starved, None);
    assert_eq!(quiet.answer, DrawAnswer::LevelAndQuiet);
}

/// A general, a horse and three soldiers each, all at home: a few plies cost little, but
/// no search reaches its deepest ply in a second or two, and no one is near a win.
const HORSES_AND_SOLDIERS: &str = "1N2K4/9/9/P3P3P/9 1N2K4/9/9/P3P3P/9 1N2K4/9/9/P3P3P/9 R RGB - 0 1";

#[test]
fn the_deadline_is_shared_among_the_kingdoms_and_spent() {
    // Each kingdom's search gets an equal part of the time still left when it starts,
    // so the last one runs until the deadline itself, and each has time for a depth of
    // three plies (one move of every kingdom). A search does not end before its
    // deadline here: no depth up to the search's bound is reached, and no win is near.
    let budget = Duration::from_millis(1500);
    let start = Instant::now();
    let verdict = judge_with(HORSES_AND_SOLDIERS, Limits::default(), Some(start + budget));
    let elapsed = start.elapsed();
    assert!(elapsed >= budget, "the time left unspent: {elapsed:?} of {budget:?}");
    assert!(elapsed < 2 * budget, "the deadline overrun: {elapsed:?} of {budget:?}");
    assert!(verdict.depth >= 3 && verdict.depth.is_multiple_of(3), "{verdict:?}");
}
