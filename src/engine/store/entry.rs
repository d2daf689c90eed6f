//! What the store keeps of a finished search, and how it is written and read.

use serde::{Deserialize, Serialize};

/// The format of a stored entry; an entry of another format is ignored.
pub const FORMAT: u32 = 1;

/// The version of the engine that searched (the crate's version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A score as stored, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredScore {
    /// Centipawns.
    Cp(i32),
    /// A forced mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

/// One line of a stored search, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLine {
    /// Its score.
    pub score: StoredScore,
    /// Its moves, in canonical move text.
    pub pv: Vec<String>,
}

/// The limits a stored search ran under (0: none of that kind).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLimits {
    /// Depth in plies.
    pub depth: u32,
    /// Nodes.
    pub nodes: u64,
    /// Time in milliseconds (the request's, or the server's cap or default).
    pub time_ms: u64,
    /// A game clock was given.
    pub clock: bool,
}

/// A finished search as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredSearch {
    /// [`FORMAT`].
    pub format: u32,
    /// [`ENGINE_VERSION`] of the engine that searched.
    pub engine_version: String,
    /// What evaluated it: `classical` or the net's identity (`nnue-` and 16 hex digits).
    pub evaluation: String,
    /// The key it was stored under (an entry found under another is ignored).
    pub key: String,
    /// The variant's name.
    pub variant: String,
    /// The rule set's name.
    pub rule_set: String,
    /// Lines asked for.
    pub multipv: u32,
    /// The limits it ran under.
    pub limits: StoredLimits,
    /// Its lines, best first.
    pub lines: Vec<StoredLine>,
    /// Its best move (empty when there is no legal move).
    pub best_move: String,
    /// The expected reply (empty when unknown).
    pub ponder_move: String,
    /// Depth completed.
    pub depth: u32,
    /// Greatest depth of any line.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time it took, in milliseconds.
    pub time_ms: u32,
    /// Share of table probes that found an entry.
    pub hash_hit_rate: f64,
    /// Why it stopped, as the API numbers the reasons.
    pub stop_reason: i32,
}

impl StoredSearch {
    /// A search of one line, `pv`, to `depth` stored under `key` by this engine, its
    /// other figures neutral: what the store's own tests and benches keep.
    pub fn one_line(key: &super::StoreKey, depth: u32, pv: Vec<String>) -> StoredSearch {
        StoredSearch {
            format: FORMAT,
            engine_version: ENGINE_VERSION.into(),
            evaluation: key.evaluation().into(),
            key: key.as_str().into(),
            variant: "xiangqi".into(),
            rule_set: "simplified-v1".into(),
            multipv: 1,
            limits: StoredLimits { depth, ..StoredLimits::default() },
            best_move: pv.first().cloned().unwrap_or_default(),
            ponder_move: pv.get(1).cloned().unwrap_or_default(),
            lines: vec![StoredLine { score: StoredScore::Cp(0), pv }],
            depth,
            seldepth: depth,
            nodes: 0,
            time_ms: 0,
            hash_hit_rate: 0.0,
            stop_reason: 0,
        }
    }

    /// The entry's bytes.
    pub fn encode(&self) -> Vec<u8> {
        // A struct of strings and numbers always serializes.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The entry of `bytes` stored under `key`, if it decodes and was searched by this
    /// engine with this evaluation; `None` otherwise (the caller searches).
    pub fn decode(bytes: &[u8], key: &str, evaluation: &str) -> Option<StoredSearch> {
        let entry: StoredSearch = serde_json::from_slice(bytes).ok()?;
        let ours = entry.format == FORMAT
            && entry.engine_version == ENGINE_VERSION
            && entry.evaluation == evaluation
            && entry.key == key;
        ours.then_some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> StoredSearch {
        StoredSearch {
            format: FORMAT,
            engine_version: ENGINE_VERSION.into(),
            evaluation: "classical".into(),
            key: "k".into(),
            variant: "xiangqi".into(),
            rule_set: "asian".into(),
            multipv: 1,
            limits: StoredLimits { depth: 8, ..StoredLimits::default() },
            lines: vec![StoredLine { score: StoredScore::Cp(20), pv: vec!["h2e2".into(), "h9g7".into()] }],
            best_move: "h2e2".into(),
            ponder_move: "h9g7".into(),
            depth: 8,
            seldepth: 12,
            nodes: 12345,
            time_ms: 40,
            hash_hit_rate: 0.25,
            stop_reason: 1,
        }
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        let e = entry();
        assert_eq!(StoredSearch::decode(&e.encode(), "k", "classical"), Some(e));
    }

    #[test]
    fn another_key_version_evaluation_or_garbage_is_ignored() {
        let e = entry();
        assert_eq!(StoredSearch::decode(&e.encode(), "other", "classical"), None);
        let old = StoredSearch { engine_version: "0.0.0".into(), ..entry() };
        assert_eq!(StoredSearch::decode(&old.encode(), "k", "classical"), None);
        let other_eval = StoredSearch { evaluation: "weights-x".into(), ..entry() };
        assert_eq!(StoredSearch::decode(&other_eval.encode(), "k", "classical"), None);
        assert_eq!(StoredSearch::decode(b"\x00\xffnot json", "k", "classical"), None);
        let mut cut = e.encode();
        cut.truncate(cut.len() / 2);
        assert_eq!(StoredSearch::decode(&cut, "k", "classical"), None);
    }
}
