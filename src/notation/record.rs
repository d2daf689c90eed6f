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

use std::fmt;

use super::{Notation, NotationError, fen, format_move, korean, parse_move};
use crate::rules::game::{Game, RecordedPosition};
use crate::rules::janggi::{self, Setup4};
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move};
use crate::rules::xiangqi::handicap::NamedStart;
use crate::rules::xiangqi::{self, IllegalReason, Position};

/// A comment of the move text, after `ply` moves (0: before the first move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub ply: usize,
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
    pub moves: Vec<Move>,
    pub comments: Vec<Comment>,
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

fn tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Why a record could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A tag line that is not `[Name "Value"]` (line numbers from 1).
    Tag {
        line: usize,
    },
    Fen {
        message: String,
    },
    Preset {
        value: String,
    },
    /// A `FEN` tag other than the `Preset` tag's start.
    FenNotPreset,
    /// A Janggi setup tag ([`CHO_SETUP`], [`HAN_SETUP`]) that names no setup.
    Setup {
        tag: &'static str,
        value: String,
    },
    /// A `FEN` tag other than the start of the Janggi setup tags.
    FenNotSetups,
    /// A `Preset` tag in a Janggi record.
    JanggiPreset,
    /// A notation that does not write Janggi moves.
    Inapplicable {
        notation: Notation,
    },
    Format {
        value: String,
    },
    Result {
        value: String,
    },
    /// Two statements of the result disagree (the `Result` tag, the result at the end of
    /// the moves, a .gib record's result tag): where each is and what it says.
    ResultMismatch {
        first: (&'static str, &'static str),
        second: (&'static str, &'static str),
    },
    /// A comment or variation that is never closed.
    Unclosed {
        what: &'static str,
    },
    /// A move (0-based index) that cannot be read or is not legal.
    Move {
        index: usize,
        error: NotationError,
    },
    /// A move that breaks a handicap rule.
    Handicap {
        index: usize,
        token: String,
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

/// A record split into its parts, moves not yet read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawRecord {
    pub tags: Vec<(String, String)>,
    /// Move tokens in order.
    pub moves: Vec<String>,
    pub comments: Vec<Comment>,
    /// The result written at the end of the moves.
    pub result: Option<String>,
}

impl RawRecord {
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag(&self.tags, name)
    }
}

/// Splits a record into tags, move tokens, comments and result.
pub fn split(text: &str) -> Result<RawRecord, RecordError> {
    let mut raw = RawRecord::default();
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut line = 1;
    // Tags: lines starting with `[` before the moves.
    loop {
        let trimmed = rest.trim_start();
        line += rest[..rest.len() - trimmed.len()].matches('\n').count();
        rest = trimmed;
        if !rest.starts_with('[') {
            break;
        }
        let end = rest.find('\n').unwrap_or(rest.len());
        let (name, value) = parse_tag(rest[..end].trim_end()).ok_or(RecordError::Tag { line })?;
        raw.tags.push((name, value));
        rest = &rest[end..];
    }
    let mut chars = rest.char_indices().peekable();
    let mut token = String::new();
    let flush = |token: &mut String, raw: &mut RawRecord| {
        if !token.is_empty() {
            push_token(std::mem::take(token), raw);
        }
    };
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                flush(&mut token, &mut raw);
                let close = rest[i..].find('}').ok_or(RecordError::Unclosed { what: "comment" })?;
                let body = fold_spaces(&rest[i + 1..i + close]);
                raw.comments.push(Comment { ply: raw.moves.len(), text: body });
                while chars.peek().is_some_and(|(j, _)| *j <= i + close) {
                    chars.next();
                }
            }
            ';' => {
                flush(&mut token, &mut raw);
                let close = rest[i..].find('\n').map_or(rest.len(), |n| i + n);
                // Spaces are folded as in a braced comment, which is how it is written back.
                let body = fold_spaces(&rest[i + 1..close]);
                if !body.is_empty() {
                    raw.comments.push(Comment { ply: raw.moves.len(), text: body });
                }
                while chars.peek().is_some_and(|(j, _)| *j < close) {
                    chars.next();
                }
            }
            '(' => {
                flush(&mut token, &mut raw);
                let mut depth = 1;
                for (_, c) in chars.by_ref() {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        break;
                    }
                }
                if depth != 0 {
                    return Err(RecordError::Unclosed { what: "variation" });
                }
            }
            c if c.is_whitespace() => flush(&mut token, &mut raw),
            c => token.push(c),
        }
    }
    flush(&mut token, &mut raw);
    Ok(raw)
}

/// Files one token of the move text: a result, a move number, a glyph or a move.
fn push_token(token: String, raw: &mut RawRecord) {
    if RESULTS.iter().any(|(text, _)| *text == token) || token == "½-½" {
        raw.result = Some(if token == "½-½" { "1/2-1/2".to_string() } else { token });
        return;
    }
    if token.starts_with('$') {
        return;
    }
    // Moves written without a space between them (`炮二平五马８进７`, `Ｃ２＝５Ｈ８＋７`):
    // Chinese and full-width moves are four characters each.
    let chars: Vec<char> = token.chars().collect();
    if chars.len() >= 8 && chars.len().is_multiple_of(4) && !chars.iter().any(char::is_ascii) {
        raw.moves.extend(chars.chunks(4).map(|c| c.iter().collect::<String>()));
        return;
    }
    // A move number alone (`12.`, `12...`), or glued to a move (`12.h2e2`, `8.g7`). A
    // WXF pawn move such as `33.4` is not a number: what follows the dots is too short
    // and starts with no letter.
    let digits = token.chars().take_while(char::is_ascii_digit).count();
    let dots = token[digits..].chars().take_while(|&c| c == '.' || c == '…').count();
    if digits > 0 && dots > 0 {
        let after: &str = token[digits..].trim_start_matches(['.', '…']);
        if after.is_empty() {
            return;
        }
        if after.chars().count() >= 3 || after.starts_with(|c: char| c.is_ascii_alphabetic()) {
            raw.moves.push(after.to_string());
            return;
        }
    }
    raw.moves.push(token);
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, value) = inner.split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut escaped = false;
    for c in value.chars() {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else {
            out.push(c);
        }
    }
    let name_ok = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    name_ok.then(|| (name.to_string(), out))
}

const RESULTS: [(&str, GameResult); 4] = [
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

/// Reads a whole record; `notation` overrides the `Format` tag and detection.
pub fn import(text: &str, notation: Option<Notation>) -> Result<(Record, Notation), RecordError> {
    replay(split(text)?, notation)
}

/// Reads the moves of a split record (see [`import`]).
pub fn replay(raw: RawRecord, notation: Option<Notation>) -> Result<(Record, Notation), RecordError> {
    let preset = match raw.tag("Preset") {
        Some(v) => Some(NamedStart::from_name(v).ok_or_else(|| RecordError::Preset { value: v.to_string() })?),
        None => None,
    };
    let start = match (preset, raw.tag("FEN")) {
        (Some(p), Some(text)) => {
            let given = fen::xiangqi(text).map_err(|e| RecordError::Fen { message: e.to_string() })?;
            if given != p.position() {
                return Err(RecordError::FenNotPreset);
            }
            given
        }
        (Some(p), None) => p.position(),
        (None, Some(text)) => fen::xiangqi(text).map_err(|e| RecordError::Fen { message: e.to_string() })?,
        (None, None) => Position::startpos(),
    };
    let result = stated_result(&raw, false)?;
    let notation = stated_notation(&raw, notation)?;
    let mut record =
        Record { tags: raw.tags, named_start: preset, start, moves: Vec::new(), comments: raw.comments, result };
    let (moves, notation) = read_moves(&record.new_game(), &raw.moves, notation, |_| true)?;
    record.moves = moves;
    Ok((record, notation))
}

/// Reads a whole Janggi record; `notation` overrides the `Format` tag and detection.
///
/// The start: the `FEN` tag, else the setups of the [`CHO_SETUP`] and [`HAN_SETUP`]
/// tags, else the usual start (both must agree when both are given). The moves: in the
/// notations of [`Notation::applies_to_janggi`]; detected as Korean when written in
/// Korean characters, otherwise the first of ICCS, coordinates and algebraic in which
/// the whole record replays legally.
pub fn import_janggi(text: &str, notation: Option<Notation>) -> Result<(JanggiRecord, Notation), RecordError> {
    replay_janggi(split(text)?, notation)
}

/// Reads the moves of a split Janggi record (see [`import_janggi`]).
pub fn replay_janggi(raw: RawRecord, notation: Option<Notation>) -> Result<(JanggiRecord, Notation), RecordError> {
    if raw.tag("Preset").is_some() {
        return Err(RecordError::JanggiPreset);
    }
    let setup = |tag_name: &'static str, side: Color| match raw.tag(tag_name) {
        None => Ok(Setup4::HorseElephantElephantHorse),
        Some(v) => Setup4::from_korean(v, side).ok_or_else(|| RecordError::Setup { tag: tag_name, value: v.into() }),
    };
    let setups = match (raw.tag(CHO_SETUP), raw.tag(HAN_SETUP)) {
        (None, None) => None,
        _ => Some((setup(CHO_SETUP, Color::Red)?, setup(HAN_SETUP, Color::Black)?)),
    };
    let set_up = setups.map(|(cho, han)| janggi::start_position(cho, han));
    let start = match raw.tag("FEN") {
        Some(text) => {
            let given = fen::janggi(text).map_err(|e| RecordError::Fen { message: e.to_string() })?;
            if set_up.as_ref().is_some_and(|s| *s != given) {
                return Err(RecordError::FenNotSetups);
            }
            given
        }
        None => set_up.unwrap_or_else(janggi::Position::startpos),
    };
    let result = stated_result(&raw, true)?;
    let notation = stated_notation(&raw, notation)?;
    if let Some(n) = notation.filter(|n| !n.applies_to_janggi()) {
        return Err(RecordError::Inapplicable { notation: n });
    }
    let game = janggi::Game::new(start.clone());
    let (moves, notation) = read_moves(&game, &raw.moves, notation, Notation::applies_to_janggi)?;
    Ok((JanggiRecord { tags: raw.tags, named_start: setups, start, moves, comments: raw.comments, result }, notation))
}

/// The result a record states: its `Result` tag, the result after its moves and, read
/// for Janggi records, the .gib result tag ([`korean::RESULT_TAG`]); those that state a
/// decided result must agree (`*` states none). Ongoing when none does.
fn stated_result(raw: &RawRecord, gib_tag: bool) -> Result<GameResult, RecordError> {
    let mut stated: Vec<(&'static str, GameResult)> = Vec::new();
    if let Some(v) = raw.tag("Result") {
        stated.push(("Result tag", parse_result(v).ok_or_else(|| RecordError::Result { value: v.to_string() })?));
    }
    if let Some(r) = raw.result.as_deref().and_then(parse_result) {
        stated.push(("end of the moves", r));
    }
    if gib_tag && let Some(r) = raw.tag(korean::RESULT_TAG).and_then(korean::parse_result) {
        stated.push(("대국결과 tag", r));
    }
    stated.retain(|&(_, r)| r != GameResult::Ongoing);
    let Some(&(source, result)) = stated.first() else { return Ok(GameResult::Ongoing) };
    match stated.iter().find(|(_, r)| *r != result) {
        Some(&(other, r)) => {
            Err(RecordError::ResultMismatch { first: (source, result_text(result)), second: (other, result_text(r)) })
        }
        None => Ok(result),
    }
}

/// The notation asked for, else the `Format` tag's; `None` when neither names one.
fn stated_notation(raw: &RawRecord, notation: Option<Notation>) -> Result<Option<Notation>, RecordError> {
    match (notation, raw.tag("Format")) {
        (Some(n), _) => Ok(Some(n)),
        (None, Some(v)) => Notation::from_name(v).map(Some).ok_or_else(|| RecordError::Format { value: v.to_string() }),
        (None, None) => Ok(None),
    }
}

/// Reads the move tokens from `game` on in `notation`, or when it is `None` in the
/// first notation (that `applies`) in which the whole record replays legally: Chinese,
/// else Korean, for moves in such characters, otherwise ICCS, WXF, coordinates, Italian
/// letters, algebraic. When none does, the error of the one read furthest.
fn read_moves<P: RecordedPosition>(
    game: &Game<P>,
    tokens: &[String],
    notation: Option<Notation>,
    applies: fn(Notation) -> bool,
) -> Result<(Vec<Move>, Notation), RecordError> {
    let candidates: Vec<Notation> = match notation {
        Some(n) => vec![n],
        None if tokens.iter().any(|m| is_chinese(m)) => vec![Notation::Chinese, Notation::Korean],
        None => vec![Notation::Iccs, Notation::Wxf, Notation::Coordinate, Notation::Italian, Notation::Algebraic],
    };
    let mut best: Option<RecordError> = None;
    for n in candidates.into_iter().filter(|&n| notation.is_some() || applies(n)) {
        match read_in(game.clone(), tokens, n) {
            Ok(moves) => return Ok((moves, n)),
            Err(e) => {
                let reached = |e: &RecordError| match e {
                    RecordError::Move { index, .. } | RecordError::Handicap { index, .. } => *index,
                    _ => 0,
                };
                if best.as_ref().is_none_or(|b| reached(&e) > reached(b)) {
                    best = Some(e);
                }
            }
        }
    }
    Err(best.unwrap_or(RecordError::Unclosed { what: "record" }))
}

/// Is a move written with characters other than ASCII and their full-width forms?
fn is_chinese(token: &str) -> bool {
    token.chars().any(|c| !super::fold_full_width(c).is_ascii())
}

fn read_in<P: RecordedPosition>(
    mut game: Game<P>,
    tokens: &[String],
    notation: Notation,
) -> Result<Vec<Move>, RecordError> {
    let mut moves = Vec::with_capacity(tokens.len());
    for (index, token) in tokens.iter().enumerate() {
        let m = parse_move(game.position(), token, notation).map_err(|error| RecordError::Move { index, error })?;
        if let Some(reason) = game.explain_illegal(m) {
            return Err(RecordError::Handicap { index, token: token.clone(), reason });
        }
        game.play_unchecked(m);
        moves.push(m);
    }
    Ok(moves)
}

/// Writes a record. Tags are written in order, except `FEN`, `Preset` and `Format`,
/// which are written from the record itself (`FEN` when the start is not the initial
/// position, `Preset` when the record has one, `Format` always); `Result` is the
/// record's result. The moves must be legal (see [`Record::new_game`]); writing stops
/// at the first one that is not.
pub fn export(record: &Record, notation: Notation) -> String {
    let mut tags = given_tags(&record.tags, &["FEN", "Preset", "Format", "Result"]);
    tags.push(("Result".into(), result_text(record.result).into()));
    if let Some(p) = record.named_start {
        tags.push(("Preset".into(), p.name()));
    }
    if record.start != Position::startpos() {
        tags.push(("FEN".into(), fen::format(&record.start.to_setup())));
    }
    tags.push(("Format".into(), notation.name().into()));
    write(&tags, record.new_game(), &record.moves, &record.comments, record.result, notation)
}

/// Writes a Janggi record as [`export`] writes a Xiangqi one, with a `Variant` tag,
/// the setup tags ([`CHO_SETUP`], [`HAN_SETUP`]) when the record has setups, else a
/// `FEN` tag when the start is not the usual one. A notation that does not apply to
/// Janggi is replaced by ICCS.
pub fn export_janggi(record: &JanggiRecord, notation: Notation) -> String {
    let notation = if notation.applies_to_janggi() { notation } else { Notation::Iccs };
    let mut tags = given_tags(&record.tags, &["Variant", "FEN", "Preset", "Format", "Result", CHO_SETUP, HAN_SETUP]);
    tags.push(("Variant".into(), "Janggi".into()));
    tags.push(("Result".into(), result_text(record.result).into()));
    if let Some((cho, han)) = record.named_start {
        tags.push((CHO_SETUP.into(), cho.korean(Color::Red)));
        tags.push((HAN_SETUP.into(), han.korean(Color::Black)));
    }
    let implied =
        record.named_start.map_or_else(janggi::Position::startpos, |(cho, han)| janggi::start_position(cho, han));
    if record.start != implied {
        tags.push(("FEN".into(), fen::format(&record.start.to_setup())));
    }
    tags.push(("Format".into(), notation.name().into()));
    let game = janggi::Game::new(record.start.clone());
    write(&tags, game, &record.moves, &record.comments, record.result, notation)
}

/// The given tags less those written from the record.
fn given_tags(tags: &[(String, String)], computed: &[&str]) -> Vec<(String, String)> {
    tags.iter().filter(|(n, _)| !computed.iter().any(|c| n.eq_ignore_ascii_case(c))).cloned().collect()
}

/// Writes the tags, then the moves played from `game` with their numbers and comments,
/// and the result.
fn write<P: RecordedPosition>(
    tags: &[(String, String)],
    mut game: Game<P>,
    moves: &[Move],
    comments: &[Comment],
    result: GameResult,
    notation: Notation,
) -> String {
    let mut out = String::new();
    for (name, value) in tags {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{escaped}\"]\n"));
    }
    out.push('\n');

    let mut words: Vec<String> = Vec::new();
    let comments_at = |ply: usize| comments.iter().filter(move |c| c.ply == ply);
    let mut need_number = true;
    for c in comments_at(0) {
        words.push(comment_word(&c.text));
    }
    for (i, &m) in moves.iter().enumerate() {
        if game.explain_illegal(m).is_some() {
            break;
        }
        let n = game.position().fullmove_number();
        if game.position().turn() == Color::Red {
            words.push(format!("{n}."));
        } else if need_number {
            words.push(format!("{n}..."));
        }
        words.push(format_move(game.position(), m, notation));
        game.play_unchecked(m);
        need_number = false;
        for c in comments_at(i + 1) {
            words.push(comment_word(&c.text));
            need_number = true;
        }
    }
    words.push(result_text(result).to_string());
    let mut line_len = 0;
    for w in words {
        let len = w.chars().count();
        if line_len > 0 && line_len + 1 + len > 80 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(&w);
        line_len += len;
        if w.starts_with(';') {
            // A line comment runs to the end of its line.
            out.push('\n');
            line_len = 0;
        }
    }
    out.push('\n');
    out
}

/// A comment's text as reading keeps it: its runs of spaces and line breaks as one space.
fn fold_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A comment as the record writes it: braced, or as a line comment when its text holds
/// a closing brace. Either way it reads back with its spaces folded, as reading folds a
/// comment's spaces and line breaks (so a line comment is written on one line).
fn comment_word(text: &str) -> String {
    if text.contains('}') { format!("; {}", fold_spaces(text)) } else { format!("{{{text}}}") }
}
