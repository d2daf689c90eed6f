//! `chuhe perft`, `chuhe moves` and `chuhe convert` with `--variant janggi`.

use std::process::Command;

fn chuhe(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("run chuhe");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_from_the_start_and_after_moves() {
    let (ok, out, err) = chuhe(&["perft", "--variant", "janggi", "--depth", "3"]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "33316");
    let (ok, out, _) = chuhe(&["perft", "--variant", "janggi", "--depth", "1", "--divide", "--moves", "pass"]);
    assert!(ok);
    assert!(out.lines().any(|l| l == "pass: 1"), "{out}");
    assert_eq!(out.lines().last(), Some("32"));
    // After two passes the game is over: nothing below.
    let (ok, out, _) = chuhe(&["perft", "--variant", "janggi", "--depth", "2", "--moves", "pass pass"]);
    assert!(ok);
    assert_eq!(out.trim(), "0");
}

#[test]
fn moves_status_and_errors() {
    let fen = "4k4/4r4/9/9/9/9/9/9/4K4/9 w - - 0 1";
    let (ok, out, _) = chuhe(&["moves", "--variant", "janggi", "--fen", fen]);
    assert!(ok);
    assert!(!out.contains("pass"), "no pass in check: {out}");
    assert!(out.contains("status: ongoing\ncheck: yes"), "{out}");
    let (ok, out, _) = chuhe(&["moves", "--variant", "janggi", "--moves", "pass pass"]);
    assert!(ok);
    assert_eq!(out, "status: ended\ncheck: no\n");
    let (ok, _, err) = chuhe(&["moves", "--variant", "janggi", "--moves", "pass a0a5"]);
    assert!(!ok);
    assert!(err.contains("move 2 (a0a5) is illegal"), "{err}");
    let (ok, _, err) = chuhe(&["moves", "--variant", "janggi", "--fen", "4k4/9/9/9/9/9/9/P8/4K4/9 w - - 0 1"]);
    assert!(!ok);
    assert!(err.contains("behind its start rank"), "{err}");
}

#[test]
fn convert_between_the_notations_of_janggi() {
    let convert = |moves: &str, from: &str, to: &str| {
        chuhe(&["convert", "--variant", "janggi", "--moves", moves, "--from", from, "--to", to])
    };
    let (ok, out, err) = convert("b0c2 pass c3c4", "iccs", "korean");
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "02마83 한수쉼 73졸63");
    let (ok, out, _) = convert("02마83 한수쉼 73졸63", "korean", "algebraic");
    assert!(ok);
    assert_eq!(out.trim(), "Cc3 pass c5");
    let (ok, out, _) = convert("Cc3 pass c5", "algebraic", "coordinate");
    assert!(ok);
    assert_eq!(out.trim(), "b1-c3 pass c4-c5");
    let fen = "3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1";
    let (ok, out, _) =
        chuhe(&["convert", "--variant", "janggi", "--fen", fen, "--moves", "Te5", "--from", "algebraic"]);
    assert!(ok);
    assert_eq!(out.trim(), "h4e4");
    // The descriptive notations do not apply; the first bad move is named.
    let (ok, _, err) = convert("b0c2", "iccs", "wxf");
    assert!(!ok);
    assert!(err.contains("to: WXF notation does not apply to Janggi"), "{err}");
    let (ok, _, err) = convert("02마83 12마34", "korean", "iccs");
    assert!(!ok);
    assert!(err.contains("moves[1]") && err.contains("12마34"), "{err}");
}
