//! The training data's file format: a sequence of fixed-size records, one a position,
//! with no header (so a file is extended by appending and a restart resumes it).
//!
//! A record is [`RECORD_BYTES`] = 52 bytes, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..45 | the board: point `p` (`rank * 9 + file`, ICCS ranks) in byte `p / 2`, low nibble for even `p`; 0 empty, else `1 + colour * 7 + kind` (kinds as [`PieceKind`]: 0 general ... 6 soldier) |
//! | 45 | flags: bit 0 the side to move (0 Red/Cho, 1 Black/Han); bits 1-2 the game's result for Red/Cho (0 loss, 1 draw, 2 win); bit 3 the variant (0 Xiangqi, 1 Janggi) |
//! | 46..48 | the search's score, `i16`, centipawns from the side to move's view |
//! | 48..52 | the game's index, `u32` (the self-play seed; what a restart reads) |

use std::io::{Read, Write};

use crate::rules::board::Board;
use crate::rules::types::{Color, Piece, PieceKind, Square};

/// The size of one record in bytes.
pub const RECORD_BYTES: usize = 52;

/// The game of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataVariant {
    /// Xiangqi.
    Xiangqi,
    /// Janggi.
    Janggi,
}

/// One position with its labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The piece on each point (`rank * 9 + file`).
    pub board: [Option<Piece>; Square::COUNT],
    /// The side to move.
    pub turn: Color,
    /// The search's score, side to move's view, centipawns.
    pub score: i16,
    /// The game's result for Red (Cho): 0 loss, 1 draw, 2 win.
    pub red_result: u8,
    /// The variant.
    pub variant: DataVariant,
    /// The index of the game it comes from.
    pub game: u32,
}

impl Record {
    /// The game's result for the side to move: 1 win, 0.5 draw, 0 loss.
    pub fn result_for_mover(&self) -> f32 {
        let red = self.red_result as f32 / 2.0;
        if self.turn == Color::Red { red } else { 1.0 - red }
    }

    /// The record's bytes.
    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut bytes = [0u8; RECORD_BYTES];
        for (p, piece) in self.board.iter().enumerate() {
            let nibble = piece.map_or(0, |pc| pc.index() as u8 + 1);
            bytes[p / 2] |= nibble << (4 * (p % 2));
        }
        let turn = (self.turn == Color::Black) as u8;
        let variant = (self.variant == DataVariant::Janggi) as u8;
        bytes[45] = turn | (self.red_result.min(2) << 1) | (variant << 3);
        bytes[46..48].copy_from_slice(&self.score.to_le_bytes());
        bytes[48..52].copy_from_slice(&self.game.to_le_bytes());
        bytes
    }

    /// The record of `bytes`, or why they are none (a bad piece code or result).
    pub fn decode(bytes: &[u8; RECORD_BYTES]) -> Result<Record, String> {
        let mut board = [None; Square::COUNT];
        for (p, slot) in board.iter_mut().enumerate() {
            let nibble = (bytes[p / 2] >> (4 * (p % 2))) & 15;
            *slot = match nibble {
                0 => None,
                1..=14 => {
                    let i = nibble - 1;
                    let color = if i < 7 { Color::Red } else { Color::Black };
                    Some(Piece::new(color, PieceKind::ALL[(i % 7) as usize]))
                }
                _ => return Err(format!("piece code {nibble} at point {p}")),
            };
        }
        let flags = bytes[45];
        let red_result = (flags >> 1) & 3;
        if red_result > 2 || flags >> 4 != 0 {
            return Err(format!("flags {flags:#04x}"));
        }
        Ok(Record {
            board,
            turn: if flags & 1 == 0 { Color::Red } else { Color::Black },
            score: i16::from_le_bytes([bytes[46], bytes[47]]),
            red_result,
            variant: if flags & 8 == 0 { DataVariant::Xiangqi } else { DataVariant::Janggi },
            game: u32::from_le_bytes([bytes[48], bytes[49], bytes[50], bytes[51]]),
        })
    }

    /// The board of the record.
    pub fn to_board(&self) -> Board {
        let mut board = Board::empty();
        for (point, piece) in self.pieces() {
            board.put(Square::from_index_unchecked(point), piece);
        }
        board
    }

    /// The same position seen in a mirror between the wings (file `a` becomes `i`).
    /// The rules of both games are the same on either wing, so it has the same score
    /// and the same result: a second position for the price of one.
    pub fn mirrored(&self) -> Record {
        let mut board = [None; Square::COUNT];
        for (point, piece) in self.pieces() {
            board[Square::from_index_unchecked(point).flip_file().index()] = Some(piece);
        }
        Record { board, ..self.clone() }
    }

    /// The pieces on the board with their points.
    pub fn pieces(&self) -> impl Iterator<Item = (usize, Piece)> + '_ {
        self.board.iter().enumerate().filter_map(|(p, pc)| pc.map(|pc| (p, pc)))
    }
}

/// Writes `records` to `out`.
pub fn write_records(out: &mut impl Write, records: &[Record]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(records.len() * RECORD_BYTES);
    for r in records {
        bytes.extend_from_slice(&r.encode());
    }
    out.write_all(&bytes)
}

/// Opens the data file at `path` to read, or `None` when there is none: it must be a
/// regular file, since a device or a pipe (`/dev/zero`, `/dev/full`) may never end
/// and would be read until memory or patience ran out. The error names the file.
pub fn open_data(path: &std::path::Path) -> Result<Option<std::fs::File>, String> {
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    // Looked at before it is opened: opening a FIFO would wait for a writer.
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => return Err(format!("{}: not a regular file", path.display())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(named(e)),
    }
    std::fs::File::open(path).map(Some).map_err(named)
}

/// Reads every whole record of `input`; a trailing partial record (a writer stopped
/// mid-write) is ignored. Fails on a record that does not decode, naming its index.
pub fn read_records(input: &mut impl Read) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    for_each_record(input, |r| records.push(r))?;
    Ok(records)
}

/// Calls `f` on each whole record of `input` (see [`read_records`]); the number of
/// records read.
pub fn for_each_record(input: &mut impl Read, mut f: impl FnMut(Record)) -> Result<usize, String> {
    let mut reader = std::io::BufReader::with_capacity(1 << 20, input);
    let mut bytes = [0u8; RECORD_BYTES];
    let mut n = 0;
    loop {
        match read_full(&mut reader, &mut bytes).map_err(|e| e.to_string())? {
            RECORD_BYTES => {}
            _ => return Ok(n),
        }
        f(Record::decode(&bytes).map_err(|e| format!("record {n}: {e}"))?);
        n += 1;
    }
}

/// Reads until `buf` is full or the input ends; the number of bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(game: u32) -> Record {
        let mut board = [None; Square::COUNT];
        board[4] = Some(Piece::new(Color::Red, PieceKind::General));
        board[85] = Some(Piece::new(Color::Black, PieceKind::General));
        board[89] = Some(Piece::new(Color::Black, PieceKind::Soldier));
        board[0] = Some(Piece::new(Color::Red, PieceKind::Chariot));
        board[47] = Some(Piece::new(Color::Black, PieceKind::Cannon));
        Record { board, turn: Color::Black, score: -1234, red_result: 2, variant: DataVariant::Janggi, game }
    }

    /// The record of the position `fen` (Xiangqi).
    fn record_of_fen(fen: &str) -> Record {
        let pos = crate::notation::fen::xiangqi(fen).expect("valid FEN");
        let mut board = [None; Square::COUNT];
        for (sq, piece) in pos.board().iter() {
            board[sq.index()] = Some(piece);
        }
        Record { board, turn: pos.turn(), score: 57, red_result: 0, variant: DataVariant::Xiangqi, game: 3 }
    }

    #[test]
    fn a_mirrored_record_is_the_position_seen_between_the_wings() {
        // Each rank of the FEN read from the other end.
        let record = record_of_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 b - - 0 1");
        let mirror = record_of_fen("3a1ab1r/3nk4/4b1n2/p1p1p1pNp/4c4/2P6/P2R2P1P/5CcC1/9/2BAKAB2 b - - 0 1");
        assert_eq!(record.mirrored(), mirror);
        assert_eq!(mirror.mirrored(), record);
        assert_ne!(record, mirror);
    }

    #[test]
    fn records_round_trip() {
        let records = vec![sample(7), Record { turn: Color::Red, score: i16::MAX, red_result: 1, ..sample(u32::MAX) }];
        let mut bytes = Vec::new();
        write_records(&mut bytes, &records).unwrap();
        assert_eq!(bytes.len(), 2 * RECORD_BYTES);
        // A partial record at the end (a writer stopped mid-write) is left out.
        bytes.extend_from_slice(&[1, 2, 3]);
        let read = read_records(&mut bytes.as_slice()).unwrap();
        assert_eq!(read, records);
        assert_eq!(read[0].result_for_mover(), 0.0);
        assert_eq!(read[1].result_for_mover(), 0.5);
        assert_eq!(read[0].pieces().count(), 5);
        assert_eq!(read[0].to_board().piece_at(Square::new(2, 5)), Some(Piece::new(Color::Black, PieceKind::Cannon)));
        assert_eq!(read[0].to_board().iter().count(), 5);
    }

    #[test]
    fn a_bad_record_is_refused() {
        let mut bytes = sample(1).encode();
        bytes[45] = 0b110; // result 3
        assert!(Record::decode(&bytes).is_err());
        let mut bytes = sample(1).encode();
        bytes[3] = 0xF0; // piece code 15
        let err = read_records(&mut bytes.as_slice()).unwrap_err();
        assert!(err.contains("record 0") && err.contains("piece code 15"), "{err}");
    }
}
