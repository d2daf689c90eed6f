//! `chuhe tune`: game records in, the evaluation's weights out.

use std::process::{Command, Output};

fn chuhe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("run chuhe")
}

/// Two short games as `chuhe match --pgn` writes them (cut short): Red wins the first,
/// the second is drawn.
const RECORDS: &str = "[Event \"chuhe match\"]\n[Round \"1\"]\n[Result \"1-0\"]\n\
    [FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\"]\n[Format \"ICCS\"]\n\n\
    1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 h7i7 4. h0h9 g7h9 5. e2e6 1-0\n\n\
    [Event \"chuhe match\"]\n[Round \"2\"]\n[Result \"1/2-1/2\"]\n\n\
    1. c3c4 c6c5 2. g3g4 g6g5 3. b0c2 b9c7 1/2-1/2\n";

#[test]
fn tune_writes_weights_in_the_layout_the_build_reads() {
    let dir = std::env::temp_dir().join(format!("chuhe-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (records, weights) = (dir.join("games.pgn"), dir.join("weights.rs"));
    std::fs::write(&records, RECORDS).unwrap();
    let out = chuhe(&[
        "tune",
        records.to_str().unwrap(),
        "--out",
        weights.to_str().unwrap(),
        "--epochs",
        "20",
        "--skip-plies",
        "0",
        "--hold-out",
        "0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("games.pgn: 2 games, 0 left out, 17 positions"), "{text}");
    let written = std::fs::read_to_string(&weights).unwrap();
    let current = include_str!("../../src/search/eval_weights.rs");
    // The same layout: only the numbers differ.
    let shape = |s: &str| s.chars().filter(|c| !c.is_ascii_digit() && *c != '-').collect::<String>();
    assert_eq!(shape(&written), shape(current));
    assert_ne!(written, current, "twenty steps move the weights");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tune_without_records_it_can_read_fails_with_a_message() {
    let out = chuhe(&["tune", "/nonexistent/games.pgn", "--out", "/nonexistent/weights.rs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/games.pgn"));
}
