//! Janggi perft against the reference counts in `tests/data/perft.tsv` and the per-move
//! counts in `tests/data/perft-divide.tsv` (casual rules: a pass counts as a move
//! unless in check, two passes in a row end the game, bikjang restricts nothing).
//!
//! The default run checks every row up to [`DEFAULT_BUDGET`] nodes; all rows run with
//! `cargo test --test rules janggi_perft_all_rows -- --ignored` (the test profile is optimised).

use std::collections::BTreeMap;

use chuhe::notation::fen;
use chuhe::rules::perft::{divide, perft};

/// Rows with more leaf nodes than this wait for the ignored test (the default run
/// counts about 22 M nodes in all).
const DEFAULT_BUDGET: u64 = 8_000_000;

struct Row {
    label: String,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn janggi_rows() -> Vec<Row> {
    data("perft.tsv")
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c[0] == "janggi")
        .map(|c| Row {
            label: c[1].to_string(),
            fen: c[2].to_string(),
            depth: c[3].parse().unwrap(),
            nodes: c[4].parse().unwrap(),
        })
        .collect()
}

fn check_rows(budget: u64) {
    let rows = janggi_rows();
    assert!(rows.len() >= 30, "expected the janggi rows of the reference table, found {}", rows.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in rows.iter().filter(|r| r.nodes <= budget) {
        let mut pos = fen::janggi(&row.fen).unwrap_or_else(|e| panic!("{}: {e}", row.label));
        let got = perft(&mut pos, row.depth);
        if got != row.nodes {
            failures.push(format!("{} depth {}: {got}, expected {}", row.label, row.depth, row.nodes));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
    assert!(checked > 0);
}

#[test]
fn janggi_perft_within_budget() {
    check_rows(DEFAULT_BUDGET);
}

#[test]
#[ignore = "about 306 M nodes; run with `cargo test --test rules janggi_perft_all_rows -- --ignored`"]
fn janggi_perft_all_rows() {
    check_rows(u64::MAX);
}

/// Each root move's count at depths 1-3 against the reference, so that a mismatch names
/// the move that goes wrong (and a missing or extra move shows as such).
#[test]
fn janggi_divide_depths_1_to_3() {
    // (label, fen, depth) -> move -> nodes
    let mut expected: BTreeMap<(String, String, u32), BTreeMap<String, u64>> = BTreeMap::new();
    for line in data("perft-divide.tsv").lines() {
        let c: Vec<&str> = line.split('\t').collect();
        if c[0] != "janggi" {
            continue;
        }
        let key = (c[1].to_string(), c[2].to_string(), c[3].parse().unwrap());
        let nodes: u64 = c[5].parse().unwrap();
        // The table repeats some rows verbatim; a repeat must agree.
        if let Some(old) = expected.entry(key).or_default().insert(c[4].to_string(), nodes) {
            assert_eq!(old, nodes, "conflicting reference rows for {line}");
        }
    }
    assert!(!expected.is_empty());
    let mut failures = Vec::new();
    for ((label, fen_text, depth), moves) in &expected {
        let mut pos = fen::janggi(fen_text).unwrap_or_else(|e| panic!("{label}: {e}"));
        let got: BTreeMap<String, u64> =
            divide(&mut pos, *depth).into_iter().map(|(m, n)| (m.to_string(), n)).collect();
        for (m, n) in moves {
            match got.get(m) {
                None => failures.push(format!("{label} d{depth}: {m} missing (expected {n})")),
                Some(g) if g != n => failures.push(format!("{label} d{depth}: {m} gives {g}, expected {n}")),
                _ => {}
            }
        }
        for (m, g) in &got {
            if !moves.contains_key(m) {
                failures.push(format!("{label} d{depth}: {m} is extra ({g})"));
            }
        }
    }
    assert!(failures.is_empty(), "divide mismatches:\n{}", failures.join("\n"));
}
