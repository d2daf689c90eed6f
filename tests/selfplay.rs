//! The match runner: the book is legal, and two engines finish a short match.

use std::process::Command;

#[test]
fn opening_book_is_legal() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings.txt")).unwrap();
    let book = chuhe::selfplay::read_openings(&text).unwrap();
    assert!(book.len() >= 30);
    assert!(chuhe::selfplay::read_openings("h2e2 h2e2").is_err());
}

/// Runs a two-game match of the built engine against itself with these budget flags;
/// the printed games and score.
fn short_match(budget: &[&str]) -> String {
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let out = Command::new(exe)
        .args(["match", "--engine-a", &format!("{exe} uci"), "--engine-b", &format!("{exe} uci --hash-mb 1")])
        .args(["--games", "2"])
        .args(budget)
        .args(["--openings", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings.txt")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("game ")).count(), 2, "{text}");
    text
}

#[test]
fn a_short_match_runs_to_the_end() {
    let text = short_match(&["--movetime", "5", "--max-plies", "30"]);
    assert!(text.lines().last().unwrap().starts_with("A: +"), "{text}");
}

#[test]
fn elo_estimate_is_symmetric() {
    let (d, _) = chuhe::selfplay::elo(0.5, 100);
    assert!(d.abs() < 1e-9);
    let (up, m) = chuhe::selfplay::elo(0.75, 100);
    let (down, _) = chuhe::selfplay::elo(0.25, 100);
    assert!((up + down).abs() < 1e-6 && up > 150.0 && m > 0.0);
}

#[test]
fn a_match_at_fixed_nodes_is_repeatable() {
    let budget = ["--nodes", "300", "--max-plies", "24"];
    // Node budgets make the games independent of timing: the same moves both times.
    assert_eq!(short_match(&budget), short_match(&budget));
}
