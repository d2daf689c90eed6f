//! The `chuhe adjudicate` and `chuhe analyze` command lines under the named rule sets.

use std::process::Command;

use chuhe::rules::types::Move;

use crate::common;

const FEN: &str = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
const MOVES: &str = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2";

fn adjudicate(extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["adjudicate", "--variant", "xiangqi", "--fen", FEN, "--moves", MOVES])
        .args(extra)
        .output()
        .expect("run chuhe");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn adjudicate_with_asian_rules_finds_the_perpetual_chase() {
    let text = adjudicate(&["--rules", "asian"]);
    assert!(text.contains("result: GAME_RESULT_WIN"), "{text}");
    assert!(text.contains("winner: PLAYER_BLACK"), "{text}");
    assert!(text.contains("termination: TERMINATION_PERPETUAL_CHASE"), "{text}");
    assert!(text.contains("rule set: RULE_SET_ASIAN_V1\nrule: perpetual-chase"), "{text}");
    assert!(text.contains("cycle: plies 6-9"), "{text}");
    assert!(text.contains("red chasing the black chariot"), "{text}");

    let json: serde_json::Value = serde_json::from_str(&adjudicate(&["--rules", "asian", "--json"])).unwrap();
    let chases = json["chases"].as_array().expect("chases");
    assert_eq!(chases.len(), 2);
    assert_eq!(chases[0]["chaserKind"], "PIECE_KIND_CANNON");
    // b7; the 9x10 points carry no name.
    assert_eq!((&chases[0]["chased"]["file"], &chases[0]["chased"]["rank"]), (&1.into(), &7.into()));
    assert!(chases[0]["chased"].get("name").is_none());
}

#[test]
fn adjudicate_with_other_rules() {
    assert!(adjudicate(&["--rules", "tournament"]).contains("TERMINATION_PERPETUAL_CHASE"));
    // The simplified rules (the default) draw a chase.
    assert!(adjudicate(&[]).contains("termination: TERMINATION_REPETITION_DRAW"));
}

#[test]
fn analyze_follows_the_rules_flag() {
    let best = |rules: &str| {
        let cycle = &MOVES[..MOVES.len() - " b2a2".len()];
        let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args(["analyze", "--fen", FEN, "--moves", cycle, "--depth", "4", "--hash-mb", "4", "--rules", rules])
            .output()
            .expect("run chuhe");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().find_map(|l| l.strip_prefix("bestmove: ")).unwrap().to_string()
    };
    assert_eq!(best("simplified"), "b2a2");
    assert_ne!(best("asian"), "b2a2");
}

#[test]
fn janggi_records_default_to_the_casual_rules() {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["adjudicate", "--variant", "janggi", "--moves", "pass pass"])
        .output()
        .expect("run chuhe");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("rule set: RULE_SET_JANGGI_CASUAL_V1\nrule: double-pass"), "{text}");
    assert!(text.contains("result: GAME_RESULT_DRAW"), "{text}");
}

#[test]
fn analyze_with_a_node_limit_has_no_time_limit() {
    // Five million nodes take longer here than the one second a call without limits gets.
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["analyze", "--nodes", "5000000", "--hash-mb", "16", "--json"])
        .output()
        .expect("run chuhe");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["stopReason"], "STOP_REASON_NODES", "{v}");
    assert_eq!(v["nodes"], "5000000");
}

#[test]
fn analyze_writes_scores_as_the_api_does() {
    let analyze = |fen: &str| {
        let out =
            Command::new(env!("CARGO_BIN_EXE_chuhe")).args(["analyze", "--fen", fen, "--depth", "6"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let field = |name: &str| text.lines().find_map(|l| l.strip_prefix(name)).unwrap().to_string();
        let pos = chuhe::notation::fen::xiangqi(fen).unwrap();
        // The best line and every depth's line are legal from the position, and
        // begin with the best move.
        let best = Move::parse_iccs(&field("bestmove: ")).expect("an ICCS best move");
        let progress = String::from_utf8(out.stderr).unwrap();
        for pv in std::iter::once(field("pv: "))
            .chain(progress.lines().filter_map(|l| l.split(" pv ").nth(1)).map(String::from))
        {
            let pv: Vec<Move> = pv.split_whitespace().map(|t| Move::parse_iccs(t).unwrap()).collect();
            common::mate::assert_legal_line(&pos, &pv, &text);
        }
        assert_eq!(field("pv: ").split_whitespace().next(), Some(best.to_string().as_str()), "{text}");
        (best, field("score: "), progress)
    };
    // Two chariots mate in two moves: the score counts Red's moves, as Score.mate does.
    // Several first moves mate in two (a1e1 and a1a8 among them): any of them, as the
    // rules judge it.
    let mated = "4k4/9/9/9/9/9/9/9/R8/R2K5 w - - 0 1";
    let (best, score, progress) = analyze(mated);
    assert_eq!(score, "mate 2");
    let pos = chuhe::notation::fen::xiangqi(mated).unwrap();
    assert!(common::mate::Solver::default().mates_in_exactly(&pos, best, 2), "{best} does not mate in two");
    assert!(progress.lines().any(|l| l.starts_with("depth 6 score mate 2 ")), "{progress}");
    let (_, score, _) = analyze("startpos");
    assert!(score.strip_prefix("cp ").is_some_and(|cp| cp.parse::<i32>().is_ok()), "{score}");
}
