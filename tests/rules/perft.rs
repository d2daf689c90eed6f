//! Perft against the reference tables in `tests/data/`: total node counts
//! (`perft.tsv`) and per-root-move counts at depths 1-3 (`perft-divide.tsv`).
//!
//! This module checks the Xiangqi rows; the Janggi rows are checked by
//! `janggi_perft` (with its own node budget). A row of any other variant is a
//! failure: no test would check it.

use crate::common;

use std::collections::BTreeMap;

use chuhe::notation::fen;
use chuhe::rules::perft::{divide, perft};
use common::{PerftRow, divide_rows, perft_rows};

/// Rows of `perft.tsv` above this many nodes are left to the ignored full run.
/// `CHUHE_PERFT_BUDGET` overrides it.
const DEFAULT_BUDGET: u64 = 20_000_000;

fn budget() -> u64 {
    match std::env::var("CHUHE_PERFT_BUDGET") {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("CHUHE_PERFT_BUDGET={v:?} is not a number")),
        Err(_) => DEFAULT_BUDGET,
    }
}

/// Is a row of `variant` checked here? Janggi's rows are checked by
/// `janggi_perft`; a row of another variant fails, as no test checks it.
fn checked_here(variant: &str) -> bool {
    match variant {
        "xiangqi" => true,
        "janggi" => false,
        other => panic!("perft rows of variant {other:?}: no test checks them"),
    }
}

/// Leaf count of the Xiangqi `fen` to `depth`.
fn perft_of(fen_text: &str, depth: u32) -> u64 {
    let mut pos = fen::xiangqi(fen_text).unwrap_or_else(|e| panic!("{fen_text}: {e}"));
    let before = pos.clone();
    let nodes = perft(&mut pos, depth);
    assert_eq!(pos, before, "perft did not restore {fen_text}");
    nodes
}

/// Leaf counts under each root move (ICCS) of the Xiangqi `fen`.
fn divide_of(fen_text: &str, depth: u32) -> BTreeMap<String, u64> {
    let mut pos = fen::xiangqi(fen_text).unwrap_or_else(|e| panic!("{fen_text}: {e}"));
    let mut out = BTreeMap::new();
    for (m, n) in divide(&mut pos, depth) {
        let previous = out.insert(m.to_string(), n);
        assert!(previous.is_none(), "{fen_text}: move {m} generated twice");
    }
    out
}

/// Runs the rows of `perft.tsv` accepted by `take`; returns how many ran.
fn run_rows(take: impl Fn(&PerftRow) -> bool) -> usize {
    let mut ran = 0;
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for row in perft_rows() {
        if !checked_here(&row.variant) {
            continue;
        }
        if !take(&row) {
            skipped
                .push(format!("{} {} depth {} ({} nodes): over budget", row.variant, row.label, row.depth, row.nodes));
            continue;
        }
        let started = std::time::Instant::now();
        let got = perft_of(&row.fen, row.depth);
        ran += 1;
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{} {} depth {}: {got} nodes in {secs:.2} s ({:.1} M nodes/s)",
            row.variant,
            row.label,
            row.depth,
            got as f64 / secs.max(1e-9) / 1e6
        );
        if got != row.nodes {
            failures.push(format!(
                "{} {} depth {} ({}): expected {}, got {got}",
                row.variant, row.label, row.depth, row.fen, row.nodes
            ));
        }
    }
    for s in &skipped {
        println!("skipped: {s}");
    }
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
    ran
}

#[test]
fn perft_table_within_budget() {
    let budget = budget();
    println!("node budget per row: {budget}");
    let ran = run_rows(|row| row.nodes <= budget);
    assert!(ran >= 30, "only {ran} rows ran");
}

#[test]
#[ignore = "full perft table: minutes; run with cargo test --release --test rules perft_table_full -- --ignored"]
fn perft_table_full() {
    let ran = run_rows(|_| true);
    assert!(ran > 0);
}

#[test]
fn divide_table() {
    // (variant, label, fen, depth) -> expected counts per move
    let mut groups: BTreeMap<(String, String, String, u32), BTreeMap<String, u64>> = BTreeMap::new();
    for row in divide_rows() {
        let previous = groups
            .entry((row.variant.clone(), row.label.clone(), row.fen.clone(), row.depth))
            .or_default()
            .insert(row.mv.clone(), row.nodes);
        // The table repeats some rows verbatim; only a repeat with another count is wrong.
        assert!(
            previous.is_none_or(|n| n == row.nodes),
            "perft-divide.tsv gives {} two counts for {} depth {}",
            row.mv,
            row.label,
            row.depth
        );
    }
    let mut checked = 0;
    let mut failures = Vec::new();
    for ((variant, label, fen_text, depth), expected) in &groups {
        if !checked_here(variant) {
            continue;
        }
        let got = divide_of(fen_text, *depth);
        checked += 1;
        if &got == expected {
            continue;
        }
        let mut lines = vec![format!("{variant} {label} depth {depth} ({fen_text}):")];
        for (m, n) in expected {
            match got.get(m) {
                None => lines.push(format!("  {m}: missing (expected {n})")),
                Some(g) if g != n => lines.push(format!("  {m}: expected {n}, got {g}")),
                Some(_) => {}
            }
        }
        for (m, g) in &got {
            if !expected.contains_key(m) {
                lines.push(format!("  {m}: generated but not in the reference ({g})"));
            }
        }
        failures.push(lines.join("\n"));
    }
    println!("checked {checked} divide groups");
    assert!(failures.is_empty(), "divide mismatches:\n{}", failures.join("\n"));
    assert!(checked >= 24, "only {checked} xiangqi divide groups checked");
}

/// The reference tables themselves agree: each divide group sums to the perft row of
/// the same position and depth, where both exist.
#[test]
fn tables_are_consistent() {
    let mut per_move: BTreeMap<(String, String, u32, String), u64> = BTreeMap::new();
    for row in divide_rows() {
        // Verbatim repeats of a row count once.
        per_move.insert((row.variant, row.fen, row.depth, row.mv), row.nodes);
    }
    let mut sums: BTreeMap<(String, String, u32), u64> = BTreeMap::new();
    for ((variant, fen_text, depth, _), nodes) in per_move {
        *sums.entry((variant, fen_text, depth)).or_default() += nodes;
    }
    let mut matched = 0;
    for row in perft_rows() {
        if let Some(sum) = sums.get(&(row.variant.clone(), row.fen.clone(), row.depth)) {
            assert_eq!(*sum, row.nodes, "{} {} depth {}: divide sums to {sum}", row.variant, row.label, row.depth);
            matched += 1;
        }
    }
    assert!(matched > 0);
}
