//! A game record of either 9x10 variant under its rule set, and what the front ends do
//! with one.

use crate::search::nnue::NetVariant;
use std::fmt;

use super::{RuleSet, Variant, WrongVariant};
use crate::notation::{self, Notation, NotationError, fen};
use crate::rules::board::{Bitboard, Board};
use crate::rules::illegal::IllegalReason;
use crate::rules::outcome::{AdjudicationError, Event, GameResult, Ruling};
use crate::rules::types::{Color, Move, MoveList, Piece};
use crate::rules::xiangqi::Game;
use crate::rules::xiangqi::adjudicate::Warning;
use crate::rules::xiangqi::handicap::NamedStart;
use crate::rules::{Status, janggi, xiangqi};

/// A game of either 9x10 variant: its start, its moves and its current position, and
/// the rule set named for it (`None`: none was named; see [`BoardGame::rules`]). Each
/// arm holds its own variant's rule set type, so a game cannot be paired with another
/// variant's rules.
#[derive(Clone, Debug)]
pub enum BoardGame {
    /// A Xiangqi game, with its handicap rules if it has any.
    Xiangqi(Game, Option<xiangqi::adjudicate::RuleSet>),
    /// A Janggi game.
    Janggi(janggi::Game, Option<janggi::adjudicate::RuleSet>),
}

/// Calls the same code on the game of either variant.
macro_rules! each {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            BoardGame::Xiangqi($g, _) => $body,
            BoardGame::Janggi($g, _) => $body,
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

impl BoardGame {
    /// The variant of the nets that evaluate it.
    pub fn net_variant(&self) -> NetVariant {
        match self {
            BoardGame::Xiangqi(..) => NetVariant::Xiangqi,
            BoardGame::Janggi(..) => NetVariant::Janggi,
        }
    }

    /// The game from a FEN (`startpos`: the variant's usual start), no moves played.
    /// Three Kingdoms has no FEN: its positions are [`crate::rules::three_kingdoms`]'s.
    pub fn from_fen(variant: Variant, text: &str) -> Result<BoardGame, String> {
        match variant {
            Variant::Xiangqi => Ok(BoardGame::Xiangqi(Game::new(fen::xiangqi(text).map_err(|e| e.to_string())?), None)),
            Variant::Janggi => {
                Ok(BoardGame::Janggi(janggi::Game::new(fen::janggi(text).map_err(|e| e.to_string())?), None))
            }
            Variant::ThreeKingdoms => Err("a Three Kingdoms position is a position text, not a FEN".into()),
        }
    }

    /// A Xiangqi game from a handicap start, with its rules.
    pub fn from_named_start(start: NamedStart) -> BoardGame {
        BoardGame::Xiangqi(Game::with_handicap(start.position(), start.handicap()), None)
    }

    /// The usual start of `variant` (Xiangqi or Janggi; Three Kingdoms is not a 9x10
    /// game and gets Xiangqi's).
    pub fn startpos(variant: Variant) -> BoardGame {
        match variant {
            Variant::Janggi => BoardGame::Janggi(janggi::Game::new(janggi::Position::startpos()), None),
            _ => BoardGame::Xiangqi(Game::new(xiangqi::Position::startpos()), None),
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
            BoardGame::Xiangqi(..) => Variant::Xiangqi,
            BoardGame::Janggi(..) => Variant::Janggi,
        }
    }

    /// The game under `rules` (`None`: no rule set named), or the error that names the
    /// rule set and the game's variant when the rule set is another variant's.
    pub fn with_rules(self, rules: Option<RuleSet>) -> Result<BoardGame, WrongVariant> {
        let variant = self.variant();
        let wrong = |rules| WrongVariant { rules, variant };
        Ok(match (self, rules) {
            (BoardGame::Xiangqi(g, _), None) => BoardGame::Xiangqi(g, None),
            (BoardGame::Janggi(g, _), None) => BoardGame::Janggi(g, None),
            (BoardGame::Xiangqi(g, _), Some(RuleSet::Xiangqi(r))) => BoardGame::Xiangqi(g, Some(r)),
            (BoardGame::Janggi(g, _), Some(RuleSet::Janggi(r))) => BoardGame::Janggi(g, Some(r)),
            (_, Some(other)) => return Err(wrong(other)),
        })
    }

    /// The game at its start, under the same rules (a handicap's and the rule set).
    pub fn at_start(&self) -> BoardGame {
        match self {
            BoardGame::Xiangqi(g, r) => {
                BoardGame::Xiangqi(Game::with_handicap(g.start().clone(), g.handicap().clone()), *r)
            }
            BoardGame::Janggi(g, r) => BoardGame::Janggi(janggi::Game::new(g.start().clone()), *r),
        }
    }

    /// The rule set named for the game, if one was: a move is warned of a repetition
    /// only under a named rule set, and a search without one follows the variant's
    /// own judgement of cycles.
    pub fn rules(&self) -> Option<RuleSet> {
        match self {
            BoardGame::Xiangqi(_, r) => r.map(RuleSet::Xiangqi),
            BoardGame::Janggi(_, r) => r.map(RuleSet::Janggi),
        }
    }

    /// The game under the rule set named for it, or the variant's default when none
    /// was named.
    pub fn with_default_rules(self) -> BoardGame {
        match self {
            BoardGame::Xiangqi(g, r) => BoardGame::Xiangqi(g, Some(r.unwrap_or_default())),
            BoardGame::Janggi(g, r) => BoardGame::Janggi(g, Some(r.unwrap_or_default())),
        }
    }

    /// The rule set the game is judged by: the one named, or the variant's default.
    pub fn rules_or_default(&self) -> RuleSet {
        self.rules().unwrap_or_else(|| RuleSet::default_for(self.variant()))
    }

    /// Judges the record of the game's start and `moves` (checked one by one) with
    /// `events`, under [`BoardGame::rules_or_default`]; the moves played so far are not
    /// part of it.
    pub fn adjudicate(&self, moves: &[Move], events: &[Event]) -> Result<Ruling, AdjudicationError> {
        match self {
            BoardGame::Xiangqi(g, r) => xiangqi::adjudicate::adjudicate_with_handicap(
                g.start(),
                g.handicap(),
                moves,
                r.unwrap_or_default(),
                events,
            ),
            BoardGame::Janggi(g, r) => janggi::adjudicate::adjudicate(g.start(), moves, r.unwrap_or_default(), events),
        }
    }

    /// `None` when `m` is legal as the next move, otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        each!(self, g => g.explain_illegal(m))
    }

    /// The reason in words, in the variant's terms.
    pub fn describe_reason(&self, r: IllegalReason) -> &'static str {
        match (self, r) {
            (BoardGame::Janggi(..), IllegalReason::GameOver) => "the game is over: two passes in a row ended it",
            (BoardGame::Janggi(..), IllegalReason::PassNotAllowed) => "a side in check may not pass",
            _ => r.describe(),
        }
    }

    /// Plays `m`, which must be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        each!(self, g => { g.play_unchecked(m); })
    }

    /// The game after the legal move `m`.
    pub fn after(&self, m: Move) -> BoardGame {
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
        matches!(self, BoardGame::Janggi(g, _) if g.position().bikjang())
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

    /// [`BoardGame::status`] when it is known whether a legal move exists.
    pub fn status_given(&self, has_legal_move: bool) -> Status {
        each!(self, g => g.position().status_given(has_legal_move))
    }

    /// The facts of each of the legal `moves`, in order (one scratch copy of the
    /// position for all the check tests).
    pub fn move_facts(&self, moves: &[Move], mut each: impl FnMut(MoveFacts)) {
        each!(self, g => {
            let pos = g.position();
            let mut scratch = pos.clone();
            let candidates = pos.check_candidates();
            for &m in moves {
                let gives_check = candidates.may_check(pos.board(), m) && {
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

    /// What the legal move `m` would make of a repetition under the game's named rule
    /// set (none named: no warning).
    pub fn warning(&self, m: Move) -> Option<Warning> {
        match self {
            BoardGame::Xiangqi(g, Some(r)) => xiangqi::adjudicate::move_warning(g, m, *r),
            BoardGame::Janggi(g, Some(r)) => {
                let mover = g.position().turn();
                let mut after = g.clone();
                after.play_unchecked(m);
                let ruling = janggi::adjudicate::judge_position(&after, *r)?;
                ruling.cycle?;
                match ruling.result {
                    GameResult::Draw => Some(Warning::RepetitionDraw),
                    GameResult::Win(w) if w != mover => Some(Warning::ForbiddenCycle),
                    _ => None,
                }
            }
            BoardGame::Xiangqi(_, None) | BoardGame::Janggi(_, None) => None,
        }
    }
}
