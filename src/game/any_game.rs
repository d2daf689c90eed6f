//! A game record of either 9x10 variant, and what the front ends do with one.

use std::fmt;

use super::{RuleSet, Variant};
use crate::notation::{self, Notation, NotationError, fen};
use crate::rules::board::{self, Bitboard, Board};
use crate::rules::illegal::IllegalReason;
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move, MoveList, Piece};
use crate::rules::xiangqi::Game;
use crate::rules::xiangqi::adjudicate::Warning;
use crate::rules::xiangqi::handicap::NamedStart;
use crate::rules::{Status, janggi, xiangqi};

/// A game of either 9x10 variant: its start, its moves and its current position.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// A Xiangqi game, with its handicap rules if it has any.
    Xiangqi(Game),
    /// A Janggi game.
    Janggi(janggi::Game),
}

/// Calls the same code on the game of either variant.
macro_rules! each {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            AnyGame::Xiangqi($g) => $body,
            AnyGame::Janggi($g) => $body,
        }
    };
}

/// A move of a list that could not be played: its index, its text and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayError {
    /// The move's index in the list, from 0.
    pub index: usize,
    /// The move as it was written.
    pub text: String,
    /// `None`: the text is not a move in the notation; otherwise the rule it breaks.
    pub reason: Option<IllegalReason>,
    /// The reason in words, in the variant's terms.
    pub detail: String,
}

impl fmt::Display for PlayError {
    /// `move 2 (a0a5) is illegal: ...`, counting moves from 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            None => write!(f, "move {} ({:?}) is not an ICCS move", self.index + 1, self.text),
            Some(_) => write!(f, "move {} ({}) is illegal: {}", self.index + 1, self.text, self.detail),
        }
    }
}

impl std::error::Error for PlayError {}

/// What the API says of one legal move: the pieces it moves and takes, and whether it
/// checks.
#[derive(Clone, Copy, Debug)]
pub struct MoveFacts {
    /// The move.
    pub m: Move,
    /// The piece that moves (`None` for a pass).
    pub mover: Option<Piece>,
    /// The piece it takes.
    pub captured: Option<Piece>,
    /// Does it give check?
    pub gives_check: bool,
}

impl AnyGame {
    /// The game from a FEN (`startpos`: the variant's usual start), no moves played.
    /// Three Kingdoms has no FEN: its positions are [`crate::rules::three_kingdoms`]'s.
    pub fn from_fen(variant: Variant, text: &str) -> Result<AnyGame, String> {
        match variant {
            Variant::Xiangqi => Ok(AnyGame::Xiangqi(Game::new(fen::xiangqi(text).map_err(|e| e.to_string())?))),
            Variant::Janggi => Ok(AnyGame::Janggi(janggi::Game::new(fen::janggi(text).map_err(|e| e.to_string())?))),
            Variant::ThreeKingdoms => Err("a Three Kingdoms position is a position text, not a FEN".into()),
        }
    }

    /// A Xiangqi game from a handicap start, with its rules.
    pub fn from_named_start(start: NamedStart) -> AnyGame {
        AnyGame::Xiangqi(Game::with_handicap(start.position(), start.handicap()))
    }

    /// The usual start of `variant` (Xiangqi or Janggi; Three Kingdoms is not a 9x10
    /// game and gets Xiangqi's).
    pub fn startpos(variant: Variant) -> AnyGame {
        match variant {
            Variant::Janggi => AnyGame::Janggi(janggi::Game::new(janggi::Position::startpos())),
            _ => AnyGame::Xiangqi(Game::new(xiangqi::Position::startpos())),
        }
    }

    /// Plays moves written in ICCS, each checked; the first that does not read or is
    /// illegal stops the game where it stands and is returned.
    pub fn play_iccs<'t>(&mut self, moves: impl IntoIterator<Item = &'t str>) -> Result<(), PlayError> {
        for (index, text) in moves.into_iter().enumerate() {
            let error = |reason, detail: String| PlayError { index, text: text.to_string(), reason, detail };
            let m = Move::parse_iccs(text).ok_or_else(|| error(None, "not an ICCS move".into()))?;
            if let Some(reason) = self.explain_illegal(m) {
                return Err(error(Some(reason), self.describe_reason(reason).into()));
            }
            self.play_unchecked(m);
        }
        Ok(())
    }

    /// The game's variant.
    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Xiangqi(_) => Variant::Xiangqi,
            AnyGame::Janggi(_) => Variant::Janggi,
        }
    }

    /// `None` when `m` is legal as the next move, otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        each!(self, g => g.explain_illegal(m))
    }

    /// The reason in words, in the variant's terms.
    pub fn describe_reason(&self, r: IllegalReason) -> &'static str {
        match (self, r) {
            (AnyGame::Janggi(_), IllegalReason::GameOver) => "the game is over: two passes in a row ended it",
            (AnyGame::Janggi(_), IllegalReason::PassNotAllowed) => "a side in check may not pass",
            _ => r.describe(),
        }
    }

    /// Plays `m`, which must be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        each!(self, g => { g.play_unchecked(m); })
    }

    /// The game after the legal move `m`.
    pub fn after(&self, m: Move) -> AnyGame {
        let mut next = self.clone();
        next.play_unchecked(m);
        next
    }

    /// The legal moves of the current position, under the game's rules (a handicap's
    /// included).
    pub fn legal_moves(&self, list: &mut MoveList) {
        each!(self, g => g.legal_moves(list))
    }

    /// How many moves were played.
    pub fn plies(&self) -> usize {
        each!(self, g => g.plies().len())
    }

    /// The moves played, in order.
    pub fn moves(&self) -> Vec<Move> {
        each!(self, g => g.plies().iter().map(|p| p.mv).collect())
    }

    /// The board of the current position.
    pub fn board(&self) -> &Board {
        each!(self, g => g.position().board())
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        each!(self, g => g.position().turn())
    }

    /// Is the side to move in check?
    pub fn in_check(&self) -> bool {
        each!(self, g => g.position().in_check())
    }

    /// The pieces giving check.
    pub fn checkers(&self) -> Bitboard {
        each!(self, g => g.position().checkers())
    }

    /// Do the generals face each other (Janggi's bikjang)?
    pub fn bikjang(&self) -> bool {
        matches!(self, AnyGame::Janggi(g) if g.position().bikjang())
    }

    /// Does the side to move have a capture?
    pub fn has_captures(&self) -> bool {
        let mut list = MoveList::new();
        each!(self, g => g.position().legal_captures(&mut list));
        !list.is_empty()
    }

    /// FEN of the current position.
    pub fn fen(&self) -> String {
        each!(self, g => fen::format(&g.position().to_setup()))
    }

    /// The status of the current position on its own.
    pub fn status(&self) -> Status {
        each!(self, g => g.position().status())
    }

    /// [`AnyGame::status`] when it is known whether a legal move exists.
    pub fn status_given(&self, has_legal_move: bool) -> Status {
        each!(self, g => g.position().status_given(has_legal_move))
    }

    /// The facts of each of the legal `moves`, in order (one scratch copy of the
    /// position for all the check tests).
    pub fn move_facts(&self, moves: &[Move], mut each: impl FnMut(MoveFacts)) {
        each!(self, g => {
            let pos = g.position();
            let mut scratch = pos.clone();
            let zone = pos.check_zone();
            for &m in moves {
                let gives_check = board::touches(m, zone) && {
                    let undo = scratch.play_unchecked(m);
                    let in_check = scratch.in_check();
                    scratch.undo(m, undo);
                    in_check
                };
                let (mover, captured) =
                    if m.is_pass() { (None, None) } else { (pos.board().piece_at(m.from()), pos.board().piece_at(m.to())) };
                each(MoveFacts { m, mover, captured, gives_check });
            }
        })
    }

    /// Does `n` write moves of this game's variant? Every notation writes Xiangqi;
    /// Janggi, with its diagonal palace moves, only those that name points.
    pub fn writes_in(&self, n: Notation) -> bool {
        self.variant() != Variant::Janggi || n.applies_to_janggi()
    }

    /// Reads a move written in `n` in the current position, telling a text that does
    /// not read from one that names no legal move.
    pub fn resolve_move(&self, text: &str, n: Notation) -> Result<Move, NotationError> {
        each!(self, g => notation::resolve_move(g.position(), text, n))
    }

    /// Reads a legal move of the current position written in `n`.
    pub fn parse_move(&self, text: &str, n: Notation) -> Result<Move, NotationError> {
        each!(self, g => notation::parse_move(g.position(), text, n))
    }

    /// Writes a legal move of the current position in `n`.
    pub fn format_move(&self, m: Move, n: Notation) -> String {
        each!(self, g => notation::format_move(g.position(), m, n))
    }

    /// What the legal move `m` would make of a repetition under `rules` (a rule set of
    /// another variant warns of nothing).
    pub fn warning(&self, m: Move, rules: RuleSet) -> Option<Warning> {
        match (self, rules) {
            (AnyGame::Xiangqi(g), RuleSet::Xiangqi(r)) => xiangqi::adjudicate::move_warning(g, m, r),
            (AnyGame::Janggi(g), RuleSet::Janggi(r)) => {
                let mover = g.position().turn();
                let ruling = janggi::adjudicate::judge_position(&self.after(m).into_janggi()?, r)?;
                ruling.cycle?;
                match ruling.result {
                    GameResult::Draw => Some(Warning::RepetitionDraw),
                    GameResult::Win(w) if w != mover => Some(Warning::ForbiddenCycle),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn into_janggi(self) -> Option<janggi::Game> {
        match self {
            AnyGame::Janggi(g) => Some(g),
            AnyGame::Xiangqi(_) => None,
        }
    }
}
