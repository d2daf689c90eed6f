//! Adjudication of whole records under the named rule sets.

use chuhe::notation::fen;
use chuhe::rules::illegal::IllegalReason;
use chuhe::rules::outcome::{AdjudicationError, Event, EventKind, GameResult, Termination};
use chuhe::rules::types::{Color, Move};
use chuhe::rules::xiangqi::adjudicate::{RuleSet, adjudicate};

pub(crate) fn moves(text: &str) -> Vec<Move> {
    text.split_whitespace().map(|t| Move::parse_iccs(t).unwrap_or_else(|| panic!("bad move {t}"))).collect()
}

fn result_name(r: GameResult) -> &'static str {
    match r {
        GameResult::Win(Color::Red) => "red",
        GameResult::Win(Color::Black) => "black",
        GameResult::Draw => "draw",
        GameResult::Ongoing => "ongoing",
    }
}

/// Plays every row of the reference repetition table under `rules` and compares the
/// result with the column `column` (3 `asian`, 4 `simplified`).
fn check_repetition_table(rules: RuleSet, column: usize) {
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/repetition.tsv")).unwrap();
    let mut rows = 0;
    let mut failures = Vec::new();
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.starts_with("label")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (label, fen_text, record, expected) = (cols[0], cols[1], cols[2], cols[column]);
        let start = fen::xiangqi(fen_text).unwrap();
        let ruling = adjudicate(&start, &moves(record), rules, &[]).unwrap();
        rows += 1;
        if result_name(ruling.result) != expected {
            failures.push(format!("{label}: expected {expected}, got {:?} ({})", ruling.result, ruling.explanation));
        }
        assert!(ruling.cycle.is_some(), "{label}: every row ends by repetition ({})", ruling.explanation);
    }
    assert!(rows >= 20, "only {rows} rows read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every row of the reference repetition table, `simplified` column.
#[test]
fn repetition_table_under_simplified_rules() {
    check_repetition_table(RuleSet::SimplifiedV1, 4);
}

/// Every row of the reference repetition table, `asian` column.
#[test]
fn repetition_table_under_asian_rules() {
    check_repetition_table(RuleSet::AsianV1, 3);
}

#[test]
fn checkmate_ends_the_game_and_later_moves_are_counted() {
    // Chariot a0-a9 checks on the back rank; e8 is covered by the other chariot, d9 by
    // the red general's open file, f9 by the checking chariot.
    let start = fen::xiangqi("4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    let ruling = adjudicate(&start, &moves("a0a9 e9e8"), RuleSet::SimplifiedV1, &[]).unwrap_err();
    assert!(matches!(ruling, AdjudicationError::IllegalMove { index: 1, reason: IllegalReason::GameOver, .. }));
    let ruling = adjudicate(&start, &moves("a0a9"), RuleSet::SimplifiedV1, &[]).unwrap();
    assert_eq!(ruling.result, GameResult::Win(Color::Red));
    assert_eq!(ruling.termination, Some(Termination::Checkmate));
    assert_eq!(ruling.at_fault, Some(Color::Black));
    assert_eq!(ruling.decided_at_ply, 1);
}

#[test]
fn illegal_move_in_record_is_reported_with_index_and_reason() {
    let start = fen::xiangqi("startpos").unwrap();
    let err = adjudicate(&start, &moves("h2e2 h9g7 e2e9"), RuleSet::SimplifiedV1, &[]).unwrap_err();
    assert!(matches!(
        err,
        AdjudicationError::IllegalMove { index: 2, reason: IllegalReason::CannonNeedsOneScreen, .. }
    ));
    // In words the moves count from 1: the third move of the record.
    let words = format!("move 3 (e2e9) is illegal: {}", IllegalReason::CannonNeedsOneScreen.describe());
    assert_eq!(err.to_string(), words);
}

#[test]
fn no_attacking_piece_is_a_draw() {
    let start = fen::xiangqi("3akab2/9/9/9/9/9/9/9/4A4/2B1K4 w - - 0 1").unwrap();
    let ruling = adjudicate(&start, &[], RuleSet::SimplifiedV1, &[]).unwrap();
    assert_eq!(ruling.result, GameResult::Draw);
    assert_eq!(ruling.termination, Some(Termination::InsufficientMaterial));
}

#[test]
fn sixty_moves_each_without_capture_is_a_draw() {
    let start = fen::xiangqi("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 118 60").unwrap();
    let ongoing = adjudicate(&start, &moves("a1a2"), RuleSet::SimplifiedV1, &[]).unwrap();
    assert_eq!(ongoing.result, GameResult::Ongoing);
    let ruling = adjudicate(&start, &moves("a1a2 d9d8"), RuleSet::SimplifiedV1, &[]).unwrap();
    assert_eq!(ruling.termination, Some(Termination::MoveLimit));
    assert_eq!(ruling.decided_at_ply, 2);
}

#[test]
fn events_decide_at_their_ply_after_board_endings() {
    let start = fen::xiangqi("startpos").unwrap();
    let resign = [Event { kind: EventKind::Resign(Color::Black), ply: 2 }];
    let ruling = adjudicate(&start, &moves("h2e2 h9g7 h0g2"), RuleSet::SimplifiedV1, &resign).unwrap();
    assert_eq!(ruling.result, GameResult::Win(Color::Red));
    assert_eq!(ruling.termination, Some(Termination::Resignation));
    assert_eq!((ruling.decided_at_ply, ruling.moves_after_end), (2, 1));
    let agreed = [Event { kind: EventKind::DrawAgreed, ply: 0 }];
    let ruling = adjudicate(&start, &[], RuleSet::SimplifiedV1, &agreed).unwrap();
    assert_eq!(ruling.termination, Some(Termination::AgreedDraw));
}

fn rows() -> Vec<(String, String, String)> {
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/repetition.tsv")).unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("label"))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[0].to_string(), c[1].to_string(), c[2].to_string())
        })
        .collect()
}

const ALL_RULES: [RuleSet; 3] = [RuleSet::SimplifiedV1, RuleSet::AsianV1, RuleSet::TournamentV1];

/// The seed's figure 18, made legal: Black threatens mate with the chariot from a5 to a0,
/// so the red chariot checks from g9, the black general steps down to f8, the chariot
/// checks again from g8, the general goes back to f9, and so on. The red pawn on d9
/// keeps the general off e9 and the black advisor on f7 keeps it off f7. Red checks on
/// every move and loses at the third repetition, under every rule set.
#[test]
fn figure_18_perpetual_check_loses() {
    let start = fen::xiangqi("3P1k3/9/5a3/9/r8/9/6R2/9/4A4/4K4 w - - 0 1").unwrap();
    let record = moves("g3g9 f9f8 g9g8 f8f9 g8g9 f9f8 g9g8 f8f9 g8g9");
    for rules in ALL_RULES {
        let r = adjudicate(&start, &record, rules, &[]).unwrap();
        assert_eq!(r.result, GameResult::Win(Color::Black), "{}", rules.name());
        assert_eq!(r.termination, Some(Termination::PerpetualCheck));
        assert_eq!(r.at_fault, Some(Color::Red));
        assert_eq!(r.decided_at_ply, 9);
        if rules == RuleSet::TournamentV1 {
            // Both cycles since the first occurrence (after ply 1): four checks in a row
            // that repeat the position, more than the three the rules allow.
            assert_eq!(r.cycle, Some((2, 9)));
            assert_eq!(r.checking_plies, [3, 5, 7, 9]);
        } else {
            assert_eq!(r.cycle, Some((6, 9)));
            assert_eq!(r.checking_plies, [7, 9]);
        }
    }
    // Before the third occurrence nothing is decided.
    let r = adjudicate(&start, &record[..8], RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!(r.result, GameResult::Ongoing);
}

/// The seed's figure 19, made legal (a black pawn cannot stand on e7, behind its start, so
/// an elephant stands there): the red chariot takes on e7 with a double check by chariot
/// and cannon; the black cannon interposes on e8 and uncovers the f9 chariot's check; the
/// red chariot blocks on f7 and uncovers the cannon's check through the black cannon,
/// while threatening the f9 chariot that the general could not take back without facing
/// the red general; the black cannon returns to f8 and checks over the red chariot; and
/// so on. Both sides check on every move: a draw at the third repetition.
#[test]
fn figure_19_mutual_perpetual_check_draws() {
    let start = fen::xiangqi("4kr3/5c3/4b4/9/4R4/9/9/4C4/9/5K3 w - - 0 1").unwrap();
    let record = moves("e5e7 f8e8 e7f7 e8f8 f7e7 f8e8 e7f7 e8f8 f7e7");
    for rules in ALL_RULES {
        let r = adjudicate(&start, &record, rules, &[]).unwrap();
        assert_eq!(r.result, GameResult::Draw, "{}", rules.name());
        assert_eq!(r.termination, Some(Termination::MutualPerpetualCheck));
        assert_eq!(r.at_fault, None);
        assert_eq!(r.decided_at_ply, 9);
    }
}

#[test]
fn perpetual_chase_ruling_names_the_culprit_the_cycle_and_each_chase() {
    use chuhe::rules::outcome::ChaseStep;
    use chuhe::rules::types::{PieceKind, Square};
    let start = fen::xiangqi("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
    let r = adjudicate(&start, &moves("c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2"), RuleSet::AsianV1, &[]).unwrap();
    assert_eq!(r.result, GameResult::Win(Color::Black));
    assert_eq!(r.termination, Some(Termination::PerpetualChase));
    assert_eq!(r.at_fault, Some(Color::Red));
    assert_eq!(r.cycle, Some((6, 9)));
    assert!(r.checking_plies.is_empty());
    let sq = |s: &str| Square::parse(s).unwrap();
    let step = |ply, chaser, chased| ChaseStep {
        ply,
        chaser: sq(chaser),
        chaser_kind: PieceKind::Cannon,
        chased: sq(chased),
        chased_kind: PieceKind::Chariot,
    };
    assert_eq!(r.chases, [step(7, "b2", "b7"), step(9, "a2", "a7")]);
    assert!(r.explanation.contains("red chasing the black chariot"), "{}", r.explanation);
    assert!(r.explanation.contains("plies 6-9"), "{}", r.explanation);
}

#[test]
fn tournament_rules_judge_perpetual_attack_with_their_exceptions() {
    let table = rows();
    let row = |label: &str| table.iter().find(|r| r.0 == label).unwrap().clone();
    // The cannon attacks the chariot on every move over both cycles.
    let (_, f, m) = row("Direct chase by cannon");
    let r = adjudicate(&fen::xiangqi(&f).unwrap(), &moves(&m), RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!((r.result, r.termination), (GameResult::Win(Color::Black), Some(Termination::PerpetualChase)));
    assert_eq!(r.cycle, Some((2, 9)));
    assert_eq!(r.chases.iter().map(|c| c.ply).collect::<Vec<_>>(), [3, 5, 7, 9]);
    assert!(r.explanation.contains("perpetual attack"), "{}", r.explanation);
    // The chariot attacks the horse that the red general protects: no chase under Asian
    // rules, but a protected horse is no exception to perpetual attack.
    let (_, f, m) = row("No overprotection by king");
    let start = fen::xiangqi(&f).unwrap();
    let asian = adjudicate(&start, &moves(&m), RuleSet::AsianV1, &[]).unwrap();
    assert_eq!(asian.result, GameResult::Draw);
    let r = adjudicate(&start, &moves(&m), RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!((r.result, r.at_fault), (GameResult::Win(Color::Red), Some(Color::Black)));
    // The chariot slides on the line where it already attacked the cannon: no new attack.
    let (_, f, m) = row("D106: Chariot chases cannon, but attack actually does not change (draw)");
    let r = adjudicate(&fen::xiangqi(&f).unwrap(), &moves(&m), RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!((r.result, r.termination), (GameResult::Draw, Some(Termination::RepetitionDraw)));
    // The tournament rules have no move limit.
    let start = fen::xiangqi("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 118 60").unwrap();
    let r = adjudicate(&start, &moves("a1a2 d9d8 a2a3"), RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!(r.result, GameResult::Ongoing);
}

/// Judging a record at once or after each of its moves gives the same ruling: nothing
/// before the deciding ply, then the same decision with the extra moves counted.
#[test]
fn a_record_judged_whole_or_move_by_move_agrees() {
    for (label, f, m) in rows() {
        let start = fen::xiangqi(&f).unwrap();
        let record = moves(&m);
        for rules in ALL_RULES {
            let whole = adjudicate(&start, &record, rules, &[]).unwrap();
            for n in 0..=record.len() {
                let r = adjudicate(&start, &record[..n], rules, &[]).unwrap();
                if n < whole.decided_at_ply {
                    assert_eq!(r.result, GameResult::Ongoing, "{label} {} after {n}", rules.name());
                } else {
                    let expected =
                        chuhe::rules::outcome::Ruling { moves_after_end: n - whole.decided_at_ply, ..whole.clone() };
                    assert_eq!(r, expected, "{label} {} after {n}", rules.name());
                }
            }
        }
    }
}

#[test]
fn asian_move_limit_does_not_count_checks_beyond_a_sides_tenth() {
    // Red checks on each of its twelve moves; no position stands three times.
    let start = fen::xiangqi("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 98 50").unwrap();
    let record = moves(
        "a0a9 e9e8 a9a8 e8e7 a8a7 e7e8 a7e7 e8f8 e7f7 f8e8 f7e7 e8f8 \
         e7f7 f8e8 f7f8 e8e9 f8e8 e9f9 e8f8 f9e9 f8e8 e9f9 e8e9 f9f8",
    );
    let simplified = adjudicate(&start, &record, RuleSet::SimplifiedV1, &[]).unwrap();
    assert_eq!((simplified.termination, simplified.decided_at_ply), (Some(Termination::MoveLimit), 22));
    // Red's eleventh and twelfth checks do not count: the limit moves two plies on.
    let asian = adjudicate(&start, &record, RuleSet::AsianV1, &[]).unwrap();
    assert_eq!((asian.termination, asian.decided_at_ply), (Some(Termination::MoveLimit), 24));
    assert!(asian.explanation.contains("2 checks"), "{}", asian.explanation);
    let tournament = adjudicate(&start, &record, RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!(tournament.result, GameResult::Ongoing);
}

/// The Asian limit counts a side's checks in the stretch since the last capture only:
/// checks given before it are gone with the count they belonged to.
#[test]
fn asian_move_limit_forgets_the_checks_before_the_last_capture() {
    use chuhe::rules::xiangqi::{Game, Position};
    // Red checks on each of its first six moves, then its chariot takes the elephant.
    let start = fen::xiangqi("4k4/9/8b/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    let mut game = Game::new(start.clone());
    let mut record = moves("a0a9 e9e8 a9a8 e8e7 a8a7 e7e8 a7e7 e8f8 e7f7 f8e8 f7e7 e8f8 e7i7");
    for &m in &record {
        let checks = game.position().gives_check(m);
        assert_eq!(checks, game.plies().len().is_multiple_of(2) && game.plies().len() < 12, "{m}");
        game.play(m).unwrap();
    }
    assert_eq!(game.position().halfmove_clock(), 0, "e7i7 takes the elephant");
    // Then 125 plies with no capture, no check and no position seen twice: the first
    // such move in the generator's order each time.
    let quiet = |pos: &Position, m: Move, after: &Position| {
        pos.board().piece_at(m.to()).is_none() && !pos.gives_check(m) && after.has_legal_move()
    };
    record.extend(crate::common::walk::walk(game.position(), 125, quiet).0);
    // Red gave six checks, all before the capture: the limit is 120 plies after it under
    // either rule set (counted with the checks before it, the Asian one would move on).
    for rules in [RuleSet::SimplifiedV1, RuleSet::AsianV1] {
        let r = adjudicate(&start, &record, rules, &[]).unwrap();
        assert_eq!((r.termination, r.decided_at_ply), (Some(Termination::MoveLimit), 13 + 120), "{}", rules.name());
        assert!(!r.explanation.contains("checks"), "{}", r.explanation);
    }
}

#[test]
fn move_warnings_name_the_repetitions_a_move_would_complete() {
    use chuhe::rules::xiangqi::Game;
    use chuhe::rules::xiangqi::adjudicate::{Warning, move_warning};
    let start = fen::xiangqi("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
    let mut game = Game::new(start);
    for m in moves("c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7") {
        game.play(m).unwrap();
    }
    let chase = Move::parse_iccs("b2a2").unwrap();
    assert_eq!(move_warning(&game, chase, RuleSet::AsianV1), Some(Warning::ForbiddenCycle));
    assert_eq!(move_warning(&game, chase, RuleSet::TournamentV1), Some(Warning::ForbiddenCycle));
    assert_eq!(move_warning(&game, chase, RuleSet::SimplifiedV1), Some(Warning::RepetitionDraw));
    // Any other move repeats nothing.
    assert_eq!(move_warning(&game, Move::parse_iccs("b2c2").unwrap(), RuleSet::AsianV1), None);
    // Three plies on, Black's b7a7 would complete the cycle where Red chased on every
    // move: Red would lose, so the move gets no warning under Asian rules.
    for m in moves("b2a2 a7b7 a2b2") {
        game.play(m).unwrap();
    }
    let back = Move::parse_iccs("b7a7").unwrap();
    assert_eq!(move_warning(&game, back, RuleSet::AsianV1), None);
    assert_eq!(move_warning(&game, back, RuleSet::SimplifiedV1), Some(Warning::RepetitionDraw));
}

/// A 10,000-ply record (a chase cycle played on and on) is judged in milliseconds: chases
/// are looked for only in the cycle that decides it.
#[test]
fn a_long_record_is_judged_quickly() {
    let start = fen::xiangqi("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
    let mut record = moves("c2a2");
    while record.len() < 10_000 {
        record.extend(moves("a7b7 a2b2 b7a7 b2a2"));
    }
    record.truncate(10_000);
    // Processor time, which a loaded machine does not stretch as it does the wall clock.
    let cpu = crate::common::cpu::thread_time();
    let r = adjudicate(&start, &record, RuleSet::AsianV1, &[]).unwrap();
    let took = crate::common::cpu::thread_time() - cpu;
    assert_eq!((r.decided_at_ply, r.moves_after_end), (9, 9_991));
    eprintln!("10,000 plies judged in {took:?} of processor time");
    assert!(took < std::time::Duration::from_millis(500), "took {took:?}");
}
