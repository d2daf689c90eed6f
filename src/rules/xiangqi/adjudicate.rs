//! Adjudication of Xiangqi game records under a named, versioned rule set.
//!
//! Precedence when several endings meet at one ply: the position on the board first
//! (checkmate, stalemate), then repetition (perpetual check, repetition draw), then
//! insufficient material, then the move limit, then off-board events (resignation,
//! timeout, agreed draw) recorded at that ply. The earliest ply that ends the game
//! decides; moves after it are counted, not judged.

use crate::rules::Status;
use crate::rules::history::Game;
use crate::rules::outcome::{Event, EventKind, GameResult, Ruling, Termination};
use crate::rules::types::{Color, Move};

use super::handicap::Handicap;
use super::{IllegalReason, Position};

/// A named and versioned set of rules. A version never changes meaning; a new reading
/// gets a new version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// The simplified online rules: perpetual check loses at the third repetition,
    /// every other repetition draws, 60 moves each without capture draw, no attacking
    /// piece on either side draws.
    SimplifiedV1,
}

impl RuleSet {
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::SimplifiedV1 => "SIMPLIFIED_V1",
        }
    }

    /// Plies without a capture after which the game is drawn.
    pub const fn move_limit_plies(self) -> u32 {
        match self {
            RuleSet::SimplifiedV1 => 120,
        }
    }
}

/// A record that cannot be judged because one of its moves is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalRecord {
    /// 0-based index of the illegal move in the record.
    pub index: usize,
    pub mv: Move,
    pub reason: IllegalReason,
}

/// Replays a record and judges it. Every move is checked; moves after the end are
/// still checked for legality (so a forged record is caught) but do not change the
/// ruling.
pub fn adjudicate(start: &Position, moves: &[Move], rules: RuleSet, events: &[Event]) -> Result<Ruling, IllegalRecord> {
    adjudicate_with_handicap(start, &Handicap::default(), moves, rules, events)
}

/// [`adjudicate`] for a game played under the rules of a handicap.
pub fn adjudicate_with_handicap(
    start: &Position,
    handicap: &Handicap,
    moves: &[Move],
    rules: RuleSet,
    events: &[Event],
) -> Result<Ruling, IllegalRecord> {
    let mut game = Game::with_handicap(start.clone(), handicap.clone());
    let mut ruling: Option<Ruling> = judge_position(&game, rules).or_else(|| judge_events(&game, events));
    for (index, &mv) in moves.iter().enumerate() {
        if let Some(reason) = game.explain_illegal(mv) {
            return Err(IllegalRecord { index, mv, reason });
        }
        game.play_unchecked(mv);
        if ruling.is_none() {
            ruling = judge_position(&game, rules).or_else(|| judge_events(&game, events));
        }
    }
    Ok(match ruling {
        Some(mut r) => {
            r.moves_after_end = moves.len() - r.decided_at_ply;
            r
        }
        None => Ruling::ongoing(moves.len()),
    })
}

/// Judges the game as it stands after its last ply, by the board and its history.
pub fn judge_position(game: &Game, rules: RuleSet) -> Option<Ruling> {
    let pos = game.position();
    let ply = game.plies().len();
    let mover = pos.turn();
    match pos.status() {
        Status::Ongoing => {}
        status => {
            let termination = if status == Status::Checkmate { Termination::Checkmate } else { Termination::Stalemate };
            return Some(decided(
                ply,
                GameResult::Win(mover.other()),
                termination,
                Some(mover),
                format!("{} has no legal move ({}) and loses", mover.name(), status.name()),
            ));
        }
    }
    if let Some(r) = judge_repetition(game) {
        return Some(r);
    }
    if pos.attacking_pieces(Color::Red) == 0 && pos.attacking_pieces(Color::Black) == 0 {
        return Some(decided(
            ply,
            GameResult::Draw,
            Termination::InsufficientMaterial,
            None,
            "neither side has a chariot, horse, cannon or pawn left".into(),
        ));
    }
    if pos.halfmove_clock() >= rules.move_limit_plies() {
        return Some(decided(
            ply,
            GameResult::Draw,
            Termination::MoveLimit,
            None,
            format!("{} plies without a capture", pos.halfmove_clock()),
        ));
    }
    None
}

/// Third occurrence of the current position: perpetual check loses, else a draw. The
/// cycle is the stretch since the previous occurrence.
fn judge_repetition(game: &Game) -> Option<Ruling> {
    let ply = game.plies().len();
    let key = game.position().key();
    let occurrences: Vec<usize> = (game.capture_horizon()..=ply).filter(|&i| game.key_before(i) == key).collect();
    if occurrences.len() < 3 {
        return None;
    }
    let previous = occurrences[occurrences.len() - 2];
    // Plies previous+1 ..= ply form the cycle; ply i was played by the side to move
    // before it.
    let cycle = previous + 1..=ply;
    let checks_by = |color: Color| {
        let mine: Vec<usize> = cycle.clone().filter(|&i| game.mover_of_ply(i) == color).collect();
        let all = !mine.is_empty() && mine.iter().all(|&i| game.plies()[i - 1].gave_check);
        (all, mine)
    };
    let (red_all, red_plies) = checks_by(Color::Red);
    let (black_all, black_plies) = checks_by(Color::Black);
    let mut r = match (red_all, black_all) {
        (true, true) => decided(
            ply,
            GameResult::Draw,
            Termination::MutualPerpetualCheck,
            None,
            "third repetition with both sides checking on every move: draw".into(),
        ),
        (true, false) | (false, true) => {
            let culprit = if red_all { Color::Red } else { Color::Black };
            let mut r = decided(
                ply,
                GameResult::Win(culprit.other()),
                Termination::PerpetualCheck,
                Some(culprit),
                format!("third repetition with {} checking on every move: perpetual check loses", culprit.name()),
            );
            r.checking_plies = if red_all { red_plies } else { black_plies };
            r
        }
        (false, false) => decided(
            ply,
            GameResult::Draw,
            Termination::RepetitionDraw,
            None,
            "the same position with the same side to move for the third time".into(),
        ),
    };
    r.cycle = Some((previous + 1, ply));
    Some(r)
}

fn judge_events(game: &Game, events: &[Event]) -> Option<Ruling> {
    let ply = game.plies().len();
    let e = events.iter().find(|e| e.ply == ply)?;
    Some(match e.kind {
        EventKind::Resign(c) => {
            decided(ply, GameResult::Win(c.other()), Termination::Resignation, Some(c), format!("{} resigns", c.name()))
        }
        EventKind::Timeout(c) => decided(
            ply,
            GameResult::Win(c.other()),
            Termination::Timeout,
            Some(c),
            format!("{} ran out of time", c.name()),
        ),
        EventKind::DrawAgreed => decided(ply, GameResult::Draw, Termination::AgreedDraw, None, "draw agreed".into()),
    })
}

fn decided(
    ply: usize,
    result: GameResult,
    termination: Termination,
    at_fault: Option<Color>,
    explanation: String,
) -> Ruling {
    Ruling {
        result,
        termination: Some(termination),
        at_fault,
        decided_at_ply: ply,
        cycle: None,
        checking_plies: Vec::new(),
        moves_after_end: 0,
        explanation,
    }
}
