//! The match's opening book: read from a file, or made of random legal moves.

use crate::rules::types::Move;
use crate::rules::xiangqi::{Game, Position};

/// Reads an opening book: one line of ICCS moves per opening, `#` comments.
pub fn read_openings(text: &str) -> Result<Vec<Vec<Move>>, String> {
    let mut book = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut game = Game::new(Position::startpos());
        let mut moves = Vec::new();
        for t in line.split_whitespace() {
            let m = Move::parse_iccs(t).ok_or_else(|| format!("line {}: bad move {t}", i + 1))?;
            game.play(m).map_err(|_| format!("line {}: illegal move {t}", i + 1))?;
            moves.push(m);
        }
        book.push(moves);
    }
    Ok(book)
}

/// `count` different openings of `plies` random legal moves from the start (the same
/// ones for the same `seed`): a book of varied games, for a tuning data set.
pub fn random_openings(count: usize, plies: usize, seed: u64) -> Vec<Vec<Move>> {
    random_lines(
        count,
        plies,
        seed,
        Position::startpos(),
        |pos, list| pos.legal_moves(list),
        |pos, m| {
            pos.play_unchecked(m);
        },
    )
}

/// `count` different lines of `plies` moves from `start`, each drawn at random from
/// the moves `moves_of` lists, played by `play`.
pub(super) fn random_lines<P: Clone>(
    count: usize,
    plies: usize,
    seed: u64,
    start: P,
    moves_of: impl Fn(&P, &mut crate::rules::types::MoveList),
    play: impl Fn(&mut P, Move),
) -> Vec<Vec<Move>> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |n: usize| {
        // xorshift64*: enough to pick moves.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    let mut book: Vec<Vec<Move>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // Short openings have few distinct lines: give up after many repeats.
    let mut tries = 0;
    while book.len() < count && tries < 100 * count + 100 {
        tries += 1;
        let mut pos = start.clone();
        let mut line = Vec::new();
        for _ in 0..plies {
            let mut list = crate::rules::types::MoveList::new();
            moves_of(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            let m = list.as_slice()[next(list.len())];
            play(&mut pos, m);
            line.push(m);
        }
        if line.len() == plies && seen.insert(line.clone()) {
            book.push(line);
        }
    }
    book
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_legal_distinct_and_repeatable() {
        let book = random_openings(50, 4, 7);
        assert_eq!(book.len(), 50);
        assert_eq!(book, random_openings(50, 4, 7));
        assert_ne!(book, random_openings(50, 4, 8));
        let distinct: std::collections::HashSet<_> = book.iter().collect();
        assert_eq!(distinct.len(), 50);
        for line in &book {
            let mut pos = Position::startpos();
            assert_eq!(line.len(), 4);
            for &m in line {
                assert!(pos.is_legal(m), "{line:?}");
                pos.play_unchecked(m);
            }
        }
    }
}
