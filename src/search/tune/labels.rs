//! Positions labelled with a stronger search's score, to tune on instead of (or beside)
//! game results: a game's result says little about its early positions, a deeper
//! search's score says how each one stands.
//!
//! `chuhe label` writes them, one line a position: its FEN, `;`, and the score in
//! centipawns for Red (Cho), as the labelling engine reported it:
//!
//! ```text
//! rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1;35
//! ```
//!
//! The tuner reads a score as an expected result for Red, `1 / (1 + 10^(-score / scale))`.

use std::collections::HashSet;

use super::records::{RecordedPosition, ReplayPosition};

/// The recorded positions worth labelling: from ply `skip_plies` of their game on, not
/// in check, each position once, and of those one in `every` (so that a game's run of
/// similar positions is thinned out).
pub fn positions_to_label<P: ReplayPosition>(
    positions: impl IntoIterator<Item = RecordedPosition<P>>,
    skip_plies: usize,
    every: usize,
) -> Vec<P> {
    let mut seen = HashSet::new();
    let every = every.max(1);
    positions
        .into_iter()
        .filter(|p| p.ply >= skip_plies && !p.position.in_check() && seen.insert(p.position.key()))
        .enumerate()
        .filter(|(i, _)| i % every == 0)
        .map(|(_, p)| p.position)
        .collect()
}

/// One line of a label file: `position`'s FEN and its score for Red.
pub fn label_line<P: ReplayPosition>(position: &P, score_for_red: i32) -> String {
    format!("{};{score_for_red}", position.fen())
}

/// What reading a label file found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LabelSummary {
    /// Lines read as positions.
    pub positions: usize,
    /// Lines that are neither a position nor blank: a FEN that does not read, or no score.
    pub skipped: usize,
}

/// The positions of a label file, each with its score as an expected result for Red on
/// a logistic of `scale` centipawns per tenfold odds. A labelled position is no game's:
/// its `game` is its line's number (so that holding out one game in ten holds out one
/// line in ten) and its `ply` is `usize::MAX` (past any opening).
pub fn read_labels<P: ReplayPosition>(text: &str, scale: f64) -> (Vec<RecordedPosition<P>>, LabelSummary) {
    let mut out = Vec::new();
    let mut summary = LabelSummary::default();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let read = line.rsplit_once(';').and_then(|(fen, score)| {
            let score: i32 = score.trim().parse().ok()?;
            Some((P::from_fen(fen)?, score))
        });
        match read {
            Some((position, score)) => {
                let result = 1.0 / (1.0 + 10f64.powf(-score as f64 / scale));
                out.push(RecordedPosition { position, ply: usize::MAX, game: number, result });
                summary.positions += 1;
            }
            None => summary.skipped += 1,
        }
    }
    (out, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::janggi::Position;
    use crate::search::tune::read_records_of;

    #[test]
    fn labelled_positions_read_back_as_expected_results() {
        let start = Position::startpos();
        let text =
            format!("{}\n\n{}\nnot a position;12\n{};x\n", label_line(&start, 0), label_line(&start, 400), start.fen());
        let (read, summary) = read_labels::<Position>(&text, 400.0);
        assert_eq!(summary, LabelSummary { positions: 2, skipped: 2 });
        assert_eq!(read[0].position.key(), start.key());
        assert!((read[0].result - 0.5).abs() < 1e-12);
        assert!((read[1].result - 10.0 / 11.0).abs() < 1e-12, "400 at a scale of 400 is ten to one");
        assert_eq!((read[0].game, read[1].game), (0, 2), "line numbers");
    }

    #[test]
    fn the_positions_to_label_leave_out_the_opening_checks_and_repeats() {
        // Ply 1: Cho's chariot checks from e5 up the e-file; the second game repeats the
        // first's positions.
        let game = "[FEN \"9/4k4/9/9/R8/9/9/9/9/3K5 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. a5e5 e8d8 2. e5e6 1-0\n\n";
        let (positions, _) = read_records_of::<Position>(&format!("{game}{game}"));
        assert!(positions[1].position.in_check());
        let keys = |list: &[Position]| list.iter().map(|p| p.key()).collect::<Vec<_>>();
        let picked = positions_to_label(positions.clone(), 0, 1);
        assert_eq!(keys(&picked), [0, 2, 3].map(|i| positions[i].position.key()));
        assert_eq!(keys(&positions_to_label(positions.clone(), 1, 1)), keys(&picked[1..]));
        assert_eq!(keys(&positions_to_label(positions, 0, 2)), [0, 2].map(|i| picked[i].key()));
    }
}
