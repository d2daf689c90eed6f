//! Handicap (odds) games: named start positions, and the rules of a handicap that a FEN
//! cannot express.
//!
//! The odds are those of the common Italian rules text (`xiangqi-rules-it.txt`, "Il
//! gioco ad handicap"), plus the nine-piece odds. In every preset Red is the side the
//! handicap is about: it receives the extra moves, or it gives the material.
//!
//! | preset | start | who moves first | rules |
//! | --- | --- | --- | --- |
//! | [`Preset::Standard`] | the initial position | Red | none |
//! | [`Preset::TwoMoves`] | the initial position | Red, two moves in a row | none |
//! | [`Preset::ThreeMoves`] | the initial position | Red, three moves in a row | during them no Red piece crosses the river |
//! | [`Preset::FourMoves`] | the initial position | Red, four moves in a row | during them no Red piece crosses the river, and none but a pawn stops on Red's river bank (rank 4) |
//! | [`Preset::OneHorse`] | without Red's horse on h0 | Red | none |
//! | [`Preset::HorseAndMove`] | without Red's horse on h0 | Black | none |
//! | [`Preset::TwoHorses`] | without Red's horses on b0 and h0 | Red | Black may not take Red's unmoved central pawn (e3) unless the capture gives check |
//! | [`Preset::OneChariot`] | without Red's left chariot (a0) | Red | Black may not take Red's unmoved left pawn (a3), left horse (b0) or left cannon (b2) |
//! | [`Preset::NinePieces`] | without Red's advisors, elephants and pawns (nine pieces) | Red | none |
//!
//! The "four or more moves" odds of the rules text are served as four moves by the
//! preset; [`Handicap::moves`] gives the odds of any number of moves (the API's
//! `Position.handicap_moves`, up to [`MAX_MOVES`]).
//!
//! Conventions where the rules text is silent:
//!
//! - The extra moves are the first `opening_moves - 1` moves of the side that starts;
//!   the river and river-bank restrictions hold for all of its `opening_moves` opening
//!   moves, and end with them.
//! - An extra move (one after which the same side moves again) may not give check: the
//!   side in check could not answer, and the other side could take the general.
//! - "Unmoved" means that no move of the game has started from or ended on the piece's
//!   point.
//! - Which horse goes in the one-horse odds is not said; the preset removes the right
//!   one (h0). The nine-piece odds (让九子) remove both advisors, both elephants and all
//!   five pawns, leaving the general, the chariots, the horses and the cannons.

use super::tables::own_side;
use super::{Game, Position};
use crate::rules::BoardPosition;
use crate::rules::game::HandicapRules;
use crate::rules::illegal::IllegalReason;
use crate::rules::types::{Color, Move, PieceKind, Square};

/// A point whose piece may not be captured while it has not moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Protected {
    /// The protected piece's point.
    pub square: Square,
    /// The capture is allowed when it gives check.
    pub unless_check: bool,
}

/// The rules of a handicap game beyond its start position. The default is a normal
/// game.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Handicap {
    /// Moves the side that starts plays in a row before its opponent's first move (one
    /// in a normal game; zero reads as one).
    pub opening_moves: u32,
    /// During the opening moves, no piece crosses the river.
    pub opening_stays_home: bool,
    /// During the opening moves, no piece except a pawn stops on the mover's own river
    /// bank (the rank next to the river: rank 4 for Red, 5 for Black).
    pub opening_avoids_own_bank: bool,
    /// Pieces that may not be captured while unmoved.
    pub protected: Vec<Protected>,
}

/// The most moves in a row the API and the command line give in the "N moves" odds.
pub const MAX_MOVES: u32 = 10;

impl Handicap {
    /// The "N moves" odds: the side that starts plays `n` moves in a row; from three
    /// moves on none of them crosses the river, and from four on none but a pawn stops on
    /// the mover's river bank (the rules text's "four or more moves"). `n` of 0 or 1 is a
    /// normal game.
    pub fn moves(n: u32) -> Handicap {
        if n <= 1 {
            return Handicap::default();
        }
        Handicap {
            opening_moves: n,
            opening_stays_home: n >= 3,
            opening_avoids_own_bank: n >= 4,
            ..Handicap::default()
        }
    }

    /// Is this a normal game?
    pub fn is_none(&self) -> bool {
        self.opening_moves <= 1
            && !self.opening_stays_home
            && !self.opening_avoids_own_bank
            && self.protected.is_empty()
    }

    /// Is ply `index` (0-based) one of the opening moves of the side that starts?
    pub fn in_opening(&self, index: usize) -> bool {
        index < self.opening_moves.max(1) as usize
    }

    /// After ply `index` (0-based), does the same side move again?
    pub fn keeps_turn(&self, index: usize) -> bool {
        index + 1 < self.opening_moves as usize
    }

    /// The first handicap rule that `m`, legal on the board of `pos`, breaks as ply
    /// `index` of the game. `untouched(sq)` tells whether no move of the game so far
    /// started from or ended on `sq`.
    pub fn violation(
        &self,
        pos: &impl BoardPosition,
        m: Move,
        index: usize,
        untouched: impl Fn(Square) -> bool,
    ) -> Option<IllegalReason> {
        let b = pos.board();
        let mover = pos.turn();
        let kind = b.piece_at(m.from())?.kind();
        if self.in_opening(index) {
            let c = mover.index();
            if self.opening_stays_home && !own_side(c, m.to().rank() as i32) {
                return Some(IllegalReason::HandicapCrossesRiver);
            }
            let bank = if mover == Color::Red { 4 } else { 5 };
            if self.opening_avoids_own_bank && kind != PieceKind::Soldier && m.to().rank() == bank {
                return Some(IllegalReason::HandicapOwnRiverBank);
            }
        }
        if self.keeps_turn(index) && pos.gives_check(m) {
            return Some(IllegalReason::HandicapExtraMoveChecks);
        }
        if b.piece_at(m.to()).is_some() {
            let rule = self.protected.iter().find(|p| p.square == m.to());
            if let Some(p) = rule
                && untouched(m.to())
                && !(p.unless_check && pos.gives_check(m))
            {
                return Some(IllegalReason::HandicapProtectedPiece);
            }
        }
        None
    }
}

/// The named start positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// The initial position, no handicap.
    Standard,
    /// Red makes two moves in a row at the start.
    TwoMoves,
    /// Red makes three moves in a row, none across the river.
    ThreeMoves,
    /// Red makes four moves in a row, none across the river or onto its own bank but
    /// a pawn's.
    FourMoves,
    /// Red plays without its horse on h0.
    OneHorse,
    /// Red plays without its horse on h0, and Black moves first.
    HorseAndMove,
    /// Red plays without its horses (b0, h0); its unmoved central pawn is protected.
    TwoHorses,
    /// Red plays without its left chariot (a0); its unmoved left pawn, horse and cannon
    /// are protected.
    OneChariot,
    /// Red plays without its advisors, elephants and pawns (nine pieces).
    NinePieces,
}

/// A handicap start by name, as a record's `Preset` tag and `--preset` give it: a
/// [`Preset`], or the odds of more moves than the presets have (`6-moves`, up to
/// [`MAX_MOVES`]). The odds of two to four moves are the presets `two-moves` to
/// `four-moves`, so each start has one name.
///
/// ```
/// use chuhe::rules::xiangqi::handicap::{NamedStart, Preset};
/// assert_eq!(NamedStart::from_name("6-moves"), Some(NamedStart::Moves(6)));
/// assert_eq!(NamedStart::from_name("3-moves"), Some(NamedStart::Preset(Preset::ThreeMoves)));
/// assert_eq!(NamedStart::from_name("NINE_PIECES"), Some(NamedStart::Preset(Preset::NinePieces)));
/// assert_eq!(NamedStart::Moves(6).name(), "6-moves");
/// assert_eq!(NamedStart::from_name("11-moves"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedStart {
    /// A preset start.
    Preset(Preset),
    /// The odds of this many moves, more than four.
    Moves(u32),
}

impl NamedStart {
    /// The odds of `n` moves (the standard start for one or none), `None` past
    /// [`MAX_MOVES`].
    pub fn moves(n: u32) -> Option<NamedStart> {
        Some(match n {
            0 | 1 => NamedStart::Preset(Preset::Standard),
            2 => NamedStart::Preset(Preset::TwoMoves),
            3 => NamedStart::Preset(Preset::ThreeMoves),
            4 => NamedStart::Preset(Preset::FourMoves),
            n if n <= MAX_MOVES => NamedStart::Moves(n),
            _ => return None,
        })
    }

    /// Reads a preset's name (see [`Preset::from_name`]) or `N-moves`.
    pub fn from_name(text: &str) -> Option<NamedStart> {
        if let Some(p) = Preset::from_name(text) {
            return Some(NamedStart::Preset(p));
        }
        let n = text.trim().to_ascii_lowercase().strip_suffix("-moves")?.parse().ok()?;
        NamedStart::moves(n)
    }

    /// The stable name, as records write it.
    pub fn name(self) -> String {
        match self {
            NamedStart::Preset(p) => p.name().to_string(),
            NamedStart::Moves(n) => format!("{n}-moves"),
        }
    }

    /// The start position.
    pub fn position(self) -> Position {
        match self {
            NamedStart::Preset(p) => p.position(),
            NamedStart::Moves(_) => Position::startpos(),
        }
    }

    /// The rules beyond the start position.
    pub fn handicap(self) -> Handicap {
        match self {
            NamedStart::Preset(p) => p.handicap(),
            NamedStart::Moves(n) => Handicap::moves(n),
        }
    }
}

impl Preset {
    /// Every preset, the standard start first.
    pub const ALL: [Preset; 9] = [
        Preset::Standard,
        Preset::TwoMoves,
        Preset::ThreeMoves,
        Preset::FourMoves,
        Preset::OneHorse,
        Preset::HorseAndMove,
        Preset::TwoHorses,
        Preset::OneChariot,
        Preset::NinePieces,
    ];

    /// Stable name, as a record's `Preset` tag writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Standard => "standard",
            Preset::TwoMoves => "two-moves",
            Preset::ThreeMoves => "three-moves",
            Preset::FourMoves => "four-moves",
            Preset::OneHorse => "one-horse",
            Preset::HorseAndMove => "horse-and-move",
            Preset::TwoHorses => "two-horses",
            Preset::OneChariot => "one-chariot",
            Preset::NinePieces => "nine-pieces",
        }
    }

    /// Reads a name: case-insensitive, `-`, `_` and spaces alike, with or without the
    /// API's `START_PRESET_` prefix.
    pub fn from_name(text: &str) -> Option<Preset> {
        let norm: String =
            text.trim().chars().map(|c| if c == '_' || c == ' ' { '-' } else { c.to_ascii_lowercase() }).collect();
        let norm = norm.strip_prefix("start-preset-").unwrap_or(&norm);
        Preset::ALL.into_iter().find(|p| p.name() == norm)
    }

    /// Red's points left empty.
    fn removed(self) -> &'static [&'static str] {
        match self {
            Preset::OneHorse | Preset::HorseAndMove => &["h0"],
            Preset::TwoHorses => &["b0", "h0"],
            Preset::OneChariot => &["a0"],
            Preset::NinePieces => &["d0", "f0", "c0", "g0", "a3", "c3", "e3", "g3", "i3"],
            _ => &[],
        }
    }

    /// The start position.
    pub fn position(self) -> Position {
        let start = Position::startpos();
        let removed = self.removed();
        if removed.is_empty() && self != Preset::HorseAndMove {
            return start;
        }
        let mut setup = start.to_setup();
        for sq in removed.iter().filter_map(|s| Square::parse(s)) {
            setup.board.remove(sq);
        }
        if self == Preset::HorseAndMove {
            setup.turn = Color::Black;
        }
        // Removing pieces from the initial position cannot expose a general.
        Position::from_setup(setup).unwrap_or_else(|_| Position::startpos())
    }

    /// The rules beyond the start position.
    pub fn handicap(self) -> Handicap {
        let protect = |points: &[&str], unless_check: bool| {
            points.iter().filter_map(|s| Square::parse(s)).map(|square| Protected { square, unless_check }).collect()
        };
        match self {
            Preset::TwoMoves => Handicap::moves(2),
            Preset::ThreeMoves => Handicap::moves(3),
            Preset::FourMoves => Handicap::moves(4),
            Preset::TwoHorses => Handicap { protected: protect(&["e3"], true), ..Handicap::default() },
            Preset::OneChariot => Handicap { protected: protect(&["a3", "b0", "b2"], false), ..Handicap::default() },
            _ => Handicap::default(),
        }
    }
}

/// The generic record keeps a handicap's turns and checks its protected pieces
/// through these.
impl HandicapRules<Position> for Handicap {
    fn is_none(&self) -> bool {
        Handicap::is_none(self)
    }
    fn keeps_turn(&self, index: usize) -> bool {
        Handicap::keeps_turn(self, index)
    }
    fn forbids(&self, game: &Game, m: Move) -> Option<IllegalReason> {
        self.violation(game.position(), m, game.plies().len(), |sq| game.untouched(sq))
    }
}
