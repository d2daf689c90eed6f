//! What WXF, Chinese and Italian notation share: a move is described by its piece, the
//! file it stands on, a direction and a number.
//!
//! - Files are numbered 1-9 from the mover's right: Red's file 1 is `i`, Black's file 1
//!   is `a`.
//! - Forward is towards the opponent. A piece moving straight (general, chariot, cannon,
//!   pawn) gives the number of steps when it moves forward or back, and the file it
//!   arrives on when it moves sideways. A piece moving diagonally (advisor, elephant,
//!   horse) always gives the file it arrives on.
//! - When several of the mover's pieces of a kind stand on one file (tandem pieces),
//!   their order from the front (nearest the opponent) to the rear replaces or
//!   qualifies the file. Advisors and elephants never need it (the direction tells
//!   them apart) and are always written with their file.
//!
//! The tandem conventions are those of the WXF notation rules; each notation writes the
//! same [`Designation`] its own way (see [`super::wxf`], [`super::chinese`],
//! [`super::italian`]).

use super::NotationErrorKind;
use crate::rules::BoardPosition;
use crate::rules::board::{FILE_MASKS, squares};
use crate::rules::types::{Color, Move, PieceKind, Square};

/// Which way a piece moves, from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards the opponent (`+`, 进).
    Forward,
    /// Towards the mover's own side (`-`, 退).
    Back,
    /// Along the rank (`.` or `=`, 平).
    Sideways,
}

/// Which of the tandem pieces on a file is meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pick {
    /// WXF `+`: the front piece of two or three, the second from the front of four or
    /// five.
    Plus,
    /// WXF `-`: the rear piece of two or three, the second from the rear of four or five.
    Minus,
    /// WXF `++`: the foremost of four or five.
    PlusPlus,
    /// WXF `--`: the rearmost of four or five.
    MinusMinus,
    /// The middle one of three or five.
    Middle,
    /// The n-th from the front, 1-based (Chinese 前 is the first, 一..五).
    Nth(u8),
    /// The rearmost (Chinese 后).
    Last,
}

impl Pick {
    /// Index from the front among `count` pieces, if the pick fits that many.
    pub fn index(self, count: usize) -> Option<usize> {
        match (self, count) {
            (Pick::Plus, 2 | 3) => Some(0),
            (Pick::Plus, 4 | 5) => Some(1),
            (Pick::Minus, 2 | 3) => Some(count - 1),
            (Pick::Minus, 4 | 5) => Some(count - 2),
            (Pick::PlusPlus, 4 | 5) => Some(0),
            (Pick::MinusMinus, 4 | 5) => Some(count - 1),
            (Pick::Middle, 3 | 5) => Some(count / 2),
            (Pick::Nth(n), _) if n >= 1 && (n as usize) <= count && count >= 2 => Some(n as usize - 1),
            (Pick::Last, 2..) => Some(count - 1),
            _ => None,
        }
    }
}

/// Which piece a move text names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// The piece of the kind on this file (1-9). With three or five pawns on the file it
    /// is the middle one (WXF); otherwise the legal move decides.
    File(u8),
    /// One of the tandem pieces, on the named file or on the only file with two or
    /// more of them.
    Tandem {
        /// The file (1-9), when the text names it.
        file: Option<u8>,
        /// Which of the tandem pieces.
        pick: Pick,
    },
}

/// A move as the descriptive notations read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Described {
    /// The kind of the moving piece.
    pub kind: PieceKind,
    /// Which piece of that kind: by its file, or by its place in a tandem.
    pub place: Place,
    /// Forward, backward or along the rank.
    pub direction: Direction,
    /// Steps, or the file of arrival (1-9).
    pub number: u8,
}

/// A move as the descriptive notations write it: everything each notation needs to
/// choose its own tandem labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Designation {
    /// The mover.
    pub color: Color,
    /// The kind of the moving piece.
    pub kind: PieceKind,
    /// File of the piece (1-9 from the mover's right).
    pub file: u8,
    /// The piece's place from the front among the mover's pieces of its kind on its
    /// file, and how many there are (`count` is 1 for a lone piece, and for advisors
    /// and elephants, which are never told apart by place).
    pub index: usize,
    /// How many of the mover's pieces of the kind stand on the file.
    pub count: usize,
    /// Pawns: the mover has two or more pawns on each of two files.
    pub two_files: bool,
    /// Forward, backward or along the rank.
    pub direction: Direction,
    /// Steps, or the file of arrival (1-9).
    pub number: u8,
}

/// File number (1-9 from `color`'s right) of a board file (0-8 from Red's left).
pub const fn file_number(color: Color, file: u8) -> u8 {
    match color {
        Color::Red => 9 - file,
        Color::Black => file + 1,
    }
}

/// Board file (0-8) of a file number (1-9) from `color`'s right.
pub const fn board_file(color: Color, number: u8) -> u8 {
    match color {
        Color::Red => 9 - number,
        Color::Black => number - 1,
    }
}

/// Rank steps towards the opponent.
const fn forward(color: Color) -> i8 {
    match color {
        Color::Red => 1,
        Color::Black => -1,
    }
}

/// The mover's pieces of a kind on a board file, front first.
fn on_file(pos: &impl BoardPosition, color: Color, kind: PieceKind, file: u8) -> Vec<Square> {
    let mut list: Vec<Square> = squares(pos.board().pieces(color, kind) & FILE_MASKS[file as usize]).collect();
    // `squares` gives rank order from Red's side: Red's front is the highest rank.
    if color == Color::Red {
        list.reverse();
    }
    list
}

/// Board files holding two or more of the mover's pieces of a kind.
fn tandem_files(pos: &impl BoardPosition, color: Color, kind: PieceKind) -> Vec<u8> {
    let bb = pos.board().pieces(color, kind);
    (0..9u8).filter(|&f| (bb & FILE_MASKS[f as usize]).count_ones() >= 2).collect()
}

const fn tells_apart_by_place(kind: PieceKind) -> bool {
    !matches!(kind, PieceKind::Advisor | PieceKind::Elephant | PieceKind::General)
}

/// Describes a move of the piece on its from-point (`None` when that point is empty).
pub fn describe(pos: &impl BoardPosition, m: Move) -> Option<Designation> {
    let piece = pos.board().piece_at(m.from())?;
    let (color, kind) = (piece.color(), piece.kind());
    let (from, to) = (m.from(), m.to());
    let (direction, number) = if from.rank() == to.rank() {
        (Direction::Sideways, file_number(color, to.file()))
    } else {
        let ahead = (to.rank() as i8 - from.rank() as i8) * forward(color) > 0;
        let direction = if ahead { Direction::Forward } else { Direction::Back };
        let number = match kind {
            PieceKind::Advisor | PieceKind::Elephant | PieceKind::Horse => file_number(color, to.file()),
            _ => from.rank().abs_diff(to.rank()),
        };
        (direction, number)
    };
    let (mut index, mut count, mut two_files) = (0, 1, false);
    if tells_apart_by_place(kind) {
        let same = on_file(pos, color, kind, from.file());
        if same.len() > 1 {
            index = same.iter().position(|&s| s == from)?;
            count = same.len();
            two_files = kind == PieceKind::Soldier && tandem_files(pos, color, kind).len() >= 2;
        }
    }
    Some(Designation { color, kind, file: file_number(color, from.file()), index, count, two_files, direction, number })
}

/// The moves a description can mean in `pos`, before legality: one per piece it may
/// name whose move lands on the board.
pub fn candidates(pos: &impl BoardPosition, d: &Described) -> Result<Vec<Move>, NotationErrorKind> {
    let color = pos.turn();
    let kind = d.kind;
    let sources: Vec<Square> = match d.place {
        Place::File(n) => {
            let same = on_file(pos, color, kind, board_file(color, n));
            match same.len() {
                0 => return Err(NotationErrorKind::NoPiece { color, kind, file: n }),
                3 | 5 if kind == PieceKind::Soldier => vec![same[same.len() / 2]],
                _ => same,
            }
        }
        Place::Tandem { file, pick } => {
            let file = match file {
                Some(n) => board_file(color, n),
                None => match tandem_files(pos, color, kind).as_slice() {
                    [f] => *f,
                    [] => return Err(NotationErrorKind::NoTandem { color, kind }),
                    _ => return Err(NotationErrorKind::TandemFiles { color }),
                },
            };
            let same = on_file(pos, color, kind, file);
            if same.is_empty() {
                return Err(NotationErrorKind::NoPiece { color, kind, file: file_number(color, file) });
            }
            let i = pick.index(same.len()).ok_or(NotationErrorKind::BadTandemMarker { kind, count: same.len() })?;
            vec![same[i]]
        }
    };
    let moves: Vec<Move> = sources.iter().filter_map(|&from| destination(color, kind, from, d)).collect();
    if moves.is_empty() {
        return Err(NotationErrorKind::CannotMove { kind });
    }
    Ok(moves)
}

/// Where the piece on `from` goes by the description, if that is on the board and the
/// shape fits the piece.
fn destination(color: Color, kind: PieceKind, from: Square, d: &Described) -> Option<Move> {
    if !(1..=9).contains(&d.number) {
        return None;
    }
    let ahead = forward(color);
    let to = match (kind, d.direction) {
        (PieceKind::Advisor | PieceKind::Elephant | PieceKind::Horse, Direction::Sideways) => return None,
        (PieceKind::Advisor | PieceKind::Elephant | PieceKind::Horse, dir) => {
            let df = board_file(color, d.number) as i8 - from.file() as i8;
            let dr = match (kind, df.abs()) {
                (PieceKind::Advisor, 1) => 1,
                (PieceKind::Elephant, 2) => 2,
                (PieceKind::Horse, 1) => 2,
                (PieceKind::Horse, 2) => 1,
                _ => return None,
            };
            let sign = if dir == Direction::Forward { ahead } else { -ahead };
            from.offset(df, dr * sign)?
        }
        (_, Direction::Sideways) => {
            let to = Square::new(board_file(color, d.number), from.rank());
            if to == from {
                return None;
            }
            to
        }
        (_, dir) => {
            let sign = if dir == Direction::Forward { ahead } else { -ahead };
            from.offset(0, d.number as i8 * sign)?
        }
    };
    Some(Move::new(from, to))
}
