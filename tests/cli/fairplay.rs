//! `chuhe fairplay`: a model calibrated on games of engines at small budgets tells them
//! from an engine that plays the audit's own choices; audits passed in give the same
//! answer as the records; Janggi calibrates and reads `.gib`; bad input is refused with
//! a message naming it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

const EXE: &str = env!("CARGO_BIN_EXE_chuhe");
/// The audit budget of the tests' models.
const NODES: &str = "2000";

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fairplay-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(EXE).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The error of a call that must fail.
fn refused(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} should fail: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

/// A match of `chuhe uci` at `nodes` (A) against `nodes_b` (B), written to `pgn`.
fn play(pgn: &Path, games: &str, nodes: &str, nodes_b: &str, seed: &str, janggi: bool) {
    let _ = std::fs::remove_file(pgn);
    let engine = format!("{EXE} uci --hash-mb 1");
    let mut args = vec!["match", "--engine-a", &engine, "--engine-b", &engine, "--nodes", nodes, "--nodes-b", nodes_b];
    args.extend(["--games", games, "--random-openings", "8", "--seed", seed, "--max-plies", "160"]);
    args.extend(["--pgn", pgn.to_str().unwrap()]);
    if janggi {
        args.push("--janggi");
    }
    ok(&args);
}

/// Games in which B plays the audit's own first line at every move (the engine the
/// platform audits with, consulted on every move) and A searches 300 nodes, each
/// opening with both colours.
fn assisted_games(pgn: &Path) {
    use chuhe::engine::{Engine, EngineConfig};
    use chuhe::fairplay::screen::Judging;
    use chuhe::game::{BoardGame, RuleSet, Variant};
    use chuhe::rules::types::MoveList;
    use chuhe::search::tt::TranspositionTable;
    use std::sync::atomic::AtomicBool;
    let engine = Engine::new(EngineConfig { hash_mb: 1, workers: 1, ..EngineConfig::default() });
    let rules = RuleSet::default_for(Variant::Xiangqi);
    let judging = Judging { rules, nodes: NODES.parse().unwrap(), multipv: 3, book_plies: 8 };
    let audit = judging.screening(&engine, 1).params;
    let weak = chuhe::search::Params {
        limits: chuhe::search::Limits { nodes: Some(300), ..Default::default() },
        multipv: 1,
        ..audit.clone()
    };
    let tt = TranspositionTable::new(8);
    let stop = AtomicBool::new(false);
    let mut text = String::new();
    for (i, opening) in chuhe::selfplay::random_openings(4, 8, 2).iter().enumerate() {
        for b_red in [false, true] {
            let mut game = BoardGame::startpos(Variant::Xiangqi).with_rules(Some(rules)).unwrap();
            let mut moves = opening.clone();
            moves.iter().for_each(|&m| game.play_unchecked(m));
            while moves.len() < 160 {
                let mut legal = MoveList::new();
                game.legal_moves(&mut legal);
                if legal.is_empty() {
                    break;
                }
                let b_moves = (game.turn() == chuhe::rules::types::Color::Red) == b_red;
                tt.clear();
                let params = if b_moves { &audit } else { &weak };
                let m = engine.search_with(&tt, &game, params, None, &stop, &mut |_| {}).best.unwrap();
                moves.push(m);
                game.play_unchecked(m);
            }
            let (red, black) = if b_red { ("B", "A") } else { ("A", "B") };
            let verdict = chuhe::selfplay::Verdict::Draw;
            text += &chuhe::selfplay::game_record_from(
                chuhe::selfplay::START_FEN,
                2 * i + 1,
                chuhe::selfplay::Seat::named(red),
                chuhe::selfplay::Seat::named(black),
                verdict,
                "test",
                &moves,
            );
        }
    }
    std::fs::write(pgn, text).unwrap();
}

struct Population {
    model: PathBuf,
    honest: PathBuf,
    suspect: PathBuf,
}

/// Calibrated on 32 games of engines at 300 and 600 nodes; the suspect games pit a
/// 300-node search against one searching exactly as the audit does.
fn population() -> &'static Population {
    static P: OnceLock<Population> = OnceLock::new();
    P.get_or_init(|| {
        let d = dir();
        let (honest, suspect, model) = (d.join("honest.pgn"), d.join("suspect.pgn"), d.join("model.json"));
        play(&honest, "32", "300", "600", "1", false);
        assisted_games(&suspect);
        let p = |x: &Path| x.to_str().unwrap().to_string();
        ok(&["fairplay", "calibrate", "--games", &p(&honest), "--out", &p(&model)]
            .into_iter()
            .chain(["--nodes", NODES, "--multipv", "3", "--book", "8", "--threads", "2"])
            .collect::<Vec<_>>());
        Population { model, honest, suspect }
    })
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `--json`'s objects by player.
fn assessments(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// `--json`'s objects without the games' sources (a file and game number, or a
/// request's field), which differ between records and audits of the same games.
fn without_sources(text: &str) -> Vec<Value> {
    let mut all = assessments(text);
    for a in &mut all {
        for list in ["perGame", "weightiestGames", "weightiestPlies"] {
            for g in a[list].as_array_mut().into_iter().flatten() {
                g.as_object_mut().unwrap().remove("source");
            }
        }
    }
    all
}

fn by_player<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter().find(|a| a["player"] == name).unwrap_or_else(|| panic!("{name} in {all:?}"))
}

#[test]
fn the_model_names_its_settings_and_fits_each_band() {
    let p = population();
    let model: Value = serde_json::from_str(&std::fs::read_to_string(&p.model).unwrap()).unwrap();
    assert_eq!(model["format"], "chuhe-fairplay-model");
    let s = &model["settings"];
    assert_eq!(
        (s["variant"].as_str(), s["nodes_per_ply"].as_u64(), s["multipv"].as_u64()),
        (Some("xiangqi"), Some(2000), Some(3))
    );
    assert_eq!(s["book_plies"], 8);
    assert!(s["evaluation"].as_str().unwrap().starts_with("nnue-"), "{s}");
    let band = &model["bands"][0];
    assert!(band["params"]["s"].as_f64().unwrap() > 0.0 && band["params"]["c"].as_f64().unwrap() > 0.0);
    let inflation = &model["honest"]["inflation"];
    for z in ["agreement", "error", "combined"] {
        assert!(inflation[z].as_f64().unwrap() >= 1.0, "{inflation}");
    }
    assert!(model["honest"]["units"].as_u64().unwrap() >= 10);
}

#[test]
fn an_engine_playing_the_audits_choices_stands_out_and_its_opponent_does_not() {
    let p = population();
    let all =
        assessments(&ok(&["fairplay", "assess", "--model", path(&p.model), "--games", path(&p.suspect), "--json"]));
    let (honest, suspect) = (by_player(&all, "A"), by_player(&all, "B"));
    for a in [honest, suspect] {
        assert_eq!(a["games"], 8);
        assert!(a["positions"].as_u64().unwrap() >= 50, "{a}");
        assert!(a["statement"].as_str().unwrap().contains("not a finding"));
        assert_eq!(a["thresholds"].as_array().unwrap().len(), 3);
    }
    assert_eq!(honest["band"], "FAIR_PLAY_BAND_CLEAR", "{honest}");
    let z = suspect["z"]["combined"].as_f64().unwrap();
    assert!(z >= 2.75, "{suspect}");
    assert_ne!(suspect["band"], "FAIR_PLAY_BAND_CLEAR");
    assert!(suspect["top1"]["observed"].as_f64() > suspect["top1"]["projected"].as_f64());
    // A family of a thousand players screened asks more of the same evidence.
    let family = assessments(&ok(&[
        "fairplay",
        "assess",
        "--model",
        path(&p.model),
        "--games",
        path(&p.suspect),
        "--player",
        "B",
    ]
    .into_iter()
    .chain(["--family-size", "1000", "--json"])
    .collect::<Vec<_>>()));
    assert_eq!(family.len(), 1);
    assert!(family[0]["familyP"]["combined"].as_f64() > suspect["familyP"]["combined"].as_f64());
    assert_eq!(family[0]["z"], suspect["z"]);
}

#[test]
fn audits_passed_in_are_not_searched_again_and_give_the_same_answer() {
    let p = population();
    let text = std::fs::read_to_string(&p.suspect).unwrap();
    let first = chuhe::fairplay::games::split_records(&text)[0].to_string();
    let d = dir();
    let one = d.join("one.pgn");
    std::fs::write(&one, &first).unwrap();
    let audit: Value = serde_json::from_str(&ok(&[
        "audit",
        "--record",
        path(&one),
        "--nodes",
        NODES,
        "--multipv",
        "3",
        "--book",
        "8",
        "--json",
    ]))
    .unwrap();
    let (record, _) = chuhe::notation::record::import(&first, None).unwrap();
    let moves: Vec<String> = record.moves.iter().map(|m| m.to_string()).collect();
    let fen = record.tag("FEN").unwrap().to_string();
    let game = serde_json::json!({
        "position": {"variant": "VARIANT_XIANGQI", "fen": fen, "moves": moves},
        "red": record.tag("Red").unwrap(),
        "black": record.tag("Black").unwrap(),
        "audit": audit,
    });
    let audits = d.join("audits.jsonl");
    std::fs::write(&audits, format!("{game}\n")).unwrap();
    let from_record = ok(&["fairplay", "assess", "--model", path(&p.model), "--games", path(&one), "--json"]);
    let out = run(&["fairplay", "assess", "--model", path(&p.model), "--audits", path(&audits), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(without_sources(&String::from_utf8(out.stdout).unwrap()), without_sources(&from_record));
    // Nothing was judged: no progress line.
    assert!(!String::from_utf8_lossy(&out.stderr).contains("judged"));
    // An audit made at another budget is refused, naming the field.
    let mut other = game.clone();
    other["audit"]["summary"]["parameters"]["nodesPerPly"] = "3000".into();
    std::fs::write(&audits, format!("{other}\n")).unwrap();
    let e = refused(&["fairplay", "assess", "--model", path(&p.model), "--audits", path(&audits)]);
    assert!(e.contains("line 1") && e.contains("nodes_per_ply") && e.contains("3000"), "{e}");
}

#[test]
fn bad_input_is_refused_with_what_is_wrong() {
    let p = population();
    let d = dir();
    let model = path(&p.model);
    let bad = d.join("bad.pgn");
    std::fs::write(
        &bad,
        "[Red \"x\"]\n[Black \"y\"]\n1. h2e2 *\n\n[Red \"x\"]\n[Black \"y\"]\n1. h2e2 h9g7 2. a0a5 *\n",
    )
    .unwrap();
    let e = refused(&["fairplay", "assess", "--model", model, "--games", path(&bad)]);
    assert!(e.contains("bad.pgn game 2") && e.contains("a0a5"), "{e}");
    let e = refused(&["fairplay", "assess", "--model", model, "--games", path(&p.honest), "--player", "Nobody"]);
    assert!(e.contains("\"Nobody\" plays in none of the games"), "{e}");
    let e = refused(&["fairplay", "assess", "--model", model, "--games", path(&p.honest), "--family-size", "0"]);
    assert!(e.contains("family_size") || e.contains("family of 0"), "{e}");
    let rated = d.join("rated.pgn");
    std::fs::write(&rated, "[Red \"x\"]\n[Black \"y\"]\n[BlackElo \"high\"]\n1. h2e2 *\n").unwrap();
    let e = refused(&["fairplay", "assess", "--model", model, "--games", path(&rated)]);
    assert!(e.contains("BlackElo \"high\" is not a rating"), "{e}");
    let text = std::fs::read_to_string(&p.model).unwrap();
    for (from, to, says) in [
        ("\"variant\": \"xiangqi\"", "\"variant\": \"janggi\"", "variant"),
        ("\"evaluation\": \"nnue-", "\"evaluation\": \"other-", "evaluation"),
        ("\"version\": 1,", "\"version\": 7,", "version 7"),
    ] {
        let edited = d.join("edited.json");
        std::fs::write(&edited, text.replacen(from, to, 1)).unwrap();
        let e = refused(&["fairplay", "assess", "--model", path(&edited), "--games", path(&p.honest)]);
        assert!(e.contains(says), "{from}: {e}");
    }
    let garbage = d.join("garbage.json");
    std::fs::write(&garbage, "{\"format\": 3").unwrap();
    let e = refused(&["fairplay", "assess", "--model", path(&garbage), "--games", path(&p.honest)]);
    assert!(e.contains("not a fair-play model"), "{e}");
    let e = refused(&[
        "fairplay",
        "calibrate",
        "--variant",
        "three-kingdoms",
        "--games",
        path(&p.honest),
        "--out",
        path(&garbage),
    ]);
    assert!(e.contains("Three Kingdoms"), "{e}");
}

#[test]
fn janggi_calibrates_on_its_own_games_and_reads_a_gib() {
    let d = dir();
    let (games, model) = (d.join("janggi.pgn"), d.join("janggi-model.json"));
    play(&games, "40", "300", "600", "3", true);
    let calibrated =
        ok(&["fairplay", "calibrate", "--variant", "janggi", "--games", path(&games), "--out", path(&model)]
            .into_iter()
            .chain(["--nodes", NODES, "--multipv", "3", "--book", "8"])
            .collect::<Vec<_>>());
    assert!(calibrated.contains("positions"), "{calibrated}");
    let gib = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/records/ha-yeomyeong-jeon-dongha-2016.gib");
    let all = assessments(&ok(&[
        "fairplay",
        "assess",
        "--model",
        path(&model),
        "--games",
        gib,
        "--player",
        "하여명",
        "--json",
    ]));
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["player"], "하여명");
    assert_eq!(all[0]["games"], 1);
    assert!(all[0]["positions"].as_u64().unwrap() > 0);
    // A Xiangqi record is not a Janggi game.
    let xiangqi = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/records/lu-qin-xu-yinchuan-2004.pgn");
    let e = refused(&["fairplay", "assess", "--model", path(&model), "--games", xiangqi]);
    assert!(e.contains("game 1"), "{e}");
}

#[test]
fn games_screened_once_calibrate_and_assess_as_their_records_do() {
    let p = population();
    let d = dir();
    let (audits, model) = (d.join("screened.jsonl"), d.join("screened-model.json"));
    let settings = ["--nodes", NODES, "--multipv", "3", "--book", "8"];
    let out = ok(&[
        &["fairplay", "screen", "--games", path(&p.honest), "--out", path(&audits), "--threads", "2"][..],
        &settings,
    ]
    .concat());
    assert!(out.contains("32 games audited"), "{out}");
    let lines = std::fs::read_to_string(&audits).unwrap();
    assert_eq!(lines.lines().count(), 32);
    let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(first["red"].is_string() && first["audit"]["plies"].as_array().is_some_and(|p| !p.is_empty()), "{first}");
    // The same model as from the records, fitted without a search.
    let run_calibrate =
        run(&[&["fairplay", "calibrate", "--audits", path(&audits), "--out", path(&model)][..], &settings].concat());
    assert!(run_calibrate.status.success(), "{}", String::from_utf8_lossy(&run_calibrate.stderr));
    assert!(!String::from_utf8_lossy(&run_calibrate.stderr).contains("judged"), "nothing is searched again");
    let read = |m: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(m).unwrap()).unwrap() };
    assert_eq!(read(&model), read(&p.model));
    // Assessed from the screened games: the records' answer.
    let assess =
        |flag: &str, file: &Path| ok(&["fairplay", "assess", "--model", path(&p.model), flag, path(file), "--json"]);
    assert_eq!(without_sources(&assess("--audits", &audits)), without_sources(&assess("--games", &p.honest)));
    // Screened at another budget, the games are refused by a calibration at this one.
    let e = refused(&["fairplay", "calibrate", "--audits", path(&audits), "--out", path(&model), "--nodes", "3000"]);
    assert!(e.contains("line 1") && e.contains("nodes_per_ply"), "{e}");
    // A screen with a model's settings takes them from the model.
    let again = d.join("again.jsonl");
    ok(&["fairplay", "screen", "--games", path(&p.honest), "--out", path(&again), "--model", path(&p.model)]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), lines);
}
