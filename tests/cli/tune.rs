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

/// Tunes 20 steps on `records` (written to `file` in a fresh directory named `dir`),
/// with `--janggi` if `janggi`; checks that the weights written have the layout of
/// `current` (only the numbers differ) and moved. Returns the command's output and
/// the directory.
fn tune_twenty_steps(
    dir: &str,
    file: &str,
    records: &str,
    janggi: bool,
    current: &str,
) -> (String, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{dir}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (path, weights) = (dir.join(file), dir.join("weights.rs"));
    std::fs::write(&path, records).unwrap();
    let mut args = vec!["tune"];
    if janggi {
        args.push("--janggi");
    }
    args.extend([path.to_str().unwrap(), "--out", weights.to_str().unwrap()]);
    args.extend(["--epochs", "20", "--skip-plies", "0", "--hold-out", "0"]);
    let out = chuhe(&args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&weights).unwrap();
    let shape = |s: &str| s.chars().filter(|c| !c.is_ascii_digit() && *c != '-').collect::<String>();
    assert_eq!(shape(&written), shape(current));
    assert_ne!(written, current, "twenty steps move the weights");
    (text, dir)
}

#[test]
fn tune_writes_weights_in_the_layout_the_build_reads() {
    let current = include_str!("../../src/search/eval_weights.rs");
    let (text, dir) = tune_twenty_steps("chuhe-tune", "games.pgn", RECORDS, false, current);
    assert!(text.contains("games.pgn: 2 games, 0 left out, 17 positions"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tune_without_records_it_can_read_fails_with_a_message() {
    let out = chuhe(&["tune", "/nonexistent/games.pgn", "--out", "/nonexistent/weights.rs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/games.pgn"));
}

/// Two short Janggi games as `chuhe match --janggi --pgn` writes them (cut short), with
/// passes: Han wins the first, the second is drawn.
const JANGGI_RECORDS: &str = "[Event \"chuhe match\"]\n[Round \"1\"]\n[Result \"0-1\"]\n\
    [FEN \"rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1\"]\n[Format \"ICCS\"]\n\n\
    1. b0c2 b9c7 2. pass h9g7 3. c3d3 c6d6 4. pass pass 0-1\n\n\
    [Event \"chuhe match\"]\n[Round \"2\"]\n[Result \"1/2-1/2\"]\n\n\
    1. h0g2 h9g7 2. i0i1 i9i8 1/2-1/2\n";

#[test]
fn tune_janggi_writes_weights_in_the_janggi_layout() {
    let current = include_str!("../../src/search/janggi_weights.rs");
    let (text, dir) = tune_twenty_steps("chuhe-tune-janggi", "janggi.pgn", JANGGI_RECORDS, true, current);
    // Eight plies give nine positions, four give five.
    assert!(text.contains("janggi.pgn: 2 games, 0 left out, 14 positions"), "{text}");
    let records = dir.join("janggi.pgn");
    // The same records read as Xiangqi: the first game's pass is no Xiangqi move (the
    // second game's four moves are Xiangqi moves too).
    let xiangqi_weights = dir.join("xiangqi_weights.rs");
    let out = chuhe(&["tune", records.to_str().unwrap(), "--out", xiangqi_weights.to_str().unwrap(), "--epochs", "1"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("janggi.pgn: 1 games, 1 left out"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A UCI engine (a shell script in `dir`) that reports 50 centipawns for the side to
/// move at every search, after a bound it reports first that must not count.
fn fifty_centipawn_engine(dir: &std::path::Path) -> std::path::PathBuf {
    let script = dir.join("fifty.sh");
    crate::scripted_engine(
        &script,
        "echo 'option name UCI_Variant type combo default xiangqi var xiangqi var janggi';",
        "echo 'info depth 2 score cp 900 lowerbound'; echo 'info depth 1 score cp 50 nodes 20'; echo bestmove a0a1",
    );
    script
}

#[test]
fn label_writes_each_chosen_position_with_the_engine_s_score_for_cho_and_tune_reads_it() {
    let dir = std::env::temp_dir().join(format!("chuhe-label-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (records, labels, weights) = (dir.join("janggi.pgn"), dir.join("labels.txt"), dir.join("weights.rs"));
    std::fs::write(&records, JANGGI_RECORDS).unwrap();
    let engine = format!("sh {}", fifty_centipawn_engine(&dir).display());
    let out = chuhe(
        &["label", "--janggi", records.to_str().unwrap(), "--engine", &engine, "--nodes", "100"]
            .into_iter()
            .chain(["--skip-plies", "2", "--out", labels.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&labels).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    // From ply 2: the first game's plies 2..=8 (7, one a repeat of ply 4 after two
    // passes: 6), the second game's plies 2..=4 (3).
    assert_eq!(lines.len(), 9, "{written}");
    for line in &lines {
        let (fen, score) = line.rsplit_once(';').unwrap();
        let cho_to_move = fen.contains(" w ");
        assert_eq!(score, if cho_to_move { "50" } else { "-50" }, "{line}");
    }
    // The labels alone are a data set to tune on.
    let out = chuhe(
        &["tune", "--janggi", "--labels", labels.to_str().unwrap(), "--out", weights.to_str().unwrap()]
            .into_iter()
            .chain(["--epochs", "5", "--hold-out", "0"])
            .collect::<Vec<_>>(),
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("labels.txt: 9 labelled positions, 0 lines left out"), "{text}");
    assert!(text.contains("data set: 9 positions"), "{text}");
    assert!(std::fs::read_to_string(&weights).unwrap().contains("pub const WEIGHTS"));
    std::fs::remove_dir_all(&dir).unwrap();
}
