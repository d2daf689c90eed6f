//! Writing a record: the tags, the moves with their numbers and comments, the result.

use super::{CHO_SETUP, Comment, HAN_SETUP, JanggiRecord, Record, fold_spaces, result_text};
use crate::notation::{Notation, fen, format_move};
use crate::rules::BoardPosition;
use crate::rules::game::{Game, RecordedPosition};
use crate::rules::janggi;
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move};
use crate::rules::xiangqi::Position;

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
fn write<P: BoardPosition + RecordedPosition>(
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

/// A comment as the record writes it: braced, or as a line comment when its text holds
/// a closing brace. Either way it reads back with its spaces folded, as reading folds a
/// comment's spaces and line breaks (so a line comment is written on one line).
fn comment_word(text: &str) -> String {
    if text.contains('}') { format!("; {}", fold_spaces(text)) } else { format!("{{{text}}}") }
}
