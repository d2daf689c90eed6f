//! Setups (unchecked arrangements) and their validation into positions, with the
//! reasons a setup is refused.

use std::fmt;

use super::geometry::{Kingdom, Point};
use super::piece::{EMPTY, Kind, NO_POINT, Piece};
use super::position::Position;

/// An unchecked arrangement: what a position text says, before any rule looked at it.
/// It becomes a [`Position`] only through [`Position::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The piece on each point, by point index.
    pub board: [Option<Piece>; Point::COUNT],
    /// The kingdom to move.
    pub side_to_move: Kingdom,
    /// `controllers[k]` controls the pieces that started in kingdom `k`: `k` itself
    /// while it is in play, the kingdom that took its army once it is defeated.
    pub controllers: [Kingdom; 3],
    /// Are flag bearers in play (a table option)?
    pub flag_bearers: bool,
    /// Plies since the last capture or defeat.
    pub quiet_plies: u32,
    /// Starts at 1 and grows each time the turn passes Shu's seat.
    pub move_number: u32,
}

impl Setup {
    /// No pieces, Shu to move, nobody defeated.
    pub fn empty(flag_bearers: bool) -> Setup {
        Setup {
            board: [None; Point::COUNT],
            side_to_move: Kingdom::Shu,
            controllers: Kingdom::ALL,
            flag_bearers,
            quiet_plies: 0,
            move_number: 1,
        }
    }

    /// The same arrangement with every kingdom replaced by the next one in turn order:
    /// pieces, controllers and the side to move. Counters stay.
    pub fn rotated(&self) -> Setup {
        let mut out = self.clone();
        for p in Point::all() {
            out.board[p.rotated().index()] = self.board[p.index()].map(Piece::rotated);
        }
        for k in Kingdom::ALL {
            out.controllers[k.next().index()] = self.controllers[k.index()].next();
        }
        out.side_to_move = self.side_to_move.next();
        out
    }
}

/// Why a setup is not a Three Kingdoms position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A defeated kingdom's army is given to a kingdom that is itself defeated.
    ControllerDefeated {
        /// The army's original kingdom.
        army: Kingdom,
        /// The defeated kingdom it is given to.
        controller: Kingdom,
    },
    /// The side to move is a defeated kingdom.
    SideToMoveDefeated {
        /// The side to move.
        kingdom: Kingdom,
    },
    /// A kingdom in play needs exactly one general, a defeated one has none.
    GeneralCount {
        /// The kingdom.
        kingdom: Kingdom,
        /// Its generals on the board.
        count: u32,
        /// Is it defeated?
        defeated: bool,
    },
    /// More pieces of a kind than an army starts with.
    TooManyPieces {
        /// The piece.
        piece: Piece,
        /// How many stand on the board.
        count: u32,
        /// How many an army starts with.
        max: u32,
    },
    /// A flag bearer on the board while flag bearers are not in play.
    FlagBearerOff {
        /// Its point.
        point: Point,
    },
    /// A general or an advisor outside its own palace.
    OutsidePalace {
        /// The piece.
        piece: Piece,
        /// Its point.
        point: Point,
    },
    /// An elephant outside its own half.
    OutsideHalf {
        /// The piece.
        piece: Piece,
        /// Its point.
        point: Point,
    },
    /// A piece on a point it can never reach (an advisor off the palace diagonals, an
    /// elephant off its seven points, a soldier behind its start or beside it before it
    /// crossed).
    UnreachablePoint {
        /// The piece.
        piece: Piece,
        /// Its point.
        point: Point,
    },
    /// The kingdom that moved last left its general attacked or facing a rival general.
    LastMoverInCheck {
        /// The kingdom that moved last.
        kingdom: Kingdom,
        /// The points of the rival pieces that attack or face its general.
        attackers: Vec<Point>,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::ControllerDefeated { army, controller } => {
                write!(f, "{army}'s army is controlled by {controller}, which is defeated itself")
            }
            PositionError::SideToMoveDefeated { kingdom } => write!(f, "the side to move, {kingdom}, is defeated"),
            PositionError::GeneralCount { kingdom, count, defeated: false } => {
                write!(f, "{kingdom} is in play with {count} generals, needs exactly one")
            }
            PositionError::GeneralCount { kingdom, count, defeated: true } => {
                write!(f, "{kingdom} is defeated but has {count} generals on the board")
            }
            PositionError::TooManyPieces { piece, count, max } => {
                write!(f, "{count} pieces of kind {piece:?}, at most {max}")
            }
            PositionError::FlagBearerOff { point } => {
                write!(f, "flag bearer on {point} while flag bearers are not in play")
            }
            PositionError::OutsidePalace { piece, point } => write!(f, "{piece:?} on {point} is outside its palace"),
            PositionError::OutsideHalf { piece, point } => write!(f, "{piece:?} on {point} is outside its half"),
            PositionError::UnreachablePoint { piece, point } => {
                write!(f, "{piece:?} on {point} stands where it can never go")
            }
            PositionError::LastMoverInCheck { kingdom, attackers } => {
                let list: Vec<String> = attackers.iter().map(|p| p.to_string()).collect();
                write!(
                    f,
                    "{kingdom} moved last but its general is attacked or faces a general (from {})",
                    list.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for PositionError {}

const ADVISOR_POINTS: [(u8, u8); 5] = [(3, 1), (5, 1), (4, 2), (3, 3), (5, 3)];
const ELEPHANT_POINTS: [(u8, u8); 7] = [(2, 1), (6, 1), (0, 3), (4, 3), (8, 3), (2, 5), (6, 5)];

impl Position {
    /// The start position, with or without flag bearers. Each kingdom, in its own frame:
    /// chariots a1 i1, horses b1 h1, elephants c1 g1, advisors d1 f1, general e1,
    /// cannons b3 h3, soldiers a4 c4 e4 g4 i4, flag bearers d3 f3.
    pub fn startpos(flag_bearers: bool) -> Position {
        use Kind::*;
        let mut setup = Setup::empty(flag_bearers);
        let back = [Chariot, Horse, Elephant, Advisor, General, Advisor, Elephant, Horse, Chariot];
        for k in Kingdom::ALL {
            let mut put = |file: u8, rank: u8, kind: Kind| {
                setup.board[Point::new(k, file, rank).index()] = Some(Piece::new(kind, k));
            };
            for (file, &kind) in back.iter().enumerate() {
                put(file as u8, 1, kind);
            }
            put(1, 3, Cannon);
            put(7, 3, Cannon);
            for file in [0, 2, 4, 6, 8] {
                put(file, 4, Soldier);
            }
            if flag_bearers {
                put(3, 3, FlagBearer);
                put(5, 3, FlagBearer);
            }
        }
        match Position::from_setup(setup) {
            Ok(pos) => pos,
            Err(e) => unreachable!("the start position is valid: {e}"),
        }
    }

    /// Validates a setup; this is the only way to build a position from pieces. A side
    /// to move without a legal move is defeated at once (see [`Position`]).
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let live = |k: Kingdom| setup.controllers[k.index()] == k;
        for k in Kingdom::ALL {
            let c = setup.controllers[k.index()];
            if !live(c) {
                return Err(PositionError::ControllerDefeated { army: k, controller: c });
            }
        }
        if !live(setup.side_to_move) {
            return Err(PositionError::SideToMoveDefeated { kingdom: setup.side_to_move });
        }
        let mut counts = [[0u32; 8]; 3];
        for (i, piece) in setup.board.iter().enumerate() {
            let Some(piece) = *piece else { continue };
            let point = Point::from_index_unchecked(i);
            let o = piece.origin();
            counts[o.index()][piece.kind().index()] += 1;
            let own = point.kingdom() == o;
            let (f, r) = (point.file(), point.rank());
            let error = match piece.kind() {
                Kind::General | Kind::Advisor if !own || !point.in_palace() => {
                    Some(PositionError::OutsidePalace { piece, point })
                }
                Kind::Advisor if !ADVISOR_POINTS.contains(&(f, r)) => {
                    Some(PositionError::UnreachablePoint { piece, point })
                }
                Kind::Elephant if !own => Some(PositionError::OutsideHalf { piece, point }),
                Kind::Elephant if !ELEPHANT_POINTS.contains(&(f, r)) => {
                    Some(PositionError::UnreachablePoint { piece, point })
                }
                Kind::Soldier if own && (r < 4 || f % 2 == 1) => Some(PositionError::UnreachablePoint { piece, point }),
                Kind::FlagBearer if !setup.flag_bearers => Some(PositionError::FlagBearerOff { point }),
                _ => None,
            };
            if let Some(e) = error {
                return Err(e);
            }
        }
        for k in Kingdom::ALL {
            let generals = counts[k.index()][Kind::General.index()];
            if generals != u32::from(live(k)) {
                return Err(PositionError::GeneralCount { kingdom: k, count: generals, defeated: !live(k) });
            }
            for kind in Kind::ALL {
                let (count, max) = (counts[k.index()][kind.index()], kind.start_count());
                if count > max {
                    return Err(PositionError::TooManyPieces { piece: Piece::new(kind, k), count, max });
                }
            }
        }

        let mut pos = Position {
            board: [EMPTY; Point::COUNT],
            army: [[0; 3]; 3],
            generals: [NO_POINT; 3],
            controller: setup.controllers,
            side: setup.side_to_move,
            flag_bearers: setup.flag_bearers,
            quiet_plies: setup.quiet_plies,
            move_number: setup.move_number.max(1),
            key: 0,
        };
        for (i, piece) in setup.board.iter().enumerate() {
            if let Some(piece) = *piece {
                pos.put(i, piece.code());
                if piece.kind() == Kind::General {
                    pos.generals[piece.origin().index()] = i as u8;
                }
            }
        }
        pos.key = pos.key_from_scratch();
        if pos.live_count() >= 2 {
            let last = pos.previous_in_play(pos.side);
            let attackers = pos.attackers_of_general(last);
            if !attackers.is_empty() {
                return Err(PositionError::LastMoverInCheck { kingdom: last, attackers });
            }
        }
        let mut removed = ([NO_POINT; 2], 0u8);
        pos.settle(&mut removed);
        Ok(pos)
    }

    /// The unchecked form of this position.
    pub fn to_setup(&self) -> Setup {
        let mut board = [None; Point::COUNT];
        for (i, &code) in self.board.iter().enumerate() {
            board[i] = Piece::from_code(code);
        }
        Setup {
            board,
            side_to_move: self.side,
            controllers: self.controller,
            flag_bearers: self.flag_bearers,
            quiet_plies: self.quiet_plies,
            move_number: self.move_number,
        }
    }
}
