//! Reading a record: its text split into tags, move tokens, comments and a result,
//! then the moves replayed in the stated or detected notation.

use super::{
    CHO_SETUP, Comment, HAN_SETUP, JanggiRecord, RESULTS, Record, RecordError, fold_spaces, parse_result, result_text,
    tag,
};
use crate::notation::fen;
use crate::notation::{Notation, korean, parse_move};
use crate::rules::BoardPosition;
use crate::rules::game::{Game, RecordedPosition};
use crate::rules::janggi::{self, Setup4};
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move};
use crate::rules::xiangqi::Position;
use crate::rules::xiangqi::handicap::NamedStart;

/// A record split into its parts, moves not yet read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawRecord {
    /// Tags in record order.
    pub tags: Vec<(String, String)>,
    /// Move tokens in order.
    pub moves: Vec<String>,
    /// The comments, in order.
    pub comments: Vec<Comment>,
    /// The result written at the end of the moves.
    pub result: Option<String>,
}

impl RawRecord {
    /// The value of a tag (names compare case-insensitively).
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
fn read_moves<P: BoardPosition + RecordedPosition>(
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
    token.chars().any(|c| !crate::notation::fold_full_width(c).is_ascii())
}

fn read_in<P: BoardPosition + RecordedPosition>(
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
