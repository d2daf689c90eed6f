//! The variant layer: what every front end (the API, the command line, UCI, the match
//! runner) needs to name a variant and a rule set and to play a game of any variant,
//! above the rules of each ([`crate::rules`]) and their notations ([`crate::notation`]).
//!
//! - [`Variant`] and [`RuleSet`] read and write their command-line names
//!   (`xiangqi`, `janggi-tournament`, ...), and a rule set knows its variant.
//! - [`AnyGame`] is a game of any variant under its rule set: one arm for the two
//!   9x10 variants ([`BoardGame`]) and one for Three Kingdoms. A front end builds one
//!   from a request and hands it on once (the API through its traits of
//!   `crate::api::variant`); each arm then works with its own move, board and side
//!   types.
//! - [`SearchedGame`] is the search of either arm's game, the one the engine runs.
//! - [`BoardGame`] is a game record of a 9x10 variant (Xiangqi or Janggi) with the rule
//!   set named for it, each arm holding its own variant's rule set type (so no game is
//!   paired with another variant's rules), and the operations the front ends share:
//!   start it, play moves with the reason of an illegal one, list moves, say the
//!   status, read and write moves in any notation, warn of a repetition, judge the
//!   record. Three Kingdoms, with three players on its own graph and its own move type,
//!   has its own record (the same generic one,
//!   [`crate::rules::three_kingdoms::Game`]) and one rule set, so its arm carries none.

mod board_game;
mod command_line;
mod search;

use std::fmt;
use std::str::FromStr;

pub use board_game::{BoardGame, MoveFacts, PlayError};
pub use search::SearchedGame;

use crate::rules::{janggi, three_kingdoms, xiangqi};

/// A game of any variant, under its rule set.
// A game is built once per request and matched at once, so the arms' sizes differing
// costs nothing; boxing the 9x10 arm would add an allocation to every call.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// A Xiangqi or Janggi game, with the rule set named for it.
    Board(BoardGame),
    /// A Three Kingdoms game. Its variant has one rule set ([`RuleSet::ThreeKingdoms`]),
    /// so there is none to carry.
    ThreeKingdoms(three_kingdoms::Game),
}

impl AnyGame {
    /// The game's variant.
    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Board(game) => game.variant(),
            AnyGame::ThreeKingdoms(_) => Variant::ThreeKingdoms,
        }
    }

    /// The rule set the game is judged by.
    pub fn rules(&self) -> RuleSet {
        match self {
            AnyGame::Board(game) => game.rules_or_default(),
            AnyGame::ThreeKingdoms(_) => RuleSet::ThreeKingdoms,
        }
    }
}

/// A game this crate knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Chinese chess.
    Xiangqi,
    /// Korean chess, on the same board.
    Janggi,
    /// Three players on a 135-point board.
    ThreeKingdoms,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 3] = [Variant::Xiangqi, Variant::Janggi, Variant::ThreeKingdoms];

    /// The name in prose: `Xiangqi`, `Janggi`, `Three Kingdoms`.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Xiangqi => "Xiangqi",
            Variant::Janggi => "Janggi",
            Variant::ThreeKingdoms => "Three Kingdoms",
        }
    }

    /// The name on the command line and in UCI: `xiangqi`, `janggi`, `three-kingdoms`.
    pub const fn id(self) -> &'static str {
        match self {
            Variant::Xiangqi => "xiangqi",
            Variant::Janggi => "janggi",
            Variant::ThreeKingdoms => "three-kingdoms",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a variant's, or not a rule set's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName(pub String);

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown name {:?}", self.0)
    }
}

impl std::error::Error for UnknownName {}

impl FromStr for Variant {
    type Err = UnknownName;

    /// Reads [`Variant::id`], in any case (`Janggi`, `THREE-KINGDOMS`).
    fn from_str(s: &str) -> Result<Variant, UnknownName> {
        Variant::ALL.into_iter().find(|v| v.id().eq_ignore_ascii_case(s.trim())).ok_or_else(|| UnknownName(s.into()))
    }
}

/// A rule set of any variant: the repetition, move-limit and ending rules a game is
/// judged by (and the search follows). Each variant's rule sets are its own type, so
/// a rule set always knows its variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// A Xiangqi rule set: simplified, Asian or tournament.
    Xiangqi(xiangqi::adjudicate::RuleSet),
    /// A Janggi rule set: casual or tournament.
    Janggi(janggi::adjudicate::RuleSet),
    /// The Three Kingdoms rules of `../shared/spec/three-kingdoms.md`.
    ThreeKingdoms,
}

impl RuleSet {
    /// Every rule set.
    pub const ALL: [RuleSet; 6] = [
        RuleSet::Xiangqi(xiangqi::adjudicate::RuleSet::SimplifiedV1),
        RuleSet::Xiangqi(xiangqi::adjudicate::RuleSet::AsianV1),
        RuleSet::Xiangqi(xiangqi::adjudicate::RuleSet::TournamentV1),
        RuleSet::Janggi(janggi::adjudicate::RuleSet::CasualV1),
        RuleSet::Janggi(janggi::adjudicate::RuleSet::TournamentV1),
        RuleSet::ThreeKingdoms,
    ];

    /// The API's name: `SIMPLIFIED_V1`, `JANGGI_CASUAL_V1`, `THREE_KINGDOMS_V1`.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Xiangqi(r) => r.name(),
            RuleSet::Janggi(r) => r.name(),
            RuleSet::ThreeKingdoms => "THREE_KINGDOMS_V1",
        }
    }

    /// The name on the command line and in UCI: `simplified`, `asian`, `tournament`,
    /// `janggi-casual`, `janggi-tournament`, `three-kingdoms`.
    pub const fn id(self) -> &'static str {
        use janggi::adjudicate::RuleSet as J;
        use xiangqi::adjudicate::RuleSet as X;
        match self {
            RuleSet::Xiangqi(X::SimplifiedV1) => "simplified",
            RuleSet::Xiangqi(X::AsianV1) => "asian",
            RuleSet::Xiangqi(X::TournamentV1) => "tournament",
            RuleSet::Janggi(J::CasualV1) => "janggi-casual",
            RuleSet::Janggi(J::TournamentV1) => "janggi-tournament",
            RuleSet::ThreeKingdoms => "three-kingdoms",
        }
    }

    /// The variant whose games this rule set judges.
    pub const fn variant(self) -> Variant {
        match self {
            RuleSet::Xiangqi(_) => Variant::Xiangqi,
            RuleSet::Janggi(_) => Variant::Janggi,
            RuleSet::ThreeKingdoms => Variant::ThreeKingdoms,
        }
    }

    /// The rule set a game of `variant` is judged by when none is named.
    pub fn default_for(variant: Variant) -> RuleSet {
        match variant {
            Variant::Xiangqi => RuleSet::Xiangqi(Default::default()),
            Variant::Janggi => RuleSet::Janggi(Default::default()),
            Variant::ThreeKingdoms => RuleSet::ThreeKingdoms,
        }
    }

    /// This rule set for a game of `variant`, or the error that names both.
    pub fn for_variant(self, variant: Variant) -> Result<RuleSet, WrongVariant> {
        if self.variant() == variant { Ok(self) } else { Err(WrongVariant { rules: self, variant }) }
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for RuleSet {
    type Err = UnknownName;

    /// Reads [`RuleSet::id`] or [`RuleSet::name`], in any case.
    fn from_str(s: &str) -> Result<RuleSet, UnknownName> {
        let s = s.trim();
        RuleSet::ALL
            .into_iter()
            .find(|r| r.id().eq_ignore_ascii_case(s) || r.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName(s.into()))
    }
}

/// A rule set named for a game of another variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrongVariant {
    /// The rule set named.
    pub rules: RuleSet,
    /// The variant of the game.
    pub variant: Variant,
}

impl fmt::Display for WrongVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule set {} is not a {} rule set", self.rules.name(), self.variant.name())
    }
}

impl std::error::Error for WrongVariant {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for v in Variant::ALL {
            assert_eq!(v.id().parse::<Variant>(), Ok(v));
            assert_eq!(v.id().to_uppercase().parse::<Variant>(), Ok(v));
        }
        for r in RuleSet::ALL {
            assert_eq!(r.to_string().parse::<RuleSet>(), Ok(r));
            assert_eq!(r.name().parse::<RuleSet>(), Ok(r));
            assert_eq!(RuleSet::default_for(r.variant()).variant(), r.variant());
        }
        assert!("chess".parse::<Variant>().is_err());
        assert!("casual".parse::<RuleSet>().is_err());
    }

    #[test]
    fn a_rule_set_belongs_to_one_variant() {
        let asian: RuleSet = "asian".parse().unwrap();
        assert_eq!(asian.for_variant(Variant::Xiangqi), Ok(asian));
        let wrong = asian.for_variant(Variant::Janggi).unwrap_err();
        assert_eq!(wrong.to_string(), "rule set ASIAN_V1 is not a Janggi rule set");
    }
}
