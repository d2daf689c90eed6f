//! How a Three Kingdoms game ends: the last kingdom with a general wins; the same
//! position for the third time, or 180 plies in a row with no capture and no defeat,
//! is a draw; a kingdom in play that resigns, runs out of time or leaves loses and
//! ends the game, the others sharing the victory when two remain.
//!
//! [`Game`] keeps the history a ruling needs; [`adjudicate`] judges a record with its
//! off-board events. At one ply the board (a kingdom left alone) decides before
//! repetition, repetition before the 180-ply rule, and that before off-board events;
//! the earliest ending decides.

use super::geometry::Kingdom;
use super::{Kind, Move, Position, Status};

/// Plies in a row with no capture and no defeat that draw the game.
pub const QUIET_PLY_LIMIT: u32 = 180;

/// How many times a position must stand on the board for the repetition draw.
pub const REPETITIONS: usize = 3;

/// The result of a game as it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The game goes on.
    Ongoing,
    /// This kingdom won alone.
    Win(Kingdom),
    /// Two kingdoms share the victory (the third resigned, timed out or left).
    SharedWin(Kingdom, Kingdom),
    /// A draw.
    Draw,
}

/// What ended the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// One kingdom is left with a general.
    LastGeneral,
    /// The same position for the third time.
    Repetition,
    /// 180 plies without a capture or a defeat.
    QuietPlyLimit,
    /// A kingdom resigned.
    Resignation,
    /// A kingdom ran out of time.
    Timeout,
    /// A kingdom left the table.
    Left,
}

impl Termination {
    /// The termination in words.
    pub const fn name(self) -> &'static str {
        match self {
            Termination::LastGeneral => "last general",
            Termination::Repetition => "repetition",
            Termination::QuietPlyLimit => "180 plies without capture or defeat",
            Termination::Resignation => "resignation",
            Termination::Timeout => "timeout",
            Termination::Left => "left the table",
        }
    }

    /// The termination's stable identifier, for machines (`last-general`,
    /// `quiet-ply-limit`); never changes once published.
    pub const fn id(self) -> &'static str {
        match self {
            Termination::LastGeneral => "last-general",
            Termination::Repetition => "repetition",
            Termination::QuietPlyLimit => "quiet-ply-limit",
            Termination::Resignation => "resignation",
            Termination::Timeout => "timeout",
            Termination::Left => "left-the-table",
        }
    }
}

/// Something that happens off the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// This kingdom resigns.
    Resign(Kingdom),
    /// This kingdom runs out of time.
    Timeout(Kingdom),
    /// This kingdom leaves the table.
    Leave(Kingdom),
}

impl EventKind {
    /// The kingdom the event is about.
    pub const fn kingdom(self) -> Kingdom {
        match self {
            EventKind::Resign(k) | EventKind::Timeout(k) | EventKind::Leave(k) => k,
        }
    }
}

/// An event off the board and when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The event happened after this many plies of the record.
    pub ply: usize,
}

/// How a kingdom was defeated on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefeatCause {
    /// Its general was captured.
    GeneralCaptured,
    /// It had no legal move on its turn.
    NoLegalMove,
}

/// A kingdom defeated on the board, and who took its army.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Defeat {
    /// The defeated kingdom.
    pub kingdom: Kingdom,
    /// The kingdom that took its army.
    pub taken_by: Kingdom,
    /// How it was defeated.
    pub cause: DefeatCause,
    /// After this many plies of the record.
    pub ply: usize,
}

/// A Three Kingdoms game record: the one record type of every variant
/// ([`crate::rules::game::Game`]), with the defeats and the ending below.
pub type Game = crate::rules::game::Game<Position>;

/// One ply of a Three Kingdoms game.
pub type Ply = crate::rules::game::Ply<Position>;

/// What only a Three Kingdoms record answers: its defeats and how it ended.
impl Game {
    /// The defeats on the board so far, in order.
    pub fn defeats(&self) -> Vec<Defeat> {
        let mut out = Vec::new();
        for (i, ply) in self.plies().iter().enumerate() {
            if let Some(c) = ply.undo.captured()
                && c.kind() == Kind::General
            {
                out.push(Defeat {
                    kingdom: c.origin(),
                    taken_by: ply.mover,
                    cause: DefeatCause::GeneralCaptured,
                    ply: i + 1,
                });
            }
            // The mover of the ply moved last before each of these turns.
            for k in ply.undo.defeated_without_moves() {
                out.push(Defeat { kingdom: k, taken_by: ply.mover, cause: DefeatCause::NoLegalMove, ply: i + 1 });
            }
        }
        out
    }

    /// How the game has ended on the board, as it stands after its last ply: the
    /// result, the rule and an explanation; `None` while it goes on.
    pub fn ending(&self) -> Option<(GameResult, Termination, String)> {
        if let Status::Won(k) = self.position().status() {
            return Some((
                GameResult::Win(k),
                Termination::LastGeneral,
                format!("{k} is the last kingdom with a general"),
            ));
        }
        let seen = self.occurrences_of_current();
        if seen.len() >= REPETITIONS {
            let list: Vec<String> = seen.iter().map(|i| i.to_string()).collect();
            return Some((
                GameResult::Draw,
                Termination::Repetition,
                format!("the same position stood for the third time (after plies {})", list.join(", ")),
            ));
        }
        if self.position().quiet_plies() >= QUIET_PLY_LIMIT {
            return Some((
                GameResult::Draw,
                Termination::QuietPlyLimit,
                format!("{QUIET_PLY_LIMIT} plies in a row without a capture or a defeat"),
            ));
        }
        None
    }
}

/// A decided (or undecided) game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// The result.
    pub result: GameResult,
    /// What ended the game; `None` while it goes on.
    pub termination: Option<Termination>,
    /// The kingdom that resigned, timed out or left, for those endings.
    pub by: Option<Kingdom>,
    /// The game ended after this many plies (the record's length while it goes on).
    pub decided_at_ply: usize,
    /// Defeats on the board up to the end, in order.
    pub defeats: Vec<Defeat>,
    /// Moves of the record played after the game had ended.
    pub moves_after_end: usize,
    /// The ruling in words.
    pub explanation: String,
}

/// Why a Three Kingdoms record cannot be judged: the one record error of every variant
/// (moves and events named by their index, from 0).
pub type AdjudicationError = crate::rules::outcome::AdjudicationError<Move>;

/// Judges a record: the start position, the moves, and the off-board events.
///
/// An event by a kingdom already defeated changes nothing (it may leave the table).
/// Events at one ply are taken in the order given.
pub fn adjudicate(start: &Position, moves: &[Move], events: &[Event]) -> Result<Ruling, AdjudicationError> {
    for (index, e) in events.iter().enumerate() {
        if e.ply > moves.len() {
            let detail = format!("it happens after ply {}, past the end of the record", e.ply);
            return Err(AdjudicationError::BadEvent { index, detail });
        }
    }
    let mut game = Game::new(start.clone());
    let decided = |game: &Game, result, termination, by, explanation| Ruling {
        result,
        termination: Some(termination),
        by,
        decided_at_ply: game.plies().len(),
        defeats: game.defeats(),
        moves_after_end: moves.len() - game.plies().len(),
        explanation,
    };
    for ply in 0..=moves.len() {
        if ply > 0 {
            let (index, mv) = (ply - 1, moves[ply - 1]);
            if let Some(reason) = game.explain_illegal(mv) {
                return Err(AdjudicationError::IllegalMove { index, mv, reason });
            }
            game.play_unchecked(mv);
        }
        if let Some((result, termination, explanation)) = game.ending() {
            return Ok(decided(&game, result, termination, None, explanation));
        }
        for e in events.iter().filter(|e| e.ply == ply) {
            let k = e.kind.kingdom();
            if game.position().is_defeated(k) {
                continue;
            }
            let (termination, verb) = match e.kind {
                EventKind::Resign(_) => (Termination::Resignation, "resigned"),
                EventKind::Timeout(_) => (Termination::Timeout, "ran out of time"),
                EventKind::Leave(_) => (Termination::Left, "left the table"),
            };
            let others: Vec<Kingdom> = game.position().kingdoms_in_play().filter(|&o| o != k).collect();
            let (result, who) = match others.as_slice() {
                [a, b] => (GameResult::SharedWin(*a, *b), format!("{a} and {b} share the victory")),
                [a] => (GameResult::Win(*a), format!("{a} wins")),
                _ => (GameResult::Draw, "nobody is left".to_string()),
            };
            return Ok(decided(&game, result, termination, Some(k), format!("{k} {verb}: {who}")));
        }
    }
    Ok(Ruling {
        result: GameResult::Ongoing,
        termination: None,
        by: None,
        decided_at_ply: moves.len(),
        defeats: game.defeats(),
        moves_after_end: 0,
        explanation: "the game goes on".to_string(),
    })
}
