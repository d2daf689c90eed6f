//! Repetition cycles of the two-player games, as both the adjudication and the search
//! see them: the plies between two occurrences of one position, with who played each
//! and whether it checked.
//!
//! A rule set judges a cycle by what each side did on every one of its moves there
//! (always checking, always chasing one piece...). The variants' adjudication modules
//! say what a cycle decides; this module holds what they share.

use super::types::{Color, Move};

/// One ply of a repetition cycle, as its judgement needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CyclePly {
    /// The move played.
    pub mv: Move,
    /// The move left the opponent in check.
    pub gave_check: bool,
    /// The mover keeps the turn (an extra move of a handicap start).
    pub kept_turn: bool,
}

impl CyclePly {
    /// A ply that hands the turn over, as every ply of a game without handicap does.
    pub const fn new(mv: Move, gave_check: bool) -> CyclePly {
        CyclePly { mv, gave_check, kept_turn: false }
    }
}

/// The side that played each ply of `plies`, the first of them played by `first_mover`.
pub fn movers(first_mover: Color, plies: &[CyclePly]) -> impl Iterator<Item = Color> + '_ {
    plies.iter().scan(first_mover, |next, p| {
        let mover = *next;
        if !p.kept_turn {
            *next = mover.other();
        }
        Some(mover)
    })
}

/// For each side (by [`Color::index`]): did it check with every one of its moves of the
/// cycle? A side that made no move in it did not.
pub fn perpetual_checkers(first_mover: Color, plies: &[CyclePly]) -> [bool; 2] {
    let mut moved = [false; 2];
    let mut always = [true; 2];
    for (p, mover) in plies.iter().zip(movers(first_mover, plies)) {
        moved[mover.index()] = true;
        always[mover.index()] &= p.gave_check;
    }
    [moved[0] && always[0], moved[1] && always[1]]
}

/// The plies (numbered from `first`) that `side` played in the cycle.
pub fn plies_of(side: Color, first_mover: Color, plies: &[CyclePly], first: usize) -> Vec<usize> {
    movers(first_mover, plies).enumerate().filter(|&(_, c)| c == side).map(|(k, _)| first + k).collect()
}

/// The plies `i` of `span` (oldest first) after which the position stood, where
/// `key_after(i)` is its key then: when the position after the span's last ply stands
/// there for at least the third time, the plies of its last three occurrences, oldest
/// first.
pub fn third_occurrence(span: std::ops::RangeInclusive<usize>, key_after: impl Fn(usize) -> u64) -> Option<[usize; 3]> {
    let key = key_after(*span.end());
    let mut found = span.rev().filter(|&i| key_after(i) == key);
    let (last, middle, first) = (found.next()?, found.next()?, found.next()?);
    Some([first, middle, last])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ply(check: bool) -> CyclePly {
        CyclePly::new(Move::PASS, check)
    }

    #[test]
    fn sides_alternate_unless_the_turn_is_kept() {
        let mut plies = vec![ply(true), ply(false), ply(true), ply(false)];
        let m: Vec<Color> = movers(Color::Red, &plies).collect();
        assert_eq!(m, [Color::Red, Color::Black, Color::Red, Color::Black]);
        assert_eq!(perpetual_checkers(Color::Red, &plies), [true, false]);
        assert_eq!(plies_of(Color::Black, Color::Red, &plies, 7), [8, 10]);
        plies[0].kept_turn = true;
        let m: Vec<Color> = movers(Color::Red, &plies).collect();
        assert_eq!(m, [Color::Red, Color::Red, Color::Black, Color::Red]);
        assert_eq!(perpetual_checkers(Color::Red, &plies), [false, true]);
    }

    #[test]
    fn a_side_without_a_move_is_not_perpetual() {
        let mut plies = vec![ply(true), ply(true)];
        plies[0].kept_turn = true;
        assert_eq!(perpetual_checkers(Color::Black, &plies), [false, true]);
    }

    #[test]
    fn the_last_three_occurrences_are_found() {
        let keys = [7, 1, 7, 2, 7, 3, 7];
        assert_eq!(third_occurrence(0..=6, |i| keys[i]), Some([2, 4, 6]));
        assert_eq!(third_occurrence(3..=6, |i| keys[i]), None);
        assert_eq!(third_occurrence(0..=5, |i| keys[i]), None);
    }
}
