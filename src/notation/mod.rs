//! Text forms: FEN positions, move notations and game records, parse and format.
//!
//! Move notations ([`Notation`]):
//!
//! | notation | example (Red's central cannon) | module |
//! | --- | --- | --- |
//! | ICCS | `h2e2` (also `H2-E2`) | [`iccs`] |
//! | coordinates, ranks 1-10 | `h3-e3` | [`coordinate`] |
//! | WXF | `C2.5` | [`wxf`] |
//! | Chinese | `炮二平五` | [`chinese`] |
//! | Italian letters | `B2=5` | [`italian`] |
//! | algebraic, Italian letters | `Bhe3` | [`algebraic`] |
//! | Korean (Janggi records) | `79졸78` | [`korean`] |
//!
//! ICCS and coordinates name points and need no position. WXF, Chinese and Italian
//! letters describe a move by its piece, the file it stands on (1-9 from the mover's
//! right), a direction and a number, and are read against the position ([`descriptive`]
//! holds what they share). Algebraic notation names the piece and its point of arrival,
//! and is read against the legal moves; Korean notation names both points and the
//! piece. Janggi moves are read and written in the notations that name points
//! ([`Notation::applies_to_janggi`]: ICCS, coordinates, algebraic, Korean), through the
//! same functions (over [`BoardPosition`]); the descriptive notations count the number of a
//! straight move as a distance and cannot tell Janggi's diagonal palace moves from
//! straight ones. Parsing is lenient (spaces, `=` or `.`, check marks `+`/`#` after the move);
//! formatting is canonical, and `parse_move(format_move(m)) == m` for every legal move.
//!
//! ```
//! use chuhe::notation::{Notation, format_move, parse_move};
//! use chuhe::rules::types::Move;
//! use chuhe::rules::xiangqi::Position;
//!
//! let pos = Position::startpos();
//! let m = parse_move(&pos, "炮二平五", Notation::Chinese).unwrap();
//! assert_eq!(m, Move::parse_iccs("h2e2").unwrap());
//! assert_eq!(format_move(&pos, m, Notation::Wxf), "C2.5");
//! assert_eq!(format_move(&pos, m, Notation::Coordinate), "h3-e3");
//! ```

pub mod algebraic;
pub mod chinese;
pub mod coordinate;
pub mod descriptive;
pub mod fen;
pub mod iccs;
pub mod italian;
pub mod korean;
pub mod record;
pub mod wxf;

use std::fmt;

use crate::rules::board::Board;
use crate::rules::illegal::IllegalReason;
use crate::rules::types::{Color, Move, Piece, PieceKind};
use crate::rules::{BoardPosition, Status};

/// A move notation of the 9x10 games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// `h2e2`: from-point and to-point, files a-i from Red's left, ranks 0-9 from Red's
    /// side.
    Iccs,
    /// `h3-e3`: the same points with ranks 1-10.
    Coordinate,
    /// WXF: `C2.5`, `H8+7`, `R+.3`; letters K A E H R C P.
    Wxf,
    /// Chinese: `炮二平五`, `马8进7`, `前车平三`.
    Chinese,
    /// WXF-style with Italian letters T C E M R B P and tandem markers A/F, M, B:
    /// `B2=5`, `C8+7`, `TA2=3`.
    Italian,
    /// Algebraic with Italian letters, points with ranks 1-10: `Cc3`, `Bhe3`, `g5xg6`,
    /// `Txd7#` (Xiangqi and Janggi).
    Algebraic,
    /// Korean, as Janggi records write moves: `79졸78`, `74상42병`, `85포55장군`.
    Korean,
}

impl Notation {
    /// Every notation.
    pub const ALL: [Notation; 7] = [
        Notation::Iccs,
        Notation::Coordinate,
        Notation::Wxf,
        Notation::Chinese,
        Notation::Italian,
        Notation::Algebraic,
        Notation::Korean,
    ];

    /// Name as a record's `Format` tag writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Notation::Iccs => "ICCS",
            Notation::Coordinate => "Coordinate",
            Notation::Wxf => "WXF",
            Notation::Chinese => "Chinese",
            Notation::Italian => "Italian",
            Notation::Algebraic => "Algebraic",
            Notation::Korean => "Korean",
        }
    }

    /// The name on the command line: `iccs`, `coordinate`, `wxf`, `chinese`, `italian`,
    /// `algebraic`, `korean` (one [`Notation::from_name`] reads).
    pub const fn id(self) -> &'static str {
        match self {
            Notation::Iccs => "iccs",
            Notation::Coordinate => "coordinate",
            Notation::Wxf => "wxf",
            Notation::Chinese => "chinese",
            Notation::Italian => "italian",
            Notation::Algebraic => "algebraic",
            Notation::Korean => "korean",
        }
    }

    /// Does the notation write Janggi moves? ICCS, coordinates, algebraic and Korean
    /// name points; WXF, Chinese and Italian letters give a straight move's number as a
    /// distance along the file, which does not tell a diagonal move in the palace (of a
    /// chariot, cannon, soldier, general or guard) from a straight one.
    pub const fn applies_to_janggi(self) -> bool {
        matches!(self, Notation::Iccs | Notation::Coordinate | Notation::Algebraic | Notation::Korean)
    }

    /// Reads a name, case-insensitive (`iccs`, `coordinate`/`coord`, `wxf`,
    /// `chinese`/`zh`, `italian`/`it`, `algebraic`/`alg`, `korean`/`ko`/`gib`).
    pub fn from_name(text: &str) -> Option<Notation> {
        match text.trim().to_ascii_lowercase().as_str() {
            "iccs" => Some(Notation::Iccs),
            "coordinate" | "coordinates" | "coord" => Some(Notation::Coordinate),
            "wxf" => Some(Notation::Wxf),
            "chinese" | "zh" | "cn" => Some(Notation::Chinese),
            "italian" | "it" => Some(Notation::Italian),
            "algebraic" | "alg" | "algebrica" => Some(Notation::Algebraic),
            "korean" | "ko" | "gib" => Some(Notation::Korean),
            _ => None,
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a move text was not read: the token, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError {
    /// The move text as given.
    pub token: String,
    /// The notation it was read in.
    pub notation: Notation,
    /// What is wrong with it.
    pub kind: NotationErrorKind,
}

/// What is wrong with a move text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationErrorKind {
    /// Nothing but spaces or check marks.
    Empty,
    /// The text does not have the shape of the notation.
    Syntax {
        /// What the notation expects, in words.
        expected: &'static str,
    },
    /// A piece letter or character the notation does not know.
    UnknownPiece {
        /// The letter or character.
        letter: char,
    },
    /// A letter that names more than one piece among the accepted alternatives.
    AmbiguousLetter {
        /// The letter.
        letter: char,
        /// The pieces it may name, in words.
        hint: &'static str,
    },
    /// The mover has no such piece on the named file (1-9 from the mover's right).
    NoPiece {
        /// The mover.
        color: Color,
        /// The kind the text names.
        kind: PieceKind,
        /// The file the text names.
        file: u8,
    },
    /// The mover has no piece of the kind that the text allows (algebraic notation).
    NoPieceToMove {
        /// The mover.
        color: Color,
        /// The kind the text names.
        kind: PieceKind,
    },
    /// A front/rear marker, but no file holds two of the mover's pieces of that kind.
    NoTandem {
        /// The mover.
        color: Color,
        /// The kind the text names.
        kind: PieceKind,
    },
    /// A front/rear marker without a file, while pawns stand in tandem on two files.
    TandemFiles {
        /// The mover.
        color: Color,
    },
    /// A tandem marker that does not fit the number of pieces on the file.
    BadTandemMarker {
        /// The kind the text names.
        kind: PieceKind,
        /// How many of them stand on the file.
        count: usize,
    },
    /// The direction and number describe no move of that piece.
    CannotMove {
        /// The kind the text names.
        kind: PieceKind,
    },
    /// The text fits more than one legal move.
    Ambiguous {
        /// The legal moves the text fits.
        moves: Vec<Move>,
    },
    /// The text names a move that is not legal here.
    Illegal {
        /// The move the text names.
        mv: Move,
        /// The first rule it breaks.
        reason: IllegalReason,
    },
    /// The notation does not write the moves of the position's variant.
    Inapplicable {
        /// The variant's name.
        variant: &'static str,
    },
}

impl NotationError {
    pub(crate) fn new(token: &str, notation: Notation, kind: NotationErrorKind) -> NotationError {
        NotationError { token: token.to_string(), notation, kind }
    }

    /// Is the text unreadable, malformed or in a notation that does not apply to the
    /// variant (as opposed to not fitting the position)?
    pub fn is_syntax(&self) -> bool {
        matches!(
            self.kind,
            NotationErrorKind::Empty
                | NotationErrorKind::Syntax { .. }
                | NotationErrorKind::UnknownPiece { .. }
                | NotationErrorKind::AmbiguousLetter { .. }
                | NotationErrorKind::Inapplicable { .. }
        )
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use NotationErrorKind as K;
        write!(f, "{:?}: ", self.token)?;
        let piece = |c: &Color, k: &PieceKind| format!("{} {}", c.name(), k.name());
        match &self.kind {
            K::Empty => write!(f, "no move"),
            K::Syntax { expected } => write!(f, "not {} notation: expected {expected}", self.notation),
            K::UnknownPiece { letter } => write!(f, "unknown piece {letter:?} in {} notation", self.notation),
            K::AmbiguousLetter { letter, hint } => write!(f, "piece letter {letter:?} is ambiguous: {hint}"),
            K::NoPiece { color, kind, file } => write!(f, "no {} on file {file}", piece(color, kind)),
            K::NoPieceToMove { color, kind } => write!(f, "no {} can make that move", piece(color, kind)),
            K::NoTandem { color, kind } => {
                write!(f, "a front/rear marker, but no file holds two {}s", piece(color, kind))
            }
            K::TandemFiles { color } => {
                write!(f, "{} pawns stand in tandem on two files: name the file", color.name())
            }
            K::BadTandemMarker { kind, count } => {
                write!(f, "the marker does not fit {count} {}s on the file", kind.name())
            }
            K::CannotMove { kind } => write!(f, "a {} cannot move that way", kind.name()),
            K::Ambiguous { moves } => {
                let list: Vec<String> = moves.iter().map(Move::to_string).collect();
                write!(f, "ambiguous: fits {}", list.join(", "))
            }
            K::Illegal { mv, reason } => write!(f, "{mv} is illegal: {}", reason.describe()),
            K::Inapplicable { variant } => write!(f, "{} notation does not apply to {variant}", self.notation),
        }
    }
}

impl std::error::Error for NotationError {}

/// Writes a move of a Xiangqi or Janggi position in a notation. `m` should be legal in
/// `pos`; the descriptive notations name the piece on its from-point and fall back to
/// ICCS without one, or for a Janggi position (see [`Notation::applies_to_janggi`]).
pub fn format_move(pos: &impl BoardPosition, m: Move, notation: Notation) -> String {
    let described = || descriptive_of(pos).and_then(|p| descriptive::describe(p, m));
    match notation {
        Notation::Iccs => iccs::format(m),
        Notation::Coordinate => coordinate::format(m),
        Notation::Wxf => described().map_or_else(|| iccs::format(m), |d| wxf::render(&d)),
        Notation::Chinese => described().map_or_else(|| iccs::format(m), |d| chinese::render(&d)),
        Notation::Italian => described().map_or_else(|| iccs::format(m), |d| italian::render(&d)),
        Notation::Algebraic => algebraic::format(pos, m),
        Notation::Korean => korean::format(pos, m),
    }
}

/// The position, when the descriptive notations (WXF, Chinese, Italian letters) can
/// describe its moves: not when pieces move along the palace diagonals (Janggi).
fn descriptive_of<P: BoardPosition>(pos: &P) -> Option<&P> {
    (!P::PALACE_DIAGONALS).then_some(pos)
}

/// `+` when the legal move `m` gives check, `#` when it mates, else nothing.
pub(crate) fn check_mark(pos: &impl BoardPosition, m: Move) -> &'static str {
    if !pos.gives_check(m) {
        return "";
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.status() == Status::Checkmate { "#" } else { "+" }
}

/// The piece that makes `m`, or what to write instead: `pass` for a pass, coordinates
/// when the from-point is empty.
pub(crate) fn moving_piece(board: &Board, m: Move, pass: &str) -> Result<Piece, String> {
    if m.is_pass() {
        return Err(pass.to_string());
    }
    board.piece_at(m.from()).ok_or_else(|| coordinate::format(m))
}

/// Reads a legal move of a Xiangqi or Janggi position from text in a notation.
pub fn parse_move(pos: &impl BoardPosition, text: &str, notation: Notation) -> Result<Move, NotationError> {
    pick(pos, text, notation, candidates(pos, text, notation)?)
}

/// The one legal move among the moves a text can mean (never empty), or why there is
/// none or more than one.
pub(crate) fn pick(
    pos: &impl BoardPosition,
    text: &str,
    notation: Notation,
    candidates: Vec<Move>,
) -> Result<Move, NotationError> {
    let fitting: Vec<Move> = candidates.iter().copied().filter(|&m| pos.is_legal(m)).collect();
    match fitting.as_slice() {
        [m] => Ok(*m),
        [] => {
            let mv = candidates[0];
            let reason = pos.explain_illegal(mv).unwrap_or(IllegalReason::CannotMoveThatWay);
            Err(NotationError::new(text, notation, NotationErrorKind::Illegal { mv, reason }))
        }
        _ => Err(NotationError::new(text, notation, NotationErrorKind::Ambiguous { moves: fitting })),
    }
}

/// Reads the move a text names in `pos`, legal or not, so that a caller can say why it
/// is illegal. When the text fits several pieces, a legal move is preferred; several
/// legal moves are [`NotationErrorKind::Ambiguous`].
pub fn resolve_move(pos: &impl BoardPosition, text: &str, notation: Notation) -> Result<Move, NotationError> {
    match parse_move(pos, text, notation) {
        Err(NotationError { kind: NotationErrorKind::Illegal { mv, .. }, .. }) => Ok(mv),
        other => other,
    }
}

/// The moves a text can mean (never empty), before legality.
fn candidates<P: BoardPosition>(pos: &P, text: &str, notation: Notation) -> Result<Vec<Move>, NotationError> {
    let err = |kind| NotationError::new(text, notation, kind);
    let xiangqi = || descriptive_of(pos).ok_or_else(|| err(NotationErrorKind::Inapplicable { variant: P::VARIANT }));
    match notation {
        Notation::Iccs => iccs::parse(text).map(|m| vec![m]).map_err(err),
        Notation::Coordinate => coordinate::parse(text).map(|m| vec![m]).map_err(err),
        Notation::Wxf => descriptive::candidates(xiangqi()?, &wxf::parse(text).map_err(err)?).map_err(err),
        Notation::Chinese => descriptive::candidates(xiangqi()?, &chinese::parse(text).map_err(err)?).map_err(err),
        Notation::Italian => descriptive::candidates(xiangqi()?, &italian::parse(text).map_err(err)?).map_err(err),
        Notation::Algebraic => {
            algebraic::candidates(pos.board(), pos.turn(), &algebraic::parse(text).map_err(err)?).map_err(err)
        }
        Notation::Korean => korean::candidates(pos, &korean::parse(text).map_err(err)?).map_err(err),
    }
}

/// Removes what lenient parsing ignores: whitespace anywhere, and check, mate and
/// comment marks (`+ # ! ?`, full-width too) after the last digit or numeral. Full-width
/// forms of ASCII characters (`Ｃ２＝５`) are read as ASCII.
pub(crate) fn clean(text: &str) -> String {
    let mut s: String = text.chars().filter(|c| !c.is_whitespace()).map(fold_full_width).collect();
    while let Some(last) = s.chars().last() {
        if matches!(last, '+' | '#' | '!' | '?' | '＋' | '！' | '？') {
            s.pop();
        } else {
            break;
        }
    }
    s
}

/// The ASCII character of a full-width form (U+FF01..U+FF5E), other characters as
/// they are.
pub(crate) fn fold_full_width(c: char) -> char {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
        c => c,
    }
}
