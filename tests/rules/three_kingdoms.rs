//! Three Kingdoms: geometry, pieces at the seams, takeovers, facing generals, whole
//! games, perft symmetry under rotation of the kingdoms, and every generated move
//! checked against a slow model written here from the spec.
//!
//! The model ([`model`]) shares nothing with the engine but point names: it walks the
//! board one step at a time by direction (up a file crosses the bank, the central file
//! branches), finds cells by searching 4-cycles, generates every piece's moves naively
//! and tests legality by generating every rival move.

use std::collections::BTreeSet;

use chuhe::rules::perft::perft;
use chuhe::rules::three_kingdoms::geometry::geometry;
use chuhe::rules::three_kingdoms::outcome::{DefeatCause, Event, EventKind, Game, GameResult, Termination, adjudicate};
use chuhe::rules::three_kingdoms::text;
use chuhe::rules::three_kingdoms::{
    Kind, Kingdom, Move, MoveList, ParseError, Piece, Point, Position, PositionError, Setup, Status, TextError,
};
use proptest::prelude::*;

use crate::common::rng::Rng;

pub(super) fn pt(name: &str) -> Point {
    Point::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(super) fn mv(text: &str) -> Move {
    Move::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.as_slice().to_vec()
}

fn targets_from(pos: &Position, from: &str) -> BTreeSet<String> {
    let from = pt(from);
    legal(pos).into_iter().filter(|m| m.from() == from).map(|m| m.to().to_string()).collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A position from pieces written as `"Re1 K R"` (point, kind letter, origin letter),
/// with the side to move and the controllers.
pub(super) fn position(pieces: &[&str], side: Kingdom, controllers: &str) -> Result<Position, PositionError> {
    let mut setup = Setup::empty(true);
    for p in pieces {
        let parts: Vec<&str> = p.split_whitespace().collect();
        let kind = Kind::from_letter(parts[1].chars().next().unwrap()).unwrap();
        let origin = Kingdom::from_letter(parts[2].chars().next().unwrap()).unwrap();
        setup.board[pt(parts[0]).index()] = Some(Piece::new(kind, origin));
    }
    setup.side_to_move = side;
    for (i, c) in controllers.chars().enumerate() {
        setup.controllers[i] = Kingdom::from_letter(c).unwrap();
    }
    Position::from_setup(setup)
}

/// A random legal move, a capture every other time when there is one (so that games
/// reach takeovers and endings sooner).
fn pick(pos: &Position, moves: &[Move], rng: &mut Rng) -> Move {
    let captures: Vec<Move> = moves.iter().copied().filter(|m| pos.piece_at(m.to()).is_some()).collect();
    if !captures.is_empty() && rng.below(2) == 0 {
        captures[rng.below(captures.len())]
    } else {
        moves[rng.below(moves.len())]
    }
}

fn random_position(seed: u64, plies: usize, flag_bearers: bool) -> Position {
    let mut rng = Rng(seed | 1);
    let mut pos = Position::startpos(flag_bearers);
    for _ in 0..plies {
        let moves = legal(&pos);
        if moves.is_empty() {
            break;
        }
        let m = pick(&pos, &moves, &mut rng);
        pos.play_unchecked(m);
    }
    pos
}

/// A random arrangement that passes validation: some pieces of each army on points
/// they can stand on, nobody or one kingdom defeated, a random side to move. Panics
/// when none of many tries passes (validation refusing what it should accept).
fn random_setup(seed: u64) -> Position {
    let mut rng = Rng(seed | 1);
    for _ in 0..10_000 {
        let mut setup = Setup::empty(rng.below(2) == 0);
        let defeated = rng.below(4);
        if defeated < 3 {
            let k = Kingdom::ALL[defeated];
            setup.controllers[defeated] = if rng.below(2) == 0 { k.next() } else { k.prev() };
        }
        let live: Vec<Kingdom> = Kingdom::ALL.into_iter().filter(|k| setup.controllers[k.index()] == *k).collect();
        setup.side_to_move = live[rng.below(live.len())];
        let all: Vec<Point> = Point::all().collect();
        for origin in Kingdom::ALL {
            for kind in Kind::ALL {
                let most = match kind {
                    Kind::General => u32::from(live.contains(&origin)),
                    Kind::FlagBearer if !setup.flag_bearers => 0,
                    _ => rng.below(kind.start_count() as usize + 1) as u32,
                };
                let own = |p: &Point| p.kingdom() == origin;
                let spots: Vec<Point> = all
                    .iter()
                    .copied()
                    .filter(|p| match kind {
                        Kind::General => own(p) && p.in_palace(),
                        Kind::Advisor => own(p) && p.in_palace() && (p.file() + p.rank()) % 2 == 0,
                        Kind::Elephant => own(p) && p.rank() % 2 == 1 && (p.file() + p.rank()) % 4 == 3,
                        Kind::Soldier => !own(p) || p.rank() >= 4 && p.file() % 2 == 0,
                        _ => true,
                    })
                    .collect();
                for _ in 0..most {
                    let p = spots[rng.below(spots.len())];
                    if setup.board[p.index()].is_none() || kind == Kind::General {
                        setup.board[p.index()] = Some(Piece::new(kind, origin));
                    }
                }
            }
        }
        if let Ok(pos) = Position::from_setup(setup) {
            return pos;
        }
    }
    panic!("no valid arrangement in 10,000 random tries (seed {seed})")
}

fn rotated(pos: &Position) -> Position {
    Position::from_setup(pos.to_setup().rotated()).expect("a rotated position is valid")
}

/// The slow model, from the spec.
mod model {
    use std::collections::BTreeSet;

    use chuhe::rules::three_kingdoms::{Kind, Kingdom, Point, Position};

    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
    pub struct P {
        pub k: usize,
        pub f: i32,
        pub r: i32,
    }

    impl P {
        pub fn point(self) -> Point {
            Point::new(Kingdom::ALL[self.k], self.f as u8, self.r as u8)
        }
        pub fn of(p: Point) -> P {
            P { k: p.kingdom().index(), f: p.file() as i32, r: p.rank() as i32 }
        }
        fn at(self, f: i32, r: i32) -> Option<P> {
            ((0..9).contains(&f) && (1..=5).contains(&r)).then_some(P { k: self.k, f, r })
        }
        fn in_palace(self) -> bool {
            (3..=5).contains(&self.f) && self.r <= 3
        }
    }

    /// Up is toward the owner's bank.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Dir {
        Up,
        Down,
        Left,
        Right,
    }
    pub const DIRS: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

    fn next(k: usize) -> usize {
        (k + 1) % 3
    }
    fn prev(k: usize) -> usize {
        (k + 2) % 3
    }

    /// One step along a straight line heading `dir`: the points reached with the
    /// heading to keep.
    pub fn step(p: P, dir: Dir) -> Vec<(P, Dir)> {
        let here = |f, r, d| p.at(f, r).map(|q| (q, d)).into_iter().collect();
        match dir {
            Dir::Up if p.r < 5 => here(p.f, p.r + 1, Dir::Up),
            Dir::Up if p.f == 4 => {
                vec![(P { k: next(p.k), f: 4, r: 5 }, Dir::Down), (P { k: prev(p.k), f: 4, r: 5 }, Dir::Down)]
            }
            // Right half of the bank faces the next kingdom's left half, mirrored.
            Dir::Up if p.f > 4 => vec![(P { k: next(p.k), f: 8 - p.f, r: 5 }, Dir::Down)],
            Dir::Up => vec![(P { k: prev(p.k), f: 8 - p.f, r: 5 }, Dir::Down)],
            Dir::Down => here(p.f, p.r - 1, Dir::Down),
            Dir::Left => here(p.f - 1, p.r, Dir::Left),
            Dir::Right => here(p.f + 1, p.r, Dir::Right),
        }
    }

    pub fn all_points() -> Vec<P> {
        let mut v = Vec::new();
        for k in 0..3 {
            for r in 1..=5 {
                for f in 0..9 {
                    v.push(P { k, f, r });
                }
            }
        }
        v
    }

    pub fn neighbours(p: P) -> BTreeSet<P> {
        DIRS.iter().flat_map(|&d| step(p, d)).map(|(q, _)| q).collect()
    }

    /// Every cell as a set of four points: 4-cycles of the orthogonal graph.
    pub fn cells() -> &'static [BTreeSet<P>] {
        static CELLS: std::sync::OnceLock<Vec<BTreeSet<P>>> = std::sync::OnceLock::new();
        CELLS.get_or_init(find_cells)
    }

    fn find_cells() -> Vec<BTreeSet<P>> {
        let mut out: Vec<BTreeSet<P>> = Vec::new();
        for a in all_points() {
            for b in neighbours(a) {
                for c in neighbours(b) {
                    if c == a {
                        continue;
                    }
                    for d in neighbours(c) {
                        if d != a && d != b && neighbours(d).contains(&a) {
                            let cell: BTreeSet<P> = [a, b, c, d].into_iter().collect();
                            if !out.contains(&cell) {
                                out.push(cell);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The corners opposite `a` in the cells that hold both `a` and its neighbour `b`.
    pub fn opposite(a: P, b: P) -> Vec<P> {
        let mut out = Vec::new();
        for cell in cells().iter().filter(|c| c.contains(&a) && c.contains(&b)) {
            for &x in cell {
                if x != a && x != b && !neighbours(x).contains(&a) {
                    out.push(x);
                }
            }
        }
        out
    }

    /// Straight paths from `p` heading `dir`, each to its end.
    pub fn lines(p: P, dir: Dir) -> Vec<Vec<P>> {
        let mut out = Vec::new();
        for (q, d) in step(p, dir) {
            let rest = lines(q, d);
            if rest.is_empty() {
                out.push(vec![q]);
            }
            for r in rest {
                let mut l = vec![q];
                l.extend(r);
                out.push(l);
            }
        }
        out
    }

    /// A piece in the model: kind and original kingdom.
    pub type Pc = (Kind, usize);

    #[derive(Clone, PartialEq, Eq, Debug)]
    pub struct Board {
        pub pieces: std::collections::BTreeMap<P, Pc>,
        pub controller: [usize; 3],
        pub side: usize,
    }

    impl Board {
        pub fn of(pos: &Position) -> Board {
            let mut pieces = std::collections::BTreeMap::new();
            for p in all_points() {
                if let Some(pc) = pos.piece_at(p.point()) {
                    pieces.insert(p, (pc.kind(), pc.origin().index()));
                }
            }
            Board {
                pieces,
                controller: Kingdom::ALL.map(|k| pos.controller(k).index()),
                side: pos.side_to_move().index(),
            }
        }

        fn live(&self, k: usize) -> bool {
            self.controller[k] == k
        }

        fn owner(&self, p: P) -> Option<usize> {
            self.pieces.get(&p).map(|&(_, o)| self.controller[o])
        }

        /// Every point the piece on `p` could go to by its movement (own pieces
        /// excluded), legality aside.
        pub fn pseudo(&self, p: P) -> BTreeSet<P> {
            let Some(&(kind, origin)) = self.pieces.get(&p) else { return BTreeSet::new() };
            let me = self.controller[origin];
            let empty = |q: P| !self.pieces.contains_key(&q);
            let mut to = BTreeSet::new();
            match kind {
                Kind::General => {
                    for q in neighbours(p) {
                        if q.k == p.k && q.in_palace() {
                            to.insert(q);
                        }
                    }
                }
                Kind::Advisor => {
                    let centre = P { k: p.k, f: 4, r: 2 };
                    for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                        if let Some(q) = p.at(p.f + df, p.r + dr)
                            && q.in_palace()
                            && (q == centre || p == centre)
                        {
                            to.insert(q);
                        }
                    }
                }
                Kind::Elephant => {
                    for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                        if let (Some(eye), Some(q)) = (p.at(p.f + df, p.r + dr), p.at(p.f + 2 * df, p.r + 2 * dr))
                            && empty(eye)
                        {
                            to.insert(q);
                        }
                    }
                }
                Kind::Horse => {
                    for d in DIRS {
                        for (leg, d1) in step(p, d) {
                            if !empty(leg) {
                                continue;
                            }
                            for (beyond, _) in step(leg, d1) {
                                to.extend(opposite(leg, beyond));
                            }
                        }
                    }
                }
                Kind::FlagBearer => {
                    for d in DIRS {
                        for (a, d1) in step(p, d) {
                            if !empty(a) {
                                continue;
                            }
                            for (b, d2) in step(a, d1) {
                                if !empty(b) {
                                    continue;
                                }
                                for (beyond, _) in step(b, d2) {
                                    to.extend(opposite(b, beyond));
                                }
                            }
                        }
                    }
                }
                Kind::Chariot | Kind::Cannon => {
                    for d in DIRS {
                        for line in lines(p, d) {
                            let mut screens = 0;
                            for q in line {
                                if empty(q) {
                                    if screens == 0 {
                                        to.insert(q);
                                    }
                                    continue;
                                }
                                if kind == Kind::Chariot || screens == 1 {
                                    to.insert(q);
                                    break;
                                }
                                screens += 1;
                            }
                        }
                    }
                }
                Kind::Soldier => {
                    let dirs: &[Dir] = if p.k == origin { &[Dir::Up] } else { &[Dir::Down, Dir::Left, Dir::Right] };
                    for &d in dirs {
                        for (q, _) in step(p, d) {
                            to.insert(q);
                        }
                    }
                }
            }
            to.retain(|&q| self.owner(q) != Some(me));
            to
        }

        fn general(&self, k: usize) -> Option<P> {
            self.pieces.iter().find(|&(_, &(kind, o))| kind == Kind::General && o == k).map(|(&p, _)| p)
        }

        /// Is `k`'s general attacked by a rival piece, or facing a rival general?
        pub fn exposed(&self, k: usize) -> bool {
            let Some(g) = self.general(k) else { return false };
            for (&p, &(_, o)) in &self.pieces {
                if self.controller[o] != k && self.pseudo(p).contains(&g) {
                    return true;
                }
            }
            for d in DIRS {
                for line in lines(g, d) {
                    if let Some(first) = line.iter().find(|q| self.pieces.contains_key(q))
                        && self.pieces[first].0 == Kind::General
                    {
                        return true;
                    }
                }
            }
            false
        }

        /// Moves a piece, with the takeover when a general is captured.
        fn apply(&mut self, from: P, to: P) {
            let mover = self.side;
            let pc = self.pieces.remove(&from).expect("a piece to move");
            if let Some((Kind::General, loser)) = self.pieces.insert(to, pc) {
                for c in self.controller.iter_mut() {
                    if *c == loser {
                        *c = mover;
                    }
                }
            }
        }

        pub fn legal(&self) -> BTreeSet<(P, P)> {
            let mut out = BTreeSet::new();
            if (0..3).filter(|&k| self.live(k)).count() < 2 {
                return out;
            }
            for (&p, &(_, o)) in &self.pieces {
                if self.controller[o] != self.side {
                    continue;
                }
                for q in self.pseudo(p) {
                    let mut after = self.clone();
                    after.apply(p, q);
                    if !after.exposed(self.side) {
                        out.insert((p, q));
                    }
                }
            }
            out
        }

        fn pass_turn(&mut self) {
            loop {
                self.side = next(self.side);
                if self.live(self.side) {
                    break;
                }
            }
        }

        /// Plays a legal move: capture, takeover, the turn passing, and the defeat of
        /// each next kingdom without a legal move (its general leaves, the kingdom
        /// that moved last takes its army).
        pub fn play(&mut self, from: P, to: P) {
            let mover = self.side;
            self.apply(from, to);
            self.pass_turn();
            while (0..3).filter(|&k| self.live(k)).count() >= 2 && self.legal().is_empty() {
                let loser = self.side;
                let g = self.general(loser).expect("a kingdom in play has its general");
                self.pieces.remove(&g);
                for c in self.controller.iter_mut() {
                    if *c == loser {
                        *c = mover;
                    }
                }
                self.pass_turn();
            }
        }
    }
}

use model::P;

/// The engine's moves equal the model's, with no duplicates, and its captures are the
/// moves onto a piece.
fn check_against_model(pos: &Position) {
    let board = model::Board::of(pos);
    let expected = board.legal();
    let moves = legal(pos);
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    let onto_a_piece: Vec<Move> = moves.iter().copied().filter(|m| pos.piece_at(m.to()).is_some()).collect();
    assert_eq!(captures.as_slice(), onto_a_piece.as_slice(), "captures of {pos}");
    let got: BTreeSet<(P, P)> = moves.iter().map(|m| (P::of(m.from()), P::of(m.to()))).collect();
    assert_eq!(got.len(), moves.len(), "duplicate moves in {pos}");
    if got != expected {
        let show = |s: &BTreeSet<(P, P)>| -> Vec<String> {
            s.iter().map(|(a, b)| format!("{}-{}", a.point(), b.point())).collect()
        };
        panic!(
            "{pos}\nextra: {:?}\nmissing: {:?}",
            show(&got.difference(&expected).copied().collect()),
            show(&expected.difference(&got).copied().collect())
        );
    }
}

// ---------------------------------------------------------------------------
// Geometry

#[test]
fn every_point_has_the_neighbours_of_the_spec() {
    let g = geometry();
    for p in model::all_points() {
        let got: BTreeSet<Point> = g.neighbours_of(p.point()).collect();
        let expected: BTreeSet<Point> = model::neighbours(p).into_iter().map(P::point).collect();
        assert_eq!(got, expected, "neighbours of {}", p.point());
    }
    let edges: usize = Point::all().map(|p| g.neighbours_of(p).count()).sum::<usize>() / 2;
    assert_eq!(edges, 3 * (8 * 5 + 9 * 4) + 3 * 4 + 3);
}

#[test]
fn named_neighbours_at_the_seams() {
    let g = geometry();
    let around = |name: &str| -> BTreeSet<String> { g.neighbours_of(pt(name)).map(|p| p.to_string()).collect() };
    assert_eq!(around("Re5"), names(&["Rd5", "Rf5", "Re4", "Ge5", "Be5"]));
    assert_eq!(around("Rf5"), names(&["Re5", "Rg5", "Rf4", "Gd5"]));
    assert_eq!(around("Ri5"), names(&["Rh5", "Ri4", "Ga5"]));
    assert_eq!(around("Ra5"), names(&["Rb5", "Ra4", "Bi5"]));
    assert_eq!(around("Rd5"), names(&["Rc5", "Re5", "Rd4", "Bf5"]));
    assert_eq!(around("Ga5"), names(&["Gb5", "Ga4", "Ri5"]));
    assert_eq!(around("Ra1"), names(&["Rb1", "Ra2"]));
    let diagonals = |name: &str| -> BTreeSet<String> {
        g.diagonal_neighbours[pt(name).index()].as_slice().iter().map(|p| p.to_string()).collect()
    };
    assert_eq!(diagonals("Re5"), names(&["Rd4", "Rf4", "Gd5", "Bf5"]));
    assert_eq!(diagonals("Rf5"), names(&["Re4", "Rg4", "Gc5", "Ge5"]));
    assert_eq!(diagonals("Ri5"), names(&["Rh4", "Gb5"]));
    assert_eq!(diagonals("Rb2"), names(&["Ra1", "Rc1", "Ra3", "Rc3"]));
    let palace = |name: &str| -> BTreeSet<String> {
        g.palace_diagonals[pt(name).index()].as_slice().iter().map(|p| p.to_string()).collect()
    };
    assert_eq!(palace("Ge2"), names(&["Gd1", "Gf1", "Gd3", "Gf3"]));
    assert_eq!(palace("Gd1"), names(&["Ge2"]));
}

#[test]
fn cells_include_the_river_arms_and_the_triangle_sides() {
    let g = geometry();
    let cells: BTreeSet<BTreeSet<Point>> = g.cells.iter().map(|c| c.iter().copied().collect()).collect();
    let model: BTreeSet<BTreeSet<Point>> =
        model::cells().iter().map(|c| c.iter().map(|p| p.point()).collect()).collect();
    assert_eq!(cells, model);
    assert_eq!(cells.len(), 3 * 32 + 3 * 3 + 3);
    for k in Kingdom::ALL {
        let n = k.next();
        let cell = |corners: [(Kingdom, &str); 4]| -> BTreeSet<Point> {
            corners.iter().map(|&(h, at)| pt(&format!("{}{at}", h.letter()))).collect()
        };
        // Three cells straddle each river arm, one lies beside each triangle edge.
        assert!(cells.contains(&cell([(k, "f5"), (k, "g5"), (n, "c5"), (n, "d5")])));
        assert!(cells.contains(&cell([(k, "g5"), (k, "h5"), (n, "b5"), (n, "c5")])));
        assert!(cells.contains(&cell([(k, "h5"), (k, "i5"), (n, "a5"), (n, "b5")])));
        assert!(cells.contains(&cell([(k, "e5"), (k, "f5"), (n, "d5"), (n, "e5")])));
    }
    // The triangle is no cell: no cell holds all three of its points.
    for c in &cells {
        assert!(c.iter().filter(|p| p.file() == 4 && p.rank() == 5).count() <= 2);
    }
}

#[test]
fn lines_branch_at_the_triangle_and_nowhere_else() {
    let g = geometry();
    let rays = |name: &str| -> Vec<(Vec<String>, usize)> {
        g.rays[pt(name).index()]
            .as_slice()
            .iter()
            .map(|r| (r.points().iter().map(|p| p.to_string()).collect(), r.skip()))
            .collect()
    };
    let s = |l: &[&str]| -> Vec<String> { l.iter().map(|x| x.to_string()).collect() };
    let from_re3 = rays("Re3");
    assert!(from_re3.contains(&(s(&["Re4", "Re5", "Ge5", "Ge4", "Ge3", "Ge2", "Ge1"]), 0)));
    assert!(from_re3.contains(&(s(&["Re4", "Re5", "Be5", "Be4", "Be3", "Be2", "Be1"]), 2)));
    assert_eq!(from_re3.len(), 5);
    // Into Re5 over a triangle edge: straight on down Shu's central file only.
    let from_ge4 = rays("Ge4");
    assert!(from_ge4.contains(&(s(&["Ge5", "Re5", "Re4", "Re3", "Re2", "Re1"]), 0)));
    assert!(from_ge4.contains(&(s(&["Ge5", "Be5", "Be4", "Be3", "Be2", "Be1"]), 1)));
    assert!(!from_ge4.iter().any(|(l, _)| l.len() > 2 && l[1] == "Re5" && l[2] != "Re4"));
    // Along rank 5 the line never turns.
    assert!(rays("Rd5").contains(&(s(&["Re5", "Rf5", "Rg5", "Rh5", "Ri5"]), 0)));
    // The d and f files run on across the arms.
    assert!(rays("Rf1").contains(&(s(&["Rf2", "Rf3", "Rf4", "Rf5", "Gd5", "Gd4", "Gd3", "Gd2", "Gd1"]), 0)));
    assert!(rays("Rd1").contains(&(s(&["Rd2", "Rd3", "Rd4", "Rd5", "Bf5", "Bf4", "Bf3", "Bf2", "Bf1"]), 0)));
    // One ray per edge, plus the second branch from the central files below the bank.
    for p in Point::all() {
        let branching = p.file() == 4 && p.rank() < 5;
        assert_eq!(g.rays[p.index()].len(), g.neighbours_of(p).count() + usize::from(branching), "{p}");
    }
    // Every ray is one of the model's lines, and the model has no others.
    for p in model::all_points() {
        let mut expected: Vec<Vec<Point>> = model::DIRS
            .iter()
            .flat_map(|&d| model::lines(p, d))
            .map(|l| l.into_iter().map(P::point).collect())
            .collect();
        let mut got: Vec<Vec<Point>> =
            g.rays[p.point().index()].as_slice().iter().map(|r| r.points().to_vec()).collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "lines from {}", p.point());
    }
}

#[test]
fn lines_read_the_same_both_ways() {
    let g = geometry();
    for p in Point::all() {
        for ray in g.rays[p.index()].as_slice() {
            let pts = ray.points();
            for (i, &q) in pts.iter().enumerate() {
                // From q back towards p the same points lie between, reversed.
                let mut back: Vec<Point> = pts[..i].iter().rev().copied().collect();
                back.push(p);
                assert!(
                    g.rays[q.index()].as_slice().iter().any(|r| r.points().starts_with(&back)),
                    "{p} sees {q} but not back"
                );
            }
        }
    }
}

#[test]
fn horse_and_flag_bearer_targets_by_the_triangle() {
    let g = geometry();
    let horse = |name: &str| -> BTreeSet<String> {
        g.horse[pt(name).index()].as_slice().iter().map(|l| l.to.to_string()).collect()
    };
    assert_eq!(horse("Re4"), names(&["Rd2", "Rf2", "Rc3", "Rc5", "Rg3", "Rg5", "Gd5", "Bf5"]));
    // Over the triangle from Ge5 into Re5: on down Shu's file, never sideways to Bf5.
    let from_ge5: BTreeSet<String> = g.horse[pt("Ge5").index()]
        .as_slice()
        .iter()
        .filter(|l| l.block == pt("Re5"))
        .map(|l| l.to.to_string())
        .collect();
    assert_eq!(from_ge5, names(&["Rd4", "Rf4"]));
    assert_eq!(horse("Rd5"), names(&["Rc3", "Re3", "Rb4", "Rf4", "Bh5", "Gd5", "Be4", "Bg4"]));
    let flag = |name: &str| -> BTreeSet<String> {
        g.flag_bearer[pt(name).index()].as_slice().iter().map(|l| l.to.to_string()).collect()
    };
    // Backwards from rank 3 the line ends after two points: nothing beyond, no target.
    assert_eq!(flag("Rd3"), names(&["Ra2", "Ra4", "Rg2", "Rg4", "Be5", "Bg5"]));
    assert_eq!(flag("Re3"), names(&["Rb2", "Rb4", "Rh2", "Rh4", "Gd5", "Bf5"]));
    assert_eq!(flag("Re4"), names(&["Rd1", "Rf1", "Rb3", "Rb5", "Rh3", "Rh5", "Gd4", "Gf4", "Bd4", "Bf4"]));
}

#[test]
fn the_move_list_holds_the_most_moves_a_side_can_have() {
    let g = geometry();
    let max = |f: &dyn Fn(Point) -> usize| Point::all().map(f).max().unwrap();
    let slider = max(&|p| g.rays[p.index()].as_slice().iter().map(|r| r.points().len() - r.skip()).sum());
    let horse = max(&|p| g.horse[p.index()].len());
    let flag = max(&|p| g.flag_bearer[p.index()].len());
    let soldier = (0..3).map(|o| max(&|p| g.soldier[o][p.index()].len())).max().unwrap();
    // Two armies at most move for one side (a third means the game is over).
    let bound = 4 * slider + 4 * slider + 4 * horse + 4 * flag + 10 * soldier + 4 * 4 + 4 * 4 + 4;
    assert!(bound <= MoveList::CAPACITY, "{bound} > {}", MoveList::CAPACITY);
}

// ---------------------------------------------------------------------------
// Text

#[test]
fn start_texts_round_trip() {
    assert_eq!(Position::startpos(true).to_text(), text::START);
    assert_eq!(Position::startpos(false).to_text(), text::START_WITHOUT_FLAG_BEARERS);
    assert_eq!(Position::from_text(text::START).unwrap(), Position::startpos(true));
    assert_eq!(Position::from_text("startpos").unwrap(), Position::startpos(true));
    assert_eq!(Position::from_text(text::START_WITHOUT_FLAG_BEARERS).unwrap(), Position::startpos(false));
}

#[test]
fn point_and_move_names() {
    for p in Point::all() {
        assert_eq!(Point::parse(&p.to_string()).unwrap(), p);
    }
    assert_eq!(pt("Re1"), Point::new(Kingdom::Shu, 4, 1));
    assert_eq!(pt("gh3"), Point::new(Kingdom::Wu, 7, 3));
    assert_eq!(pt("Bi5"), Point::new(Kingdom::Wei, 8, 5));
    for bad in ["", "Re", "Re6", "Re0", "Xe1", "Rj1", "Re10", "Ré1", "R\u{0}1"] {
        assert!(Point::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(mv("Rh3-Re3"), Move::new(pt("Rh3"), pt("Re3")));
    assert_eq!(mv("Rh3xRe3"), mv("Rh3-Re3"));
    assert_eq!(mv("Rh3Re3"), mv("Rh3-Re3"));
    assert_eq!(mv("Rh3-Re3").to_string(), "Rh3-Re3");
    for bad in ["Rh3-Rh3", "Rh3+Re3", "Rh3-Re", "", "Rh3--Re3", "Rh3-Re3x", "Rh3\u{e9}Re3"] {
        assert!(Move::parse(bad).is_err(), "{bad}");
    }
    let pos = Position::startpos(true);
    assert_eq!(pos.parse_move("Rb3xBh1").unwrap(), mv("Rb3-Bh1"));
    assert_eq!(pos.move_text(mv("Rb3-Bh1")), "Rb3xBh1");
    assert!(pos.parse_move("Rh3xRe3").is_err(), "x onto an empty point");
    assert!(pos.parse_move("Ge1-Ge2").is_err(), "not Wu's turn");
}

#[test]
fn text_errors_are_typed() {
    let err = |t: &str| Position::from_text(t).unwrap_err();
    assert_eq!(err(""), ParseError::Text(TextError::Empty));
    assert!(matches!(err("9/9/9/9/9 R RGB F 0 1"), ParseError::Text(TextError::FieldCount { found: 6 })));
    let start = text::START;
    let swap = |from: &str, to: &str| start.replacen(from, to, 1);
    assert!(matches!(err(&swap("RNBAKABNR/9", "RNBAKABNR9")), ParseError::Text(TextError::RankCount { .. })));
    assert!(matches!(err(&swap("RNBAKABNR", "RNBAKABNRR")), ParseError::Text(TextError::RankTooLong { .. })));
    assert!(matches!(err(&swap("RNBAKABNR", "RNBAKABN")), ParseError::Text(TextError::RankTooShort { .. })));
    assert!(matches!(err(&swap("RNBAKABNR", "RNBAKABNX")), ParseError::Text(TextError::UnknownLetter { .. })));
    assert!(matches!(err(&swap("RNBAKABNR", "RNBAKABNg")), ParseError::Text(TextError::DanglingPrefix { .. })));
    assert!(matches!(err(&swap(" R RGB", " X RGB")), ParseError::Text(TextError::SideToMove { .. })));
    assert!(matches!(err(&swap(" RGB", " RG")), ParseError::Text(TextError::Controllers { .. })));
    assert!(matches!(err(&swap(" F ", " Y ")), ParseError::Text(TextError::FlagBearers { .. })));
    assert!(matches!(err(&swap(" 0 1", " x 1")), ParseError::Text(TextError::Counter { .. })));
    // Position errors.
    assert!(matches!(err(&swap(" RGB", " RRB")), ParseError::Position(PositionError::GeneralCount { .. })));
    assert!(matches!(err(&swap(" RGB", " GBB")), ParseError::Position(PositionError::ControllerDefeated { .. })));
    assert!(matches!(err(&swap(" F ", " - ")), ParseError::Position(PositionError::FlagBearerOff { .. })));
    assert!(matches!(
        err(&swap("RNBAKABNR", "RNBKAABNR")),
        ParseError::Position(PositionError::UnreachablePoint { .. })
    ));
    assert!(matches!(err(&swap("RNBAKABNR", "KNBARABNR")), ParseError::Position(PositionError::OutsidePalace { .. })));
    assert!(matches!(
        err(&swap("RNBAKABNR/9", "RNBAKABNR/P8")),
        ParseError::Position(PositionError::UnreachablePoint { .. })
    ));
    assert!(matches!(
        err(&swap("RNBAKABNR/9", "RNBAKABNR/R8")),
        ParseError::Position(PositionError::TooManyPieces { .. })
    ));
    assert!(matches!(
        err("4K4/9/9/9/gB8 4K4/9/9/9/9 4K4/9/9/9/9 R RGB - 0 1"),
        ParseError::Position(PositionError::OutsideHalf { .. })
    ));
}

#[test]
fn a_general_left_attacked_by_the_last_mover_is_rejected() {
    // Shu's chariot on Bi1 attacks Wei's general on Bd1 along Wei's rank 1.
    let pieces = ["Rd1 K R", "Gd1 K G", "Bd1 K B", "Bi1 R R"];
    // Shu to move: Wei moved last and could not have left its general attacked.
    let bad = position(&pieces, Kingdom::Shu, "RGB");
    assert!(matches!(bad, Err(PositionError::LastMoverInCheck { kingdom: Kingdom::Wei, .. })), "{bad:?}");
    // Wu to move: Shu moved last, and Wei must answer on its turn after Wu.
    assert!(position(&pieces, Kingdom::Wu, "RGB").is_ok());
}

// ---------------------------------------------------------------------------
// Pieces near the seams

#[test]
fn soldiers_cross_once_and_keep_their_direction() {
    let generals = ["Rd1 K R", "Gd1 K G", "Bd1 K B"];
    let with = |extra: &[&str]| {
        let all: Vec<&str> = generals.iter().chain(extra).copied().collect();
        position(&all, Kingdom::Shu, "RGB").unwrap()
    };
    let pos = with(&["Re5 P R", "Ra5 P R", "Ri5 P R", "Rc4 P R"]);
    assert_eq!(targets_from(&pos, "Re5"), names(&["Ge5", "Be5"]));
    assert_eq!(targets_from(&pos, "Ra5"), names(&["Bi5"]));
    assert_eq!(targets_from(&pos, "Ri5"), names(&["Ga5"]));
    assert_eq!(targets_from(&pos, "Rc4"), names(&["Rc5"]));
    let pos = with(&["Ge5 P R", "Gb5 P R", "Gc1 P R", "Bi1 P R"]);
    assert_eq!(targets_from(&pos, "Ge5"), names(&["Ge4", "Gd5", "Gf5"]), "never back over the triangle");
    assert_eq!(targets_from(&pos, "Gb5"), names(&["Gb4", "Ga5", "Gc5"]), "never back over the arm");
    assert_eq!(targets_from(&pos, "Gc1"), names(&["Gb1", "Gd1"]), "on rank 1 sideways only, taking the general");
    assert_eq!(targets_from(&pos, "Bi1"), names(&["Bh1"]));
    // Shu is defeated and Wei controls its army: Shu's soldiers keep Shu's direction.
    let pos = position(&["Gd1 K G", "Bd1 K B", "Rg4 P R", "Be4 P R"], Kingdom::Wei, "BGB").unwrap();
    assert_eq!(targets_from(&pos, "Rg4"), names(&["Rg5"]));
    assert_eq!(targets_from(&pos, "Be4"), names(&["Be3", "Bd4", "Bf4"]));
    check_against_model(&pos);
}

#[test]
fn elephants_advisors_and_generals_stay_home() {
    let pieces = ["Re1 K R", "Rf1 A R", "Rg5 B R", "Rc5 B R", "Rf4 N R", "Re4 P R", "Gd1 K G", "Bd1 K B"];
    let pos = position(&pieces, Kingdom::Shu, "RGB").unwrap();
    // From the bank an elephant never crosses (the arm cells lead out of its half).
    assert_eq!(targets_from(&pos, "Rg5"), names(&["Ri3"]), "Re3 is behind the eye Rf4");
    assert_eq!(targets_from(&pos, "Rc5"), names(&["Ra3", "Re3"]));
    assert_eq!(targets_from(&pos, "Rf1"), names(&["Re2"]));
    assert_eq!(targets_from(&pos, "Re1"), names(&["Rd1", "Re2"]));
    // A Shu advisor taken by Wu still moves in Shu's palace, for Wu.
    let pos = position(&["Re2 A R", "Gd1 K G", "Bd1 K B"], Kingdom::Wu, "GGB").unwrap();
    assert_eq!(targets_from(&pos, "Re2"), names(&["Rd1", "Rf1", "Rd3", "Rf3"]));
}

#[test]
fn horses_at_the_arms_and_the_triangle() {
    let pos = position(&["Rd1 K R", "Gd1 K G", "Bd1 K B", "Re4 N R", "Gf5 N R"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(targets_from(&pos, "Re4"), names(&["Rd2", "Rf2", "Rc3", "Rc5", "Rg3", "Rg5", "Gd5", "Bf5"]));
    // Wu's f5 faces Wei's d5: legs Ge5, Gg5, Gf4 and Bd5.
    assert_eq!(targets_from(&pos, "Gf5"), names(&["Gd4", "Rf5", "Gh4", "Bb5", "Ge3", "Gg3", "Bc4", "Be4"]));
    // A piece on the leg Re5 blocks both targets over the triangle.
    let pos = position(&["Rd1 K R", "Gd1 K G", "Bd1 K B", "Re4 N R", "Re5 P R"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(targets_from(&pos, "Re4"), names(&["Rd2", "Rf2", "Rc3", "Rc5", "Rg3", "Rg5"]));
}

#[test]
fn flag_bearers_go_two_straight_then_one_outward() {
    let pos = position(&["Rd1 K R", "Gd1 K G", "Bd1 K B", "Re4 F R", "Gd4 N G"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(
        targets_from(&pos, "Re4"),
        names(&["Rb3", "Rb5", "Rh3", "Rh5", "Gd4", "Gf4", "Bd4", "Bf4", "Rf1"]),
        "Rd1 holds Shu's own general"
    );
    // Either straight point occupied: no move along that line.
    let pos = position(&["Rd1 K R", "Gd1 K G", "Bd1 K B", "Re4 F R", "Ge5 N G"], Kingdom::Shu, "RGB").unwrap();
    assert!(targets_from(&pos, "Re4").is_disjoint(&names(&["Gd4", "Gf4"])));
    assert!(targets_from(&pos, "Re4").is_superset(&names(&["Bd4", "Bf4"])));
}

#[test]
fn chariots_and_cannons_turn_at_the_triangle() {
    let pieces = ["Rd1 K R", "Gd1 K G", "Bd1 K B", "Re2 R R", "Ge3 N G", "Be2 C B"];
    let pos = position(&pieces, Kingdom::Shu, "RGB").unwrap();
    let t = targets_from(&pos, "Re2");
    assert!(t.is_superset(&names(&["Re3", "Re4", "Re5", "Ge5", "Ge4", "Ge3", "Be5", "Be4", "Be3", "Be2"])));
    assert!(!t.contains("Ge2") && !t.contains("Be1"));
    assert_eq!(t.len(), 1 + 8 + 3 + 3 + 4, "back, along rank 2, up to the bank, and both branches");
    // A cannon jumps the triangle point for either branch.
    let pieces = ["Rd1 K R", "Gd1 K G", "Bd1 K B", "Re2 C R", "Re5 P R", "Ge3 N G", "Be1 C B"];
    let pos = position(&pieces, Kingdom::Shu, "RGB").unwrap();
    let t = targets_from(&pos, "Re2");
    assert!(t.contains("Ge3") && t.contains("Be1") && t.contains("Re4"));
    assert!(!t.contains("Re5") && !t.contains("Ge5") && !t.contains("Be5") && !t.contains("Ge4"));
}

// ---------------------------------------------------------------------------
// Facing generals

#[test]
fn generals_face_through_the_triangle() {
    // Shu's chariot on Re3 is all that stands between Shu's general on Re1 and Wu's
    // on Ge2: it may move along that line or take the general, nothing else; the
    // Be branch leaves the line.
    let pos = position(&["Re1 K R", "Re3 R R", "Ge2 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(targets_from(&pos, "Re3"), names(&["Re2", "Re4", "Re5", "Ge5", "Ge4", "Ge3", "Ge2"]));
    // Shu's and Wei's generals face through the other triangle edge.
    let pieces = ["Re1 K R", "Gd1 K G", "Be2 K B"];
    assert!(matches!(
        position(&pieces, Kingdom::Wu, "RGB"),
        Err(PositionError::LastMoverInCheck { kingdom: Kingdom::Shu, .. })
    ));
    // With Wei to move (Wu moved last) it is Wei's to end the facing.
    let pos = position(&pieces, Kingdom::Wei, "RGB").unwrap();
    assert!(pos.in_check());
    assert_eq!(targets_from(&pos, "Be2"), names(&["Bd2", "Bf2"]));
}

#[test]
fn in_check_and_attackers_name_only_what_attacks_the_general() {
    // The start: every general stands in its palace behind its own army, with no
    // rival piece on a line, a horse leap or a soldier step to it.
    let start = Position::startpos(true);
    assert!(!start.in_check());
    for k in Kingdom::ALL {
        assert_eq!(start.attackers_of_general(k), Vec::<Point>::new(), "{k:?}");
    }
    // Shu's chariot on Re3 shields Shu's general on Re1 from Wu's on Ge2: Shu is not
    // in check and nothing attacks Shu's general.
    let pinned = position(&["Re1 K R", "Re3 R R", "Ge2 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert!(!pinned.in_check());
    assert_eq!(pinned.attackers_of_general(Kingdom::Shu), Vec::<Point>::new());
    // Shu's and Wei's generals face through the triangle edge: each attacks the other.
    let facing = position(&["Re1 K R", "Gd1 K G", "Be2 K B"], Kingdom::Wei, "RGB").unwrap();
    assert!(facing.in_check());
    assert_eq!(facing.attackers_of_general(Kingdom::Wei), vec![pt("Re1")]);
}

#[test]
fn pseudo_legal_moves_add_the_moves_that_expose_the_general() {
    // Shu's chariot on Re3 is pinned to Shu's general on Re1 by Wu's general on Ge2:
    // sideways along Shu's third rank it would leave the generals facing. Those moves
    // are pseudo-legal (they explain a refusal) but not legal; every legal move is
    // pseudo-legal too.
    let pos = position(&["Re1 K R", "Re3 R R", "Ge2 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    let mut pseudo = MoveList::new();
    pos.pseudo_legal_moves(&mut pseudo);
    let legal = legal(&pos);
    for m in &legal {
        assert!(pseudo.contains(*m), "{m} legal, not pseudo-legal");
    }
    for m in [mv("Re3-Rd3"), mv("Re3-Rf3")] {
        assert!(pseudo.contains(m), "{m} is not pseudo-legal");
        assert!(!legal.contains(&m), "{m} is legal");
    }
}

#[test]
fn generals_face_along_the_d_and_f_files_across_the_arms() {
    // Shu's f file runs on into Wu's d file: every horse move opens Rf1..Gd2.
    let pos = position(&["Rf1 K R", "Rf3 N R", "Gd2 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert!(targets_from(&pos, "Rf3").is_empty());
    assert_eq!(targets_from(&pos, "Rf1"), names(&["Re1", "Rf2"]));
    // Shu's d file runs on into Wei's f file.
    let pos = position(&["Rd2 K R", "Rd4 N R", "Gd1 K G", "Bf1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert!(targets_from(&pos, "Rd4").is_empty());
    assert_eq!(targets_from(&pos, "Rd2"), names(&["Rd1", "Rd3", "Re2"]));
    let pos = position(&["Rd2 K R", "Gd1 K G", "Bf1 K B", "Bf3 N B"], Kingdom::Wei, "RGB").unwrap();
    assert!(targets_from(&pos, "Bf3").is_empty());
    check_against_model(&pos);
}

// ---------------------------------------------------------------------------
// Captures of generals, takeovers, defeats

#[test]
fn a_rival_opens_a_line_and_the_other_takes_the_general() {
    // Wei's horse on Gb1 stands between Shu's chariot on Ga1 and Wu's general on
    // Ge1. Wei moves it away; Shu, who moves before Wu, takes the general and the
    // army.
    let pieces = ["Rd1 K R", "Ga1 R R", "Gb1 N B", "Ge1 K G", "Gh2 R G", "Bd1 K B"];
    let mut pos = position(&pieces, Kingdom::Wei, "RGB").unwrap();
    pos.play(mv("Gb1-Gc3")).unwrap();
    assert_eq!(pos.side_to_move(), Kingdom::Shu);
    let undo = pos.play(mv("Ga1xGe1")).unwrap();
    assert_eq!(undo.captured(), Some(Piece::new(Kind::General, Kingdom::Wu)));
    assert!(pos.is_defeated(Kingdom::Wu));
    assert_eq!(pos.general(Kingdom::Wu), None);
    assert_eq!(pos.controller(Kingdom::Wu), Kingdom::Shu);
    assert_eq!(pos.controller_of(pos.piece_at(pt("Gh2")).unwrap()), Kingdom::Shu);
    assert_eq!(pos.side_to_move(), Kingdom::Wei, "Wu's turn is skipped");
    assert_eq!(pos.quiet_plies(), 0);
    assert_eq!(pos.key(), pos.key_from_scratch());
    assert!(pos.to_text().contains(" B RRB "), "{pos}");
    check_against_model(&pos);
}

#[test]
fn capturing_a_general_removes_the_threats_of_its_army() {
    // Wu's chariot on Ri1 pins Shu's chariot on Rf1 to Shu's general on Re1. Up the f
    // file and across the arm, Shu's chariot reaches Wu's general on Gd2: taking it
    // makes the pinning chariot Shu's, so that move is legal.
    let pos = position(&["Re1 K R", "Rf1 R R", "Ri1 R G", "Gd2 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(targets_from(&pos, "Rf1"), names(&["Rg1", "Rh1", "Ri1", "Gd2"]));
    check_against_model(&pos);
}

#[test]
fn a_kingdom_without_moves_is_defeated_and_the_last_mover_takes_its_army() {
    // Wu's general on Gd1 is boxed in by Wei's soldiers and Shu's chariot on Ga2, and
    // Wu's soldier on Gi5 cannot move; after any Shu move Wu is defeated, and Shu
    // (who moved last) takes the soldier.
    let pieces = ["Re1 K R", "Ra1 R R", "Gd1 K G", "Ga2 R R", "Gd2 P B", "Ge1 P B", "Bf1 K B", "Gi5 P G"];
    let mut pos = position(&pieces, Kingdom::Shu, "RGB").unwrap();
    let before = pos.clone();
    let m = mv("Ra1-Rb1");
    let undo = pos.play(m).unwrap();
    assert!(pos.is_defeated(Kingdom::Wu));
    assert_eq!(pos.general(Kingdom::Wu), None);
    assert_eq!(pos.controller(Kingdom::Wu), Kingdom::Shu);
    assert_eq!(undo.defeated_without_moves().collect::<Vec<_>>(), vec![Kingdom::Wu]);
    assert_eq!(pos.side_to_move(), Kingdom::Wei);
    assert_eq!(pos.key(), pos.key_from_scratch());
    check_against_model(&pos);
    pos.undo(m, undo);
    assert_eq!(pos, before);
}

#[test]
fn text_with_a_side_that_cannot_move_reads_as_after_its_defeat() {
    let pieces = ["Re1 K R", "Gd1 K G", "Ga2 R R", "Gd2 P B", "Ge1 P B", "Bf1 K B", "Gi5 P G"];
    let pos = position(&pieces, Kingdom::Wu, "RGB").unwrap();
    assert!(pos.is_defeated(Kingdom::Wu));
    assert_eq!(pos.controller(Kingdom::Wu), Kingdom::Shu, "Shu moved last before Wu's turn");
    assert_eq!(pos.side_to_move(), Kingdom::Wei);
    assert_eq!(Position::from_text(&pos.to_text()).unwrap(), pos);
}

#[test]
fn the_last_kingdom_wins() {
    // Wu is out (Shu holds its army). Shu's chariot checks along Wei's rank 1; the
    // other holds rank 2; Wei's soldier on Rb1 cannot help: Wei is defeated and Shu,
    // the last kingdom with a general, wins and takes the soldier.
    let pieces = ["Rd1 K R", "Bi2 R R", "Bh3 R R", "Bd1 K B", "Rb1 P B"];
    let start = position(&pieces, Kingdom::Shu, "RRB").unwrap();
    let mut pos = start.clone();
    let undo = pos.play(mv("Bh3-Bh1")).unwrap();
    assert_eq!(pos.status(), Status::Won(Kingdom::Shu));
    assert_eq!(pos.winner(), Some(Kingdom::Shu));
    assert_eq!(undo.defeated_without_moves().collect::<Vec<_>>(), vec![Kingdom::Wei]);
    assert_eq!(pos.controller(Kingdom::Wei), Kingdom::Shu);
    assert!(legal(&pos).is_empty());
    assert_eq!(pos.to_text(), "1bP1K5/9/9/9/9 9/9/9/9/9 7rR1/8rR/9/9/9 R RRR F 0 2");
    let r = adjudicate(&start, &[mv("Bh3-Bh1")], &[]).unwrap();
    assert_eq!(r.result, GameResult::Win(Kingdom::Shu));
    assert_eq!(r.termination, Some(Termination::LastGeneral));
    assert_eq!(r.defeats.len(), 1);
    assert_eq!(r.defeats[0].cause, DefeatCause::NoLegalMove);
}

// ---------------------------------------------------------------------------
// Whole games against the model

fn play_random_game(seed: u64, flag_bearers: bool, max_plies: usize, check_model: bool) -> Game {
    let mut rng = Rng(seed | 1);
    let mut game = Game::new(Position::startpos(flag_bearers));
    for _ in 0..max_plies {
        let pos = game.position().clone();
        if game.ending().is_some() {
            break;
        }
        let moves = legal(&pos);
        if check_model {
            check_against_model(&pos);
        }
        assert!(!moves.is_empty(), "a settled position has moves: {pos}");
        let m = pick(&pos, &moves, &mut rng);
        let mut model = check_model.then(|| model::Board::of(&pos));
        game.play(m).unwrap();
        let after = game.position();
        assert_eq!(after.key(), after.key_from_scratch());
        assert_eq!(Position::from_text(&after.to_text()).unwrap(), *after, "text round trip");
        if let Some(model) = &mut model {
            model.play(P::of(m.from()), P::of(m.to()));
            assert_eq!(*model, model::Board::of(after), "after {m} from {pos}");
        }
        let mut back = after.clone();
        back.undo(m, game.plies().last().unwrap().undo);
        assert_eq!(back, pos, "undo of {m}");
    }
    game
}

#[test]
fn random_games_agree_with_the_model() {
    for seed in 1..=12u64 {
        play_random_game(seed * 7919, seed % 2 == 0, 600, true);
    }
}

/// Captures of generals are rare in random play (a rival must open the line for the
/// other): find some and check each against the model, before and after.
#[test]
fn captured_generals_in_random_games_agree_with_the_model() {
    let mut found = 0;
    for seed in 1..=400u64 {
        let mut rng = Rng(seed * 7717);
        let mut pos = Position::startpos(seed % 2 == 0);
        for _ in 0..1000 {
            if pos.kingdoms_in_play().count() < 3 {
                break;
            }
            let moves = legal(&pos);
            let take = moves.iter().copied().find(|m| pos.piece_at(m.to()).is_some_and(|p| p.kind() == Kind::General));
            let Some(m) = take else {
                let m = pick(&pos, &moves, &mut rng);
                pos.play_unchecked(m);
                continue;
            };
            check_against_model(&pos);
            let before = pos.clone();
            let mut model = model::Board::of(&pos);
            let loser = pos.piece_at(m.to()).unwrap().origin();
            let undo = pos.play(m).unwrap();
            assert!(pos.is_defeated(loser));
            assert_eq!(pos.controller(loser), before.side_to_move());
            model.play(P::of(m.from()), P::of(m.to()));
            assert_eq!(model, model::Board::of(&pos), "after {m} from {before}");
            check_against_model(&pos);
            let mut back = pos.clone();
            back.undo(m, undo);
            assert_eq!(back, before);
            found += 1;
            break;
        }
        if found == 8 {
            break;
        }
    }
    assert_eq!(found, 8, "too few captured generals in random games");
}

#[test]
fn random_games_play_to_their_end() {
    let mut wins = 0;
    for seed in 1..=12u64 {
        // Captures and defeats reset the 180-ply count; 54 pieces bound a game.
        let game = play_random_game(seed * 104_729, seed % 2 == 1, 54 * 181 + 1, false);
        let (result, termination, _) = game.ending().expect("the game has ended");
        let moves: Vec<Move> = game.plies().iter().map(|p| p.mv).collect();
        let ruling = adjudicate(game.start(), &moves, &[]).unwrap();
        assert_eq!((ruling.result, ruling.termination), (result, Some(termination)));
        assert_eq!((ruling.decided_at_ply, ruling.moves_after_end), (moves.len(), 0));
        match termination {
            Termination::LastGeneral => {
                wins += 1;
                assert_eq!(result, GameResult::Win(game.position().winner().unwrap()));
                assert_eq!(ruling.defeats.len(), 2);
                assert!(legal(game.position()).is_empty());
            }
            Termination::Repetition => assert!(game.occurrences_of_current().len() >= 3),
            Termination::QuietPlyLimit => assert_eq!(game.position().quiet_plies(), 180),
            other => panic!("{other:?}"),
        }
    }
    assert!(wins > 0, "some random game ends with one kingdom left");
}

// ---------------------------------------------------------------------------
// Adjudication

#[test]
fn resignation_with_two_left_is_a_shared_victory() {
    let start = Position::startpos(false);
    let moves = [mv("Rh3-Re3"), mv("Gh3-Ge3")];
    let r = adjudicate(&start, &moves, &[Event { kind: EventKind::Resign(Kingdom::Wei), ply: 2 }]).unwrap();
    assert_eq!(r.result, GameResult::SharedWin(Kingdom::Shu, Kingdom::Wu));
    assert_eq!(r.termination, Some(Termination::Resignation));
    assert_eq!(r.by, Some(Kingdom::Wei));
    assert_eq!(r.decided_at_ply, 2);
    let r = adjudicate(&start, &moves, &[Event { kind: EventKind::Timeout(Kingdom::Shu), ply: 1 }]).unwrap();
    assert_eq!(r.result, GameResult::SharedWin(Kingdom::Wu, Kingdom::Wei));
    assert_eq!(r.moves_after_end, 1);
    assert!(adjudicate(&start, &moves, &[Event { kind: EventKind::Leave(Kingdom::Shu), ply: 3 }]).is_err());
}

#[test]
fn a_defeated_kingdom_may_leave_and_the_game_goes_on() {
    let pieces = ["Re1 K R", "Ra1 R R", "Gd1 K G", "Ga2 R R", "Gd2 P B", "Ge1 P B", "Bf1 K B", "Gi5 P G"];
    let start = position(&pieces, Kingdom::Shu, "RGB").unwrap();
    let moves = [mv("Ra1-Rb1")];
    let r = adjudicate(&start, &moves, &[Event { kind: EventKind::Leave(Kingdom::Wu), ply: 1 }]).unwrap();
    assert_eq!(r.result, GameResult::Ongoing);
    assert_eq!(r.defeats.len(), 1);
    assert_eq!(r.defeats[0].cause, DefeatCause::NoLegalMove);
    assert_eq!(r.defeats[0].taken_by, Kingdom::Shu);
    let r = adjudicate(&start, &moves, &[Event { kind: EventKind::Leave(Kingdom::Wei), ply: 1 }]).unwrap();
    assert_eq!(r.result, GameResult::Win(Kingdom::Shu), "with one other left, it wins");
}

#[test]
fn threefold_repetition_and_the_quiet_ply_limit_draw() {
    let start = Position::startpos(false);
    let cycle = ["Ra1-Ra2", "Ga1-Ga2", "Ba1-Ba2", "Ra2-Ra1", "Ga2-Ga1", "Ba2-Ba1"];
    let moves: Vec<Move> = cycle.iter().chain(cycle.iter()).map(|m| mv(m)).collect();
    let r = adjudicate(&start, &moves, &[]).unwrap();
    assert_eq!(r.result, GameResult::Draw);
    assert_eq!(r.termination, Some(Termination::Repetition));
    assert_eq!(r.decided_at_ply, 12);
    let near = Position::from_text(&text::START_WITHOUT_FLAG_BEARERS.replace(" 0 1", " 178 9")).unwrap();
    let r = adjudicate(&near, &moves[..2], &[]).unwrap();
    assert_eq!(r.termination, Some(Termination::QuietPlyLimit));
    assert_eq!(r.decided_at_ply, 2);
}

// ---------------------------------------------------------------------------
// Perft

#[test]
fn perft_from_the_start() {
    let mut pos = Position::startpos(true);
    assert_eq!(perft(&mut pos, 1), 40);
    assert_eq!(perft(&mut pos, 2), 1_588);
    assert_eq!(perft(&mut pos, 3), 62_560);
    let mut pos = Position::startpos(false);
    assert_eq!(perft(&mut pos, 1), 44);
    // The count asked for directly gives the same first ply.
    assert_eq!(Position::startpos(true).legal_move_count(), 40);
    assert_eq!(Position::startpos(false).legal_move_count(), 44);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn perft_is_the_same_with_the_kingdoms_rotated(seed in any::<u64>(), plies in 0usize..240, flags in any::<bool>()) {
        let pos = random_position(seed, plies, flags);
        let mut a = pos.clone();
        let mut b = rotated(&pos);
        let mut c = rotated(&b);
        let n = perft(&mut a, 2);
        prop_assert_eq!(n, perft(&mut b, 2));
        prop_assert_eq!(n, perft(&mut c, 2));
        prop_assert_eq!(rotated(&c), pos);
    }

    #[test]
    fn deeper_perft_is_the_same_with_the_kingdoms_rotated(seed in any::<u64>(), plies in 0usize..200) {
        let pos = random_position(seed, plies, seed % 2 == 0);
        let n = perft(&mut pos.clone(), 3);
        prop_assert_eq!(n, perft(&mut rotated(&pos), 3));
    }

    #[test]
    fn random_arrangements_agree_with_the_model(seed in any::<u64>()) {
        let pos = random_setup(seed);
        check_against_model(&pos);
        let n = perft(&mut pos.clone(), 2);
        prop_assert_eq!(n, perft(&mut rotated(&pos), 2));
        prop_assert_eq!(Position::from_text(&pos.to_text()).unwrap(), pos);
    }

    #[test]
    fn moves_agree_with_the_model_in_random_positions(seed in any::<u64>(), plies in 0usize..300, flags in any::<bool>()) {
        let pos = random_position(seed, plies, flags);
        check_against_model(&pos);
        prop_assert_eq!(Position::from_text(&pos.to_text()).unwrap(), pos);
    }

    /// Any text: no panic, and what is read is written back as text that reads the
    /// same (a point's name and a move's text up to letter case). Texts close to point
    /// names and moves, which often read, are drawn as well as arbitrary ones.
    #[test]
    fn reading_any_text_never_panics(
        s in prop_oneof![
            "\\PC{0,400}",
            "[RGBrgbWx][a-jA-J][0-6]([-xX=]?[RGBrgbW][a-jA-J][0-6]){0,1}",
        ]
    ) {
        if let Ok(pos) = Position::from_text(&s) {
            prop_assert_eq!(Position::from_text(&pos.to_text()).unwrap(), pos);
        }
        if let Ok(m) = Move::parse(&s) {
            prop_assert_ne!(m.from(), m.to());
            prop_assert_eq!(Move::parse(&m.to_string()), Ok(m));
            let (from, to) = (m.from().to_string(), m.to().to_string());
            let t = s.trim();
            prop_assert!(t.to_lowercase().starts_with(&from.to_lowercase()) && t.to_lowercase().ends_with(&to.to_lowercase()), "{} read as {}", s, m);
        }
        if let Ok(p) = Point::parse(&s) {
            prop_assert_eq!(Point::parse(&p.to_string()), Ok(p));
            prop_assert!(s.eq_ignore_ascii_case(&p.to_string()), "{} read as {}", s, p);
        }
    }

    #[test]
    fn reading_a_damaged_text_never_panics(i in 0usize..300, c in any::<char>(), seed in any::<u64>()) {
        let t = random_position(seed, 60, true).to_text();
        let mut chars: Vec<char> = t.chars().collect();
        let i = i % chars.len();
        chars[i] = c;
        let damaged: String = chars.into_iter().collect();
        if let Ok(pos) = Position::from_text(&damaged) {
            prop_assert_eq!(Position::from_text(&pos.to_text()).unwrap(), pos);
        }
    }
}
