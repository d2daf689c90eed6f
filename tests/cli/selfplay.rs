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

/// One `game` line of the match output.
#[derive(Debug, PartialEq)]
struct GameLine {
    number: usize,
    opening: usize,
    a_as: String,
    verdict: String,
    plies: usize,
    reason: String,
}

fn game_line(line: &str) -> GameLine {
    // game   1 opening  1 A as red   AWins after 57 plies: black is checkmated
    let (head, reason) = line.split_once(": ").unwrap_or_else(|| panic!("{line}"));
    let w: Vec<&str> = head.split_whitespace().collect();
    assert!(
        w.len() == 11
            && w[0] == "game"
            && w[2] == "opening"
            && w[4..6] == ["A", "as"]
            && w[8] == "after"
            && w[10] == "plies",
        "{line}"
    );
    GameLine {
        number: w[1].parse().unwrap(),
        opening: w[3].parse().unwrap(),
        a_as: w[6].to_string(),
        verdict: w[7].to_string(),
        plies: w[9].parse().unwrap_or_else(|_| panic!("{line}")),
        reason: reason.to_string(),
    }
}

/// Checks a two-game match's output: the games in order, each colour once for A from
/// the first opening, no illegal move, at least the opening and at most `max_plies`
/// plies, and the score line summing the verdicts. Returns the games.
fn check_match(text: &str, max_plies: usize) -> Vec<GameLine> {
    let book = chuhe::selfplay::read_openings(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings.txt")).unwrap(),
    )
    .unwrap();
    let games: Vec<GameLine> = text.lines().filter(|l| l.starts_with("game ")).map(game_line).collect();
    assert_eq!(games.len(), 2, "{text}");
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for (i, g) in games.iter().enumerate() {
        assert_eq!((g.number, g.opening), (i + 1, 1), "{text}");
        assert_eq!(g.a_as, if i == 0 { "red" } else { "black" }, "{text}");
        assert!(!g.reason.contains("illegal"), "an engine played an illegal move: {text}");
        assert!(g.plies >= book[0].len() && g.plies <= max_plies, "{g:?}");
        match g.verdict.as_str() {
            "AWins" => wins += 1,
            "Draw" => draws += 1,
            "BWins" => losses += 1,
            other => panic!("verdict {other}: {text}"),
        }
        if g.plies == max_plies && g.verdict == "Draw" {
            assert_eq!(g.reason, format!("{max_plies} plies played"), "{text}");
        }
    }
    let last = text.lines().last().unwrap();
    assert!(last.starts_with(&format!("A: +{wins} ={draws} -{losses} ")), "{text}");
    let score = (wins as f64 + 0.5 * draws as f64) / 2.0 * 100.0;
    assert!(last.contains(&format!("score {score:.1}%")), "{text}");
    games
}

#[test]
fn a_short_match_runs_to_the_end() {
    let text = short_match(&["--movetime", "5", "--max-plies", "30"]);
    check_match(&text, 30);
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
    // Node budgets make the games independent of timing: the same moves both times,
    // in games that went past their opening.
    let first = short_match(&budget);
    let games = check_match(&first, 24);
    assert!(games.iter().all(|g| g.plies > 2), "{first}");
    assert_eq!(first, short_match(&budget));
}

#[test]
fn a_match_on_a_clock_runs_to_the_end() {
    // Four seconds and 50 ms a move each: the engines manage their time and none loses on
    // it. Over 20 plies each side spends about half its clock, so a loaded machine that
    // stalls a process for a second does not decide the test (a two-second clock once
    // did, at load 11).
    let text = short_match(&["--tc", "4+0.05", "--max-plies", "20"]);
    let games = check_match(&text, 20);
    assert!(games.iter().all(|g| !g.reason.contains("on time")), "{text}");
}

#[test]
fn an_engine_past_its_time_loses() {
    // An engine that answers every `go` after 600 ms, on a clock of 250 ms: it loses on
    // time at its first move, with either colour.
    let dir = std::env::temp_dir().join(format!("chuhe-slow-engine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("slow.sh");
    crate::scripted_engine(&script, "", "sleep 0.6; echo bestmove a0a1");
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let out = Command::new(exe)
        .args(["match", "--engine-a", &format!("{exe} uci"), "--engine-b", &format!("sh {}", script.display())])
        .args(["--games", "2", "--tc", "0.25+0", "--max-plies", "30"])
        .args(["--openings", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings.txt")])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let games = check_match(&text, 30);
    for g in &games {
        let slow = if g.a_as == "red" { "black" } else { "red" };
        assert_eq!((g.verdict.as_str(), g.reason.clone()), ("AWins", format!("{slow} lost on time")), "{text}");
    }
}

/// A two-game match of the built engine against itself at fixed nodes, written to
/// `pgn`, with these extra flags.
fn recorded_match(pgn: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let _ = std::fs::remove_file(pgn);
    Command::new(exe)
        .args([
            "match",
            "--engine-a",
            &format!("{exe} uci --hash-mb 1"),
            "--engine-b",
            &format!("{exe} uci --hash-mb 1"),
        ])
        .args(["--games", "2", "--nodes", "200", "--max-plies", "24", "--pgn", pgn.to_str().unwrap()])
        .args(["--openings", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings.txt")])
        .args(extra)
        .output()
        .unwrap()
}

/// The moves of each game of a records file.
fn record_moves(pgn: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(pgn).unwrap();
    chuhe::fairplay::games::split_records(&text)
        .iter()
        .map(|r| chuhe::notation::record::import(r, None).unwrap().0.moves.iter().map(|m| m.to_string()).collect())
        .collect()
}

#[test]
fn an_assisted_player_plays_its_assistants_choices_on_its_share() {
    let dir = std::env::temp_dir().join(format!("chuhe-assist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = env!("CARGO_BIN_EXE_chuhe");
    let assistant = format!("{exe} uci --hash-mb 1");
    let (assisted, strong, plain, none) = (dir.join("a.pgn"), dir.join("s.pgn"), dir.join("p.pgn"), dir.join("n.pgn"));
    let names = ["--name-a", "weak", "--elo-a", "1500", "--name-b", "helped", "--elo-b", "1600"];
    let out = recorded_match(&assisted, &[&names[..], &["--assist-b", &assistant, "--assist-nodes", "3000"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Assisted on every move, B plays what the assistant plays in its place.
    assert!(recorded_match(&strong, &["--nodes-b", "3000"]).status.success());
    assert_eq!(record_moves(&assisted), record_moves(&strong));
    assert_ne!(record_moves(&assisted), {
        assert!(recorded_match(&plain, &[]).status.success());
        record_moves(&plain)
    });
    // On a share of 0, never.
    let flags = ["--assist-b", &assistant, "--assist-nodes", "3000", "--assist-share-b", "0"];
    assert!(recorded_match(&none, &flags).status.success());
    assert_eq!(record_moves(&none), record_moves(&plain));
    // The records name the players and their ratings, each on its colour.
    let text = std::fs::read_to_string(&assisted).unwrap();
    let records = chuhe::fairplay::games::split_records(&text);
    let (first, _) = chuhe::notation::record::import(records[0], None).unwrap();
    let (second, _) = chuhe::notation::record::import(records[1], None).unwrap();
    assert_eq!(
        [first.tag("Red"), first.tag("RedElo"), first.tag("Black"), first.tag("BlackElo")],
        [Some("weak"), Some("1500"), Some("helped"), Some("1600")]
    );
    assert_eq!([second.tag("Red"), second.tag("BlackElo")], [Some("helped"), Some("1500")]);
    // A share outside [0, 1] is refused.
    let out = recorded_match(&none, &["--assist-b", &assistant, "--assist-share-b", "1.5"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("1.5"));
    std::fs::remove_dir_all(&dir).unwrap();
}
