//! The `chuhe` command line: `perft` and `moves`, their output and their exit codes.

use std::process::{Command, Output};

use std::collections::BTreeMap;

use chuhe::notation::fen;
use chuhe::rules::types::Move;

use crate::common;

/// Black general on e9 alone; Red chariots on a9 (check along the rank) and a8 (the
/// rank below), Red general on d0 (the d-file): no escape.
const CHECKMATE: &str = "R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1";
/// Black general on e9 alone, not in check: e8 is covered by the chariot on a8, d9 by
/// the Red general's open file, f9 by the chariot on f0.
const STALEMATE: &str = "4k4/R8/9/9/9/9/9/9/9/3K1R3 b - - 0 1";

fn chuhe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("run chuhe")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}, stderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// Exit code 2 and a message on stderr, nothing on stdout.
fn failure(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.trim().is_empty(), "no message on stderr");
    err
}

/// The moves printed by `chuhe moves`, then the status and check lines.
fn parse_moves_output(text: &str) -> (Vec<String>, String, String) {
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{text}");
    let (moves, tail) = lines.split_at(lines.len() - 2);
    let status = tail[0].strip_prefix("status: ").unwrap_or_else(|| panic!("no status line: {text}"));
    let check = tail[1].strip_prefix("check: ").unwrap_or_else(|| panic!("no check line: {text}"));
    for m in moves {
        assert!(Move::parse_iccs(m).is_some_and(|p| p.to_string() == *m), "not an ICCS move: {m:?}");
    }
    (moves.iter().map(|s| s.to_string()).collect(), status.to_string(), check.to_string())
}

/// The reference counts of `tests/data/perft-divide.tsv` for the Xiangqi position
/// `label` at `depth`, by root move (sorted).
fn reference_divide(label: &str, depth: u32) -> BTreeMap<String, u64> {
    let rows: BTreeMap<String, u64> = common::divide_rows()
        .into_iter()
        .filter(|r| r.variant == "xiangqi" && r.label == label && r.depth == depth)
        .map(|r| (r.mv, r.nodes))
        .collect();
    assert!(!rows.is_empty(), "no reference rows for {label} at depth {depth}");
    rows
}

/// Red's legal moves after h2e2 h9g7, counted by hand: the start's 44, less the
/// elephants' steps to e2 and the b2 cannon's moves to e2, f2 and g2 (now behind the
/// central cannon), with the cannon's moves from e2 instead of h2.
fn reference_moves_after_h2e2_h9g7() -> Vec<String> {
    let mut moves: Vec<String> = "a0a1 a0a2 i0i1 i0i2 b0a2 b0c2 h0g2 h0i2 c0a2 g0i2 d0e1 f0e1 e0e1 \
         a3a4 c3c4 e3e4 g3g4 i3i4 b2a2 b2c2 b2d2 b2b1 b2b3 b2b4 b2b5 b2b6 b2b9 \
         e2d2 e2c2 e2f2 e2g2 e2h2 e2i2 e2e1 e2e6"
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(moves.len(), 35);
    moves.sort();
    moves
}

/// The legal moves of the Xiangqi position `label`, from the reference table (its
/// depth-1 rows), sorted.
fn reference_moves(label: &str) -> Vec<String> {
    reference_divide(label, 1).into_keys().collect()
}

#[test]
fn perft_start_depth_3() {
    let out = stdout(&chuhe(&["perft", "--variant", "xiangqi", "--fen", "startpos", "--depth", "3"]));
    assert_eq!(out.trim(), "79666");
}

#[test]
fn perft_from_a_fen_with_moves() {
    // pika-bench-mid1 at depth 2, and the start position after two moves at depth 1.
    let out = stdout(&chuhe(&[
        "perft",
        "--fen",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "--depth",
        "2",
    ]));
    assert_eq!(out.trim(), "1128");
    // The start after h2e2, at depths 1 and 2: the reference counts under h2e2 of the
    // start's divide at depths 2 and 3.
    for depth in [1, 2] {
        let out = stdout(&chuhe(&["perft", "--fen", "startpos", "--moves", "h2e2", "--depth", &depth.to_string()]));
        assert_eq!(out.trim(), reference_divide("startpos", depth + 1)["h2e2"].to_string());
    }
    let out = stdout(&chuhe(&["perft", "--fen", "startpos", "--moves", "h2e2 h9g7", "--depth", "1"]));
    assert_eq!(out.trim(), reference_moves_after_h2e2_h9g7().len().to_string());
}

#[test]
fn perft_divide() {
    let out = stdout(&chuhe(&["perft", "--variant", "xiangqi", "--fen", "startpos", "--depth", "3", "--divide"]));
    let lines: Vec<&str> = out.lines().collect();
    let (total, per_move) = lines.split_last().expect("output");
    assert_eq!(total.trim(), "79666");
    let mut sum = 0;
    let mut counts = BTreeMap::new();
    for line in per_move.iter().filter(|l| !l.trim().is_empty()) {
        let (m, n) = line.split_once(": ").unwrap_or_else(|| panic!("not `move: count`: {line:?}"));
        assert!(Move::parse_iccs(m).is_some(), "{m:?}");
        let n = n.parse::<u64>().unwrap_or_else(|_| panic!("count {n:?}"));
        sum += n;
        assert!(counts.insert(m.to_string(), n).is_none(), "{m} printed twice");
    }
    assert_eq!(sum, 79666);
    // Every move's count as in tests/data/perft-divide.tsv.
    assert_eq!(counts, reference_divide("startpos", 3));
}

#[test]
fn moves_of_the_start_position() {
    let (moves, status, check) = parse_moves_output(&stdout(&chuhe(&["moves", "--fen", "startpos"])));
    assert_eq!(moves.len(), 44);
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(sorted, reference_moves("startpos"));
    assert!(moves.contains(&"h2e2".to_string()));
    assert_eq!(status, "ongoing");
    assert_eq!(check, "no");
}

#[test]
fn moves_are_applied() {
    let (moves, status, _) =
        parse_moves_output(&stdout(&chuhe(&["moves", "--fen", "startpos", "--moves", "h2e2 h9g7"])));
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(sorted, reference_moves_after_h2e2_h9g7());
    // The central cannon now stands on e2 and can take the pawn on e6 over e3.
    assert!(moves.contains(&"e2e6".to_string()));
    assert!(!moves.contains(&"h2e2".to_string()));
    assert_eq!(status, "ongoing");
}

#[test]
fn checkmate() {
    let pos = fen::xiangqi(CHECKMATE).expect("a valid position");
    assert!(pos.in_check());
    let (moves, status, check) = parse_moves_output(&stdout(&chuhe(&["moves", "--fen", CHECKMATE])));
    assert!(moves.is_empty(), "{moves:?}");
    assert_eq!(status, "checkmate");
    assert_eq!(check, "yes");
    // Reached by a move: the chariot on a0 goes up to a9, the one on b8 holds the rank.
    let before = "4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1";
    let (_, status, check) = parse_moves_output(&stdout(&chuhe(&["moves", "--fen", before, "--moves", "a0a9"])));
    assert_eq!((status.as_str(), check.as_str()), ("checkmate", "yes"));
}

#[test]
fn stalemate() {
    let pos = fen::xiangqi(STALEMATE).expect("a valid position");
    assert!(!pos.in_check());
    let (moves, status, check) = parse_moves_output(&stdout(&chuhe(&["moves", "--fen", STALEMATE])));
    assert!(moves.is_empty(), "{moves:?}");
    assert_eq!(status, "stalemate");
    assert_eq!(check, "no");
}

#[test]
fn in_check_but_not_mated() {
    // Only one chariot on the ninth rank: the general steps down to e8.
    let (moves, status, check) = parse_moves_output(&stdout(&chuhe(&["moves", "--fen", "R3k4/9/9/9/9/9/9/9/9/3K5 b"])));
    assert_eq!(moves, vec!["e9e8".to_string()]);
    assert_eq!((status.as_str(), check.as_str()), ("ongoing", "yes"));
}

#[test]
fn bad_fen_exits_2() {
    let err = failure(&chuhe(&["moves", "--fen", "rnbakabnr/9/9 w - - 0 1"]));
    assert!(err.contains("ranks"), "{err}");
    let err = failure(&chuhe(&["perft", "--fen", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "--depth", "1"]));
    assert!(err.contains("face"), "{err}");
}

#[test]
fn illegal_move_exits_2() {
    // A cannon cannot pass over a piece without taking, a point emptied cannot move
    // again, and Black cannot move first.
    let err = failure(&chuhe(&["moves", "--fen", "startpos", "--moves", "h2h8"]));
    assert!(err.contains("h2h8") && err.contains("illegal"), "{err}");
    let err = failure(&chuhe(&["moves", "--fen", "startpos", "--moves", "h2e2 h2e2"]));
    assert!(err.contains("move 2"), "{err}");
    let err = failure(&chuhe(&["perft", "--fen", "startpos", "--moves", "h9g7", "--depth", "1"]));
    assert!(err.contains("illegal"), "{err}");
    // Not ICCS at all.
    let err = failure(&chuhe(&["moves", "--fen", "startpos", "--moves", "cannon-to-e2"]));
    assert!(err.contains("ICCS"), "{err}");
}

#[test]
fn handicap_presets_on_the_command_line() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string())
    };
    // One horse: Red's right horse is gone, so nothing moves from h0.
    let (code, text) = run(&["moves", "--preset", "one-horse"]);
    assert_eq!(code, Some(0));
    assert!(!text.lines().any(|l| l.starts_with("h0")), "{text}");
    assert!(text.lines().any(|l| l == "b0c2"), "{text}");
    // Two extra moves: after Red's first move Red moves again.
    let (_, text) = run(&["moves", "--preset", "two-moves", "--moves", "h2e2"]);
    assert!(text.lines().any(|l| l == "h0g2") && !text.lines().any(|l| l == "h9g7"), "{text}");
    let (code, text) = run(&["convert", "--preset", "two-moves", "--moves", "h2e2 h0g2", "--to", "chinese"]);
    assert_eq!(code, Some(0));
    assert_eq!(text.trim(), "炮二平五 马二进三");
    let (code, _) = run(&["moves", "--preset", "bogus"]);
    assert_eq!(code, Some(2));
    // Any number of moves: Red's sixth move after five.
    let (code, text) = run(&["moves", "--preset", "6-moves", "--moves", "h2e2 h0g2 i0h0 b0c2 a0b0"]);
    assert_eq!(code, Some(0));
    assert!(text.lines().any(|l| l == "c3c4") && !text.lines().any(|l| l == "h9g7"), "{text}");
    assert!(!text.lines().any(|l| l == "b2b6"), "no crossing during the opening moves: {text}");
    let (code, text) = run(&["convert", "--preset", "5-moves", "--moves", "h2e2 h0g2 i0h0 b0c2 a0b0 h9g7"]);
    assert_eq!(code, Some(0));
    assert_eq!(text.trim(), "h2e2 h0g2 i0h0 b0c2 a0b0 h9g7");
    let (code, _) = run(&["moves", "--preset", "11-moves"]);
    assert_eq!(code, Some(2));
}

#[test]
fn a_closed_output_ends_the_command_quietly() {
    // The reader goes away before the first line, as `chuhe moves | head -0` would.
    for args in [&["moves"][..], &["perft", "--depth", "2", "--divide"], &["moves", "--variant", "three-kingdoms"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run chuhe");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
    }
}

/// `chuhe serve` with a net file that cannot be loaded does not start, and says which
/// file and why.
#[test]
fn serve_refuses_a_bad_eval_file() {
    use chuhe::search::nnue::NetVariant;
    use chuhe::search::nnue::random::{Ranges, net_file};
    let dir = std::env::temp_dir().join(format!("chuhe-serve-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = net_file(NetVariant::Xiangqi, 16, 1, 400, 5, Ranges::TYPICAL);
    let truncated = dir.join("truncated.nnue");
    std::fs::write(&truncated, &good[..100]).unwrap();
    let wrong_shape = dir.join("wide.nnue");
    let mut wide = good.clone();
    wide[20..24].copy_from_slice(&20u32.to_le_bytes());
    std::fs::write(&wrong_shape, wide).unwrap();
    let xiangqi = dir.join("xiangqi.nnue");
    std::fs::write(&xiangqi, &good).unwrap();
    let serve = |flag: &str, path: &std::path::Path| {
        let path = path.display().to_string();
        failure(&chuhe(&["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", flag, &path]))
    };
    let err = serve("--eval-file", &truncated);
    assert!(err.contains(&format!("cannot start: net file {}: truncated: 100 bytes", truncated.display())), "{err}");
    let err = serve("--eval-file", &wrong_shape);
    assert!(
        err.contains(&format!("net file {}: hidden width 20, expected a multiple of 16", wrong_shape.display())),
        "{err}"
    );
    // A Xiangqi net is no Janggi net.
    let err = serve("--eval-file-janggi", &xiangqi);
    assert!(err.contains(&format!("net file {}: variant code 0, expected 1 (janggi)", xiangqi.display())), "{err}");
    let err = serve("--eval-file", &dir.join("missing.nnue"));
    assert!(err.contains("missing.nnue: cannot be read"), "{err}");
    // A device is never read: /dev/zero would fill the memory.
    let err = serve("--eval-file", std::path::Path::new("/dev/zero"));
    assert!(err.contains("cannot start: net file /dev/zero: not a regular file"), "{err}");
    // A net with its last weights damaged no longer loads and plays silently.
    let damaged = dir.join("damaged.nnue");
    let mut bytes = good.clone();
    let n = bytes.len();
    for b in &mut bytes[n - 32 - 64..n - 32] {
        *b = !*b;
    }
    std::fs::write(&damaged, bytes).unwrap();
    let err = serve("--eval-file", &damaged);
    assert!(err.contains(&format!("net file {}: damaged: its checksum", damaged.display())), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
