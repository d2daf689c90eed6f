//! Results of two-player games and the rulings that explain them, and why a record of
//! any variant cannot be judged ([`AdjudicationError`]).

pub use super::game::AdjudicationError;
use super::game::{Game, RecordedPosition};
use super::types::{Color, Move, PieceKind, Square};

/// The result of a game as it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The game goes on.
    Ongoing,
    /// This side won.
    Win(Color),
    /// A draw.
    Draw,
}

/// What ended the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// In check with no legal move; the side to move loses.
    Checkmate,
    /// No legal move without being in check; the side to move loses.
    Stalemate,
    /// The same position for the third time while one side checked on every move of
    /// the cycle: that side loses.
    PerpetualCheck,
    /// The same position for the third time with both sides checking throughout.
    MutualPerpetualCheck,
    /// The same position for the third time while one side chased (Asian rules) or
    /// attacked (tournament rules) one and the same enemy piece on every move of the
    /// cycle, and the other side did nothing as grave: the chasing side loses.
    PerpetualChase,
    /// The same position for the third time with both sides chasing throughout.
    MutualPerpetualChase,
    /// The same position for the third time, no side at fault.
    RepetitionDraw,
    /// Too many moves without a capture.
    MoveLimit,
    /// No chariot, horse, cannon or pawn left on either side.
    InsufficientMaterial,
    /// A side resigned.
    Resignation,
    /// A side ran out of time.
    Timeout,
    /// Both sides agreed to a draw.
    AgreedDraw,
    /// Janggi: the generals faced each other (bikjang) and the side to move claimed the
    /// end of the game.
    Bikjang,
    /// Janggi: the game went to counting (the move limit of a tournament rule set).
    Counting,
    /// Janggi: two passes in a row.
    DoublePass,
}

impl Termination {
    /// The termination in words, as rulings and messages write it.
    pub const fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::PerpetualCheck => "perpetual check",
            Termination::MutualPerpetualCheck => "mutual perpetual check",
            Termination::PerpetualChase => "perpetual chase",
            Termination::MutualPerpetualChase => "mutual perpetual chase",
            Termination::RepetitionDraw => "repetition",
            Termination::MoveLimit => "move limit",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::Resignation => "resignation",
            Termination::Timeout => "timeout",
            Termination::AgreedDraw => "agreed draw",
            Termination::Bikjang => "bikjang",
            Termination::Counting => "counting",
            Termination::DoublePass => "double pass",
        }
    }

    /// The termination's stable identifier, for machines: its name in kebab case
    /// (`perpetual-check`, `move-limit`); never changes once published.
    pub const fn id(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::PerpetualCheck => "perpetual-check",
            Termination::MutualPerpetualCheck => "mutual-perpetual-check",
            Termination::PerpetualChase => "perpetual-chase",
            Termination::MutualPerpetualChase => "mutual-perpetual-chase",
            Termination::RepetitionDraw => "repetition",
            Termination::MoveLimit => "move-limit",
            Termination::InsufficientMaterial => "insufficient-material",
            Termination::Resignation => "resignation",
            Termination::Timeout => "timeout",
            Termination::AgreedDraw => "agreed-draw",
            Termination::Bikjang => "bikjang",
            Termination::Counting => "counting",
            Termination::DoublePass => "double-pass",
        }
    }
}

/// Something that happens off the board, after a number of plies of the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// This side resigns.
    Resign(Color),
    /// This side runs out of time.
    Timeout(Color),
    /// Both sides agree to a draw.
    DrawAgreed,
    /// Janggi: this side, to move while the generals face each other, claims bikjang.
    BikjangClaim(Color),
}

/// An event off the board and when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The event happened after this many plies of the record.
    pub ply: usize,
}

/// One move of a chase inside a repetition cycle: after ply `ply` the piece on `chaser`
/// threatens the piece on `chased`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChaseStep {
    /// 1-based ply of the record.
    pub ply: usize,
    /// Where the chasing piece stands after the ply.
    pub chaser: Square,
    /// The kind of the chasing piece.
    pub chaser_kind: PieceKind,
    /// Where the chased piece stands after the ply.
    pub chased: Square,
    /// The kind of the chased piece.
    pub chased_kind: PieceKind,
}

/// A decided (or undecided) game, with what a referee needs to agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// The result.
    pub result: GameResult,
    /// What ended the game; `None` while it goes on.
    pub termination: Option<Termination>,
    /// The side whose play decided it (the mated, the perpetual checker, the resigner).
    pub at_fault: Option<Color>,
    /// The game ended after this many plies (the record's length while it goes on).
    pub decided_at_ply: usize,
    /// First and last ply of the repeating cycle, for repetition rulings (1-based plies:
    /// ply `i` is the `i`-th move of the record).
    pub cycle: Option<(usize, usize)>,
    /// For perpetual check: the checking plies of the side at fault within the cycle.
    pub checking_plies: Vec<usize>,
    /// For perpetual chase (and mutual chase): on each move of the chasing side in the
    /// cycle, the threat on the piece chased throughout, in ply order.
    pub chases: Vec<ChaseStep>,
    /// Janggi counting: each side's points in tenths (by [`Color::index`], Han's 1.5
    /// bonus included), when counting decided the game.
    pub points: Option<[u32; 2]>,
    /// Moves of the record played after the game had ended.
    pub moves_after_end: usize,
    /// The ruling in words.
    pub explanation: String,
}

impl Ruling {
    /// A game ended at `ply` by `termination`, with no cycle, chase or count to show yet.
    pub fn decided(
        ply: usize,
        result: GameResult,
        termination: Termination,
        at_fault: Option<Color>,
        explanation: String,
    ) -> Ruling {
        Ruling { result, termination: Some(termination), at_fault, explanation, ..Ruling::ongoing(ply) }
    }

    /// The ruling of a whole record of `plies` moves: `decided`, with the moves played
    /// after its end counted, or a game that goes on.
    pub fn of_record(decided: Option<Ruling>, plies: usize) -> Ruling {
        match decided {
            Some(r) => Ruling { moves_after_end: plies - r.decided_at_ply, ..r },
            None => Ruling::ongoing(plies),
        }
    }

    /// Replays `moves` on `game`, each checked, and rules on the record: `judge` sees
    /// the game at its start and after each ply until it gives a ruling; after that,
    /// `after_end` sees each ply instead (moves and claims after the end are still
    /// checked, so that a forged record is caught, but do not change the ruling).
    pub fn of_replay<P: RecordedPosition<Move = Move>>(
        game: &mut Game<P>,
        moves: &[Move],
        mut judge: impl FnMut(&Game<P>) -> Result<Option<Ruling>, AdjudicationError>,
        mut after_end: impl FnMut(&Game<P>) -> Result<(), AdjudicationError>,
    ) -> Result<Ruling, AdjudicationError> {
        let mut ruling = judge(game)?;
        game.play_record(moves, |game| {
            match ruling {
                None => ruling = judge(game)?,
                Some(_) => after_end(game)?,
            }
            Ok(())
        })?;
        Ok(Ruling::of_record(ruling, moves.len()))
    }

    /// A game that goes on after `plies` plies.
    pub fn ongoing(plies: usize) -> Ruling {
        Ruling {
            result: GameResult::Ongoing,
            termination: None,
            at_fault: None,
            decided_at_ply: plies,
            cycle: None,
            checking_plies: Vec::new(),
            chases: Vec::new(),
            points: None,
            moves_after_end: 0,
            explanation: "the game goes on".to_string(),
        }
    }
}
