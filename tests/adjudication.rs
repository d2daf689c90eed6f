//! Adjudication of whole records under the named rule sets.

use chuhe::notation::fen;
use chuhe::rules::outcome::{Event, EventKind, GameResult, Termination};
use chuhe::rules::types::{Color, Move};
use chuhe::rules::xiangqi::IllegalReason;
use chuhe::rules::xiangqi::adjudicate::{RuleSet, adjudicate};

fn moves(text: &str) -> Vec<Move> {
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

/// Every row of the reference repetition table, `simplified` column.
#[test]
fn repetition_table_under_simplified_rules() {
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/repetition.tsv")).unwrap();
    let mut rows = 0;
    let mut failures = Vec::new();
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.starts_with("label")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (label, fen_text, record, expected) = (cols[0], cols[1], cols[2], cols[4]);
        let start = fen::xiangqi(fen_text).unwrap();
        let ruling = adjudicate(&start, &moves(record), RuleSet::SimplifiedV1, &[]).unwrap();
        rows += 1;
        if result_name(ruling.result) != expected {
            failures.push(format!("{label}: expected {expected}, got {:?} ({})", ruling.result, ruling.explanation));
        }
    }
    assert!(rows >= 20, "only {rows} rows read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn checkmate_ends_the_game_and_later_moves_are_counted() {
    // Chariot a0-a9 checks on the back rank; e8 is covered by the other chariot, d9 by
    // the red general's open file, f9 by the checking chariot.
    let start = fen::xiangqi("4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    let ruling = adjudicate(&start, &moves("a0a9 e9e8"), RuleSet::SimplifiedV1, &[]).unwrap_err();
    assert_eq!(ruling.index, 1);
    assert_eq!(ruling.reason, IllegalReason::GameOver);
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
    assert_eq!(err.index, 2);
    assert_eq!(err.reason, IllegalReason::CannonNeedsOneScreen);
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
