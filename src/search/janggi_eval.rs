//! Static evaluation of Janggi positions, in centipawns from the side to move's view.
//!
//! As for Xiangqi ([`super::eval`]), the evaluation is a sum of terms, each counted for
//! Cho minus Han and weighted by a pair `[opening, endgame]` from [`WEIGHTS`] (see
//! `src/search/janggi_weights.rs`, tuned by `chuhe tune --janggi`); the two sums are
//! tapered by a game phase counted from the attacking pieces on the board. The terms:
//! material by piece kind, placement of each kind on each point, chariot mobility
//! (points reached on its rank and file), horse and elephant mobility (moves whose path
//! is free), a missing guard charged per enemy chariot, horse, cannon and soldier in
//! the own half, the side to move, the enemy pieces that attack the own palace (by
//! kind, and how many at once), the checks the enemy could give next (by chariot,
//! horse and cannon, and those from a point no own piece guards), the pieces the enemy
//! attacks (by a lesser piece, or unguarded; the side to move's and the other's apart),
//! cannon mobility, and soldiers side by side.
//!
//! Material and placement are kept incrementally move by move ([`Material`]; a pass
//! changes nothing but the side); the other terms are counted by [`positional_terms`].
//! Both count into a [`TermSink`]: the search sums weights, the tuner records the counts,
//! so both see one evaluation.

pub use super::janggi_weights::WEIGHTS;
pub use super::terms::Material;
pub use super::terms::TermSink;
use super::terms::{PieceSquareTable, PieceTerms, attackers, for_red, line_reach, palace_pressure, side_by_side};
use crate::rules::board::{Bitboard, Board, FILE_MASKS, HORSE_ATTACKERS, RANK_MASKS, squares};
use crate::rules::janggi::adjudicate::counting_tenths;
use crate::rules::janggi::tables::{PALACE, PALACE_STEPS};
use crate::rules::janggi::{Position, cannon_attacks, for_each_reach};
use crate::rules::types::{Color, Move, PieceKind, Square};

/// Index of the first material term (one per piece kind, by [`PieceKind::index`]).
pub const MATERIAL: usize = 0;
/// Index of the first placement term: `PLACEMENT + kind * 90 + own_rank * 9 + file`,
/// ranks counted from the piece's own back rank.
pub const PLACEMENT: usize = 7;
/// Chariot mobility, per point a chariot reaches on its rank and file.
pub const CHARIOT_MOBILITY: usize = PLACEMENT + 7 * 90;
/// Horse mobility, per move whose leg is free.
pub const HORSE_MOBILITY: usize = CHARIOT_MOBILITY + 1;
/// Elephant mobility, per move whose two path points are free.
pub const ELEPHANT_MOBILITY: usize = HORSE_MOBILITY + 1;
/// A missing guard, per enemy attacker: chariot, horse, cannon, soldier in the own half
/// (four terms).
pub const MISSING_GUARD: usize = ELEPHANT_MOBILITY + 1;
/// The side to move.
pub const TEMPO: usize = MISSING_GUARD + 4;
/// An enemy piece that attacks a point of the own palace, per kind: chariot, cannon,
/// horse, elephant, soldier (five terms).
pub const PALACE_ATTACKER: usize = TEMPO + 1;
/// Two, three, and four or more enemy pieces attacking the own palace (three terms,
/// one of which counts): an attack grows faster than its pieces.
pub const PALACE_PRESSURE: usize = PALACE_ATTACKER + 5;
/// The moves by which an enemy chariot (along a rank or file), horse or cannon would
/// give check, then the same three counting only the checks from a point no own piece
/// guards (six terms).
pub const CHECK_THREATS: usize = PALACE_PRESSURE + 3;
/// A piece (not the general) the enemy attacks: `THREATS + waiting * 12 + lesser * 6 +
/// kind - 1`, `waiting` if its side has just moved (it cannot save it now), `lesser` if a
/// piece worth less attacks it (else it counts only when no own piece guards it). The
/// side to move's attacked pieces and the other side's weigh apart (24 terms).
pub const THREATS: usize = CHECK_THREATS + 6;
/// Cannon mobility, per point a cannon could move to or take on.
pub const CANNON_MOBILITY: usize = THREATS + 24;
/// Two soldiers side by side on a rank (they guard each other).
pub const SOLDIER_PAIR: usize = CANNON_MOBILITY + 1;
/// The number of terms.
pub const TERMS: usize = SOLDIER_PAIR + 1;
// The weights file (written by the tuner) holds one pair per term.
const _: () = assert!(WEIGHTS.len() == TERMS);

/// The phase of a full board: the opening weights count fully from here up.
pub const FULL_PHASE: i32 = 36;

/// The material and placement terms: phase weight of each kind (attacking pieces only),
/// and every piece valued by its material and its placement.
const PIECES: PieceTerms<TERMS> = PieceTerms {
    weights: &WEIGHTS,
    material: MATERIAL,
    placement: PLACEMENT,
    phase: [0, 0, 1, 2, 4, 2, 0],
    full_phase: FULL_PHASE,
    soldier_placement_alone_across: false,
};

/// The placement term of `kind` on `sq` for a Han piece if `black`.
#[inline(always)]
pub const fn placement_term(kind: usize, black: bool, sq: usize) -> usize {
    PIECES.placement_term(kind, black, sq).0
}

/// Signed material-and-placement values: positive for Cho's pieces. Indexed
/// `[piece][square]`.
pub static PIECE_SQUARE: PieceSquareTable = PIECES.piece_square_table();

/// Counts the material and placement terms of every piece into `sink`; returns the
/// game phase.
pub fn material_terms(pos: &Position, sink: &mut impl TermSink) -> i32 {
    PIECES.count(pos.board(), sink)
}

/// The material and placement of every piece, and the phase, computed from scratch.
pub fn material(pos: &Position) -> Material {
    PIECES.material(pos.board())
}

/// The material after `m` (call before playing it). A pass changes nothing.
#[inline(always)]
pub fn material_after(material: Material, pos: &Position, m: Move) -> Material {
    if m.is_pass() { material } else { material.after(pos.board(), m.from(), m.to(), &PIECE_SQUARE, &PIECES.phase) }
}

/// The evaluation from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, material(pos))
}

/// The evaluation given the incrementally kept material (which must match `pos`).
#[inline]
pub fn evaluate_with(pos: &Position, material: Material) -> i32 {
    PIECES.evaluate(material, pos.turn(), |sum| positional_terms(pos, sum))
}

/// Counts every term but material and placement into `sink`: mobility, missing guards,
/// the side to move, the attacks on the palace and the general, the attacked pieces and
/// the soldier pairs.
#[inline(always)]
pub fn positional_terms(pos: &Position, sink: &mut impl TermSink) {
    let b = pos.board();
    // One pass over each side's pieces gives the mobilities, the attacks on the palace
    // and the points each kind reaches, which tell the attacked and the guarded pieces
    // and the safe checks.
    let reach = Color::ALL.map(|color| SideReach::of(b, color, check_points(b, color.other())));
    for color in Color::ALL {
        let sign = for_red(color);
        let moves = &reach[color.index()].moves;
        sink.add(CHARIOT_MOBILITY, sign * moves[PieceKind::Chariot.index()]);
        sink.add(HORSE_MOBILITY, sign * moves[PieceKind::Horse.index()]);
        sink.add(ELEPHANT_MOBILITY, sign * moves[PieceKind::Elephant.index()]);
        sink.add(CANNON_MOBILITY, sign * moves[PieceKind::Cannon.index()]);
    }
    for color in Color::ALL {
        let sign = for_red(color);
        // A missing guard costs more the more the enemy can attack: chariots, horses,
        // cannons, soldiers in this side's half.
        let missing_guards = 2 - (b.pieces(color, PieceKind::Advisor).count_ones() as i32).min(2);
        let enemy = &attackers(b, color.other());
        for (kind, &count) in enemy.iter().enumerate() {
            sink.add(MISSING_GUARD + kind, sign * missing_guards * count);
        }
    }
    sink.add(TEMPO, for_red(pos.turn()));
    for color in Color::ALL {
        let sign = for_red(color);
        let by_kind = reach[color.other().index()].palace_attackers();
        palace_pressure(sink, PALACE_ATTACKER, PALACE_PRESSURE, sign, &by_kind);
    }
    let guarded = Color::ALL.map(|color| guarded_points(b, color, &reach[color.index()].maps));
    for color in Color::ALL {
        let sign = for_red(color);
        for (i, &count) in reach[color.other().index()].check_threats(guarded[color.index()]).iter().enumerate() {
            sink.add(CHECK_THREATS + i, sign * count);
        }
    }
    for color in Color::ALL {
        let sign = for_red(color);
        let waiting = (color != pos.turn()) as usize;
        let (guarded, theirs) = (guarded[color.index()], &reach[color.other().index()].maps);
        threats(b, color, guarded, theirs, |kind, lesser, count| {
            sink.add(THREATS + waiting * 12 + lesser as usize * 6 + kind - 1, sign * count)
        });
        sink.add(SOLDIER_PAIR, sign * side_by_side(b.pieces(color, PieceKind::Soldier)));
    }
}

/// The points `color` guards: those its pieces reach (`reach`, by kind, from
/// [`for_each_reach`]) and the palace steps of its general and guards.
#[inline(always)]
fn guarded_points(b: &Board, color: Color, reach: &[Bitboard; 7]) -> Bitboard {
    reach.iter().fold(palace_guarded(b, color), |all, &points| all | points)
}

/// Calls `found(kind, lesser, count)` for the pieces of `color` but the general that
/// the enemy attacks, counted by kind: `lesser` if an enemy piece worth less (as the
/// tournament rules count) attacks them, else only those off the `guarded` points.
/// `theirs` are the points the enemy reaches by kind (from [`for_each_reach`]), so the
/// enemy's general and guards are not counted as attackers: they rarely leave their
/// palace.
#[inline(always)]
fn threats(
    b: &Board,
    color: Color,
    guarded: Bitboard,
    theirs: &[Bitboard; 7],
    mut found: impl FnMut(usize, bool, i32),
) {
    use PieceKind::{Advisor, Cannon, Chariot, Elephant, Horse, Soldier};
    for kind in [Advisor, Elephant, Horse, Chariot, Cannon, Soldier] {
        let pieces = b.pieces(color, kind);
        if pieces == 0 {
            continue;
        }
        let (mut by_lesser, mut attacked) = (0, 0);
        for attacker in [Chariot, Cannon, Horse, Elephant, Soldier] {
            // A cannon never takes a cannon.
            if kind == Cannon && attacker == Cannon {
                continue;
            }
            attacked |= theirs[attacker.index()];
            if counting_tenths(attacker) < counting_tenths(kind) {
                by_lesser |= theirs[attacker.index()];
            }
        }
        let by_lesser = pieces & by_lesser;
        let unguarded = pieces & attacked & !by_lesser & !guarded;
        found(kind.index(), true, by_lesser.count_ones() as i32);
        found(kind.index(), false, unguarded.count_ones() as i32);
    }
}

/// The points from which `color`'s enemy would give check to `color`'s general (none
/// without one): `[chariot, horse, cannon]`, each empty or holding a piece of `color`.
/// A chariot checks from its general's rank or file (its palace diagonals are left
/// out), a horse as its leg allows, and a cannon from an empty point with one screen
/// (not a cannon) between it and the general: the points a cannon standing on the
/// general's point would jump to.
#[inline(always)]
fn check_points(b: &Board, color: Color) -> [Bitboard; 3] {
    let Some(general) = b.general(color) else { return [0; 3] };
    let theirs = b.by_color(color.other());
    let mut horse_points = 0;
    for st in HORSE_ATTACKERS[general.index()].as_slice() {
        if b.code_at(st.block as usize) == 0 {
            horse_points |= bit_at(st.to);
        }
    }
    [line_reach(b, general) & !theirs, horse_points & !theirs, cannon_attacks(b, general, color) & !b.occupied()]
}

/// The palace points that `color`'s general and guards guard: one step along a palace
/// line from each.
#[inline(always)]
fn palace_guarded(b: &Board, color: Color) -> Bitboard {
    let mut guarded = 0;
    for sq in squares(b.pieces(color, PieceKind::General) | b.pieces(color, PieceKind::Advisor)) {
        guarded |= PALACE_STEPS[sq.index()];
    }
    guarded
}

/// What one pass over a side's pieces (the general and guards left out) finds.
struct SideReach {
    /// The points each kind reaches, by [`PieceKind::index`] (see [`for_each_reach`]).
    maps: [Bitboard; 7],
    /// Mobility by kind: a chariot's empty points on its rank and file (the palace
    /// diagonals not counted), a cannon's points to move to or take on, a horse's or
    /// elephant's moves whose path is free, wherever they land.
    moves: [i32; 7],
    /// The pieces by kind that attack a point of the enemy's palace: a cannon as it
    /// could move there, the others as they reach it.
    palace: [i32; 7],
    /// The moves that would give check, by chariot (along its rank or file), horse
    /// and cannon: how many, and the points they would give it from.
    checks: [i32; 3],
    check_points: [Bitboard; 3],
}

impl SideReach {
    /// One pass over `color`'s pieces; `checking` are the points from which they would
    /// give check ([`check_points`] of the enemy).
    #[inline(always)]
    fn of(b: &Board, color: Color, checking: [Bitboard; 3]) -> SideReach {
        let mut r = SideReach { maps: [0; 7], moves: [0; 7], palace: [0; 7], checks: [0; 3], check_points: [0; 3] };
        let (own, empty, enemy_cannons) =
            (b.by_color(color), !b.occupied(), b.pieces(color.other(), PieceKind::Cannon));
        let enemy_palace = PALACE[color.other().index()];
        for_each_reach(b, color, |kind, from, points| {
            r.maps[kind.index()] |= points;
            // A cannon neither lands on its own side's pieces nor takes a cannon.
            let points = if kind == PieceKind::Cannon { points & !own & !enemy_cannons } else { points };
            let counted = if kind == PieceKind::Chariot { points & empty & lines_through(from) } else { points };
            r.moves[kind.index()] += counted.count_ones() as i32;
            r.palace[kind.index()] += (points & enemy_palace != 0) as i32;
            let check = match kind {
                PieceKind::Chariot => Some((0, points & lines_through(from) & checking[0])),
                PieceKind::Horse => Some((1, points & checking[1])),
                PieceKind::Cannon => Some((2, points & checking[2])),
                _ => None,
            };
            if let Some((i, points)) = check {
                r.checks[i] += points.count_ones() as i32;
                r.check_points[i] |= points;
            }
        });
        r
    }

    /// The checks this side could give: `[chariot, horse, cannon, safe chariot, safe
    /// horse, safe cannon]`, each checking point once per piece that can reach it, and a
    /// safe check one from a point off the enemy's `guarded` points.
    fn check_threats(&self, guarded: Bitboard) -> [i32; 6] {
        let [chariot, horse, cannon] = self.checks;
        let safe = self.check_points.map(|points| (points & !guarded).count_ones() as i32);
        [chariot, horse, cannon, safe[0], safe[1], safe[2]]
    }

    /// The pieces attacking the enemy's palace in the order of the terms from
    /// [`PALACE_ATTACKER`]: chariots, cannons, horses, elephants, soldiers.
    fn palace_attackers(&self) -> [i32; 5] {
        use PieceKind::{Cannon, Chariot, Elephant, Horse, Soldier};
        [Chariot, Cannon, Horse, Elephant, Soldier].map(|kind| self.palace[kind.index()])
    }
}

/// The points of the rank and the file through `sq`.
#[inline(always)]
fn lines_through(sq: Square) -> Bitboard {
    RANK_MASKS[sq.rank() as usize] | FILE_MASKS[sq.file() as usize]
}

/// The bitboard of the point with index `i`.
#[inline(always)]
fn bit_at(i: u8) -> Bitboard {
    1u128 << i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::MoveList;

    /// Records the terms counted, in order.
    #[derive(Default)]
    struct Counts(Vec<(usize, i32)>);

    impl TermSink for Counts {
        fn add(&mut self, term: usize, count: i32) {
            self.0.push((term, count));
        }
    }

    /// The terms `positional_terms` counts in the Janggi position `fen_text`, in order.
    fn terms_of(fen_text: &str) -> Vec<(usize, i32)> {
        let mut counts = Counts::default();
        positional_terms(&crate::notation::fen::janggi(fen_text).unwrap(), &mut counts);
        counts.0
    }

    #[test]
    fn incremental_material_matches_from_scratch() {
        let mut pos = Position::startpos();
        let mut m = material(&pos);
        assert_eq!(evaluate(&pos), WEIGHTS[TEMPO][0], "the start is symmetric but for the move");
        for i in 0..300 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list.as_slice()[(i * 7 + 3) % list.len()];
            m = material_after(m, &pos, mv);
            pos.play_unchecked(mv);
            assert_eq!(m, material(&pos));
        }
    }

    #[test]
    fn the_start_counts_each_side_s_mobility_alike() {
        let mut counts = Counts::default();
        positional_terms(&Position::startpos(), &mut counts);
        // Cho's two horses on b0 and h0 each have two moves with free legs (to a2/c2
        // and g2/i2: c2 and g2 hold no piece; the legs b1 and h1 are empty).
        assert!(counts.0.contains(&(HORSE_MOBILITY, 4)), "{:?}", counts.0);
        assert!(counts.0.contains(&(HORSE_MOBILITY, -4)), "{:?}", counts.0);
        assert_eq!(counts.0.iter().filter(|(t, _)| *t == CHARIOT_MOBILITY).map(|(_, c)| c).sum::<i32>(), 0);
    }

    /// One pass over Han's pieces and one over Cho's.
    fn han_and_cho(b: &Board) -> [SideReach; 2] {
        [Color::Black, Color::Red].map(|color| SideReach::of(b, color, check_points(b, color.other())))
    }

    /// Han's pieces attacking Cho's palace in the Janggi position `fen_text`.
    fn attacking_cho(fen_text: &str) -> [i32; 5] {
        let pos = crate::notation::fen::janggi(fen_text).unwrap();
        han_and_cho(pos.board())[0].palace_attackers()
    }

    #[test]
    fn palace_attackers_need_a_free_way_in() {
        assert_eq!(attacking_cho("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"), [0; 5]);
        // A chariot on the open e-file; blocked by a soldier on e4, where a cannon
        // jumps it instead.
        assert_eq!(attacking_cho("4k4/9/9/9/4r4/9/9/9/9/3K5 w - - 0 1"), [1, 0, 0, 0, 0]);
        assert_eq!(attacking_cho("4k4/9/9/9/4r4/4P4/9/9/9/3K5 w - - 0 1"), [0; 5]);
        assert_eq!(attacking_cho("4k4/9/9/9/4c4/4P4/9/9/9/3K5 w - - 0 1"), [0, 1, 0, 0, 0]);
        // A horse on d4 reaches e2 over its leg d3, unless a piece stands there.
        assert_eq!(attacking_cho("4k4/9/9/9/9/3n5/9/9/9/4K4 w - - 0 1"), [0, 0, 1, 0, 0]);
        assert_eq!(attacking_cho("4k4/9/9/9/9/3n5/3P5/9/9/4K4 w - - 0 1"), [0; 5]);
        // A soldier on e3 steps into the palace.
        assert_eq!(attacking_cho("4k4/9/9/9/9/9/4p4/9/9/3K5 w - - 0 1"), [0, 0, 0, 0, 1]);
    }

    #[test]
    fn two_attackers_press_the_palace() {
        let counts = terms_of("4k4/9/9/9/3r5/9/4p4/9/9/5K3 w - - 0 1");
        // Counted for Cho, whose palace is attacked: a chariot, a soldier, two at once.
        assert!(counts.contains(&(PALACE_ATTACKER, 1)), "{counts:?}");
        assert!(counts.contains(&(PALACE_ATTACKER + 4, 1)), "{counts:?}");
        assert!(counts.contains(&(PALACE_PRESSURE, 1)), "{counts:?}");
        assert!(!counts.iter().any(|&(t, _)| t == PALACE_PRESSURE + 1 || t == PALACE_PRESSURE + 2));
    }

    /// The check threats against Cho's general in `fen_text`.
    fn threats_to_cho(fen_text: &str) -> [i32; 6] {
        let pos = crate::notation::fen::janggi(fen_text).unwrap();
        let [han, cho] = han_and_cho(pos.board());
        han.check_threats(guarded_points(pos.board(), Color::Red, &cho.maps))
    }

    #[test]
    fn check_threats_count_the_points_a_chariot_or_horse_would_check_from() {
        // A chariot on a5 checks the general on e1 from e5 (on the open e-file) and
        // from a1 (on its open rank); no Cho piece guards either point.
        assert_eq!(threats_to_cho("4k4/9/9/9/r8/9/9/9/4K4/9 w - - 0 1"), [2, 0, 0, 2, 0, 0]);
        // A Cho chariot on i5 now guards e5 along rank 5.
        assert_eq!(threats_to_cho("4k4/9/9/9/r7R/9/9/9/4K4/9 w - - 0 1"), [2, 0, 0, 1, 0, 0]);
        // A horse on e5 reaches d3 and f3 over its leg e4, both checking e1 (over d2
        // and f2); a soldier on e4 blocks the leg.
        assert_eq!(threats_to_cho("4k4/9/9/9/4n4/9/9/9/4K4/9 w - - 0 1"), [0, 2, 0, 0, 2, 0]);
        assert_eq!(threats_to_cho("4k4/9/9/9/4n4/4P4/9/9/4K4/9 w - - 0 1"), [0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn check_threats_count_cannon_jumps_and_leave_the_palace_s_guarded_points_unsafe() {
        // A cannon on a5 jumps its screen on b5 to c5..i5; e5 checks the general on e1
        // over the soldier on e3, which guards e4 but not e5.
        assert_eq!(threats_to_cho("4k4/9/9/9/cp7/9/4P4/9/4K4/9 w - - 0 1"), [0, 0, 1, 0, 0, 1]);
        // A chariot on g1 checks the general on d0 from g0 (along rank 0) and from d1
        // (up the d-file), but d1 is a step of the general: one safe check.
        assert_eq!(threats_to_cho("4k4/9/9/9/9/9/9/9/6r2/3K5 w - - 0 1"), [2, 0, 0, 1, 0, 0]);
    }

    /// The attacked-piece terms counted (not zero) in `fen_text`, in order.
    fn threat_terms(fen_text: &str) -> Vec<(usize, i32)> {
        let threat = |t| (THREATS..THREATS + 24).contains(&t);
        terms_of(fen_text).into_iter().filter(|&(t, c)| threat(t) && c != 0).collect()
    }

    #[test]
    fn a_piece_attacked_by_a_lesser_one_counts_guarded_or_not() {
        // Han's soldier on e5 attacks Cho's horse on e4 (Cho to move): by a lesser piece.
        let horse_by_lesser = THREATS + 6 + PieceKind::Horse.index() - 1;
        assert_eq!(threat_terms("4k4/9/9/9/4p4/4N4/9/9/4K4/9 w - - 0 1"), [(horse_by_lesser, 1)]);
        // A soldier on d4 guards the horse: still counted.
        assert_eq!(threat_terms("4k4/9/9/9/4p4/3PN4/9/9/4K4/9 w - - 0 1"), [(horse_by_lesser, 1)]);
        // A second horse on d5, which the soldier on e5 also attacks: both count.
        assert_eq!(threat_terms("4k4/9/9/9/3Np4/3PN4/9/9/4K4/9 w - - 0 1"), [(horse_by_lesser, 2)]);
    }

    #[test]
    fn a_piece_attacked_by_an_equal_one_counts_only_unguarded_and_by_the_side_to_move() {
        // Horses on e4 (Cho, to move) and d6 (Han, which has moved) attack each other.
        let cho_horse = THREATS + PieceKind::Horse.index() - 1;
        let han_horse = THREATS + 12 + PieceKind::Horse.index() - 1;
        assert_eq!(threat_terms("4k4/9/9/3n5/9/4N4/9/9/4K4/9 w - - 0 1"), [(cho_horse, 1), (han_horse, -1)]);
        // Cho's soldier on d4 guards its horse; Han's horse stays unguarded.
        assert_eq!(threat_terms("4k4/9/9/3n5/9/3PN4/9/9/4K4/9 w - - 0 1"), [(han_horse, -1)]);
        // Han to move: the same attacks, each side's roles swapped.
        assert_eq!(threat_terms("4k4/9/9/3n5/9/4N4/9/9/4K4/9 b - - 0 1"), [(cho_horse + 12, 1), (han_horse - 12, -1)]);
    }

    #[test]
    fn a_cannon_attacked_by_a_cannon_is_not_threatened() {
        // Han's cannon on e7 over the soldier on e6 reaches e4, where Cho's cannon stands.
        assert_eq!(threat_terms("4k4/9/4c4/4p4/9/4C4/9/9/4K4/9 w - - 0 1"), []);
    }

    #[test]
    fn cannon_mobility_and_soldier_pairs_count_their_points() {
        // Cho's cannon on a0 jumps the soldier on a3 to a4..a8 and takes the chariot on a9.
        let counts = terms_of("r3k4/9/9/9/9/9/P8/9/4K4/C8 w - - 0 1");
        assert!(counts.contains(&(CANNON_MOBILITY, 6)), "{counts:?}");
        // The chariot takes the unguarded soldier; the cannon, worth less, attacks it.
        let soldier = THREATS + PieceKind::Soldier.index() - 1;
        let chariot_by_lesser = THREATS + 12 + 6 + PieceKind::Chariot.index() - 1;
        assert_eq!(threat_terms("r3k4/9/9/9/9/9/P8/9/4K4/C8 w - - 0 1"), [(soldier, 1), (chariot_by_lesser, -1)]);
        // Soldiers on a3 and b3 stand side by side; i3 and a4 do not (another rank).
        let counts = terms_of("4k4/9/9/9/9/P8/PP6P/9/4K4/9 w - - 0 1");
        assert!(counts.contains(&(SOLDIER_PAIR, 1)), "{counts:?}");
        assert!(!counts.iter().any(|&(t, c)| t == SOLDIER_PAIR && c > 1), "{counts:?}");
    }
}
