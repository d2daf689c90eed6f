//! Adjudication of Janggi game records under a named, versioned rule set.
//!
//! Precedence when several endings meet at one ply, as for Xiangqi: the position on the
//! board first (checkmate, two passes in a row), then repetition, then the move limit,
//! then off-board events recorded at that ply (resignation, timeout, agreed draw, a
//! bikjang claim). The earliest ply that ends the game decides; moves after it are
//! checked for legality and counted, not judged.
//!
//! Repetition is judged when the current position (pieces and side to move; a pass
//! changes only the side) stands on the board for the third time since the last capture,
//! over the plies since its previous occurrence.
//!
//! Bikjang (the generals facing on an open file) is never forced: the side to move may
//! claim it with an event at a ply where it stands, or play on (a claim where it does
//! not stand, or by the side not to move, is an error of the record).

use crate::rules::Status;
use crate::rules::outcome::{AdjudicationError, Event, EventKind, GameResult, Ruling, Termination};
use crate::rules::repetition::{CyclePly, perpetual_checkers, plies_of, third_occurrence};
use crate::rules::types::{Color, Move, PieceKind};

use super::{Game, Position, side_name};

/// Plies after which a game under [`RuleSet::TournamentV1`] goes to counting.
pub const TOURNAMENT_MOVE_LIMIT_PLIES: usize = 200;

/// Han's compensation for moving second, in tenths of a point.
pub const HAN_BONUS_TENTHS: u32 = 15;

/// A named and versioned set of Janggi rules. A version never changes meaning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// The rules of the Italian rules text among the project's seeds: checkmate wins;
    /// a side not in check may pass; two passes in a row end the game in a draw; when
    /// the generals face each other (bikjang) the side to move may claim a draw or play
    /// on; the third occurrence of a position is a draw, perpetual check included.
    /// No move limit.
    #[default]
    CasualV1,
    /// Korean tournament style: checkmate wins; perpetual check (one side checking on
    /// every one of its moves of the repeating cycle) loses; other repetitions draw.
    /// A bikjang claim, two passes in a row, and the move limit of
    /// [`TOURNAMENT_MOVE_LIMIT_PLIES`] plies of the record (counted from its start
    /// position, whatever the FEN's move number says) end the game by counting: chariot
    /// 13, cannon 7, horse 5, elephant 3, guard 3, soldier 2, and 1.5 more for Han; the
    /// higher total wins (the half point rules out a tie).
    TournamentV1,
}

impl RuleSet {
    /// The rule set's name, as the API's enum writes it (`JANGGI_CASUAL_V1`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::CasualV1 => "JANGGI_CASUAL_V1",
            RuleSet::TournamentV1 => "JANGGI_TOURNAMENT_V1",
        }
    }

    /// Plies of the record after which the game is decided, if the rule set has a limit.
    pub const fn move_limit_plies(self) -> Option<usize> {
        match self {
            RuleSet::CasualV1 => None,
            RuleSet::TournamentV1 => Some(TOURNAMENT_MOVE_LIMIT_PLIES),
        }
    }
}

/// Counting value of a piece kind, in tenths of a point (the general counts nothing).
pub const fn counting_tenths(kind: PieceKind) -> u32 {
    match kind {
        PieceKind::General => 0,
        PieceKind::Chariot => 130,
        PieceKind::Cannon => 70,
        PieceKind::Horse => 50,
        PieceKind::Elephant | PieceKind::Advisor => 30,
        PieceKind::Soldier => 20,
    }
}

/// Each side's points in tenths (by [`Color::index`]), Han's bonus included.
pub fn count_points(pos: &Position) -> [u32; 2] {
    let mut points = [0, HAN_BONUS_TENTHS];
    for (_, piece) in pos.board().iter() {
        points[piece.color().index()] += counting_tenths(piece.kind());
    }
    points
}

/// Replays a record and judges it.
pub fn adjudicate(
    start: &Position,
    moves: &[Move],
    rules: RuleSet,
    events: &[Event],
) -> Result<Ruling, AdjudicationError> {
    let mut game = Game::new(start.clone());
    // Claims after the end are still checked, so that a forged record is caught.
    Ruling::of_replay(&mut game, moves, |game| judge(game, rules, events), |game| check_claims(game, events))
}

fn judge(game: &Game, rules: RuleSet, events: &[Event]) -> Result<Option<Ruling>, AdjudicationError> {
    check_claims(game, events)?;
    Ok(judge_position(game, rules).or_else(|| judge_events(game, rules, events)))
}

/// Every bikjang claim made at the game's current ply must be the side to move's, with
/// the generals facing.
fn check_claims(game: &Game, events: &[Event]) -> Result<(), AdjudicationError> {
    let ply = game.plies().len();
    let pos = game.position();
    for (index, e) in events.iter().enumerate() {
        if let (EventKind::BikjangClaim(c), true) = (e.kind, e.ply == ply) {
            let detail = if !pos.bikjang() {
                format!("the generals do not face each other after ply {ply}")
            } else if c != pos.turn() {
                format!("only the side to move ({}) may claim bikjang after ply {ply}", side_name(pos.turn()))
            } else {
                continue;
            };
            return Err(AdjudicationError::BadEvent { index, detail });
        }
    }
    Ok(())
}

/// Judges the game as it stands after its last ply, by the board and its history.
pub fn judge_position(game: &Game, rules: RuleSet) -> Option<Ruling> {
    let pos = game.position();
    let ply = game.plies().len();
    let mover = pos.turn();
    match pos.status() {
        Status::Checkmate | Status::Stalemate => {
            return Some(Ruling::decided(
                ply,
                GameResult::Win(mover.other()),
                Termination::Checkmate,
                Some(mover),
                format!("{} is checkmated", side_name(mover)),
            ));
        }
        Status::Ended => {
            return Some(match rules {
                RuleSet::CasualV1 => Ruling::decided(
                    ply,
                    GameResult::Draw,
                    Termination::DoublePass,
                    None,
                    "two passes in a row: draw".into(),
                ),
                RuleSet::TournamentV1 => counted(pos, ply, Termination::DoublePass, "two passes in a row"),
            });
        }
        Status::Ongoing => {}
    }
    if let Some(r) = judge_repetition(game, rules) {
        return Some(r);
    }
    if let Some(limit) = rules.move_limit_plies()
        && ply >= limit
    {
        return Some(counted(pos, ply, Termination::Counting, &format!("the move limit of {limit} plies")));
    }
    None
}

/// The game decided on points.
fn counted(pos: &Position, ply: usize, termination: Termination, why: &str) -> Ruling {
    let points = count_points(pos);
    let winner = if points[0] > points[1] { Color::Red } else { Color::Black };
    let show = |t: u32| format!("{}.{}", t / 10, t % 10);
    let mut r = Ruling::decided(
        ply,
        GameResult::Win(winner),
        termination,
        None,
        format!(
            "{why}: counting, cho {} against han {} (with han's 1.5), {} wins",
            show(points[0]),
            show(points[1]),
            side_name(winner)
        ),
    );
    r.points = Some(points);
    r
}

/// The side that loses a repetition cycle (`plies`, the first played by `first_mover`)
/// under `rules`, if one does: under `TournamentV1` the side that checked on every one of
/// its moves while the other did not; under `CasualV1` nobody.
pub fn cycle_loser(first_mover: Color, plies: &[CyclePly], rules: RuleSet) -> Option<Color> {
    match (rules, perpetual_checkers(first_mover, plies)) {
        (RuleSet::TournamentV1, [true, false]) => Some(Color::Red),
        (RuleSet::TournamentV1, [false, true]) => Some(Color::Black),
        _ => None,
    }
}

/// Third occurrence of the current position since the last capture, judged over the
/// cycle since its previous occurrence.
fn judge_repetition(game: &Game, rules: RuleSet) -> Option<Ruling> {
    let ply = game.plies().len();
    let [_, previous, _] = third_occurrence(game.capture_horizon()..=ply, |i| game.key_before(i))?;
    let (first, last) = (previous + 1, ply);
    let plies: Vec<CyclePly> = game.plies()[first - 1..last].iter().map(|p| p.cycle()).collect();
    let first_mover = game.plies()[first - 1].mover;
    let span = format!("plies {first}-{last}");
    let mut r = match perpetual_checkers(first_mover, &plies) {
        [true, true] => Ruling::decided(
            ply,
            GameResult::Draw,
            Termination::MutualPerpetualCheck,
            None,
            format!("third repetition with both sides checking on every move ({span}): draw"),
        ),
        [red_all @ true, false] | [red_all @ false, true] => {
            let culprit = if red_all { Color::Red } else { Color::Black };
            let mut r = match rules {
                RuleSet::CasualV1 => Ruling::decided(
                    ply,
                    GameResult::Draw,
                    Termination::RepetitionDraw,
                    None,
                    format!(
                        "third repetition with {} checking on every move ({span}): perpetual check is a draw",
                        side_name(culprit)
                    ),
                ),
                RuleSet::TournamentV1 => Ruling::decided(
                    ply,
                    GameResult::Win(culprit.other()),
                    Termination::PerpetualCheck,
                    Some(culprit),
                    format!(
                        "third repetition with {} checking on every move ({span}): perpetual check loses",
                        side_name(culprit)
                    ),
                ),
            };
            r.checking_plies = plies_of(culprit, first_mover, &plies, first);
            r
        }
        [false, false] => Ruling::decided(
            ply,
            GameResult::Draw,
            Termination::RepetitionDraw,
            None,
            "the same position with the same side to move for the third time".into(),
        ),
    };
    r.cycle = Some((first, last));
    Some(r)
}

fn judge_events(game: &Game, rules: RuleSet, events: &[Event]) -> Option<Ruling> {
    let ply = game.plies().len();
    let e = events.iter().find(|e| e.ply == ply)?;
    let name = side_name;
    Some(match e.kind {
        EventKind::Resign(c) => Ruling::decided(
            ply,
            GameResult::Win(c.other()),
            Termination::Resignation,
            Some(c),
            format!("{} resigns", name(c)),
        ),
        EventKind::Timeout(c) => Ruling::decided(
            ply,
            GameResult::Win(c.other()),
            Termination::Timeout,
            Some(c),
            format!("{} ran out of time", name(c)),
        ),
        EventKind::DrawAgreed => {
            Ruling::decided(ply, GameResult::Draw, Termination::AgreedDraw, None, "draw agreed".into())
        }
        EventKind::BikjangClaim(c) => match rules {
            RuleSet::CasualV1 => Ruling::decided(
                ply,
                GameResult::Draw,
                Termination::Bikjang,
                None,
                format!("{} claims bikjang: draw", name(c)),
            ),
            RuleSet::TournamentV1 => {
                counted(game.position(), ply, Termination::Bikjang, &format!("{} claims bikjang", name(c)))
            }
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        Move::parse_iccs(s).unwrap()
    }

    #[test]
    fn start_counts_72_against_73_5() {
        assert_eq!(count_points(&Position::startpos()), [720, 735]);
    }

    #[test]
    fn double_pass_draws_casual_and_counts_in_tournament() {
        let start = Position::startpos();
        let moves = [Move::PASS, Move::PASS];
        let r = adjudicate(&start, &moves, RuleSet::CasualV1, &[]).unwrap();
        assert_eq!((r.result, r.termination), (GameResult::Draw, Some(Termination::DoublePass)));
        let r = adjudicate(&start, &moves, RuleSet::TournamentV1, &[]).unwrap();
        assert_eq!((r.result, r.termination), (GameResult::Win(Color::Black), Some(Termination::DoublePass)));
        assert_eq!(r.points, Some([720, 735]));
    }

    #[test]
    fn shuffling_repeats_to_a_draw() {
        let start = Position::startpos();
        let cycle = ["a0a1", "a9a8", "a1a0", "a8a9"];
        let moves: Vec<Move> = cycle.iter().chain(cycle.iter()).map(|s| mv(s)).collect();
        let r = adjudicate(&start, &moves, RuleSet::CasualV1, &[]).unwrap();
        assert_eq!(r.termination, Some(Termination::RepetitionDraw));
        assert_eq!(r.decided_at_ply, 8);
        assert_eq!(r.cycle, Some((5, 8)));
    }

    #[test]
    fn perpetual_check_draws_casual_and_loses_in_tournament() {
        let start = crate::notation::fen::janggi("5k3/9/R8/9/9/9/9/9/9/3K5 w - - 0 1").unwrap();
        let moves: Vec<Move> = "a7a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9".split(' ').map(mv).collect();
        let r = adjudicate(&start, &moves, RuleSet::CasualV1, &[]).unwrap();
        assert_eq!((r.result, r.termination), (GameResult::Draw, Some(Termination::RepetitionDraw)));
        assert_eq!(r.checking_plies, vec![7, 9]);
        let r = adjudicate(&start, &moves, RuleSet::TournamentV1, &[]).unwrap();
        assert_eq!((r.result, r.termination), (GameResult::Win(Color::Black), Some(Termination::PerpetualCheck)));
        assert_eq!((r.at_fault, r.cycle, r.decided_at_ply), (Some(Color::Red), Some((6, 9)), 9));
    }

    #[test]
    fn bikjang_claim_needs_facing_generals() {
        // Generals on the e-file with nothing between them.
        let start = crate::notation::fen::janggi("4k4/9/9/9/9/9/9/9/4K4/R8 w - - 0 1").unwrap();
        assert!(start.bikjang());
        let claim = [Event { kind: EventKind::BikjangClaim(Color::Red), ply: 0 }];
        let r = adjudicate(&start, &[], RuleSet::CasualV1, &claim).unwrap();
        assert_eq!((r.result, r.termination), (GameResult::Draw, Some(Termination::Bikjang)));
        let r = adjudicate(&start, &[], RuleSet::TournamentV1, &claim).unwrap();
        assert_eq!(r.result, GameResult::Win(Color::Red));
        assert_eq!(r.points, Some([130, 15]));
        let wrong = [Event { kind: EventKind::BikjangClaim(Color::Black), ply: 0 }];
        assert!(matches!(adjudicate(&start, &[], RuleSet::CasualV1, &wrong), Err(AdjudicationError::BadEvent { .. })));
        let none = [Event { kind: EventKind::BikjangClaim(Color::Red), ply: 0 }];
        let blocked = Position::startpos();
        assert!(matches!(adjudicate(&blocked, &[], RuleSet::CasualV1, &none), Err(AdjudicationError::BadEvent { .. })));
    }
}
