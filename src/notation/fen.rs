//! FEN for the 9x10 games, as Pikafish and Fairy-Stockfish write it: ranks from Black's
//! (Han's) side down, upper case for Red (Cho), letters K A B N R C P (`h` and `e` read
//! as horse and elephant), then side to move (`w` or `r` for Red, `b` for Black), two
//! unused fields (`-`), the halfmove clock and the move number. Missing trailing fields
//! take their defaults.
//!
//! ```
//! use chuhe::notation::fen;
//! let setup = fen::parse(fen::XIANGQI_START).unwrap();
//! assert_eq!(fen::format(&setup), fen::XIANGQI_START);
//! ```

use std::fmt;

use crate::rules::board::Board;
use crate::rules::setup::Setup;
use crate::rules::types::{Color, Piece, Square};

/// The Xiangqi initial position.
pub const XIANGQI_START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// The usual Janggi start (both sides horse-elephant-elephant-horse), as
/// Fairy-Stockfish writes it.
pub const JANGGI_START: &str = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";

/// Longest FEN we read; anything longer is not a 9x10 position.
pub const MAX_LEN: usize = 256;

/// Why a text is not a FEN. Ranks are numbered as in ICCS (0 is Red's back rank).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// No text.
    Empty,
    /// Longer than [`MAX_LEN`] bytes.
    TooLong {
        /// The text's length in bytes.
        len: usize,
    },
    /// The placement field does not have ten ranks.
    RankCount {
        /// How many ranks it has.
        found: usize,
    },
    /// A rank describes more than nine points.
    RankTooLong {
        /// The rank.
        rank: u8,
    },
    /// A rank describes fewer than nine points.
    RankTooShort {
        /// The rank.
        rank: u8,
        /// How many points it describes.
        points: u8,
    },
    /// A character that is no piece letter and no digit 1-9.
    UnknownLetter {
        /// The character.
        letter: char,
        /// Its rank.
        rank: u8,
        /// The file it would stand on (0-8 from Red's left).
        file: u8,
    },
    /// The side-to-move field is not `w`, `r` or `b`.
    SideToMove {
        /// The field as given.
        token: String,
    },
    /// The halfmove clock or the move number is not a number.
    Counter {
        /// Which counter.
        field: &'static str,
        /// The field as given.
        token: String,
    },
    /// Fields after the sixth.
    TrailingFields {
        /// The first field too many.
        token: String,
    },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::TooLong { len } => write!(f, "FEN of {len} bytes is longer than {MAX_LEN}"),
            FenError::RankCount { found } => write!(f, "placement has {found} ranks, expected 10"),
            FenError::RankTooLong { rank } => write!(f, "rank {rank} describes more than 9 points"),
            FenError::RankTooShort { rank, points } => {
                write!(f, "rank {rank} describes {points} points, expected 9")
            }
            FenError::UnknownLetter { letter, rank, file } => {
                write!(f, "unknown piece letter {letter:?} at {}", Square::new(*file, *rank))
            }
            FenError::SideToMove { token } => write!(f, "side to move {token:?} is not w, r or b"),
            FenError::Counter { field, token } => write!(f, "{field} {token:?} is not a number"),
            FenError::TrailingFields { token } => {
                write!(f, "unexpected field {token:?} after the move number")
            }
        }
    }
}

impl std::error::Error for FenError {}

/// Parses a FEN into an unchecked setup.
pub fn parse(text: &str) -> Result<Setup, FenError> {
    let text = text.trim();
    if text.len() > MAX_LEN {
        return Err(FenError::TooLong { len: text.len() });
    }
    let mut fields = text.split_ascii_whitespace();
    let placement = fields.next().ok_or(FenError::Empty)?;
    let board = parse_placement(placement)?;
    let turn = match fields.next() {
        None | Some("w") | Some("r") | Some("W") | Some("R") => Color::Red,
        Some("b") | Some("B") => Color::Black,
        Some(other) => {
            return Err(FenError::SideToMove { token: other.to_string() });
        }
    };
    // Castling and en passant fields are always `-` for these games; accept anything.
    let _ = fields.next();
    let _ = fields.next();
    let halfmove_clock = counter(fields.next(), "halfmove clock", 0)?;
    let fullmove_number = counter(fields.next(), "move number", 1)?.max(1);
    if let Some(extra) = fields.next() {
        return Err(FenError::TrailingFields { token: extra.to_string() });
    }
    Ok(Setup { board, turn, halfmove_clock, fullmove_number })
}

fn counter(token: Option<&str>, field: &'static str, default: u32) -> Result<u32, FenError> {
    match token {
        None => Ok(default),
        Some(t) => t.parse().map_err(|_| FenError::Counter { field, token: t.to_string() }),
    }
}

fn parse_placement(placement: &str) -> Result<Board, FenError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 10 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    let mut board = Board::empty();
    for (i, text) in ranks.iter().enumerate() {
        let rank = 9 - i as u8;
        let mut file: u8 = 0;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10).filter(|d| (1..=9).contains(d)) {
                file += d as u8;
                if file > 9 {
                    return Err(FenError::RankTooLong { rank });
                }
            } else {
                let piece =
                    Piece::from_fen_char(ch).ok_or(FenError::UnknownLetter { letter: ch, rank, file: file.min(8) })?;
                if file >= 9 {
                    return Err(FenError::RankTooLong { rank });
                }
                board.put(Square::new(file, rank), piece);
                file += 1;
            }
        }
        if file < 9 {
            return Err(FenError::RankTooShort { rank, points: file });
        }
    }
    Ok(board)
}

/// Formats a setup as FEN (canonical letters: N for horse, B for elephant, `w`/`b`).
pub fn format(setup: &Setup) -> String {
    // Every status the service returns carries its FEN, so this is written into a
    // fixed buffer: 99 characters of board at most, then side and two counters.
    let mut out = AsciiBuf::<{ 99 + 7 + 2 * 20 + 1 }>::new();
    for rank in (0..10).rev() {
        let mut empty = 0;
        for file in 0..9 {
            match setup.board.piece_at(Square::new(file, rank)) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        out.push(b'0' + empty);
                        empty = 0;
                    }
                    out.push(p.fen_char() as u8);
                }
            }
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
        if rank > 0 {
            out.push(b'/');
        }
    }
    out.extend(if setup.turn == Color::Red { b" w - - " } else { b" b - - " });
    out.decimal(u64::from(setup.halfmove_clock));
    out.push(b' ');
    out.decimal(u64::from(setup.fullmove_number));
    out.into_string()
}

/// A short ASCII text built on the stack.
struct AsciiBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> AsciiBuf<N> {
    fn new() -> Self {
        AsciiBuf { bytes: [0; N], len: 0 }
    }

    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    fn extend(&mut self, s: &[u8]) {
        self.bytes[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }

    fn decimal(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.extend(&digits[i..]);
    }

    fn into_string(self) -> String {
        String::from_utf8(self.bytes[..self.len].to_vec()).expect("FEN text is ASCII")
    }
}

/// Why a FEN is not a valid position of a variant: bad text, or text describing a
/// position the rules reject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionTextError<E> {
    /// The text is not a FEN.
    Fen(FenError),
    /// The FEN describes a position the variant's rules reject.
    Invalid(E),
}

impl<E: fmt::Display> fmt::Display for PositionTextError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionTextError::Fen(e) => write!(f, "bad FEN: {e}"),
            PositionTextError::Invalid(e) => write!(f, "invalid position: {e}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for PositionTextError<E> {}

/// Reads a Xiangqi position from FEN; `startpos` is the initial position.
pub fn xiangqi(
    text: &str,
) -> Result<crate::rules::xiangqi::Position, PositionTextError<crate::rules::setup::PositionError>> {
    let text = text.trim();
    let text = if text == "startpos" { XIANGQI_START } else { text };
    let setup = parse(text).map_err(PositionTextError::Fen)?;
    crate::rules::xiangqi::Position::from_setup(setup).map_err(PositionTextError::Invalid)
}

/// Reads a Janggi position from FEN (Cho upper case, moving first as `w`); `startpos`
/// is the usual start.
pub fn janggi(
    text: &str,
) -> Result<crate::rules::janggi::Position, PositionTextError<crate::rules::setup::PositionError>> {
    let text = text.trim();
    let text = if text == "startpos" { JANGGI_START } else { text };
    let setup = parse(text).map_err(PositionTextError::Fen)?;
    crate::rules::janggi::Position::from_setup(setup).map_err(PositionTextError::Invalid)
}
