//! Adjudication of Xiangqi game records under a named, versioned rule set.
//!
//! Precedence when several endings meet at one ply: the position on the board first
//! (checkmate, stalemate), then repetition (perpetual check, repetition draw), then
//! insufficient material, then the move limit, then off-board events (resignation,
//! timeout, agreed draw) recorded at that ply. The earliest ply that ends the game
//! decides; moves after it are counted, not judged.
//!
//! Repetition is judged when the current position (pieces and side to move) stands on
//! the board for the third time since the last capture; each [`RuleSet`] says over which
//! plies and what makes a side lose. Chases are looked for only then, and only in the
//! plies judged, so a long record costs no more than its legality checks.

use crate::rules::Status;
use crate::rules::outcome::{AdjudicationError, ChaseStep, Event, EventKind, GameResult, Ruling, Termination};
use crate::rules::repetition::{CyclePly, perpetual_checkers, plies_of, third_occurrence};
use crate::rules::types::{Color, Move, Square};
use crate::rules::xiangqi::Game;

use super::Position;
use super::chase::{ThreatRule, move_threats};
use super::handicap::Handicap;

/// A named and versioned set of rules. A version never changes meaning; a new reading
/// gets a new version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// The simplified online rules: perpetual check loses at the third repetition,
    /// every other repetition draws, 60 moves each without capture draw, no attacking
    /// piece on either side draws.
    #[default]
    SimplifiedV1,
    /// The Asian Xiangqi Federation rules as the WXF plays them, judged at the third
    /// occurrence of a position over its cycle (the plies since the previous occurrence).
    ///
    /// Each move of the cycle is a check, a chase or idle. A check is a move that leaves
    /// the opponent in check. A chase is a move that makes a new capture threat in the
    /// sense of [`ThreatRule::Chase`] (see [`super::chase`]). A side is in violation when
    /// every one of its moves in the cycle checks (perpetual check), or when one and the
    /// same enemy piece is newly threatened by every one of its moves (perpetual chase;
    /// the chasing pieces may differ, and the victim is followed as it moves). A checking
    /// move that also threatens that piece anew keeps the chase going; one idle move, or a
    /// check that threatens nothing more (one check, one chase), clears the side.
    /// Perpetual check outranks perpetual chase: the side that checks loses against one
    /// that chases; equal violations (or none) draw.
    ///
    /// Move limit: 60 moves each (120 plies) without a capture draw, where the checks a
    /// side gives in that stretch beyond its tenth do not count, so each such checking
    /// ply lengthens the limit by one. Only checks of the record are counted: plies that
    /// a FEN's halfmove clock reports from before the record are taken as quiet. No
    /// chariot, horse, cannon or pawn on either side draws, as in `SimplifiedV1`.
    AsianV1,
    /// The tournament rules of the Italian rules text among the project's seeds, judged
    /// at the third occurrence of a position over the whole stretch since its first
    /// occurrence (both cycles), because that text forbids attacking *continuously* while
    /// repeating the position.
    ///
    /// - Perpetual check: the side that checks on every one of its moves in that stretch
    ///   loses ("scacco perpetuo", figure 18); when both sides do, it is a draw (figure
    ///   19). The text's "no more than three consecutive checks" is read as the measure
    ///   of that prohibition, not as a rule of its own: consecutive checks are forbidden
    ///   only when they repeat the position, and a stretch that holds a third occurrence
    ///   holds at least four consecutive checks by the checking side (two moves per cycle
    ///   at the least, two cycles), so the fourth consecutive check that repeats is the
    ///   one the rule forbids, and the referee calls it at the third repetition as figure
    ///   18 says. Checks that do not repeat a position are never penalised.
    /// - Perpetual attack: the side whose every move in the stretch makes a new attack,
    ///   in the sense of [`ThreatRule::Attack`], on one and the same enemy piece loses.
    ///   "Attack" is read as a capture threat by a horse, chariot or cannon, protected
    ///   victim or not, with the text's six exceptions; "defended by another piece" as a
    ///   possible recapture; a chariot "not blocked" as one that could take the attacker
    ///   back. "Attacking continuously" is read as every move renewing the attack (the
    ///   piece that moved attacks, or the move uncovers or unlocks the attack, see
    ///   [`super::chase`]): an attack that merely stands while both sides shuffle other
    ///   pieces is not perpetual attack. As under `AsianV1`, a checking move that also
    ///   renews the attack keeps it going.
    /// - Perpetual check outranks perpetual attack; equal violations draw; other
    ///   repetitions draw.
    /// - Draws otherwise only by insufficient material (no chariot, horse, cannon or pawn
    ///   on either side). The text names no move limit, so this rule set has none.
    TournamentV1,
}

impl RuleSet {
    /// The rule set's name, as the API's enum writes it (`ASIAN_V1`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::SimplifiedV1 => "SIMPLIFIED_V1",
            RuleSet::AsianV1 => "ASIAN_V1",
            RuleSet::TournamentV1 => "TOURNAMENT_V1",
        }
    }

    /// Plies without a capture after which the game is drawn, if the rule set has a limit
    /// (before the Asian rules' allowance for checks).
    pub const fn move_limit_plies(self) -> Option<u32> {
        match self {
            RuleSet::SimplifiedV1 | RuleSet::AsianV1 => Some(120),
            RuleSet::TournamentV1 => None,
        }
    }

    /// What a repeating cycle's moves are searched for besides checks, if anything.
    const fn threat_rule(self) -> Option<ThreatRule> {
        match self {
            RuleSet::SimplifiedV1 => None,
            RuleSet::AsianV1 => Some(ThreatRule::Chase),
            RuleSet::TournamentV1 => Some(ThreatRule::Attack),
        }
    }
}

/// A warning about a move: what playing it would make of a repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Warning {
    /// The move completes a repetition that the rule set scores as a draw.
    RepetitionDraw,
    /// The move completes a forbidden cycle: the mover would lose.
    ForbiddenCycle,
}

/// Replays a record and judges it. Every move is checked; moves after the end are
/// still checked for legality (so a forged record is caught) but do not change the
/// ruling.
pub fn adjudicate(
    start: &Position,
    moves: &[Move],
    rules: RuleSet,
    events: &[Event],
) -> Result<Ruling, AdjudicationError> {
    adjudicate_with_handicap(start, &Handicap::default(), moves, rules, events)
}

/// [`adjudicate`] for a game played under the rules of a handicap.
pub fn adjudicate_with_handicap(
    start: &Position,
    handicap: &Handicap,
    moves: &[Move],
    rules: RuleSet,
    events: &[Event],
) -> Result<Ruling, AdjudicationError> {
    let mut game = Game::with_handicap(start.clone(), handicap.clone());
    let judge = |game: &Game| Ok(judge_position(game, rules).or_else(|| judge_events(game, events)));
    Ruling::of_replay(&mut game, moves, judge, |_| Ok(()))
}

/// Judges the game as it stands after its last ply, by the board and its history.
pub fn judge_position(game: &Game, rules: RuleSet) -> Option<Ruling> {
    let pos = game.position();
    let ply = game.plies().len();
    let mover = pos.turn();
    match pos.status() {
        Status::Ongoing => {}
        status => {
            let termination = if status == Status::Checkmate { Termination::Checkmate } else { Termination::Stalemate };
            return Some(Ruling::decided(
                ply,
                GameResult::Win(mover.other()),
                termination,
                Some(mover),
                format!("{} has no legal move ({}) and loses", mover.name(), status.name()),
            ));
        }
    }
    if let Some(r) = judge_repetition(game, rules) {
        return Some(r);
    }
    if pos.attacking_pieces(Color::Red) == 0 && pos.attacking_pieces(Color::Black) == 0 {
        return Some(Ruling::decided(
            ply,
            GameResult::Draw,
            Termination::InsufficientMaterial,
            None,
            "neither side has a chariot, horse, cannon or pawn left".into(),
        ));
    }
    if let Some(limit) = rules.move_limit_plies() {
        let clock = pos.halfmove_clock();
        // Asian rules: checks beyond a side's tenth in the stretch do not count.
        let waived = if rules == RuleSet::AsianV1 {
            Color::ALL
                .iter()
                .map(|&c| game.checks_between(c, game.capture_horizon(), ply).saturating_sub(10))
                .sum::<u32>()
        } else {
            0
        };
        if clock >= limit.saturating_add(waived) {
            let extra = if waived > 0 {
                format!(" ({waived} checks beyond a side's tenth not counted)")
            } else {
                String::new()
            };
            return Some(Ruling::decided(
                ply,
                GameResult::Draw,
                Termination::MoveLimit,
                None,
                format!("{clock} plies without a capture{extra}"),
            ));
        }
    }
    None
}

/// What a move of `game` would make of a repetition under `rules`: `None` when it
/// completes none, or one that the mover wins. `m` must be legal in the game's current
/// position. Cheap unless the move does complete a third occurrence.
pub fn move_warning(game: &Game, m: Move, rules: RuleSet) -> Option<Warning> {
    let pos = game.position();
    if pos.board().piece_at(m.to()).is_some() {
        return None; // a capture starts the count afresh
    }
    let mover = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let key = after.key();
    if game.keys_since_capture().filter(|&k| k == key).count() < 2 {
        return None;
    }
    let mut next = game.clone();
    next.play_unchecked(m);
    match judge_repetition(&next, rules)?.result {
        GameResult::Draw => Some(Warning::RepetitionDraw),
        GameResult::Win(winner) if winner != mover => Some(Warning::ForbiddenCycle),
        _ => None,
    }
}

/// What a repetition cycle amounts to under a rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CycleVerdict {
    /// Nobody checked or chased throughout: a plain repetition, a draw.
    Repetition,
    /// Both sides checked on every move: a draw.
    MutualPerpetualCheck,
    /// This side checked on every one of its moves, the other did not: it loses.
    PerpetualCheck(Color),
    /// Both sides chased (or attacked) a piece on every move: a draw. The steps of both.
    MutualPerpetualChase(Vec<ChaseStep>),
    /// This side chased (or attacked) one piece on every one of its moves, the other did
    /// nothing as grave: it loses. The steps of its chase.
    PerpetualChase(Color, Vec<ChaseStep>),
}

impl CycleVerdict {
    /// The side that loses by the cycle, if one does.
    pub fn loser(&self) -> Option<Color> {
        match *self {
            CycleVerdict::PerpetualCheck(c) | CycleVerdict::PerpetualChase(c, _) => Some(c),
            _ => None,
        }
    }
}

/// Judges a repetition cycle under `rules`: `plies` (numbered from `first` in the
/// steps it reports) were played from the position `start` gives, with `first_mover`
/// to move there. `start` is called only when the rule set looks for chases, so the
/// common case costs no position.
pub fn judge_cycle(
    start: impl FnOnce() -> Position,
    first_mover: Color,
    plies: &[CyclePly],
    first: usize,
    rules: RuleSet,
) -> CycleVerdict {
    match perpetual_checkers(first_mover, plies) {
        [true, true] => CycleVerdict::MutualPerpetualCheck,
        [true, false] => CycleVerdict::PerpetualCheck(Color::Red),
        [false, true] => CycleVerdict::PerpetualCheck(Color::Black),
        [false, false] => match rules.threat_rule() {
            None => CycleVerdict::Repetition,
            Some(rule) => match perpetual_chases(start(), plies, first, rule) {
                [red, black] if red.is_empty() && black.is_empty() => CycleVerdict::Repetition,
                [red, black] if red.is_empty() => CycleVerdict::PerpetualChase(Color::Black, black),
                [red, black] if black.is_empty() => CycleVerdict::PerpetualChase(Color::Red, red),
                [red, black] => {
                    let mut steps: Vec<ChaseStep> = red.into_iter().chain(black).collect();
                    steps.sort_by_key(|c| c.ply);
                    CycleVerdict::MutualPerpetualChase(steps)
                }
            },
        },
    }
}

/// Third occurrence of the current position (same pieces, same side to move) since the
/// last capture: judged over the cycle since the previous occurrence, or, under
/// `TournamentV1`, over the stretch since the first of the three.
fn judge_repetition(game: &Game, rules: RuleSet) -> Option<Ruling> {
    let ply = game.plies().len();
    let [oldest, previous, _] = third_occurrence(game.capture_horizon()..=ply, |i| game.key_before(i))?;
    let since = if rules == RuleSet::TournamentV1 { oldest } else { previous };
    // Plies since+1 ..= ply form the span judged; ply i was played by the side to move
    // before it.
    let (first, last) = (since + 1, ply);
    let plies: Vec<CyclePly> = game.plies()[first - 1..last].iter().map(|p| p.cycle()).collect();
    let first_mover = game.mover_of_ply(first);
    let verdict = judge_cycle(|| game.position_at(first - 1), first_mover, &plies, first, rules);
    let span = format!("plies {first}-{last}");
    let (verb, noun) = match rules.threat_rule() {
        Some(ThreatRule::Attack) => ("attacking", "attack"),
        _ => ("chasing", "chase"),
    };
    let mut r = match verdict {
        CycleVerdict::Repetition => repetition_draw(ply),
        CycleVerdict::MutualPerpetualCheck => Ruling::decided(
            ply,
            GameResult::Draw,
            Termination::MutualPerpetualCheck,
            None,
            format!("third repetition with both sides checking on every move ({span}): draw"),
        ),
        CycleVerdict::PerpetualCheck(culprit) => {
            let mut r = Ruling::decided(
                ply,
                GameResult::Win(culprit.other()),
                Termination::PerpetualCheck,
                Some(culprit),
                format!(
                    "third repetition with {} checking on every move ({span}): perpetual check loses",
                    culprit.name()
                ),
            );
            r.checking_plies = plies_of(culprit, first_mover, &plies, first);
            r
        }
        CycleVerdict::MutualPerpetualChase(steps) => {
            let mut r = Ruling::decided(
                ply,
                GameResult::Draw,
                Termination::MutualPerpetualChase,
                None,
                format!("third repetition with both sides {verb} a piece on every move ({span}): draw"),
            );
            r.chases = steps;
            r
        }
        CycleVerdict::PerpetualChase(culprit, steps) => {
            let victim = steps.last().map_or(String::new(), |s| {
                format!("the {} {} (on {} at ply {}) ", culprit.other().name(), s.chased_kind.name(), s.chased, s.ply)
            });
            let mut r = Ruling::decided(
                ply,
                GameResult::Win(culprit.other()),
                Termination::PerpetualChase,
                Some(culprit),
                format!(
                    "third repetition with {} {verb} {victim}on every move ({span}): perpetual {noun} loses",
                    culprit.name()
                ),
            );
            r.chases = steps;
            r
        }
    };
    r.cycle = Some((first, last));
    Some(r)
}

fn repetition_draw(ply: usize) -> Ruling {
    Ruling::decided(
        ply,
        GameResult::Draw,
        Termination::RepetitionDraw,
        None,
        "the same position with the same side to move for the third time".into(),
    )
}

/// For each side (by [`Color::index`]), the threats on the enemy pieces that every one of
/// its moves of `plies` (played from `pos`, numbered from `first`) newly threatened;
/// empty when there is no such piece. Pieces are followed through the span, so a victim
/// that flees stays the same victim.
fn perpetual_chases(mut pos: Position, plies: &[CyclePly], first: usize, rule: ThreatRule) -> [Vec<ChaseStep>; 2] {
    let mut ids = PieceIds::new(&pos);
    // Bit k: the piece with id k was chased by every move of the side so far.
    let mut persistent = [u32::MAX; 2];
    let mut moved = [false; 2];
    let mut steps: [Vec<(ChaseStep, u8)>; 2] = [Vec::new(), Vec::new()];
    for (k, played) in plies.iter().enumerate() {
        let side = pos.turn().index();
        moved[side] = true;
        if persistent[side] != 0 {
            let mut chased = 0u32;
            for t in move_threats(&pos, played.mv, rule) {
                if let Some(id) = ids.at(t.chased) {
                    chased |= 1 << id;
                    let step = ChaseStep {
                        ply: first + k,
                        chaser: t.chaser,
                        chaser_kind: t.chaser_kind,
                        chased: t.chased,
                        chased_kind: t.chased_kind,
                    };
                    steps[side].push((step, id));
                }
            }
            persistent[side] &= chased;
        }
        ids.play(played.mv);
        pos.play_unchecked(played.mv);
        if played.kept_turn {
            pos.skip_turn();
        }
    }
    let [red, black] = steps;
    let keep = |side: usize, steps: Vec<(ChaseStep, u8)>| {
        if !moved[side] || persistent[side] == 0 {
            return Vec::new();
        }
        steps.into_iter().filter(|(_, id)| persistent[side] & (1 << id) != 0).map(|(s, _)| s).collect()
    };
    [keep(0, red), keep(1, black)]
}

/// A name for every piece on the board at the start of a span, followed as it moves.
struct PieceIds([u8; 90]);

impl PieceIds {
    const NONE: u8 = u8::MAX;

    fn new(pos: &Position) -> PieceIds {
        let mut ids = [Self::NONE; 90];
        // At most 32 pieces: ids fit a u32 set.
        for (n, (sq, _)) in pos.board().iter().enumerate() {
            ids[sq.index()] = n as u8;
        }
        PieceIds(ids)
    }

    fn at(&self, sq: Square) -> Option<u8> {
        let id = self.0[sq.index()];
        (id < 32).then_some(id)
    }

    fn play(&mut self, m: Move) {
        self.0[m.to().index()] = self.0[m.from().index()];
        self.0[m.from().index()] = Self::NONE;
    }
}

fn judge_events(game: &Game, events: &[Event]) -> Option<Ruling> {
    let ply = game.plies().len();
    // A bikjang claim means nothing in Xiangqi, where the generals never face.
    let e = events.iter().find(|e| e.ply == ply && !matches!(e.kind, EventKind::BikjangClaim(_)))?;
    Some(match e.kind {
        EventKind::Resign(c) => Ruling::decided(
            ply,
            GameResult::Win(c.other()),
            Termination::Resignation,
            Some(c),
            format!("{} resigns", c.name()),
        ),
        EventKind::Timeout(c) => Ruling::decided(
            ply,
            GameResult::Win(c.other()),
            Termination::Timeout,
            Some(c),
            format!("{} ran out of time", c.name()),
        ),
        EventKind::DrawAgreed => {
            Ruling::decided(ply, GameResult::Draw, Termination::AgreedDraw, None, "draw agreed".into())
        }
        EventKind::BikjangClaim(_) => return None,
    })
}
