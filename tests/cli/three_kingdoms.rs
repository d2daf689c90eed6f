//! `chuhe` on the command line for Three Kingdoms: perft, moves, analyze, adjudicate.

use std::process::{Command, Output};

use chuhe::rules::perft;
use chuhe::rules::three_kingdoms::{MoveList, Position};

fn chuhe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("run chuhe")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "chuhe failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn field<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines().find_map(|l| l.strip_prefix(name)).unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// Green's chariot on e3 can take Red's general on e1 (a general is not the last one:
/// the game goes on, so the score is not a mate).
const GENERAL_EN_PRISE: &str = "4K4/9/9/4P4/9 4K4/9/4rR4/9/9 4K4/9/9/4P4/9 R RGB - 0 1";

/// Two cycles of twelve plies: the start position stands for the third time.
fn drawn_record() -> String {
    let cycle = ["Ra1-Ra2", "Ga1-Ga2", "Ba1-Ba2", "Ra2-Ra1", "Ga2-Ga1", "Ba2-Ba1"];
    cycle.iter().cycle().take(12).copied().collect::<Vec<_>>().join(" ")
}

#[test]
fn perft_and_moves_match_the_library() {
    for (flag_bearers, extra) in [(true, None), (false, Some("--no-flag-bearers"))] {
        let mut pos = Position::startpos(flag_bearers);
        let mut args = vec!["perft", "--variant", "three-kingdoms", "--depth", "2"];
        args.extend(extra);
        let text = stdout(&chuhe(&args));
        let nodes: u64 = text.split_whitespace().rev().find_map(|w| w.parse().ok()).expect("a count");
        assert_eq!(nodes, perft::perft(&mut pos, 2));

        let mut args = vec!["moves", "--variant", "three-kingdoms"];
        args.extend(extra);
        let text = stdout(&chuhe(&args));
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut expected: Vec<String> = list.iter().map(|&m| pos.move_text(m)).collect();
        expected.sort();
        let mut listed: Vec<String> = text.lines().filter(|l| !l.contains(':')).map(str::to_string).collect();
        listed.sort();
        assert_eq!(listed, expected);
    }
}

#[test]
fn analyze_finds_the_capture_of_a_general() {
    let text = stdout(&chuhe(&["analyze", "--variant", "three-kingdoms", "--fen", GENERAL_EN_PRISE, "--depth", "3"]));
    assert_eq!(field(&text, "bestmove: "), "Ge3xGe1");
    assert!(field(&text, "pv: ").starts_with("Ge3xGe1 "), "{text}");
    assert!(field(&text, "score: ").starts_with("cp "), "{text}");
    assert!(field(&text, "depth: ").starts_with("3 "), "{text}");

    let json = stdout(&chuhe(&[
        "analyze",
        "--variant",
        "three-kingdoms",
        "--fen",
        "startpos",
        "--depth",
        "2",
        "--multipv",
        "3",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let lines = v["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 3);
    assert_eq!(v["bestMove"], lines[0]["pv"][0]);
    assert_eq!(v["depth"], 2);
    let pos = Position::startpos(true);
    let first = chuhe::rules::three_kingdoms::Move::parse(v["bestMove"].as_str().unwrap()).unwrap();
    assert!(pos.is_legal(first), "{first}");
}

#[test]
fn analyze_of_a_drawn_record_searches_nothing() {
    let record = drawn_record();
    let json =
        stdout(&chuhe(&["analyze", "--variant", "three-kingdoms", "--moves", &record, "--depth", "3", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["stopReason"], "STOP_REASON_NO_LEGAL_MOVES");
    assert!(v.get("bestMove").is_none(), "{json}");

    let text = stdout(&chuhe(&["adjudicate", "--variant", "three-kingdoms", "--moves", &record]));
    assert_eq!(field(&text, "result: "), "GAME_RESULT_DRAW");
    assert_eq!(field(&text, "termination: "), "TERMINATION_REPETITION_DRAW");
}

#[test]
fn rule_sets_of_other_variants_are_refused() {
    let out = chuhe(&["analyze", "--variant", "three-kingdoms", "--depth", "1", "--rules", "asian"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("RULE_SET_THREE_KINGDOMS_V1"));
    let out = chuhe(&["analyze", "--variant", "three-kingdoms", "--depth", "1", "--rules", "three-kingdoms"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
