//! Positions: pieces with their original kingdom, who controls each army, the side to
//! move, the counters and an incremental Zobrist key; validation, make and unmake.
//!
//! A takeover always moves a whole army (every piece a kingdom controls), so all the
//! pieces that started in one kingdom share one controller at any time: the kingdom
//! itself while it is in play, the kingdom that took its army once it is defeated. A
//! position therefore keeps one controller per original army, and a kingdom is defeated
//! exactly when its army is controlled by another.

use std::fmt;

use super::geometry::{Kingdom, Point};
use super::movegen::{Move, MoveList};
use crate::rules::board::splitmix;

/// The kinds of piece. Letters as in Xiangqi FEN, plus `F` for the flag bearer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    General = 0,
    Advisor = 1,
    Elephant = 2,
    Horse = 3,
    Chariot = 4,
    Cannon = 5,
    Soldier = 6,
    FlagBearer = 7,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Horse,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Soldier,
        Kind::FlagBearer,
    ];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `K A B N R C P F`.
    pub const fn letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'B',
            Kind::Horse => 'N',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
            Kind::FlagBearer => 'F',
        }
    }

    /// Reads an upper-case kind letter; `E`, `H` and `S` are accepted for the elephant,
    /// the horse and the soldier.
    pub const fn from_letter(c: char) -> Option<Kind> {
        match c {
            'K' => Some(Kind::General),
            'A' => Some(Kind::Advisor),
            'B' | 'E' => Some(Kind::Elephant),
            'N' | 'H' => Some(Kind::Horse),
            'R' => Some(Kind::Chariot),
            'C' => Some(Kind::Cannon),
            'P' | 'S' => Some(Kind::Soldier),
            'F' => Some(Kind::FlagBearer),
            _ => None,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
            Kind::FlagBearer => "flag bearer",
        }
    }

    /// How many of this kind an army starts with (flag bearers when in play).
    pub const fn start_count(self) -> u32 {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }
}

/// A piece: its kind and the kingdom it started in, which fixes how it moves for the
/// whole game. Who controls it is a property of the position.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    #[inline(always)]
    pub const fn new(kind: Kind, origin: Kingdom) -> Piece {
        Piece(1 + origin as u8 * 8 + kind as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> Kind {
        Kind::ALL[((self.0 - 1) & 7) as usize]
    }

    /// The kingdom the piece started in.
    #[inline(always)]
    pub const fn origin(self) -> Kingdom {
        Kingdom::from_index(((self.0 - 1) >> 3) as usize)
    }

    /// The board code: 1..=24 (0 is an empty point).
    #[inline(always)]
    pub(crate) const fn code(self) -> u8 {
        self.0
    }

    #[inline(always)]
    pub(crate) const fn from_code(code: u8) -> Option<Piece> {
        if code >= 1 && code <= 24 { Some(Piece(code)) } else { None }
    }

    /// The same piece of the next kingdom (the board turned by a third).
    pub const fn rotated(self) -> Piece {
        Piece::new(self.kind(), self.origin().next())
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.origin().name(), self.kind().name())
    }
}

/// Board code of an empty point.
pub(crate) const EMPTY: u8 = 0;
/// No point (a defeated kingdom's general).
pub(crate) const NO_POINT: u8 = u8::MAX;

/// Kind index of a non-empty board code.
#[inline(always)]
pub(crate) const fn kind_of(code: u8) -> u8 {
    (code - 1) & 7
}

/// Origin index of a non-empty board code.
#[inline(always)]
pub(crate) const fn origin_of(code: u8) -> usize {
    ((code - 1) >> 3) as usize
}

/// An unchecked arrangement: what a position text says, before any rule looked at it.
/// It becomes a [`Position`] only through [`Position::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub board: [Option<Piece>; Point::COUNT],
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
    ControllerDefeated { army: Kingdom, controller: Kingdom },
    /// The side to move is a defeated kingdom.
    SideToMoveDefeated { kingdom: Kingdom },
    /// A kingdom in play needs exactly one general, a defeated one has none.
    GeneralCount { kingdom: Kingdom, count: u32, defeated: bool },
    /// More pieces of a kind than an army starts with.
    TooManyPieces { piece: Piece, count: u32, max: u32 },
    /// A flag bearer on the board while flag bearers are not in play.
    FlagBearerOff { point: Point },
    /// A general or an advisor outside its own palace.
    OutsidePalace { piece: Piece, point: Point },
    /// An elephant outside its own half.
    OutsideHalf { piece: Piece, point: Point },
    /// A piece on a point it can never reach (an advisor off the palace diagonals, an
    /// elephant off its seven points, a soldier behind its start or beside it before it
    /// crossed).
    UnreachablePoint { piece: Piece, point: Point },
    /// The kingdom that moved last left its general attacked or facing a rival general.
    LastMoverInCheck { kingdom: Kingdom, attackers: Vec<Point> },
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

/// The state of a position on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Two or three kingdoms are in play and the side to move has a legal move.
    Ongoing,
    /// The last kingdom with a general.
    Won(Kingdom),
}

/// A validated Three Kingdoms position.
///
/// Positions are always settled: when a kingdom has no legal move on its turn, its
/// defeat (general removed, army to the kingdom that moved last) is applied at once, by
/// [`Position::play`] after a move and by [`Position::from_setup`] on input. So the side
/// to move has a legal move unless one kingdom is left ([`Status::Won`]).
///
/// The kingdom that moved last before a turn is always the kingdom in play before it in
/// turn order (defeated kingdoms are skipped), so a position needs no record of the last
/// move: that kingdom takes the army of a side found without moves.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    /// Piece code per point (0 empty).
    pub(super) board: [u8; Point::COUNT],
    /// `army[origin][half]`: the points of `origin`'s pieces in each half, one bit per
    /// point (`(rank - 1) * 9 + file`).
    pub(super) army: [[u64; 3]; 3],
    /// Point of each kingdom's general, `NO_POINT` once defeated.
    pub(super) generals: [u8; 3],
    /// Controller of each original army.
    pub(super) controller: [Kingdom; 3],
    pub(super) side: Kingdom,
    pub(super) flag_bearers: bool,
    pub(super) quiet_plies: u32,
    pub(super) move_number: u32,
    pub(super) key: u64,
}

/// What [`Position::play_unchecked`] hands back so that [`Position::undo`] restores the
/// position exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: u8,
    side: Kingdom,
    controller: [Kingdom; 3],
    quiet_plies: u32,
    move_number: u32,
    key: u64,
    /// Generals removed by defeats for want of a legal move after the move, in order.
    removed: [u8; 2],
    removed_len: u8,
}

impl Undo {
    /// The piece the move took, if any.
    pub fn captured(&self) -> Option<Piece> {
        Piece::from_code(self.captured)
    }

    /// The kingdoms that had no legal move on their turn after the move and were
    /// defeated, in order.
    pub fn defeated_without_moves(&self) -> impl Iterator<Item = Kingdom> + '_ {
        self.removed[..self.removed_len as usize].iter().map(|&p| Point::from_index_unchecked(p as usize).kingdom())
    }
}

/// A move that is not legal in the position it was offered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub Move);

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}", self.0)
    }
}

impl std::error::Error for IllegalMove {}

// Zobrist keys from a fixed seed: a piece (kind and origin) on a point under a
// controller, the side to move, each defeated kingdom.

const fn zobrist_pieces() -> [[[u64; 3]; 24]; Point::COUNT] {
    let mut t = [[[0u64; 3]; 24]; Point::COUNT];
    let mut state = 0x3367_646F_6D73_7631; // "3kdoms" v1
    let mut p = 0;
    while p < Point::COUNT {
        let mut c = 0;
        while c < 24 {
            let mut k = 0;
            while k < 3 {
                let (ns, v) = splitmix(state);
                state = ns;
                t[p][c][k] = v;
                k += 1;
            }
            c += 1;
        }
        p += 1;
    }
    t
}

static ZOBRIST_PIECES: [[[u64; 3]; 24]; Point::COUNT] = zobrist_pieces();
const ZOBRIST_SIDE: [u64; 3] =
    [splitmix(0x5349_4445_0001).1, splitmix(0x5349_4445_0002).1, splitmix(0x5349_4445_0003).1];
const ZOBRIST_DEFEATED: [u64; 3] =
    [splitmix(0x4445_4645_0001).1, splitmix(0x4445_4645_0002).1, splitmix(0x4445_4645_0003).1];

#[inline(always)]
fn zobrist(point: usize, code: u8, controller: Kingdom) -> u64 {
    ZOBRIST_PIECES[point][code as usize - 1][controller.index()]
}

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

    /// The piece on `p`, if any.
    #[inline(always)]
    pub fn piece_at(&self, p: Point) -> Option<Piece> {
        Piece::from_code(self.board[p.index()])
    }

    /// The kingdom that controls the pieces that started in `origin`.
    #[inline(always)]
    pub fn controller(&self, origin: Kingdom) -> Kingdom {
        self.controller[origin.index()]
    }

    /// The kingdom that controls `piece` here.
    #[inline(always)]
    pub fn controller_of(&self, piece: Piece) -> Kingdom {
        self.controller(piece.origin())
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Kingdom {
        self.side
    }

    /// Is `k` still in play (it has its general)?
    #[inline(always)]
    pub fn in_play(&self, k: Kingdom) -> bool {
        self.controller[k.index()] == k
    }

    /// Has `k` been defeated?
    #[inline(always)]
    pub fn is_defeated(&self, k: Kingdom) -> bool {
        !self.in_play(k)
    }

    /// The kingdoms still in play, in turn order.
    pub fn kingdoms_in_play(&self) -> impl Iterator<Item = Kingdom> + '_ {
        Kingdom::ALL.into_iter().filter(|&k| self.in_play(k))
    }

    pub(super) fn live_count(&self) -> usize {
        Kingdom::ALL.iter().filter(|&&k| self.in_play(k)).count()
    }

    /// Where `k`'s general stands, unless `k` is defeated.
    pub fn general(&self, k: Kingdom) -> Option<Point> {
        let p = self.generals[k.index()];
        (p != NO_POINT).then(|| Point::from_index_unchecked(p as usize))
    }

    pub fn flag_bearers(&self) -> bool {
        self.flag_bearers
    }

    /// Plies since the last capture or defeat.
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// Zobrist key of the pieces with their controllers, the side to move and the
    /// defeated kingdoms: equal keys, same position for the repetition rule.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key computed from scratch (for tests of the incremental key).
    pub fn key_from_scratch(&self) -> u64 {
        let mut key = ZOBRIST_SIDE[self.side.index()];
        for (i, &code) in self.board.iter().enumerate() {
            if code != EMPTY {
                key ^= zobrist(i, code, self.controller[origin_of(code)]);
            }
        }
        for k in Kingdom::ALL {
            if self.is_defeated(k) {
                key ^= ZOBRIST_DEFEATED[k.index()];
            }
        }
        key
    }

    /// Ongoing, or won by the last kingdom in play.
    pub fn status(&self) -> Status {
        if self.live_count() == 1 { Status::Won(self.side) } else { Status::Ongoing }
    }

    /// The winner, once one kingdom is left.
    pub fn winner(&self) -> Option<Kingdom> {
        match self.status() {
            Status::Won(k) => Some(k),
            Status::Ongoing => None,
        }
    }

    /// The kingdom in play before `k` in turn order (`k` itself when it is alone).
    pub(super) fn previous_in_play(&self, k: Kingdom) -> Kingdom {
        let p = k.prev();
        if self.in_play(p) {
            p
        } else if self.in_play(p.prev()) {
            p.prev()
        } else {
            k
        }
    }

    #[inline(always)]
    fn put(&mut self, i: usize, code: u8) {
        self.board[i] = code;
        self.army[origin_of(code)][i / 45] |= 1u64 << (i % 45);
    }

    #[inline(always)]
    fn take(&mut self, i: usize) {
        let code = self.board[i];
        self.board[i] = EMPTY;
        self.army[origin_of(code)][i / 45] &= !(1u64 << (i % 45));
    }

    /// Is `m` a legal move here?
    pub fn is_legal(&self, m: Move) -> bool {
        match self.piece_at(m.from()) {
            Some(p) if self.controller_of(p) == self.side && self.status() == Status::Ongoing => {}
            _ => return false,
        }
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.contains(m)
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalMove> {
        if self.is_legal(m) { Ok(self.play_unchecked(m)) } else { Err(IllegalMove(m)) }
    }

    /// Plays a move known to be legal, with everything it brings: the capture, the
    /// takeover of a captured general's army, the turn passing on, and the defeat of
    /// each next kingdom that has no legal move. Returns what [`Position::undo`] needs.
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let (from, to) = (m.from().index(), m.to().index());
        let code = self.board[from];
        let captured = self.board[to];
        let mut undo = Undo {
            captured,
            side: self.side,
            controller: self.controller,
            quiet_plies: self.quiet_plies,
            move_number: self.move_number,
            key: self.key,
            removed: [NO_POINT; 2],
            removed_len: 0,
        };
        let us = self.side;
        let o = origin_of(code);
        if captured != EMPTY {
            self.key ^= zobrist(to, captured, self.controller[origin_of(captured)]);
            self.take(to);
        }
        self.key ^= zobrist(from, code, us) ^ zobrist(to, code, us);
        self.take(from);
        self.put(to, code);
        if kind_of(code) == Kind::General as u8 {
            self.generals[o] = to as u8;
        }
        if captured != EMPTY {
            self.quiet_plies = 0;
            if kind_of(captured) == Kind::General as u8 {
                let loser = Kingdom::from_index(origin_of(captured));
                self.generals[loser.index()] = NO_POINT;
                self.take_over(loser, us);
            }
        } else {
            self.quiet_plies = self.quiet_plies.saturating_add(1);
        }
        self.pass_turn();
        let mut removed = (undo.removed, 0u8);
        self.settle(&mut removed);
        (undo.removed, undo.removed_len) = removed;
        undo
    }

    /// Takes back `m` played with [`Position::play_unchecked`].
    pub fn undo(&mut self, m: Move, undo: Undo) {
        for &g in undo.removed[..undo.removed_len as usize].iter().rev() {
            let k = Point::from_index_unchecked(g as usize).kingdom();
            self.put(g as usize, Piece::new(Kind::General, k).code());
            self.generals[k.index()] = g;
        }
        let (from, to) = (m.from().index(), m.to().index());
        let code = self.board[to];
        self.take(to);
        self.put(from, code);
        if kind_of(code) == Kind::General as u8 {
            self.generals[origin_of(code)] = from as u8;
        }
        if undo.captured != EMPTY {
            self.put(to, undo.captured);
            if kind_of(undo.captured) == Kind::General as u8 {
                self.generals[origin_of(undo.captured)] = to as u8;
            }
        }
        self.side = undo.side;
        self.controller = undo.controller;
        self.quiet_plies = undo.quiet_plies;
        self.move_number = undo.move_number;
        self.key = undo.key;
    }

    /// The army of `loser` and every army it controls go to `taker`.
    fn take_over(&mut self, loser: Kingdom, taker: Kingdom) {
        for o in 0..3 {
            if self.controller[o] != loser {
                continue;
            }
            for half in 0..3 {
                let mut bits = self.army[o][half];
                while bits != 0 {
                    let i = half * 45 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let code = self.board[i];
                    self.key ^= zobrist(i, code, loser) ^ zobrist(i, code, taker);
                }
            }
            self.controller[o] = taker;
        }
        self.key ^= ZOBRIST_DEFEATED[loser.index()];
    }

    /// The turn goes to the next kingdom in play; the move number grows each time the
    /// turn passes Shu's seat.
    fn pass_turn(&mut self) {
        self.key ^= ZOBRIST_SIDE[self.side.index()];
        loop {
            self.side = self.side.next();
            if self.side == Kingdom::Shu {
                self.move_number = self.move_number.saturating_add(1);
            }
            if self.in_play(self.side) {
                break;
            }
        }
        self.key ^= ZOBRIST_SIDE[self.side.index()];
    }

    /// While two or more kingdoms are in play and the side to move has no legal move:
    /// that kingdom is defeated, its general leaves the board, the kingdom that moved
    /// last before its turn takes its army, and the turn passes on.
    fn settle(&mut self, removed: &mut ([u8; 2], u8)) {
        while self.live_count() >= 2 && !self.has_legal_move() {
            let loser = self.side;
            let g = self.generals[loser.index()] as usize;
            self.key ^= zobrist(g, self.board[g], loser);
            self.take(g);
            self.generals[loser.index()] = NO_POINT;
            let taker = self.previous_in_play(loser);
            self.take_over(loser, taker);
            self.quiet_plies = 0;
            removed.0[removed.1 as usize] = g as u8;
            removed.1 += 1;
            self.pass_turn();
        }
    }

    /// Reads a move in point names (`Rh3-Re3`, or `Rh3xRe3` for a capture) and checks
    /// that it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let m = self.read_move(text)?;
        if !self.is_legal(m) {
            return Err(MoveError::Illegal(m));
        }
        Ok(m)
    }

    /// Reads a move text of this position without checking that the move is legal: the
    /// points, and a capture mark (`x`) only where the move takes a piece.
    pub fn read_move(&self, text: &str) -> Result<Move, MoveError> {
        let m = Move::parse(text).map_err(MoveError::Text)?;
        if text.trim().chars().nth(3).is_some_and(|c| c == 'x' || c == 'X') && self.piece_at(m.to()).is_none() {
            return Err(MoveError::NotACapture(m));
        }
        Ok(m)
    }

    /// The move in point names, with `x` for a capture (`Rh3xRe3`).
    pub fn move_text(&self, m: Move) -> String {
        let sep = if self.piece_at(m.to()).is_some() { 'x' } else { '-' };
        format!("{}{sep}{}", m.from(), m.to())
    }
}

/// Why a move text is not a legal move of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    Text(super::movegen::MoveTextError),
    /// Written as a capture (`x`) onto an empty point.
    NotACapture(Move),
    Illegal(Move),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Text(e) => e.fmt(f),
            MoveError::NotACapture(m) => write!(f, "{m} is written as a capture but takes nothing"),
            MoveError::Illegal(m) => write!(f, "illegal move {m}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_pack_kind_and_origin() {
        for origin in Kingdom::ALL {
            for kind in Kind::ALL {
                let p = Piece::new(kind, origin);
                assert_eq!((p.kind(), p.origin()), (kind, origin));
                assert_eq!(Piece::from_code(p.code()), Some(p));
                assert_eq!(Kind::from_letter(kind.letter()), Some(kind));
            }
        }
        assert_eq!(Piece::from_code(EMPTY), None);
    }

    #[test]
    fn start_position() {
        for flags in [true, false] {
            let pos = Position::startpos(flags);
            let pieces = pos.board.iter().filter(|&&c| c != EMPTY).count();
            assert_eq!(pieces, if flags { 54 } else { 48 });
            assert_eq!(pos.side_to_move(), Kingdom::Shu);
            assert_eq!(pos.status(), Status::Ongoing);
            assert!(!pos.in_check());
            assert_eq!(pos.key(), pos.key_from_scratch());
            for k in Kingdom::ALL {
                assert_eq!(pos.general(k), Some(Point::new(k, 4, 1)));
            }
        }
        assert_ne!(Position::startpos(true).key(), Position::startpos(false).key());
    }

    #[test]
    fn play_and_undo_every_move_two_plies_deep() {
        let mut pos = Position::startpos(true);
        let start = pos.clone();
        let mut first = MoveList::new();
        pos.legal_moves(&mut first);
        for &a in first.iter() {
            let ua = pos.play_unchecked(a);
            assert_eq!(pos.key(), pos.key_from_scratch(), "after {a}");
            assert_eq!(pos.side_to_move(), Kingdom::Wu);
            let mut second = MoveList::new();
            pos.legal_moves(&mut second);
            for &b in second.iter() {
                let before = pos.clone();
                let ub = pos.play_unchecked(b);
                assert_eq!(pos.key(), pos.key_from_scratch(), "after {a} {b}");
                pos.undo(b, ub);
                assert_eq!(pos, before);
            }
            pos.undo(a, ua);
            assert_eq!(pos, start);
        }
    }

    #[test]
    fn the_move_number_grows_when_the_turn_passes_shu() {
        let mut pos = Position::startpos(false);
        for (text, number) in [("Ra1-Ra2", 1), ("Ga1-Ga2", 1), ("Ba1-Ba2", 2), ("Ra2-Ra1", 2)] {
            let m = pos.parse_move(text).unwrap();
            pos.play(m).unwrap();
            assert_eq!(pos.move_number(), number, "after {text}");
        }
        assert_eq!(pos.quiet_plies(), 4);
    }
}
