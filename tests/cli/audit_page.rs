//! `chuhe audit --html` and `--svg`: the audit page of a Xiangqi and a Janggi game,
//! really audited at a small node budget (deterministic), parsed back as XML and checked
//! against the answer the same run printed: one curve point per audited ply at its
//! win probability, one marker per flagged ply on its point, one diagram per mistake
//! and blunder with the pieces of the position before it and both moves' arrows, every
//! parameter in the header. The same page from the answer's JSON; and the page in a
//! real headless browser: not blank, no console error, no sideways scroll at phone width.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chuhe::api::audit::{HASH_MB, centipawns, win_probability};
use chuhe::api::convert::ContentLimits;
use chuhe::api::proto;
use chuhe::report::MAX_DIAGRAMS;
use chuhe::search::Score;
use roxmltree::{Document, Node};

use crate::browser::{TempDir, picture, visit};
use crate::common::data_path;
use crate::common::rng::Rng;

/// Nodes per ply: small, so that a whole game is audited in seconds.
const NODES: &str = "2000";
/// Plies left to the book.
const BOOK: usize = 4;

const XIANGQI_RECORD: &str = "records/lu-qin-xu-yinchuan-2004.pgn";
const JANGGI_RECORD: &str = "records/ha-yeomyeong-jeon-dongha-2016.gib";

fn chuhe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("run chuhe")
}

fn path_arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// An audited game: the answer `chuhe audit --json` printed and the page and graph the
/// same run wrote.
struct Audited {
    answer: proto::AuditGameResponse,
    json: String,
    html: String,
    svg: String,
    record: PathBuf,
    dir: TempDir,
}

/// `record` audited, with the `extra` arguments.
fn audit(record: &str, extra: &[&str]) -> Audited {
    let dir = TempDir::new("audit-page");
    let (html, svg) = (dir.0.join("page.html"), dir.0.join("graph.svg"));
    let record = data_path(record);
    let book = BOOK.to_string();
    let mut args = vec![
        "audit",
        "--record",
        path_arg(&record),
        "--nodes",
        NODES,
        "--book",
        &book,
        "--json",
        "--html",
        path_arg(&html),
        "--svg",
        path_arg(&svg),
    ];
    args.extend_from_slice(extra);
    let out = chuhe(&args);
    assert!(out.status.success(), "chuhe audit failed: {}", String::from_utf8_lossy(&out.stderr));
    let json = String::from_utf8(out.stdout).expect("UTF-8 JSON");
    Audited {
        answer: serde_json::from_str(&json).expect("the answer's JSON"),
        json,
        html: std::fs::read_to_string(html).expect("the page"),
        svg: std::fs::read_to_string(svg).expect("the graph"),
        record,
        dir,
    }
}

/// The page as XML (its `<!DOCTYPE html>` is a DTD to an XML reader).
fn parse(text: &str) -> Document<'_> {
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    Document::parse_with_options(text, options).expect("the page is well-formed XML")
}

fn has_class(n: &Node, class: &str) -> bool {
    n.attribute("class").is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

fn elements<'a, 'i>(doc: &'a Document<'i>, name: &str, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants().filter(|n| n.has_tag_name(name) && has_class(n, class)).collect()
}

fn ply_of(n: &Node) -> usize {
    n.attribute("data-ply").expect("a data-ply").parse().expect("a ply number")
}

fn text_of(n: &Node) -> String {
    n.descendants().filter(|d| d.is_text()).map(|d| d.text().unwrap_or("")).collect()
}

fn points(polyline: &Node) -> Vec<(f64, f64)> {
    polyline
        .attribute("points")
        .expect("points")
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().expect("x"), y.parse().expect("y"))
        })
        .collect()
}

/// Red's win probability after the ply, computed here from the answer's played score.
fn red_wp(p: &proto::AuditPly) -> f64 {
    let cp = match p.played_score.and_then(|s| s.value) {
        Some(proto::score::Value::Cp(c)) => centipawns(Score::Centipawns(c)),
        Some(proto::score::Value::Mate(n)) => centipawns(Score::Mate(n)),
        None => 0,
    };
    let wp = win_probability(cp);
    if p.mover == proto::Player::Black as i32 { 1.0 - wp } else { wp }
}

/// The curve has one point per audited ply, left to right in ply order, each at the
/// ply's win probability for Red (the y axis is one straight scale of it).
fn check_curve(doc: &Document, answer: &proto::AuditGameResponse) -> Vec<(f64, f64)> {
    let curves = elements(doc, "polyline", "eval");
    assert_eq!(curves.len(), 1, "one curve");
    let pts = points(&curves[0]);
    assert_eq!(pts.len(), answer.plies.len(), "a point per audited ply");
    assert!(pts.windows(2).all(|w| w[0].0 < w[1].0), "points in ply order");
    let wps: Vec<f64> = answer.plies.iter().map(red_wp).collect();
    let (lo, hi) = (0..wps.len())
        .fold((0, 0), |(lo, hi), i| (if wps[i] < wps[lo] { i } else { lo }, if wps[i] > wps[hi] { i } else { hi }));
    assert!(wps[hi] - wps[lo] > 0.1, "the game's evaluation moves");
    let slope = (pts[hi].1 - pts[lo].1) / (wps[hi] - wps[lo]);
    assert!(slope < 0.0, "a higher win probability for Red is drawn higher");
    for (i, (&(_, y), wp)) in pts.iter().zip(&wps).enumerate() {
        let want = pts[lo].1 + slope * (wp - wps[lo]);
        assert!((y - want).abs() < 0.2, "ply {}: y {y}, want {want}", answer.plies[i].move_index + 1);
    }
    pts
}

fn flag_name(class: i32) -> Option<&'static str> {
    match proto::AuditMoveClass::try_from(class).ok()? {
        proto::AuditMoveClass::Inaccuracy => Some("inaccuracy"),
        proto::AuditMoveClass::Mistake => Some("mistake"),
        proto::AuditMoveClass::Blunder => Some("blunder"),
        _ => None,
    }
}

/// One marker per flagged ply, in its class, on the curve's point of its ply, titled
/// with its ply and move; none elsewhere.
fn check_markers(doc: &Document, answer: &proto::AuditGameResponse, pts: &[(f64, f64)]) -> usize {
    let markers = elements(doc, "g", "marker");
    let by_ply: BTreeMap<usize, &Node> = markers.iter().map(|m| (ply_of(m), m)).collect();
    assert_eq!(by_ply.len(), markers.len(), "one marker per ply");
    let mut flagged = 0;
    for (p, &(x, y)) in answer.plies.iter().zip(pts) {
        let ply = p.move_index as usize + 1;
        let Some(name) = flag_name(p.class) else {
            assert!(!by_ply.contains_key(&ply), "ply {ply} is not flagged but marked");
            continue;
        };
        flagged += 1;
        let m = by_ply.get(&ply).unwrap_or_else(|| panic!("flagged ply {ply} has no marker"));
        assert!(has_class(m, name), "ply {ply} marked as {name}");
        let t = m.attribute("transform").expect("a position");
        let inner = t.trim_start_matches("translate(").trim_end_matches(')');
        let (mx, my) = inner.split_once(' ').expect("translate(x y)");
        let (mx, my): (f64, f64) = (mx.parse().unwrap(), my.parse().unwrap());
        assert!((mx - x).abs() < 0.06 && (my - y).abs() < 0.06, "ply {ply}: marker at {mx},{my}, point {x},{y}");
        let title = m.children().find(|c| c.has_tag_name("title")).map(|t| text_of(&t)).unwrap_or_default();
        assert!(title.contains(&format!("Ply {ply} ")) && title.contains(&p.played_move), "title {title:?}");
    }
    assert_eq!(markers.len(), flagged, "no marker beyond the flagged plies");
    flagged
}

/// The board before the move of `index` as its FEN gives it: (point, FEN letter) pairs.
fn pieces_before(record: &Path, index: usize) -> BTreeSet<(String, char)> {
    let text = std::fs::read_to_string(record).expect("the record");
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let gib = record.extension().is_some_and(|e| e == "gib");
    let variant = if gib { proto::Variant::Janggi } else { proto::Variant::Unspecified };
    let request = proto::ImportRecordRequest { text, variant: variant as i32, ..Default::default() };
    let mut position = chuhe::api::notation::import_record(&request, limits).expect("a record").position.unwrap();
    position.moves.truncate(index);
    let status = chuhe::api::rules::validate_game(&proto::ValidateGameRequest { position: Some(position) }, limits)
        .expect("a legal game");
    let placement = status.final_fen.split_whitespace().next().expect("a placement").to_string();
    let mut pieces = BTreeSet::new();
    for (row, rank_text) in placement.split('/').enumerate() {
        let rank = 9 - row;
        let mut file = 0u8;
        for c in rank_text.chars() {
            match c.to_digit(10) {
                Some(n) => file += n as u8,
                None => {
                    pieces.insert((format!("{}{rank}", char::from(b'a' + file)), c));
                    file += 1;
                }
            }
        }
    }
    pieces
}

/// One diagram per mistake and blunder, at its ply, with the pieces of the position
/// before the move on their points and the played and the engine's move as arrows.
fn check_diagrams(doc: &Document, a: &Audited) -> usize {
    let diagrams = elements(doc, "figure", "diagram");
    let mut wanted = worst_mistakes(&a.answer);
    wanted.truncate(MAX_DIAGRAMS);
    wanted.sort_by_key(|p| p.move_index);
    assert_eq!(diagrams.len(), wanted.len(), "a diagram per mistake and blunder, the worst at most");
    for (d, p) in diagrams.iter().zip(&wanted) {
        assert_eq!(ply_of(d), p.move_index as usize + 1);
        let drawn: BTreeSet<(String, char)> = d
            .descendants()
            .filter(|n| n.has_tag_name("g") && has_class(n, "piece"))
            .map(|n| {
                let letter = n.attribute("data-piece").and_then(|l| l.chars().next()).expect("a piece letter");
                (n.attribute("data-square").expect("a point").to_string(), letter)
            })
            .collect();
        assert_eq!(drawn, pieces_before(&a.record, p.move_index as usize), "ply {}", p.move_index + 1);
        for (class, mv) in [("played", &p.played_move), ("engine", &p.best_move)] {
            let arrow = d
                .descendants()
                .find(|n| n.has_tag_name("g") && has_class(n, "arrow") && has_class(n, class))
                .unwrap_or_else(|| panic!("ply {}: no {class} arrow", p.move_index + 1));
            let drawn = format!("{}{}", arrow.attribute("data-from").unwrap(), arrow.attribute("data-to").unwrap());
            assert_eq!(&drawn, mv);
        }
    }
    wanted.len()
}

/// The table has a row per audited ply, in order, each with its anchor and, when
/// flagged, its class.
fn check_rows(doc: &Document, answer: &proto::AuditGameResponse) {
    let rows: Vec<Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tr") && n.attribute("id").is_some_and(|id| id.starts_with("ply-")))
        .collect();
    assert_eq!(rows.len(), answer.plies.len(), "a row per audited ply");
    for (row, p) in rows.iter().zip(&answer.plies) {
        assert_eq!(row.attribute("id"), Some(format!("ply-{}", p.move_index + 1).as_str()));
        assert_eq!(row.attribute("class"), flag_name(p.class), "ply {}", p.move_index + 1);
    }
}

/// Every parameter of the audit is in the header, as the answer gives it.
fn check_header(doc: &Document, answer: &proto::AuditGameResponse) {
    let params: BTreeMap<&str, String> =
        doc.descendants().filter_map(|n| Some((n.attribute("data-param")?, text_of(&n)))).collect();
    let summary = answer.summary.as_ref().expect("a summary");
    let p = summary.parameters.as_ref().expect("parameters");
    let rule_set = proto::RuleSet::try_from(p.rule_set).unwrap().as_str_name().to_string();
    let want = [
        ("engine_version", env!("CARGO_PKG_VERSION").to_string()),
        ("rule_set", rule_set),
        ("nodes_per_ply", NODES.to_string()),
        ("movetime_ms_per_ply", "none".into()),
        ("multipv", "3".into()),
        ("threads", "1".into()),
        ("hash_mb", HASH_MB.to_string()),
        ("book_plies", BOOK.to_string()),
        ("deterministic", "yes".into()),
        ("cp_loss_cap", p.cp_loss_cap.to_string()),
        ("near_best_margin_cp", p.near_best_margin_cp.to_string()),
        ("decided_threshold_cp", p.decided_threshold_cp.to_string()),
        ("win_probability_scale", p.win_probability_scale.to_string()),
        ("nodes", summary.nodes.to_string()),
    ];
    for (key, value) in want {
        assert_eq!(params.get(key), Some(&value), "parameter {key}");
    }
    assert_eq!(params.len(), 14, "no other parameter: {params:?}");
    for side in &summary.sides {
        let row = doc.descendants().find(|n| n.attribute("data-figure") == Some("accuracy")).expect("the accuracy row");
        assert!(text_of(&row).contains(&format!("{:.1}", side.accuracy)));
    }
}

/// Nothing is fetched or run: no script, no external style sheet, image or font; every
/// link and `url()` points into the page.
fn check_self_contained(doc: &Document, html: &str) {
    for n in doc.descendants().filter(|n| n.is_element()) {
        let name = n.tag_name().name();
        assert!(!matches!(name, "script" | "link" | "img" | "iframe" | "object" | "embed"), "<{name}>");
        for attr in n.attributes() {
            if matches!(attr.name(), "href" | "src") {
                assert!(attr.value().starts_with('#'), "{}={:?} leaves the page", attr.name(), attr.value());
            }
            assert!(!attr.name().starts_with("on"), "an event handler {}", attr.name());
        }
    }
    assert!(!html.contains("@import") && !html.contains("@font-face"));
    assert_eq!(html.matches("url(").count(), html.matches("url(#").count(), "url() only into the page");
}

/// The page of `a`, parsed, checked throughout; the number of markers and diagrams.
fn check_page(a: &Audited, players: [&str; 2], result: &str) -> (usize, usize) {
    let doc = parse(&a.html);
    check_self_contained(&doc, &a.html);
    let pts = check_curve(&doc, &a.answer);
    let marked = check_markers(&doc, &a.answer, &pts);
    let drawn = check_diagrams(&doc, a);
    check_header(&doc, &a.answer);
    let header = text_of(&doc.descendants().find(|n| n.has_tag_name("header")).expect("a header"));
    for p in players {
        assert!(header.contains(p), "{p} in {header:?}");
    }
    assert!(header.contains(result), "{result} in {header:?}");
    let book = elements(&doc, "rect", "book");
    assert_eq!(book.len(), 1, "the book shaded");
    assert!(a.answer.plies.iter().all(|p| p.move_index as usize >= BOOK), "no book ply audited");
    for p in a.answer.plies.iter().filter(|p| p.forced || p.decided) {
        let ply = p.move_index as usize + 1;
        let class = if p.forced { "forced" } else { "decided" };
        let last_of = |r: &Node| r.attribute("data-last-ply").and_then(|l| l.parse::<usize>().ok());
        let shaded = elements(&doc, "rect", class).iter().any(|r| ply_of(r) <= ply && last_of(r) >= Some(ply));
        assert!(shaded, "ply {ply} shaded {class}");
    }
    check_rows(&doc, &a.answer);
    let graph = elements(&doc, "svg", "graph");
    assert_eq!(graph.len(), 1);
    assert_eq!(&a.html[graph[0].range()], a.svg.as_str(), "--svg writes the page's graph");
    (marked, drawn)
}

#[test]
fn xiangqi_audit_page() {
    let a = audit(XIANGQI_RECORD, &[]);
    let (marked, drawn) = check_page(&a, ["吕钦", "许银川"], "Red wins");
    assert!(marked > drawn && drawn > 0, "the game has flagged moves: {marked} marked, {drawn} drawn");
    assert!(a.html.contains("楚 河") && a.html.contains('帥'));
    assert!(!a.html.contains("time_difficulty_correlation"), "no time figure without clock data");
}

#[test]
fn janggi_audit_page() {
    // With clock data (made up, varied): the page has the time/difficulty figure and a
    // clock column.
    let clock: Vec<String> = (0..73u32).map(|i| (1_000 + i * 7_919 % 40_000).to_string()).collect();
    let a = audit(JANGGI_RECORD, &["--clock", &clock.join(" ")]);
    let (_, drawn) = check_page(&a, ["하여명", "전동하"], "Cho wins");
    assert!(drawn > 0, "the game has mistakes or blunders");
    let doc = parse(&a.html);
    let row = doc
        .descendants()
        .find(|n| n.attribute("data-figure") == Some("time_difficulty_correlation"))
        .expect("the time/difficulty row");
    let cells: Vec<String> = row.children().filter(|c| c.has_tag_name("td")).map(|c| text_of(&c)).collect();
    let want: Vec<String> = a
        .answer
        .summary
        .as_ref()
        .unwrap()
        .sides
        .iter()
        .map(|s| s.time_difficulty_correlation.map_or_else(|| "-".into(), |c| format!("{c:.2}")))
        .collect();
    assert_eq!(cells, want);
    assert!(want.iter().any(|c| c != "-"), "a correlation to show");
    assert!(a.html.contains("Clock (s)"));
    assert!(!a.html.contains("楚 河") && a.html.contains('漢') && a.html.contains("board janggi"));
}

#[test]
fn the_page_of_the_rpcs_json_answer() {
    let a = audit(XIANGQI_RECORD, &[]);
    let answer = a.dir.0.join("answer.json");
    std::fs::write(&answer, &a.json).unwrap();
    let again = a.dir.0.join("again.html");
    let out = chuhe(&[
        "audit",
        "--from-json",
        path_arg(&answer),
        "--record",
        path_arg(&a.record),
        "--html",
        path_arg(&again),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), a.html, "the same page from the JSON");

    // The JSON mapping's other spellings read the same: original field names, enums
    // by number.
    let renamed = a.json.replace("\"moveIndex\"", "\"move_index\"").replace("\"AUDIT_MOVE_CLASS_BEST\"", "1");
    assert_ne!(renamed, a.json);
    std::fs::write(&answer, renamed).unwrap();
    let out = chuhe(&["audit", "--from-json", path_arg(&answer), "--html", path_arg(&again)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let alone = std::fs::read_to_string(&again).unwrap();
    let doc = parse(&alone);
    assert_eq!(check_curve(&doc, &a.answer).len(), a.answer.plies.len());
    assert!(elements(&doc, "figure", "diagram").is_empty(), "no diagram without the game");
    assert!(alone.contains("need the audited game"));

    let other = data_path("records/xu-yinchuan-nie-weiping-1999.pgn");
    let out =
        chuhe(&["audit", "--from-json", path_arg(&answer), "--record", path_arg(&other), "--html", path_arg(&again)]);
    assert!(!out.status.success(), "the answer of another game is refused");
    assert!(String::from_utf8_lossy(&out.stderr).contains("give the game that was audited"));
    std::fs::write(&answer, "{\"plies\": 3}").unwrap();
    let out = chuhe(&["audit", "--from-json", path_arg(&answer), "--html", path_arg(&again)]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not an AuditGame answer"));
}

#[test]
fn the_page_in_a_headless_browser() {
    let a = audit(XIANGQI_RECORD, &[]);
    let page = a.dir.0.join("page.html");

    let desktop = visit(&page, 1200, 900);
    assert_eq!(desktop.errors, Vec::<String>::new(), "no console error");
    let shot = picture(&desktop.png);
    assert!(shot.width >= 1200 && shot.height >= 900, "{}x{}", shot.width, shot.height);
    assert!(shot.inked > 0.03 && shot.colours > 64, "not blank: {:.3} inked, {} colours", shot.inked, shot.colours);

    let phone = visit(&page, 390, 844);
    assert_eq!(phone.errors, Vec::<String>::new(), "no console error at phone width");
    assert!(phone.scroll_width <= 390.5, "no sideways scroll at phone width: {}", phone.scroll_width);
    assert!(picture(&phone.png).inked > 0.03);

    // The checks can fail: a page with a console error and a missing image is caught,
    // and a white page is blank.
    let bad = a.dir.0.join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><img src=\"missing.png\"/><script>console.error(\"seen\")</script></body></html>",
    )
    .unwrap();
    let seen = visit(&bad, 400, 300);
    assert!(seen.errors.iter().any(|e| e.contains("seen")), "{:?}", seen.errors);
    assert!(seen.errors.iter().any(|e| e.contains("missing.png")), "{:?}", seen.errors);
    assert!(picture(&seen.png).inked < 0.01, "a blank page reads blank");
}

/// The page's size beyond its plies: style, header, graph frame and the diagrams.
const FIXED_BYTES: usize = 1 << 20;
/// The most a ply adds to the page.
const BYTES_PER_PLY: usize = 500;

/// `plies` random legal moves from the start (seeded), none of which leaves the other
/// side without a move, so that the game runs as long as asked.
fn random_game(plies: usize, seed: u64) -> Vec<String> {
    use chuhe::rules::types::MoveList;
    use chuhe::rules::xiangqi::Position;
    let mut rng = Rng(seed | 1);
    let mut position = Position::startpos();
    let mut moves = Vec::new();
    let has_moves = |p: &Position| {
        let mut list = MoveList::new();
        p.legal_moves(&mut list);
        !list.is_empty()
    };
    while moves.len() < plies {
        let mut list = MoveList::new();
        position.legal_moves(&mut list);
        let legal: Vec<_> = list.iter().copied().collect();
        let first = rng.below(legal.len());
        let m = (0..legal.len())
            .map(|i| legal[(first + i) % legal.len()])
            .find(|&m| {
                let mut after = position.clone();
                after.play_unchecked(m);
                has_moves(&after)
            })
            .expect("a move that does not end the game");
        position.play_unchecked(m);
        moves.push(m.to_string());
    }
    moves
}

/// Worst first: the larger loss, then the larger win probability loss, then the
/// earlier ply.
fn worst_first(a: &proto::AuditPly, b: &proto::AuditPly) -> std::cmp::Ordering {
    b.cp_loss
        .cmp(&a.cp_loss)
        .then(b.win_probability_loss.total_cmp(&a.win_probability_loss))
        .then(a.move_index.cmp(&b.move_index))
}

/// The mistakes and blunders of `answer`, worst first.
fn worst_mistakes(answer: &proto::AuditGameResponse) -> Vec<&proto::AuditPly> {
    let mut flagged: Vec<&proto::AuditPly> =
        answer.plies.iter().filter(|p| matches!(flag_name(p.class), Some("mistake" | "blunder"))).collect();
    flagged.sort_by(|a, b| worst_first(a, b));
    flagged
}

#[test]
fn a_long_games_page_draws_the_worst_mistakes_and_lists_the_others() {
    use chuhe::engine::{Engine, EngineConfig};
    use chuhe::report::{AuditPage, AuditedGame, render_page};
    let plies = 2_000;
    let position = proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        moves: random_game(plies, 56),
        ..Default::default()
    };
    let request = proto::AuditGameRequest {
        position: Some(position.clone()),
        nodes_per_ply: 50,
        multipv: 2,
        ..Default::default()
    };
    let engine = Engine::new(EngineConfig { hash_mb: 1, workers: 1, ..EngineConfig::default() });
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let answer = chuhe::api::audit::audit_here(&engine, &request, limits, &mut |_| {}).expect("an audit");
    let game = AuditedGame::new(&position, 0, &[], None).expect("the game");
    let html = render_page(&AuditPage { answer: &answer, game: Some(&game) });

    let flagged = worst_mistakes(&answer);
    assert!(flagged.len() > 4 * MAX_DIAGRAMS, "random moves make many mistakes: {}", flagged.len());
    let ply = |p: &&proto::AuditPly| p.move_index as usize + 1;
    let worst: BTreeSet<usize> = flagged[..MAX_DIAGRAMS].iter().map(ply).collect();
    let others: BTreeSet<usize> = flagged[MAX_DIAGRAMS..].iter().map(ply).collect();

    let doc = parse(&html);
    let drawn: BTreeSet<usize> = elements(&doc, "figure", "diagram").iter().map(ply_of).collect();
    assert_eq!(drawn, worst, "the worst {MAX_DIAGRAMS} mistakes and blunders are drawn");
    let listed: BTreeMap<usize, String> = elements(&doc, "table", "undrawn")
        .iter()
        .flat_map(|t| {
            t.descendants().filter(|n| n.has_tag_name("tr") && n.parent().is_some_and(|p| p.has_tag_name("tbody")))
        })
        .map(|row| {
            let link = row.descendants().find(|n| n.has_tag_name("a")).expect("a link to the ply's row");
            let target = link.attribute("href").expect("an href").trim_start_matches("#ply-");
            (target.parse().expect("a ply"), text_of(&row))
        })
        .collect();
    assert_eq!(listed.keys().copied().collect::<BTreeSet<_>>(), others, "the other ones are listed, not drawn");
    for p in &flagged[MAX_DIAGRAMS..] {
        let row = &listed[&ply(p)];
        let class = flag_name(p.class).unwrap();
        assert!(row.contains(&p.played_move) && row.contains(class) && row.contains(&p.cp_loss.to_string()), "{row}");
    }
    check_rows(&doc, &answer);
    assert!(
        html.len() <= FIXED_BYTES + BYTES_PER_PLY * plies,
        "{} bytes for {plies} plies: {} a ply",
        html.len(),
        html.len() / plies
    );
}
