//! A game's judged plies by side: the positions a player's figures count, and the
//! ones left out with their reason.

use crate::rules::types::Color;

use super::choice::Choice;
use super::games::ScreenedGame;
use super::judge::{PlyEvidence, centipawns, move_accuracy};

/// Plies left out of the figures, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Excluded {
    /// Within the opening book (not searched).
    pub book: usize,
    /// One legal move, or only one not shown lost.
    pub forced: usize,
    /// The game was decided (the best score beyond the decided threshold, or a mate).
    pub decided: usize,
}

impl Excluded {
    /// Adds another count.
    pub fn add(&mut self, o: Excluded) {
        self.book += o.book;
        self.forced += o.forced;
        self.decided += o.decided;
    }
}

/// One counted position of a side.
#[derive(Clone, Debug)]
pub struct Counted<'g> {
    /// What the model sees.
    pub choice: Choice,
    /// What the searches found.
    pub evidence: &'g PlyEvidence,
}

impl Counted<'_> {
    /// The accuracy of the played move (0 to 100).
    pub fn accuracy(&self) -> f64 {
        move_accuracy(self.evidence.wp_loss())
    }
}

/// One side of one game: its player, rating, counted positions and exclusions.
#[derive(Clone, Debug)]
pub struct Side<'g> {
    /// The game's index among the screened games.
    pub game: usize,
    /// The game.
    pub screened: &'g ScreenedGame,
    /// The colour.
    pub color: Color,
    /// The counted positions, in game order.
    pub counted: Vec<Counted<'g>>,
    /// What was left out.
    pub excluded: Excluded,
}

impl Side<'_> {
    /// The player's name.
    pub fn player(&self) -> &str {
        &self.screened.players[color_index(self.color)]
    }

    /// The player's rating in this game, if stated.
    pub fn rating(&self) -> Option<f64> {
        self.screened.ratings[color_index(self.color)]
    }
}

/// Red 0, Black 1.
pub fn color_index(c: Color) -> usize {
    match c {
        Color::Red => 0,
        Color::Black => 1,
    }
}

/// The choice a judged ply offers the model, or `None` when it is left out (forced,
/// decided, or without lines).
pub fn choice_of(e: &PlyEvidence) -> Option<Choice> {
    if e.forced() || e.decided() {
        return None;
    }
    let values: Vec<i32> = e.lines.iter().map(|l| centipawns(l.score)).collect();
    Choice::new(&values, e.legal_moves, e.played_rank)
}

/// The two sides of a judged game (both, whichever were judged), counting `book_plies`
/// plies of the book.
pub fn sides_of(index: usize, game: &ScreenedGame, book_plies: usize) -> Vec<Side<'_>> {
    let first = game.start.turn();
    [Color::Red, Color::Black]
        .into_iter()
        .map(|color| {
            let mover_of = |i: usize| if i.is_multiple_of(2) { first } else { first.other() };
            let book = (0..book_plies.min(game.moves.len())).filter(|&i| mover_of(i) == color).count();
            let mut side = Side {
                game: index,
                screened: game,
                color,
                counted: Vec::new(),
                excluded: Excluded { book, ..Excluded::default() },
            };
            for e in game.evidence.iter().flatten().filter(|e| e.mover == color) {
                match choice_of(e) {
                    Some(choice) => side.counted.push(Counted { choice, evidence: e }),
                    None if e.forced() || e.lines.is_empty() => side.excluded.forced += 1,
                    None => side.excluded.decided += 1,
                }
            }
            side
        })
        .collect()
}
