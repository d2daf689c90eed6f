//! The step tables of every piece, built once from the edge list: edges, straight
//! lines, cells and diagonals, and each piece's rays and leaps from every point.

use std::sync::LazyLock;

use super::{Kingdom, Point};

/// What kind of line an orthogonal edge belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum EdgeKind {
    /// Along a file inside a half.
    #[default]
    File,
    /// Along a rank inside a half.
    Rank,
    /// Across a river arm (`Kf5-Nd5` ...).
    Across,
    /// Between two central bank points (`Re5-Ge5` ...).
    Triangle,
}

/// A short list of fixed capacity, for step tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steps<T: Copy + Default, const N: usize> {
    len: u8,
    items: [T; N],
}

impl<T: Copy + Default, const N: usize> Default for Steps<T, N> {
    fn default() -> Self {
        Steps { len: 0, items: [T::default(); N] }
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> Steps<T, N> {
    fn push(&mut self, item: T) {
        assert!((self.len as usize) < N, "step table overflow");
        self.items[self.len as usize] = item;
        self.len += 1;
    }

    fn push_unique(&mut self, item: T) {
        if !self.as_slice().contains(&item) {
            self.push(item);
        }
    }

    /// The listed items.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len as usize]
    }

    /// How many items are listed.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Is nothing listed?
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The points straight along a line from a point (the point itself excluded), nearest
/// first. Where lines branch at the triangle a point has one ray per branch; the first
/// `skip` points of such a ray are shared with an earlier ray of the same point, so a
/// generator that walks every ray emits moves only from index `skip` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ray {
    len: u8,
    skip: u8,
    points: [Point; Ray::MAX],
}

impl Ray {
    /// The longest line from a point: four points to the bank and five beyond it.
    pub const MAX: usize = 9;

    /// The points of the ray, nearest first.
    #[inline(always)]
    pub fn points(&self) -> &[Point] {
        &self.points[..self.len as usize]
    }

    /// How many leading points an earlier ray of the same point already covers.
    #[inline(always)]
    pub fn skip(&self) -> usize {
        self.skip as usize
    }
}

/// A horse or elephant step: the point that must be empty, and the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Leap {
    /// The point that must be empty (a horse's leg, an elephant's eye).
    pub block: Point,
    /// The target.
    pub to: Point,
}

/// A flag bearer's step: the two straight points that must be empty, and the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LongLeap {
    /// The first straight point, which must be empty.
    pub first: Point,
    /// The second straight point, which must be empty.
    pub second: Point,
    /// The target.
    pub to: Point,
}

/// Most rays from one point (back, left, right, and two forward branches on a central
/// file).
pub const MAX_RAYS: usize = 5;
/// Most horse (or flag bearer) targets from one point.
pub const MAX_LEAPS: usize = 12;

/// Every table the rules read, indexed by point index (and by original kingdom where a
/// piece's movement depends on it).
pub struct Geometry {
    /// Orthogonal neighbours with the kind of the edge.
    pub neighbours: [Steps<(Point, EdgeKind), 5>; Point::COUNT],
    /// Palace-diagonal neighbours (the advisor's steps).
    pub palace_diagonals: [Steps<Point, 4>; Point::COUNT],
    /// Every cell, corners in cyclic order.
    pub cells: Vec<[Point; 4]>,
    /// Opposite corners of the cells of each point.
    pub diagonal_neighbours: [Steps<Point, 8>; Point::COUNT],
    /// The straight lines from each point.
    pub rays: [Steps<Ray, MAX_RAYS>; Point::COUNT],
    /// General: one orthogonal step inside the palace.
    pub general: [Steps<Point, 4>; Point::COUNT],
    /// Elephant: eye and target, inside the half of the point.
    pub elephant: [Steps<Leap, 4>; Point::COUNT],
    /// Horse: leg and target.
    pub horse: [Steps<Leap, MAX_LEAPS>; Point::COUNT],
    /// Horse, reversed: for a target, the leg and the point a horse would come from.
    pub horse_to: [Steps<Leap, MAX_LEAPS>; Point::COUNT],
    /// Flag bearer: the two straight points and the target.
    pub flag_bearer: [Steps<LongLeap, MAX_LEAPS>; Point::COUNT],
    /// Flag bearer, reversed: for a target, the path and the point it comes from (in
    /// `to`).
    pub flag_bearer_to: [Steps<LongLeap, MAX_LEAPS>; Point::COUNT],
    /// Soldier steps by original kingdom, then point.
    pub soldier: [[Steps<Point, 3>; Point::COUNT]; 3],
    /// Soldier steps reversed: the points a soldier of that kingdom steps to a target
    /// from.
    pub soldier_to: [[Steps<Point, 4>; Point::COUNT]; 3],
}

/// The tables, built on first use.
#[inline(always)]
pub fn geometry() -> &'static Geometry {
    &GEOMETRY
}

static GEOMETRY: LazyLock<Box<Geometry>> = LazyLock::new(build);

fn grid(kingdom: Kingdom, file: i32, rank: i32) -> Option<Point> {
    ((0..9).contains(&file) && (1..=5).contains(&rank)).then(|| Point::new(kingdom, file as u8, rank as u8))
}

/// The orthogonal edges, each once.
pub fn orthogonal_edges() -> Vec<(Point, Point, EdgeKind)> {
    let mut edges = Vec::new();
    for k in Kingdom::ALL {
        for rank in 1..=5 {
            for file in 0..9 {
                let p = Point::new(k, file, rank);
                if file < 8 {
                    edges.push((p, Point::new(k, file + 1, rank), EdgeKind::Rank));
                }
                if rank < 5 {
                    edges.push((p, Point::new(k, file, rank + 1), EdgeKind::File));
                }
            }
        }
        let n = k.next();
        for file in 5..9 {
            edges.push((Point::new(k, file, 5), Point::new(n, 8 - file, 5), EdgeKind::Across));
        }
        edges.push((Point::new(k, 4, 5), Point::new(n, 4, 5), EdgeKind::Triangle));
    }
    edges
}

/// The palace diagonals `d1-e2-f3` and `f1-e2-d3` of every half, each edge once.
pub fn palace_diagonal_edges() -> Vec<(Point, Point)> {
    let mut edges = Vec::new();
    for k in Kingdom::ALL {
        let centre = Point::new(k, 4, 2);
        for (file, rank) in [(3, 1), (5, 1), (3, 3), (5, 3)] {
            edges.push((centre, Point::new(k, file, rank)));
        }
    }
    edges
}

fn build() -> Box<Geometry> {
    let mut neighbours = [Steps::<(Point, EdgeKind), 5>::default(); Point::COUNT];
    for (a, b, kind) in orthogonal_edges() {
        neighbours[a.index()].push((b, kind));
        neighbours[b.index()].push((a, kind));
    }
    let mut palace_diagonals = [Steps::<Point, 4>::default(); Point::COUNT];
    for (a, b) in palace_diagonal_edges() {
        palace_diagonals[a.index()].push(b);
        palace_diagonals[b.index()].push(a);
    }
    let adjacent = |a: Point, b: Point| neighbours[a.index()].as_slice().iter().any(|&(p, _)| p == b);
    let edge_kind =
        |a: Point, b: Point| neighbours[a.index()].as_slice().iter().find(|&&(p, _)| p == b).map(|&(_, k)| k);

    // Cells: a-b-d-c-a with b, c neighbours of a and d a common neighbour of b and c.
    let mut cells: Vec<[Point; 4]> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for a in Point::all() {
        let around = neighbours[a.index()].as_slice();
        for (i, &(b, _)) in around.iter().enumerate() {
            for &(c, _) in &around[i + 1..] {
                for &(d, _) in neighbours[b.index()].as_slice() {
                    if d != a && adjacent(c, d) {
                        let mut key = [a, b, c, d];
                        key.sort();
                        if seen.insert(key) {
                            cells.push([a, b, d, c]);
                        }
                    }
                }
            }
        }
    }
    let mut diagonal_neighbours = [Steps::<Point, 8>::default(); Point::COUNT];
    for cell in &cells {
        for i in 0..4 {
            diagonal_neighbours[cell[i].index()].push_unique(cell[(i + 2) % 4]);
        }
    }
    // The corner of a cell holding `a` and its neighbour `b` that is opposite `a`.
    let opposite_corners = |a: Point, b: Point| -> Vec<Point> {
        let mut out = Vec::new();
        for cell in &cells {
            for i in 0..4 {
                if cell[i] == a && (cell[(i + 1) % 4] == b || cell[(i + 3) % 4] == b) {
                    out.push(cell[(i + 2) % 4]);
                }
            }
        }
        out
    };

    // Straight continuation of the step prev -> cur.
    let continuation = |prev: Point, cur: Point| -> Vec<Point> {
        let k = cur.kingdom();
        let (f, r) = (cur.file() as i32, cur.rank() as i32);
        match edge_kind(prev, cur) {
            Some(EdgeKind::Rank) => grid(k, 2 * f - prev.file() as i32, r).into_iter().collect(),
            Some(EdgeKind::File) if cur.rank() > prev.rank() => {
                if r < 5 {
                    grid(k, f, r + 1).into_iter().collect()
                } else {
                    neighbours[cur.index()]
                        .as_slice()
                        .iter()
                        .filter(|(_, kind)| matches!(kind, EdgeKind::Across | EdgeKind::Triangle))
                        .map(|&(p, _)| p)
                        .collect()
                }
            }
            Some(EdgeKind::File) => grid(k, f, r - 1).into_iter().collect(),
            Some(EdgeKind::Across | EdgeKind::Triangle) => grid(k, f, r - 1).into_iter().collect(),
            None => Vec::new(),
        }
    };

    let mut rays = [Steps::<Ray, MAX_RAYS>::default(); Point::COUNT];
    for a in Point::all() {
        let mut paths: Vec<Vec<Point>> = Vec::new();
        for &(b, _) in neighbours[a.index()].as_slice() {
            // Depth-first along the line, branching where it branches.
            let mut stack = vec![vec![a, b]];
            while let Some(path) = stack.pop() {
                let (prev, cur) = (path[path.len() - 2], path[path.len() - 1]);
                let next = continuation(prev, cur);
                if next.is_empty() {
                    paths.push(path[1..].to_vec());
                }
                for p in next.into_iter().rev() {
                    let mut longer = path.clone();
                    longer.push(p);
                    stack.push(longer);
                }
            }
        }
        for (i, path) in paths.iter().enumerate() {
            let skip = paths[..i]
                .iter()
                .map(|earlier| earlier.iter().zip(path).take_while(|(x, y)| x == y).count())
                .max()
                .unwrap_or(0);
            let mut ray = Ray { len: path.len() as u8, skip: skip as u8, points: [Point(0); Ray::MAX] };
            ray.points[..path.len()].copy_from_slice(path);
            rays[a.index()].push(ray);
        }
    }

    let mut general = [Steps::<Point, 4>::default(); Point::COUNT];
    let mut elephant = [Steps::<Leap, 4>::default(); Point::COUNT];
    let mut horse = [Steps::<Leap, MAX_LEAPS>::default(); Point::COUNT];
    let mut horse_to = [Steps::<Leap, MAX_LEAPS>::default(); Point::COUNT];
    let mut flag_bearer = [Steps::<LongLeap, MAX_LEAPS>::default(); Point::COUNT];
    let mut flag_bearer_to = [Steps::<LongLeap, MAX_LEAPS>::default(); Point::COUNT];
    let mut soldier = [[Steps::<Point, 3>::default(); Point::COUNT]; 3];
    let mut soldier_to = [[Steps::<Point, 4>::default(); Point::COUNT]; 3];
    for a in Point::all() {
        let i = a.index();
        let k = a.kingdom();
        let (f, r) = (a.file() as i32, a.rank() as i32);
        if a.in_palace() {
            for &(b, _) in neighbours[i].as_slice() {
                if b.kingdom() == k && b.in_palace() {
                    general[i].push(b);
                }
            }
        }
        for (df, dr) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
            if let (Some(eye), Some(to)) = (grid(k, f + df, r + dr), grid(k, f + 2 * df, r + 2 * dr)) {
                elephant[i].push(Leap { block: eye, to });
            }
        }
        for ray in rays[i].as_slice() {
            let pts = ray.points();
            if let [leg, beyond, ..] = *pts {
                for to in opposite_corners(leg, beyond) {
                    horse[i].push_unique(Leap { block: leg, to });
                }
            }
            if let [first, second, beyond, ..] = *pts {
                for to in opposite_corners(second, beyond) {
                    flag_bearer[i].push_unique(LongLeap { first, second, to });
                }
            }
        }
        for origin in Kingdom::ALL {
            let steps = &mut soldier[origin.index()][i];
            if k == origin {
                if r < 5 {
                    steps.push(Point::new(k, f as u8, r as u8 + 1));
                } else {
                    for &(b, kind) in neighbours[i].as_slice() {
                        if matches!(kind, EdgeKind::Across | EdgeKind::Triangle) {
                            steps.push(b);
                        }
                    }
                }
            } else {
                for (df, dr) in [(0, -1), (-1, 0), (1, 0)] {
                    if let Some(b) = grid(k, f + df, r + dr) {
                        steps.push(b);
                    }
                }
            }
        }
    }
    for a in Point::all() {
        for st in horse[a.index()].as_slice() {
            horse_to[st.to.index()].push(Leap { block: st.block, to: a });
        }
        for st in flag_bearer[a.index()].as_slice() {
            flag_bearer_to[st.to.index()].push(LongLeap { first: st.first, second: st.second, to: a });
        }
        for origin in 0..3 {
            for &b in soldier[origin][a.index()].as_slice() {
                soldier_to[origin][b.index()].push(a);
            }
        }
    }
    Box::new(Geometry {
        neighbours,
        palace_diagonals,
        cells,
        diagonal_neighbours,
        rays,
        general,
        elephant,
        horse,
        horse_to,
        flag_bearer,
        flag_bearer_to,
        soldier,
        soldier_to,
    })
}

impl Geometry {
    /// Orthogonal neighbours of `p`.
    pub fn neighbours_of(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        self.neighbours[p.index()].as_slice().iter().map(|&(q, _)| q)
    }

    /// Are `a` and `b` joined by an orthogonal edge?
    pub fn adjacent(&self, a: Point, b: Point) -> bool {
        self.neighbours_of(a).any(|q| q == b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_cells_and_diagonals() {
        let g = geometry();
        assert_eq!(orthogonal_edges().len(), 3 * (8 * 5 + 9 * 4) + 3 * 4 + 3);
        assert_eq!(g.cells.len(), 3 * 32 + 3 * 3 + 3);
        for cell in &g.cells {
            for i in 0..4 {
                assert!(g.adjacent(cell[i], cell[(i + 1) % 4]));
                assert!(!g.adjacent(cell[i], cell[(i + 2) % 4]));
            }
        }
        for p in Point::all() {
            for &q in g.diagonal_neighbours[p.index()].as_slice() {
                assert!(g.diagonal_neighbours[q.index()].as_slice().contains(&p));
            }
        }
    }

    #[test]
    fn step_tables_are_consistent() {
        let g = geometry();
        for p in Point::all() {
            let i = p.index();
            for st in g.horse[i].as_slice() {
                assert!(g.adjacent(p, st.block));
                assert!(g.diagonal_neighbours[st.block.index()].as_slice().contains(&st.to));
                assert!(g.horse_to[st.to.index()].as_slice().contains(&Leap { block: st.block, to: p }));
            }
            let targets: Vec<Point> = g.horse[i].as_slice().iter().map(|s| s.to).collect();
            let mut unique = targets.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), targets.len(), "one leg per horse target from {p}");
            for st in g.elephant[i].as_slice() {
                assert_eq!(st.to.kingdom(), p.kingdom());
            }
            for ray in g.rays[i].as_slice() {
                let pts = ray.points();
                assert!(g.adjacent(p, pts[0]));
                assert!(pts.windows(2).all(|w| g.adjacent(w[0], w[1])));
                assert!(!pts.contains(&p));
            }
        }
    }

    #[test]
    fn a_general_steps_one_point_orthogonally_inside_its_palace() {
        let g = geometry();
        let in_palace = |file: i32, rank: i32| (3..=5).contains(&file) && (1..=3).contains(&rank);
        for p in Point::all() {
            let (file, rank) = (p.file() as i32, p.rank() as i32);
            let expected = if in_palace(file, rank) {
                [(0, 1), (0, -1), (1, 0), (-1, 0)].iter().filter(|(df, dr)| in_palace(file + df, rank + dr)).count()
            } else {
                0
            };
            let steps = &g.general[p.index()];
            assert_eq!(steps.len(), expected, "general steps from {p}");
            assert_eq!(steps.is_empty(), expected == 0, "general steps from {p}");
        }
    }
}
