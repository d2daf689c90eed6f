//! What the search needs of a variant: [`Searchable`] (a position) and [`SearchGame`]
//! (the history it starts from), and their implementations for the 9x10 variants.

use super::nnue::{Change, NetVariant};
use super::{eval, janggi_eval, see};
use crate::rules::game::{Game, RecordedPosition};
use crate::rules::repetition::CyclePly;
#[cfg(doc)]
use crate::rules::types::PieceKind;
use crate::rules::types::{Color, Move, Piece};
use crate::rules::{BoardPosition, janggi, xiangqi};

/// What the search needs of a variant's position beyond the rules
/// ([`BoardPosition`]): its evaluation, the rule set it is judged under, and the
/// search's names for making and taking back a move.
pub trait Searchable: BoardPosition<Undo: Copy + Send + Sync> + Send + Sync {
    /// The incrementally kept part of the evaluation.
    type Material: Copy + Send;
    /// The rule set whose repetition and ending rules the search follows.
    type Rules: Copy + Send + Sync + Default;
    /// Mixed into every key so that variants never share table entries.
    const SALT: u64;
    /// The exchange value of each piece kind, by [`PieceKind::index`]: what taking it
    /// may gain at most (quiescence's delta pruning).
    const EXCHANGE_VALUES: [i32; 7] = see::SEE_VALUE;
    /// The search's centipawn margins (futility, reverse futility, exchange and delta
    /// pruning, the null move's step per evaluation) in percent of the values sized
    /// for Xiangqi's material.
    const MARGIN_PERCENT: i32 = 100;
    /// The variant of the nets that evaluate it.
    const NET_VARIANT: NetVariant;

    /// The side that loses a repetition cycle under `rules`, if one does: `plies` were
    /// played from `self`, which stands at both ends of the cycle.
    fn cycle_loser(&self, rules: Self::Rules, plies: &[CyclePly]) -> Option<Color>;

    /// A margin of the search sized for Xiangqi's material, scaled to this variant's
    /// ([`Searchable::MARGIN_PERCENT`]).
    #[inline(always)]
    fn margin(cp: i32) -> i32 {
        cp * Self::MARGIN_PERCENT / 100
    }
    /// May the search try a null move here?
    #[inline(always)]
    fn null_move_allowed(&self) -> bool {
        true
    }
    /// May a pass here end the game (so that the search must not prune it)?
    #[inline(always)]
    fn pass_may_end_game(&self) -> bool {
        true
    }
    /// The piece `m` (legal) takes, if any.
    #[inline(always)]
    fn captured(&self, m: Move) -> Option<Piece> {
        if Self::PASSES && m.is_pass() { None } else { self.board().piece_at(m.to()) }
    }
    /// Is the game over with no loser on the board (Janggi's two passes)?
    #[inline(always)]
    fn is_ended(&self) -> bool {
        false
    }
    /// Who wins a game that [`Searchable::is_ended`] under `rules` (counting, in
    /// Janggi's tournament rules); `None` is a draw.
    #[inline(always)]
    fn ended_winner(&self, _rules: Self::Rules) -> Option<Color> {
        None
    }
    /// What `m` (legal, not yet played) changes for a net's inputs.
    #[inline(always)]
    fn net_change(&self, m: Move) -> Change {
        if Self::PASSES && m.is_pass() {
            return Change::NONE;
        }
        match self.board().piece_at(m.from()) {
            Some(piece) => Change::of_move(piece, m.from(), m.to(), self.captured(m)),
            None => Change::NONE,
        }
    }
    /// The incrementally kept part of the evaluation, computed from scratch.
    fn material(&self) -> Self::Material;
    /// The material after `m`, computed before playing it.
    fn material_after(&self, material: Self::Material, m: Move) -> Self::Material;
    /// The evaluation from the side to move's view, given the current material.
    fn evaluate(&self, material: Self::Material) -> i32;
    /// Does `m` (legal) lose less than `threshold` by the exchange on its target
    /// point? Without a static exchange evaluation every move passes.
    #[inline(always)]
    fn see_ge(&self, _m: Move, _threshold: i32) -> bool {
        true
    }
}

/// A game the search can start from: its position, its history and its rules.
pub trait SearchGame: Sync {
    /// The position type searched.
    type Position: Searchable;
    /// The position the search starts from.
    fn position(&self) -> &Self::Position;
    /// The keys of the positions since the last capture, oldest first, ending with the
    /// current one, each with the ply that led to it (the first one's is not used).
    fn history(&self) -> Vec<(u64, CyclePly)>;
    /// The rule set the game is played under; the variant's default unless a
    /// [`UnderRules`] says otherwise.
    fn rules(&self) -> <Self::Position as Searchable>::Rules {
        Default::default()
    }
}

/// A game searched under a rule set of the caller's choice.
pub struct UnderRules<'g, G: SearchGame> {
    /// The game searched.
    pub game: &'g G,
    /// The rule set it is searched under.
    pub rules: <G::Position as Searchable>::Rules,
}

impl<G: SearchGame> SearchGame for UnderRules<'_, G> {
    type Position = G::Position;
    fn position(&self) -> &G::Position {
        self.game.position()
    }
    fn history(&self) -> Vec<(u64, CyclePly)> {
        self.game.history()
    }
    fn rules(&self) -> <G::Position as Searchable>::Rules {
        self.rules
    }
}

/// [`SearchGame::history`] of a record from its last capture: the keys of the positions
/// from there on, and the plies after the first of them (the first position's own ply
/// is never judged: a capture, or the start, ends every cycle).
fn history_since(keys: impl Iterator<Item = u64>, plies: impl Iterator<Item = CyclePly>) -> Vec<(u64, CyclePly)> {
    let first = CyclePly::new(Move::PASS, false);
    keys.zip(std::iter::once(first).chain(plies)).collect()
}

/// A 9x10 game record: its current position, and its history since the last capture.
impl<P: Searchable + RecordedPosition> SearchGame for Game<P> {
    type Position = P;
    fn position(&self) -> &P {
        Game::position(self)
    }
    fn history(&self) -> Vec<(u64, CyclePly)> {
        let h = self.capture_horizon();
        let keys = (h..=self.plies().len()).map(|i| self.key_before(i));
        history_since(keys, self.plies()[h..].iter().map(|p| p.cycle()))
    }
}

impl Searchable for xiangqi::Position {
    type Material = eval::Material;
    type Rules = xiangqi::adjudicate::RuleSet;
    const SALT: u64 = 0x5849_414E_4751_4931;
    const NET_VARIANT: NetVariant = NetVariant::Xiangqi;

    fn cycle_loser(&self, rules: Self::Rules, plies: &[CyclePly]) -> Option<Color> {
        xiangqi::adjudicate::judge_cycle(|| self.clone(), self.turn(), plies, 0, rules).loser()
    }

    #[inline(always)]
    fn material(&self) -> eval::Material {
        eval::material(self)
    }
    #[inline(always)]
    fn material_after(&self, material: eval::Material, m: Move) -> eval::Material {
        eval::material_after(material, self, m.from(), m.to())
    }
    #[inline(always)]
    fn evaluate(&self, material: eval::Material) -> i32 {
        eval::evaluate_with(self, material)
    }
    #[inline]
    fn see_ge(&self, m: Move, threshold: i32) -> bool {
        see::see_ge(xiangqi::Position::board(self), m, threshold)
    }
}

impl Searchable for janggi::Position {
    type Material = janggi_eval::Material;
    type Rules = janggi::adjudicate::RuleSet;
    const SALT: u64 = 0x4A41_4E47_4749_3031;
    const NET_VARIANT: NetVariant = NetVariant::Janggi;
    const EXCHANGE_VALUES: [i32; 7] = see::JANGGI_SEE_VALUE;
    /// Janggi's material is worth about 1.4 times Xiangqi's (a chariot 1300 against 915).
    const MARGIN_PERCENT: i32 = 140;

    fn cycle_loser(&self, rules: Self::Rules, plies: &[CyclePly]) -> Option<Color> {
        janggi::adjudicate::cycle_loser(self.turn(), plies, rules)
    }

    /// Not after a pass: a null move there would stand for a second pass, which ends
    /// the game.
    #[inline(always)]
    fn null_move_allowed(&self) -> bool {
        self.consecutive_passes() == 0
    }
    #[inline(always)]
    fn is_ended(&self) -> bool {
        self.consecutive_passes() >= 2
    }
    /// Only the pass that answers a pass ends the game; any other is a quiet move.
    #[inline(always)]
    fn pass_may_end_game(&self) -> bool {
        self.consecutive_passes() > 0
    }
    /// Two passes draw under the casual rules and go to counting under the tournament
    /// rules (the half point for Han rules out a tie).
    fn ended_winner(&self, rules: Self::Rules) -> Option<Color> {
        match rules {
            janggi::adjudicate::RuleSet::CasualV1 => None,
            janggi::adjudicate::RuleSet::TournamentV1 => {
                let [red, black] = janggi::adjudicate::count_points(self);
                Some(if red > black { Color::Red } else { Color::Black })
            }
        }
    }
    #[inline(always)]
    fn material(&self) -> janggi_eval::Material {
        janggi_eval::material(self)
    }
    #[inline(always)]
    fn material_after(&self, material: janggi_eval::Material, m: Move) -> janggi_eval::Material {
        janggi_eval::material_after(material, self, m)
    }
    #[inline(always)]
    fn evaluate(&self, material: janggi_eval::Material) -> i32 {
        janggi_eval::evaluate_with(self, material)
    }
    #[inline]
    fn see_ge(&self, m: Move, threshold: i32) -> bool {
        see::janggi_see_ge(janggi::Position::board(self), m, threshold)
    }
}
