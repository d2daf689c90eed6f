//! The key of a search in the store: everything its answer depends on.

use std::fmt::Write;

use crate::game::BoardGame;
use crate::search::SearchGame;

/// A search's key in the store: `chuhe:analysis:v1:` and the SHA-256 of what the answer
/// depends on, so that a key is short whatever the history, and two servers of the same
/// version and evaluation compute the same key for the same question. It also keeps
/// the evaluation it names, which a stored entry must match.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoreKey {
    text: String,
    evaluation: String,
}

/// The prefix of every key, so that a Redis shared with other uses can tell them apart.
pub const KEY_PREFIX: &str = "chuhe:analysis:v1:";

impl StoreKey {
    /// The key of a search of `game` for `multipv` lines: the variant, the rule set
    /// named for the game (none named and the default named are told apart), the
    /// position with its clocks (the FEN: move-count limits, Janggi's passes), the
    /// part of the history that the rules can still judge (every position since the
    /// last capture with the ply that led to it: repetition cycles), a handicap's
    /// rules, the number of lines, the evaluation (`classical` or a net's identity:
    /// replicas with different nets keep apart), and the tenant whose searches they
    /// are (`scope`; none: shared by every caller).
    pub fn of(game: &BoardGame, multipv: usize, evaluation: &str, scope: Option<&str>) -> StoreKey {
        let mut text = String::with_capacity(256);
        if let Some(tenant) = scope {
            // A tenant's name has no `|`, but its length keeps any name apart anyway.
            let _ = write!(text, "tenant:{}:{tenant}|", tenant.len());
        }
        let _ = write!(text, "{}|{:?}|{multipv}|{evaluation}|{}|", game.variant(), game.rules(), game.fen());
        let history = match game {
            BoardGame::Xiangqi(g, _) => {
                let _ = write!(text, "{:?}|", g.handicap());
                SearchGame::history(g)
            }
            BoardGame::Janggi(g, _) => {
                let _ = write!(text, "{:?}|", g.handicap());
                SearchGame::history(g)
            }
        };
        for (key, ply) in history {
            let _ = write!(text, "{key:016x}:{}:{}:{};", ply.mv, u8::from(ply.gave_check), u8::from(ply.kept_turn));
        }
        let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
        let mut key = String::with_capacity(KEY_PREFIX.len() + 64);
        key.push_str(KEY_PREFIX);
        for b in digest.as_ref() {
            let _ = write!(key, "{b:02x}");
        }
        StoreKey { text: key, evaluation: evaluation.to_owned() }
    }

    /// The key's text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The evaluation the key names.
    pub fn evaluation(&self) -> &str {
        &self.evaluation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{RuleSet, Variant};

    fn game(moves: &[&str]) -> BoardGame {
        let mut g = BoardGame::startpos(Variant::Xiangqi);
        g.play_iccs(moves.iter().copied()).unwrap();
        g
    }

    #[test]
    fn the_same_question_has_the_same_key() {
        assert_eq!(
            StoreKey::of(&game(&["h2e2"]), 1, "classical", None),
            StoreKey::of(&game(&["h2e2"]), 1, "classical", None)
        );
        assert!(StoreKey::of(&game(&[]), 1, "classical", None).as_str().starts_with(KEY_PREFIX));
    }

    #[test]
    fn lines_rules_history_evaluation_and_tenant_each_change_the_key() {
        let base = StoreKey::of(&game(&["h2e2", "h9g7"]), 1, "classical", None);
        assert_ne!(base, StoreKey::of(&game(&["h2e2", "h9g7"]), 1, "nnue-0123456789abcdef", None));
        assert_ne!(base, StoreKey::of(&game(&["h2e2", "h9g7"]), 2, "classical", None));
        let ruled = game(&["h2e2", "h9g7"]).with_rules(Some(RuleSet::default_for(Variant::Xiangqi))).unwrap();
        assert_ne!(base, StoreKey::of(&ruled, 1, "classical", None));
        // The same position with the same clocks reached by another order of moves:
        // its history can make other repetitions, so it is another question.
        let one_order = game(&["h2e2", "h9g7", "b2d2"]);
        let another = game(&["b2d2", "h9g7", "h2e2"]);
        assert_eq!(one_order.fen(), another.fen());
        assert_ne!(StoreKey::of(&one_order, 1, "classical", None), StoreKey::of(&another, 1, "classical", None));
        // Each tenant's searches are its own, and none is the shared one.
        let of = |tenant| StoreKey::of(&game(&["h2e2", "h9g7"]), 1, "classical", tenant);
        assert_ne!(of(Some("a")), of(Some("b")));
        assert_ne!(of(Some("a")), base);
        assert_eq!(of(Some("a")), of(Some("a")));
    }
}
