//! ICCS: from-point and to-point, files `a`-`i` from Red's left and ranks `0`-`9` from
//! Red's side (`h2e2`). Read in either case, with or without a `-` between the points
//! (`H2-E2`); `pass` is Janggi's pass. Written in lower case without the dash.

use super::{NotationErrorKind, clean};
use crate::rules::types::Move;

/// Writes `m` in ICCS (`h2e2`, or `pass`).
pub fn format(m: Move) -> String {
    m.to_string()
}

/// Reads a move in ICCS.
pub fn parse(text: &str) -> Result<Move, NotationErrorKind> {
    let s = clean(text);
    if s.is_empty() {
        return Err(NotationErrorKind::Empty);
    }
    Move::parse_iccs(&s).ok_or(NotationErrorKind::Syntax { expected: "two points such as h2e2 (files a-i, ranks 0-9)" })
}
