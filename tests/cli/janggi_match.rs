//! `chuhe match --janggi`: a Janggi match against an engine that writes ranks 1-10 and
//! passes as Fairy-Stockfish does (its general's point twice).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes into `dir` an engine that always passes: `e2e2` for Cho (its general on e2 in
/// ranks 1-10), `e9e9` for Han, told apart by the number of moves played; it appends
/// each `go` command it is sent to `go.txt` in `dir`. Returns the script's path.
fn passing_engine(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let script = dir.join("pass.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             n=0\n\
             while read -r line; do\n\
               case \"$line\" in\n\
                 uci) echo 'option name UCI_Variant type combo default janggi var janggi'; echo uciok ;;\n\
                 isready) echo readyok ;;\n\
                 position*) n=$(echo \"$line\" | sed -n 's/.* moves //p' | wc -w) ;;\n\
                 go*) echo \"$line\" >> {}; if [ $((n % 2)) -eq 0 ]; then echo bestmove e2e2; else echo bestmove e9e9; fi ;;\n\
                 quit) exit 0 ;;\n\
               esac\n\
             done\n",
            dir.join("go.txt").display()
        ),
    )
    .unwrap();
    script
}

/// `chuhe match --janggi` of chuhe (A) against the passing engine (B, ranks from 1),
/// written into a fresh directory named after `name`, with `args` added and the games
/// recorded in `games.pgn` there: the output and the directory (the test removes it).
fn match_against_the_passing_engine(name: &str, args: &[&str]) -> (std::process::Output, PathBuf) {
    let dir = std::env::temp_dir().join(format!("chuhe-{name}-{}", std::process::id()));
    let script = passing_engine(&dir);
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let out = Command::new(exe)
        .args(["match", "--janggi", "--engine-a", &format!("{exe} uci"), "--engine-b"])
        .arg(format!("sh {}", script.display()))
        .args(["--ranks-b", "1"])
        .args(args)
        .arg("--pgn")
        .arg(dir.join("games.pgn"))
        .output()
        .unwrap();
    (out, dir)
}

#[test]
fn a_janggi_match_reads_passes_written_as_the_general_s_point() {
    let (out, dir) = match_against_the_passing_engine(
        "passing-engine",
        &["--games", "2", "--nodes", "300", "--random-openings", "2", "--max-plies", "6"],
    );
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap_or_default();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let games: Vec<&str> = text.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 2, "{text}");
    // Every pass is read as one: the games end at the ply limit or by two passes in a
    // row (if the engine under test passes back), never by an illegal move.
    for g in &games {
        assert!(g.contains("Draw after"), "{text}");
        assert!(g.ends_with("6 plies played") || g.contains("two passes in a row"), "{text}");
    }
    assert!(pgn.contains("[FEN \"rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1\"]"));
    assert!(pgn.matches(" pass").count() >= 4, "{pgn}");
}

#[test]
fn a_janggi_match_needs_random_openings() {
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let out = Command::new(exe)
        .args(["match", "--janggi", "--engine-a", &format!("{exe} uci"), "--engine-b", &format!("{exe} uci")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--random-openings"));
}

/// The `go` commands engine B (the passing engine) was sent in a two-game match with
/// `args` added; the match must succeed and B must have moved in each game.
fn go_commands_of_engine_b(name: &str, args: &[&str]) -> Vec<String> {
    let (out, dir) = match_against_the_passing_engine(name, args);
    let go = std::fs::read_to_string(dir.join("go.txt")).unwrap_or_default();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Each game has at least one move of B's after the two-ply opening.
    let lines: Vec<String> = go.lines().map(str::to_string).collect();
    assert!(lines.len() >= 2, "{go}");
    lines
}

/// A match between two chuhe engines with `args` is refused, naming `flag`.
fn refused_naming(args: &[&str], flag: &str) {
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let out = Command::new(exe)
        .args(["match", "--engine-a", &format!("{exe} uci"), "--engine-b", &format!("{exe} uci")])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains(flag), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn engine_b_can_have_its_own_node_budget() {
    let go = go_commands_of_engine_b(
        "nodes-b-engine",
        &["--games", "2", "--nodes", "300", "--nodes-b", "120", "--random-openings", "2", "--max-plies", "8"],
    );
    assert!(go.iter().all(|l| l == "go nodes 120"), "{go:?}");
    refused_naming(&["--nodes-b", "5"], "--nodes");
}

#[test]
fn engine_b_can_have_time_odds() {
    let go = go_commands_of_engine_b(
        "movetime-b-engine",
        &["--games", "2", "--movetime", "20", "--movetime-b", "160", "--random-openings", "2", "--max-plies", "8"],
    );
    assert!(go.iter().all(|l| l == "go movetime 160"), "{go:?}");
    // Time odds go with neither a clock nor node budgets.
    refused_naming(&["--movetime-b", "160", "--tc", "10+0.1"], "--movetime-b");
    refused_naming(&["--movetime-b", "160", "--nodes", "300"], "--movetime-b");
}
