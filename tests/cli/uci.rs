//! `chuhe uci` speaks the protocol on stdin/stdout.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use chuhe::rules::types::{Move, MoveList};

use crate::common;

/// Every `info ... pv` line of `out` (the output of one search from `pos`) is a legal
/// line from `pos`, and `bestmove` is legal there; returns the best move.
fn check_search_output(pos: &chuhe::rules::xiangqi::Position, out: &str) -> Move {
    let mut lines = 0;
    for line in out.lines().filter(|l| l.starts_with("info ") && l.contains(" pv ")) {
        let pv: Vec<Move> = line
            .split(" pv ")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .map(|t| Move::parse_iccs(t).unwrap_or_else(|| panic!("{line}: {t} is not ICCS")))
            .collect();
        common::mate::assert_legal_line(pos, &pv, line);
        lines += 1;
    }
    assert!(lines > 0, "no line with a pv: {out}");
    let best = out.lines().find_map(|l| l.strip_prefix("bestmove ")).expect("bestmove");
    let m = Move::parse_iccs(best.split_whitespace().next().unwrap()).unwrap();
    assert!(pos.is_legal(m), "bestmove {best} is illegal");
    m
}

/// `chuhe uci` with a small table, and its input and output.
fn spawn_uci() -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(["uci", "--hash-mb", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

/// Sends each chunk of commands, waiting after each for a line that starts with its
/// expected prefix; then quits and returns everything printed.
fn session(steps: &[(&str, &str)]) -> String {
    timed_session(steps).0
}

/// [`session`], and the processor time the engine had used when the last step's line
/// came.
fn timed_session(steps: &[(&str, &str)]) -> (String, std::time::Duration) {
    let (mut child, mut stdin, mut stdout) = spawn_uci();
    let mut all = String::new();
    for (commands, until) in steps {
        stdin.write_all(commands.as_bytes()).unwrap();
        stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "output ended before {until:?}:\n{all}");
            all.push_str(&line);
            if line.starts_with(until) {
                break;
            }
        }
    }
    let used = crate::common::cpu::process_time(child.id());
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    stdout.read_to_string(&mut all).unwrap();
    assert!(child.wait().unwrap().success());
    (all, used)
}

#[test]
fn handshake_search_and_bestmove() {
    let out = session(&[
        ("uci\n", "uciok"),
        ("isready\n", "readyok"),
        ("ucinewgame\nsetoption name Threads value 2\nposition startpos moves h2e2 h9g7\ngo depth 4\n", "bestmove"),
    ]);
    assert!(out.contains("uciok"));
    assert!(out.contains("readyok"));
    assert!(out.lines().any(|l| l.starts_with("info depth 4 ") && l.contains(" score cp ") && l.contains(" pv ")));
    let mut pos = chuhe::notation::fen::xiangqi("startpos").unwrap();
    for t in ["h2e2", "h9g7"] {
        pos.play(Move::parse_iccs(t).unwrap()).unwrap();
    }
    let search = &out[out.find("info depth").unwrap()..];
    check_search_output(&pos, search);
}

#[test]
fn mate_score_and_stop() {
    let out = session(&[
        ("position fen 4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1\ngo depth 3\n", "bestmove"),
        ("position startpos\ngo infinite\n", "info depth 2"),
        ("stop\n", "bestmove"),
    ]);
    assert!(out.contains("score mate 1"), "{out}");
    assert_eq!(out.matches("bestmove").count(), 2, "{out}");
    // Several moves mate (a0a9 and b8f8 among them): any of them, as the rules judge it.
    let first = &out[..out.find("bestmove").unwrap() + 20];
    let pos = chuhe::notation::fen::xiangqi("4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    let best = check_search_output(&pos, first);
    assert!(common::mate::Solver::default().mates_in_exactly(&pos, best, 1), "bestmove {best} does not mate: {out}");
    // The stopped search's answer is legal from the start.
    let second = &out[out.find("bestmove").unwrap() + 8..];
    check_search_output(&chuhe::rules::xiangqi::Position::startpos(), second);
}

#[test]
fn janggi_variant() {
    let out = session(&[
        ("uci\n", "uciok"),
        ("setoption name UCI_Variant value janggi\nposition startpos moves pass\ngo depth 3\n", "bestmove"),
        ("position fen 3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1\ngo depth 3\n", "bestmove"),
    ]);
    assert!(out.contains("var janggi"), "{out}");
    let bests: Vec<Move> = out
        .lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|b| Move::parse_iccs(b.split_whitespace().next().unwrap()).unwrap())
        .collect();
    assert_eq!(bests.len(), 2, "{out}");
    let mut pos = chuhe::rules::janggi::Position::startpos();
    pos.play(Move::PASS).unwrap();
    assert!(pos.is_legal(bests[0]), "bestmove {} is illegal in Janggi", bests[0]);
    // The second answer mates (any mating move: in check, no legal move, no pass).
    let mut pos = chuhe::notation::fen::janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1").unwrap();
    assert!(pos.is_legal(bests[1]), "bestmove {} is illegal in Janggi", bests[1]);
    pos.play(bests[1]).unwrap();
    let mut replies = MoveList::new();
    pos.legal_moves(&mut replies);
    assert!(pos.in_check() && replies.is_empty(), "bestmove {} does not mate: {out}", bests[1]);
    assert!(out.contains("score mate 1"), "{out}");
}

/// `setoption name Rules` changes how the search judges repetitions: under the Asian
/// rules the cannon stops chasing the chariot, under the simplified rules it repeats.
#[test]
fn the_rules_option_reaches_the_search() {
    let position = "position fen 2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1 \
                    moves c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7\n";
    let best = |rules: &str| {
        let out = session(&[(&format!("setoption name Rules value {rules}\n{position}go depth 4\n"), "bestmove")]);
        out.lines().find_map(|l| l.strip_prefix("bestmove ")).unwrap().split(' ').next().unwrap().to_string()
    };
    assert_eq!(best("simplified"), "b2a2");
    assert_ne!(best("asian"), "b2a2");
    let out = session(&[("uci\nsetoption name Rules value janggi-casual\nisready\n", "readyok")]);
    assert!(out.contains("option name Rules type combo"), "{out}");
    assert!(out.contains("info string Rules: rule set JANGGI_CASUAL_V1 is not a Xiangqi rule set"), "{out}");
}

#[test]
fn a_clock_is_kept() {
    // One second each and no increment: the answer comes well within the clock, and
    // it is legal. The engine's processor time (its start included) bounds its search
    // however long a loaded machine makes it wait for a core; a search that overran the
    // clock would use more than the whole second.
    let (out, used) = timed_session(&[("position startpos moves h2e2\ngo wtime 1000 btime 1000\n", "bestmove")]);
    assert!(used < std::time::Duration::from_millis(1_000), "{used:?} of processor time: {out}");
    let mut pos = chuhe::rules::xiangqi::Position::startpos();
    pos.play(Move::parse_iccs("h2e2").unwrap()).unwrap();
    check_search_output(&pos, &out);
    // Black's time is its own: with 5 ms left (less than the time to answer), it still
    // answers at once with a legal move.
    let (out, used) =
        timed_session(&[("position startpos moves h2e2\ngo wtime 100000 btime 5 winc 0 binc 0\n", "bestmove")]);
    assert!(used < std::time::Duration::from_millis(1_000), "{used:?} of processor time: {out}");
    let best = out.lines().find_map(|l| l.strip_prefix("bestmove ")).expect("bestmove");
    assert!(pos.is_legal(Move::parse_iccs(best.split_whitespace().next().unwrap()).unwrap()), "{out}");
}

/// A UCI engine is alone in its process: its search thread keeps the priority the
/// process was started with, so that it does not lose CPU to the opposing engine of a
/// match or to any other process. (Run at nice 19, the lowest priority, a lowered
/// thread could not be told apart; the suite runs at the usual 0.)
#[cfg(target_os = "linux")]
#[test]
fn the_search_thread_keeps_the_process_priority() {
    use std::time::{Duration, Instant};

    use crate::common::threads::{own_nice, search_threads};

    let (mut child, mut stdin, mut stdout) = spawn_uci();
    stdin.write_all(b"uci\nposition startpos\ngo infinite\n").unwrap();
    stdin.flush().unwrap();
    // A line of the search's own output: its thread runs, and set its priority first.
    loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the engine stopped");
        if line.starts_with("info depth") {
            break;
        }
    }
    let started = Instant::now();
    let threads = loop {
        let threads = search_threads(child.id());
        if !threads.is_empty() || started.elapsed() > Duration::from_secs(10) {
            break threads;
        }
    };
    stdin.write_all(b"stop\nquit\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(rest.contains("bestmove"), "{rest}");
    assert!(!threads.is_empty(), "no thread named search-<i>");
    assert!(
        threads.iter().all(|&t| t == (0, own_nice())),
        "policy SCHED_OTHER and nice {} expected: {threads:?}",
        own_nice()
    );
}

/// Net files for the `EvalFile` tests: a good Xiangqi net, and one truncated, one
/// without the magic, one of the wrong variant; in a directory of their own.
fn net_files(name: &str) -> (std::path::PathBuf, [String; 4], String) {
    use chuhe::search::nnue::NetVariant;
    use chuhe::search::nnue::random::{Ranges, net_file};
    let dir = std::env::temp_dir().join(format!("chuhe-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = net_file(NetVariant::Xiangqi, 32, 2, 400, 3, Ranges::TYPICAL);
    let mut magic = good.clone();
    magic[..8].copy_from_slice(b"NOTANNET");
    let janggi = net_file(NetVariant::Janggi, 32, 2, 400, 3, Ranges::TYPICAL);
    let files =
        [("good", good.clone()), ("truncated", good[..good.len() - 2].to_vec()), ("magic", magic), ("janggi", janggi)]
            .map(|(file, bytes)| {
                let path = dir.join(format!("{file}.nnue"));
                std::fs::write(&path, bytes).unwrap();
                path.display().to_string()
            });
    (dir, files, chuhe::search::nnue::net::identity(&good))
}

#[test]
fn eval_files_that_cannot_be_loaded_are_named_and_the_net_stays() {
    use chuhe::search::nnue::{NetVariant, embedded};
    let (dir, [good, truncated, magic, janggi], good_id) = net_files("uci-evalfile");
    let embedded_id = embedded::network(NetVariant::Xiangqi).identity().to_string();
    let commands = [
        format!("setoption name EvalFile value {truncated}\nisready\n"),
        format!("setoption name EvalFile value {magic}\nisready\n"),
        format!("setoption name EvalFile value {janggi}\nisready\n"),
        format!("setoption name EvalFile value {good}\nisready\n"),
        format!("setoption name EvalFile value {truncated}\nisready\n"),
        "setoption name EvalFile value /dev/zero\nisready\n".to_string(),
        "setoption name Use NNUE value true\nposition startpos\ngo nodes 3000\n".to_string(),
        "setoption name EvalFile value <embedded>\nisready\n".to_string(),
    ];
    let mut steps = vec![("uci\n", "uciok")];
    for (i, c) in commands.iter().enumerate() {
        steps.push((c.as_str(), if i == 6 { "bestmove" } else { "readyok" }));
    }
    let out = session(&steps);
    let _ = std::fs::remove_dir_all(dir);
    assert!(out.contains("option name Use NNUE type check default "), "{out}");
    assert!(out.contains("option name EvalFile type string default <embedded>"), "{out}");
    assert!(out.contains("option name EvalFileJanggi type string default <embedded>"), "{out}");
    let infos: Vec<&str> = out.lines().filter(|l| l.starts_with("info string")).collect();
    assert_eq!(infos.len(), 7, "{out}");
    assert!(infos[0].starts_with(&format!("info string net file {truncated}: truncated: ")), "{out}");
    assert!(infos[0].ends_with(&format!("the xiangqi net stays {embedded_id}")), "{out}");
    assert!(infos[1].starts_with(&format!("info string net file {magic}: not a chuhe net")), "{out}");
    assert!(infos[2].starts_with(&format!("info string net file {janggi}: variant code 1, expected 0")), "{out}");
    assert_eq!(infos[3], format!("info string xiangqi net {good_id}"));
    // A bad file after a good one leaves the good one in place.
    assert!(infos[4].ends_with(&format!("the xiangqi net stays {good_id}")), "{out}");
    assert!(infos[5].starts_with("info string net file /dev/zero: not a regular file"), "{out}");
    assert!(infos[5].ends_with(&format!("the xiangqi net stays {good_id}")), "{out}");
    assert_eq!(infos[6], format!("info string xiangqi net {embedded_id}"));
    let search = &out[out.find("info depth").expect("a search with the net")..];
    check_search_output(&chuhe::rules::xiangqi::Position::startpos(), search);
}
