//! Game records as `chuhe match --pgn` writes them: tag lines (`[Result "1-0"]`,
//! `[FEN "..."]`), then the moves in ICCS with move numbers, ending in the result.

use crate::rules::position::BoardPosition;
use crate::rules::setup::Setup;
use crate::rules::types::Move;
use crate::rules::xiangqi::Position;

/// A position a record can be replayed on: Xiangqi's, or Janggi's (whose records may
/// hold passes).
pub trait ReplayPosition: BoardPosition {
    /// The usual start.
    fn start() -> Self;
    /// A position from a FEN tag.
    fn from_fen(fen: &str) -> Option<Self>;
    /// Whether `m` is legal here.
    fn legal(&self, m: Move) -> bool;
    /// Plays a legal move.
    fn play(&mut self, m: Move);
    /// The pieces and the side to move as FEN (the move counters at 0 and 1).
    fn fen(&self) -> String {
        let setup = Setup { board: self.board().clone(), turn: self.turn(), halfmove_clock: 0, fullmove_number: 1 };
        crate::notation::fen::format(&setup)
    }
}

impl ReplayPosition for Position {
    fn start() -> Self {
        Position::startpos()
    }
    fn from_fen(fen: &str) -> Option<Self> {
        crate::notation::fen::xiangqi(fen).ok()
    }
    fn legal(&self, m: Move) -> bool {
        m != Move::PASS && self.is_legal(m)
    }
    fn play(&mut self, m: Move) {
        self.play_unchecked(m);
    }
}

impl ReplayPosition for crate::rules::janggi::Position {
    fn start() -> Self {
        Self::startpos()
    }
    fn from_fen(fen: &str) -> Option<Self> {
        crate::notation::fen::janggi(fen).ok()
    }
    fn legal(&self, m: Move) -> bool {
        self.is_legal(m)
    }
    fn play(&mut self, m: Move) {
        self.play_unchecked(m);
    }
}

/// One position of a recorded game and how the game ended for Red (Cho).
#[derive(Clone, Debug)]
pub struct RecordedPosition<P = Position> {
    /// The position, with its side to move.
    pub position: P,
    /// Plies played since the record's start position.
    pub ply: usize,
    /// The game's number in its text, from 0.
    pub game: usize,
    /// The game's result for Red: 1 a win, 0.5 a draw, 0 a loss.
    pub result: f64,
}

/// What reading the records found besides the positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSummary {
    /// Games read whole.
    pub games: usize,
    /// Games left out: no result, a start position that does not read, or a move that
    /// is not legal (the positions before it are kept).
    pub skipped: usize,
}

/// Every position of every game in `text` (the final one included), with its game's
/// result.
pub fn read_records(text: &str) -> (Vec<RecordedPosition>, ReadSummary) {
    read_records_of(text)
}

/// [`read_records`] of games of any variant (Janggi records from `chuhe match --janggi`).
pub fn read_records_of<P: ReplayPosition>(text: &str) -> (Vec<RecordedPosition<P>>, ReadSummary) {
    let mut out = Vec::new();
    let mut summary = ReadSummary::default();
    let mut game = GameText::default();
    let mut number = 0;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            if game.in_moves {
                game.finish(number, &mut out, &mut summary);
                game = GameText::default();
                number += 1;
            }
            game.tag(line);
        } else if !line.is_empty() {
            game.in_moves = true;
            game.moves.push_str(line);
            game.moves.push(' ');
        }
    }
    if game.in_moves || game.result.is_some() {
        game.finish(number, &mut out, &mut summary);
    }
    (out, summary)
}

/// The text of one game as it is read.
#[derive(Default)]
struct GameText {
    fen: Option<String>,
    result: Option<f64>,
    moves: String,
    in_moves: bool,
}

impl GameText {
    fn tag(&mut self, line: &str) {
        let inner = line.trim_start_matches('[').trim_end_matches(']');
        let Some((name, value)) = inner.split_once(' ') else { return };
        let value = value.trim().trim_matches('"');
        match name {
            "FEN" => self.fen = Some(value.to_string()),
            "Result" => self.result = result_for_red(value),
            _ => {}
        }
    }

    fn finish<P: ReplayPosition>(self, number: usize, out: &mut Vec<RecordedPosition<P>>, summary: &mut ReadSummary) {
        let start = match &self.fen {
            Some(fen) => P::from_fen(fen),
            None => Some(P::start()),
        };
        let (Some(result), Some(mut position)) = (self.result, start) else {
            summary.skipped += 1;
            return;
        };
        let mut ply = 0;
        for token in self.moves.split_whitespace() {
            if token.ends_with('.') || result_for_red(token).is_some() || token == "*" {
                continue;
            }
            out.push(RecordedPosition { position: position.clone(), ply, game: number, result });
            match Move::parse_iccs(token).filter(|&m| position.legal(m)) {
                Some(m) => {
                    position.play(m);
                    ply += 1;
                }
                None => {
                    summary.skipped += 1;
                    return;
                }
            }
        }
        out.push(RecordedPosition { position, ply, game: number, result });
        summary.games += 1;
    }
}

/// `1-0`, `1/2-1/2`, `0-1` as Red's points.
fn result_for_red(text: &str) -> Option<f64> {
    match text {
        "1-0" => Some(1.0),
        "1/2-1/2" => Some(0.5),
        "0-1" => Some(0.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_GAMES: &str = "[Event \"chuhe match\"]\n[Result \"0-1\"]\n\
        [FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\"]\n\n\
        1. h2e2 h9g7 2. h0g2 0-1\n\n\
        [Event \"chuhe match\"]\n[Result \"1/2-1/2\"]\n\n1. c3c4 1/2-1/2\n";

    #[test]
    fn reads_each_position_with_its_result_for_red() {
        let (positions, summary) = read_records(TWO_GAMES);
        assert_eq!(summary, ReadSummary { games: 2, skipped: 0 });
        // Three moves give four positions, one move two.
        assert_eq!(positions.len(), 6);
        assert_eq!(positions.iter().map(|p| p.ply).collect::<Vec<_>>(), [0, 1, 2, 3, 0, 1]);
        assert_eq!(positions.iter().map(|p| p.game).collect::<Vec<_>>(), [0, 0, 0, 0, 1, 1]);
        assert!(positions[..4].iter().all(|p| p.result == 0.0));
        assert!(positions[4..].iter().all(|p| p.result == 0.5));
        let after =
            crate::notation::fen::xiangqi("rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2")
                .unwrap();
        assert_eq!(positions[3].position.key(), after.key());
    }

    #[test]
    fn an_illegal_move_or_a_missing_result_leaves_the_game_out() {
        let text = "[Result \"1-0\"]\n\n1. h2e2 h2e2 1-0\n\n[Event \"x\"]\n\n1. h2e2\n";
        let (positions, summary) = read_records(text);
        assert_eq!(summary, ReadSummary { games: 0, skipped: 2 });
        assert_eq!(positions.len(), 2, "the positions before the illegal move are kept");
    }
}
