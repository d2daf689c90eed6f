//! PGN-style game records:
//!
//! ```text
//! [Event "Club championship"]
//! [Date "2024.05.01"]
//! [Red "Li"]
//! [Black "Wang"]
//! [Result "1-0"]
//! [Format "Chinese"]
//!
//! 1. 炮二平五 马8进7 2. 马二进三 {the usual reply} 车9平8 1-0
//! ```
//!
//! Tags are `[Name "Value"]` lines (`\"` and `\\` escape inside the value). The tags the
//! reader understands: `FEN` (the start position; the initial one without it),
//! `Preset` (a handicap start by [`NamedStart::name`], such as `two-moves` or `6-moves`;
//! its rules apply),
//! `Format` (the notation of the moves: `ICCS`, `Coordinate`, `WXF`, `Chinese`,
//! `Italian`, `Algebraic`, `Korean`), `Result` (`1-0` Red wins, `0-1` Black wins, `1/2-1/2` draw, `*` going
//! on) and `Variant` (read by the caller). The others (`Event`, `Date`, `Red`,
//! `Black`, ...) are kept as they are.
//!
//! The move text holds moves, move numbers (`1.`, `1...`, also glued to the move:
//! `1.h2e2`), comments in braces or after `;` to the end of the line, variations in
//! parentheses (skipped), annotation glyphs (`$1`, skipped) and a final result, which
//! must agree with the `Result` tag when both are given. Chinese and full-width moves
//! (`Ｃ２＝５`, read as `C2=5`) may be written without spaces between them, as some
//! databases do: such a token of 8, 12, ... characters is read as moves of four. Without
//! a notation given or a `Format` tag the notation is detected: Chinese, else Korean,
//! when a move is written in Chinese or Korean characters, otherwise the first of ICCS, WXF, coordinates, Italian
//! letters and algebraic in which the whole record replays legally.
//!
//! Janggi records ([`import_janggi`], [`export_janggi`]) are written alike, with a
//! `[Variant "Janggi"]` tag, the sides' setups in the tags of Korean records
//! (`[초차림 "마상상마"]`, `[한차림 "상마상마"]`, see [`CHO_SETUP`]) or a `FEN` tag, no
//! `Preset`, and the moves in ICCS, coordinates, algebraic or Korean notation
//! (`1. 71졸72 2. 49병48` as .gib files number them reads too).

mod read;
mod write;

use std::fmt;

pub use read::{RawRecord, import, import_janggi, replay, replay_janggi, split};
pub use write::{export, export_janggi};

use super::{Notation, NotationError};
use crate::rules::janggi::{self, Setup4};
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move};
use crate::rules::xiangqi::handicap::NamedStart;
use crate::rules::xiangqi::{self, IllegalReason, Position};

/// A comment of the move text, after `ply` moves (0: before the first move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The comment stands after this many moves.
    pub ply: usize,
    /// The comment, its spaces folded.
    pub text: String,
}

/// A game record of Xiangqi (the defaults) or Janggi ([`JanggiRecord`]): `P` is the
/// start position's type, `N` what a record names its start by.
#[derive(Clone, Debug)]
pub struct Record<P = Position, N = NamedStart> {
    /// Tags in record order.
    pub tags: Vec<(String, String)>,
    /// The named start, when the record has one: a Xiangqi handicap start (its rules
    /// apply), or the Janggi setups of Cho and Han (the [`CHO_SETUP`] and [`HAN_SETUP`]
    /// tags).
    pub named_start: Option<N>,
    /// The start position (the named start's, the `FEN` tag's, or the initial one).
    pub start: P,
    /// The moves, legal from the start.
    pub moves: Vec<Move>,
    /// The comments, in order.
    pub comments: Vec<Comment>,
    /// The result the record states.
    pub result: GameResult,
}

/// A Janggi game record: its start is named by the sides' setups or a `FEN` tag, and
/// there are no handicaps.
pub type JanggiRecord = Record<janggi::Position, (Setup4, Setup4)>;

impl<P, N> Record<P, N> {
    /// The value of a tag (names compare case-insensitively).
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag(&self.tags, name)
    }
}

impl Record {
    /// The game with its handicap rules, before any move.
    pub fn new_game(&self) -> xiangqi::Game {
        xiangqi::Game::with_handicap(self.start.clone(), self.named_start.map(NamedStart::handicap).unwrap_or_default())
    }
}

/// The tag of Cho's setup in Janggi records, as .gib files write it: `[초차림 "마상상마"]`
/// (see [`Setup4::korean`]); a record that names one side's setup only has the usual
/// one, 마상상마, for the other.
pub const CHO_SETUP: &str = "초차림";
/// The tag of Han's setup (see [`CHO_SETUP`]), read from Cho's side of the board too.
pub const HAN_SETUP: &str = "한차림";

pub(super) fn tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Why a record could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A tag line that is not `[Name "Value"]` (line numbers from 1).
    Tag {
        /// The line, from 1.
        line: usize,
    },
    /// A `FEN` tag that is not a valid position.
    Fen {
        /// Why the FEN is refused.
        message: String,
    },
    /// A `Preset` tag that names no handicap start.
    Preset {
        /// The tag's value.
        value: String,
    },
    /// A `FEN` tag other than the `Preset` tag's start.
    FenNotPreset,
    /// A Janggi setup tag ([`CHO_SETUP`], [`HAN_SETUP`]) that names no setup.
    Setup {
        /// The tag.
        tag: &'static str,
        /// Its value.
        value: String,
    },
    /// A `FEN` tag other than the start of the Janggi setup tags.
    FenNotSetups,
    /// A `Preset` tag in a Janggi record.
    JanggiPreset,
    /// A notation that does not write Janggi moves.
    Inapplicable {
        /// The notation.
        notation: Notation,
    },
    /// A `Format` tag that names no notation.
    Format {
        /// The tag's value.
        value: String,
    },
    /// A `Result` tag that is not `1-0`, `0-1`, `1/2-1/2` or `*`.
    Result {
        /// The tag's value.
        value: String,
    },
    /// Two statements of the result disagree (the `Result` tag, the result at the end of
    /// the moves, a .gib record's result tag): where each is and what it says.
    ResultMismatch {
        /// Where the first statement is, and the result it states.
        first: (&'static str, &'static str),
        /// Where the second is, and its result.
        second: (&'static str, &'static str),
    },
    /// A comment or variation that is never closed.
    Unclosed {
        /// What is not closed.
        what: &'static str,
    },
    /// A move (0-based index) that cannot be read or is not legal.
    Move {
        /// The move's index, from 0.
        index: usize,
        /// Why it was not read.
        error: NotationError,
    },
    /// A move that breaks a handicap rule.
    Handicap {
        /// The move's index, from 0.
        index: usize,
        /// The move as written.
        token: String,
        /// The handicap rule it breaks.
        reason: IllegalReason,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Tag { line } => write!(f, "line {line}: a tag is written [Name \"Value\"]"),
            RecordError::Fen { message } => write!(f, "FEN tag: {message}"),
            RecordError::Preset { value } => write!(f, "Preset tag: unknown preset {value:?}"),
            RecordError::FenNotPreset => f.write_str("the FEN tag is not the start of the Preset tag"),
            RecordError::Setup { tag, value } => {
                write!(f, "{tag} tag: {value:?} is no setup (four of 마 and 상 from Cho's left, such as 마상상마)")
            }
            RecordError::FenNotSetups => {
                write!(f, "the FEN tag is not the start of the {CHO_SETUP} and {HAN_SETUP} tags")
            }
            RecordError::JanggiPreset => f.write_str("Preset tag: Janggi has no handicap presets"),
            RecordError::Inapplicable { notation } => write!(f, "{notation} notation does not apply to Janggi"),
            RecordError::Format { value } => write!(f, "Format tag: unknown notation {value:?}"),
            RecordError::Result { value } => write!(f, "Result tag: {value:?} is not 1-0, 0-1, 1/2-1/2 or *"),
            RecordError::ResultMismatch { first, second } => {
                write!(f, "the {} says {} but the {} says {}", first.0, first.1, second.0, second.1)
            }
            RecordError::Unclosed { what } => write!(f, "a {what} is not closed"),
            RecordError::Move { index, error } => write!(f, "move {}: {error}", index + 1),
            RecordError::Handicap { index, token, reason } => {
                write!(f, "move {} ({token:?}): {}", index + 1, reason.describe())
            }
        }
    }
}

impl std::error::Error for RecordError {}

pub(super) const RESULTS: [(&str, GameResult); 4] = [
    ("1-0", GameResult::Win(Color::Red)),
    ("0-1", GameResult::Win(Color::Black)),
    ("1/2-1/2", GameResult::Draw),
    ("*", GameResult::Ongoing),
];

/// Reads a result as written (`1-0`, `0-1`, `1/2-1/2`, `*`).
pub fn parse_result(text: &str) -> Option<GameResult> {
    RESULTS.iter().find(|(t, _)| *t == text.trim()).map(|(_, r)| *r)
}

/// Writes a result.
pub fn result_text(result: GameResult) -> &'static str {
    RESULTS.iter().find(|(_, r)| *r == result).map_or("*", |(t, _)| t)
}

/// A comment's text as reading keeps it: its runs of spaces and line breaks as one space.
pub(super) fn fold_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
