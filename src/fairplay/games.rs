//! The games a screening reads: many records to a file, each with its players' names
//! and ratings.
//!
//! A file holds PGN-style records one after another (a record starts at a tag line
//! that follows move text), or one Janggi `.gib` game. Names come from the `Red` and
//! `Black` tags (a `.gib`: `초대국자` and `한대국자`), ratings from `RedElo` and
//! `BlackElo`. A record is of the variant its `Variant` tag names (a `.gib` file is
//! Janggi), and without the tag of the variant screened.

use std::fmt;

use crate::game::{BoardGame, RuleSet, Variant};
use crate::notation::record::{self, RecordError};
use crate::rules::janggi;
use crate::rules::types::Move;

use super::judge::PlyEvidence;

/// A game to screen: where it comes from, who played it, and the game itself.
#[derive(Clone, Debug)]
pub struct ScreenedGame {
    /// The file (or other source) and the game's number in it, from 1.
    pub source: Source,
    /// The players' names, Red (Cho) first.
    pub players: [String; 2],
    /// Their ratings, when the record states them.
    pub ratings: [Option<f64>; 2],
    /// The start, under the screening's rule set.
    pub start: BoardGame,
    /// The moves, legal from the start.
    pub moves: Vec<Move>,
    /// The judged plies, when an audit of the game was given instead of searching it.
    pub evidence: Option<Vec<PlyEvidence>>,
}

/// Where a game comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file's name as given (or `request` for a call's games).
    pub file: String,
    /// The game's number in it, from 1.
    pub game: usize,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} game {}", self.file, self.game)
    }
}

/// Why the games could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum GamesError {
    /// A record does not read: where, and the reader's error (it names the move).
    Record {
        /// The game.
        source: Source,
        /// What the reader found.
        error: RecordError,
    },
    /// A rating tag that is not a number.
    Rating {
        /// The game.
        source: Source,
        /// The tag.
        tag: &'static str,
        /// Its value.
        value: String,
    },
    /// A record of another variant than the screening's.
    Variant {
        /// The game.
        source: Source,
        /// Its variant.
        found: Variant,
        /// The screening's.
        wanted: Variant,
    },
    /// A game whose players are not named.
    Unnamed {
        /// The game.
        source: Source,
    },
    /// A file with no game in it.
    Empty {
        /// The file.
        file: String,
    },
}

impl fmt::Display for GamesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GamesError::Record { source, error } => write!(f, "{source}: {error}"),
            GamesError::Rating { source, tag, value } => write!(f, "{source}: {tag} {value:?} is not a rating"),
            GamesError::Variant { source, found, wanted } => {
                write!(f, "{source}: a {found} game where {wanted} games are screened")
            }
            GamesError::Unnamed { source } => write!(f, "{source}: the Red and Black tags name no players"),
            GamesError::Empty { file } => write!(f, "{file}: no game in it"),
        }
    }
}

impl std::error::Error for GamesError {}

/// Splits a file's text into its records: a tag line after move text starts the next.
pub fn split_records(text: &str) -> Vec<&str> {
    let mut records = Vec::new();
    let (mut start, mut seen_moves, mut at) = (0, false, 0);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start_matches('\u{feff}').trim();
        if trimmed.starts_with('[') && seen_moves {
            records.push(&text[start..at]);
            (start, seen_moves) = (at, false);
        } else if !trimmed.is_empty() && !trimmed.starts_with('[') {
            seen_moves = true;
        }
        at += line.len();
    }
    if !text[start..].trim().is_empty() {
        records.push(&text[start..]);
    }
    records
}

/// The variant a record's tags name (`Variant`), or `fallback`.
fn record_variant(raw: &record::RawRecord, fallback: Variant) -> Variant {
    match raw.tag("Variant").map(str::to_ascii_lowercase).as_deref() {
        Some("janggi") => Variant::Janggi,
        Some("xiangqi" | "chinese chess") => Variant::Xiangqi,
        _ => fallback,
    }
}

/// Reads the games of one file's text under `rules` (its variant is the screening's).
/// `gib`: the file is a Janggi `.gib`.
pub fn read_games(file: &str, text: &str, rules: RuleSet, gib: bool) -> Result<Vec<ScreenedGame>, GamesError> {
    let wanted = rules.variant();
    let mut games = Vec::new();
    for (i, text) in split_records(text).into_iter().enumerate() {
        let source = Source { file: file.to_string(), game: i + 1 };
        let bad = |error| GamesError::Record { source: source.clone(), error };
        let raw = record::split(text).map_err(bad)?;
        let found = if gib { Variant::Janggi } else { record_variant(&raw, wanted) };
        if found != wanted {
            return Err(GamesError::Variant { source, found, wanted });
        }
        let name = |tags: [&str; 2]| tags.iter().find_map(|t| raw.tag(t)).map(str::trim).unwrap_or("").to_string();
        let players = [name(["Red", "초대국자"]), name(["Black", "한대국자"])];
        if players.iter().any(String::is_empty) {
            return Err(GamesError::Unnamed { source });
        }
        let rating = |tag: &'static str| match raw.tag(tag).map(str::trim) {
            None | Some("" | "-" | "?") => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(r) if r.is_finite() && (0.0..=5000.0).contains(&r) => Ok(Some(r)),
                _ => Err(GamesError::Rating { source: source.clone(), tag, value: v.to_string() }),
            },
        };
        let ratings = [rating("RedElo")?, rating("BlackElo")?];
        let (start, moves) = match wanted {
            Variant::Janggi => {
                let (rec, _) = record::replay_janggi(raw, None).map_err(bad)?;
                (BoardGame::Janggi(janggi::Game::new(rec.start.clone()), None), rec.moves)
            }
            _ => {
                let (rec, _) = record::replay(raw, None).map_err(bad)?;
                (BoardGame::Xiangqi(rec.new_game(), None), rec.moves)
            }
        };
        // The rule set is the screening's, of the same variant: this cannot fail.
        let start = start.with_rules(Some(rules)).unwrap_or_else(|_| BoardGame::startpos(wanted));
        games.push(ScreenedGame { source, players, ratings, start, moves, evidence: None });
    }
    if games.is_empty() {
        return Err(GamesError::Empty { file: file.to_string() });
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_split_where_tags_follow_moves() {
        let text = "[Red \"a\"]\n[Black \"b\"]\n\n1. h2e2 h9g7 *\n\n[Red \"c\"]\n[Black \"d\"]\n1. c3c4 *\n";
        let parts = split_records(text);
        assert_eq!(parts.len(), 2);
        assert!(parts[0].contains("h2e2") && !parts[0].contains("c3c4"));
        assert!(parts[1].starts_with("[Red \"c\"]"));
        assert_eq!(split_records("  \n"), Vec::<&str>::new());
    }

    #[test]
    fn games_name_their_players_ratings_and_errors() {
        let rules = RuleSet::default_for(Variant::Xiangqi);
        let text =
            "[Red \"a\"]\n[Black \"b\"]\n[RedElo \"1650\"]\n1. h2e2 h9g7 *\n[Red \"c\"]\n[Black \"d\"]\n1. c3c4 *\n";
        let games = read_games("f.pgn", text, rules, false).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].players, ["a".to_string(), "b".to_string()]);
        assert_eq!(games[0].ratings, [Some(1650.0), None]);
        assert_eq!(games[1].moves.len(), 1);
        let bad = "[Red \"a\"]\n[Black \"b\"]\n1. h2e2 *\n[Red \"c\"]\n[Black \"d\"]\n1. h2e2 h9g7 2. a0a5 *\n";
        let e = read_games("f.pgn", bad, rules, false).unwrap_err().to_string();
        assert!(e.starts_with("f.pgn game 2: ") && e.contains("a0a5"), "{e}");
        let e = read_games("f.pgn", "[Red \"a\"]\n[Black \"b\"]\n[RedElo \"strong\"]\n1. h2e2 *\n", rules, false);
        assert!(e.unwrap_err().to_string().contains("RedElo \"strong\" is not a rating"));
        let e = read_games("f.pgn", "[Red \"a\"]\n1. h2e2 *\n", rules, false).unwrap_err();
        assert_eq!(e, GamesError::Unnamed { source: Source { file: "f.pgn".into(), game: 1 } });
        let e = read_games("f.pgn", "[Red \"a\"]\n[Black \"b\"]\n[Variant \"Janggi\"]\n1. a3a4 *\n", rules, false);
        assert!(matches!(e, Err(GamesError::Variant { found: Variant::Janggi, .. })));
    }
}
