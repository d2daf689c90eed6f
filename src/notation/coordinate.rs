//! Coordinates with ranks 1-10, as many Western pages write Xiangqi moves: files `a`-`i`
//! from Red's left, ranks `1`-`10` from Red's side, from-point `-` to-point (`h3-e3` is
//! ICCS `h2e2`). Read in either case, with `-`, `x`, `:` or nothing between the points;
//! written `h3-e3`. Janggi's pass is `pass`.

use super::{NotationErrorKind, clean};
use crate::rules::types::{Move, Square};

/// Writes `m` in coordinates (`h3-e3`, or `pass`).
pub fn format(m: Move) -> String {
    if m.is_pass() {
        return m.to_string();
    }
    let point = |sq: Square| format!("{}{}", (b'a' + sq.file()) as char, sq.rank() + 1);
    format!("{}-{}", point(m.from()), point(m.to()))
}

const EXPECTED: &str = "two points such as h3-e3 (files a-i, ranks 1-10)";

/// Reads a move in coordinates.
pub fn parse(text: &str) -> Result<Move, NotationErrorKind> {
    let s = clean(text).to_ascii_lowercase();
    if s.is_empty() {
        return Err(NotationErrorKind::Empty);
    }
    if s == "pass" {
        return Ok(Move::PASS);
    }
    let syntax = NotationErrorKind::Syntax { expected: EXPECTED };
    let (from, rest) = point(&s).ok_or(syntax.clone())?;
    let rest = rest.strip_prefix(['-', 'x', ':']).unwrap_or(rest);
    let (to, rest) = point(rest).ok_or(syntax.clone())?;
    if !rest.is_empty() || from == to {
        return Err(syntax);
    }
    Ok(Move::new(from, to))
}

/// A point at the start of `s`, and what follows it.
pub(crate) fn point(s: &str) -> Option<(Square, &str)> {
    let b = s.as_bytes();
    let file = b.first()?.wrapping_sub(b'a');
    if file >= 9 {
        return None;
    }
    let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count().min(2);
    let (rank, len) = match digits {
        2 if &b[1..3] == b"10" => (10, 3),
        0 => return None,
        _ => (b[1] - b'0', 2),
    };
    if !(1..=10).contains(&rank) {
        return None;
    }
    Some((Square::new(file, rank - 1), &s[len..]))
}
