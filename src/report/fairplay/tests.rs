//! The assessment page's tests.
use super::*;
use crate::fairplay::choice::Params;
use crate::fairplay::model::{Band, Honest, Population, Settings, Spread};
use crate::fairplay::sides::Excluded;
use crate::fairplay::statistics::Inflation;
use roxmltree::{Document, Node};

const XIANGQI_START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
const JANGGI_START: &str = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
const STATEMENT: &str = "This is statistical evidence of how unusual the moves are for an honest player of this rating under a model calibrated on honest games, not a finding that the player cheated.";

fn model(variant: &str) -> Model {
    let band = |rating: Option<f64>, s: f64| Band {
        rating_low: rating.map(|r| r - 100.0),
        rating_high: rating.map(|r| r + 100.0),
        rating,
        sides: 400,
        positions: 24_000,
        params: Params { s, c: 0.52 },
    };
    let spread = Spread { mean: 0.05, sd: 1.12 };
    Model {
        format: crate::fairplay::model::FORMAT.into(),
        version: crate::fairplay::model::VERSION,
        settings: Settings {
            variant: variant.into(),
            engine_version: "chuhe 0.9.0".into(),
            evaluation: "classical".into(),
            nodes_per_ply: 200_000,
            multipv: 5,
            rule_set: if variant == "janggi" { "JANGGI_TOURNAMENT_V1" } else { "XIANGQI_ASIAN_V1" }.into(),
            book_plies: 8,
            exclusions: crate::fairplay::model::exclusions(),
        },
        bands: vec![band(Some(1600.0), 0.11), band(Some(2000.0), 0.07)],
        pooled: band(None, 0.09),
        honest: Honest {
            unit: "player".into(),
            units: 120,
            positions_per_unit: 640.0,
            agreement: spread,
            error: spread,
            combined: spread,
            inflation: Inflation { agreement: 1.12, error: 1.08, combined: 1.1 },
        },
        population: Population {
            games: 5200,
            players: 310,
            positions: 280_000,
            held_out_positions: 70_000,
            excluded: Excluded { book: 83_200, forced: 4100, decided: 21_000 },
        },
    }
}

fn game(source: &str, side: proto::Player, positions: u32, agreement: f64, z: f64) -> proto::AssessedGame {
    proto::AssessedGame {
        source: source.into(),
        side: side as i32,
        positions,
        agreement,
        z,
        contribution: z * (f64::from(positions) / 180.0).sqrt(),
    }
}

fn ply(source: &str, index: u32, fen: &str, played: &str, best: &str, rank: u32) -> proto::AssessedPly {
    proto::AssessedPly {
        source: source.into(),
        move_index: index,
        fen: fen.into(),
        played_move: played.into(),
        best_move: best.into(),
        played_rank: rank,
        probability: 0.083,
        contribution: 0.21,
    }
}

fn assessment(player: &str, fen: &str, plies: [(&str, &str); 2]) -> proto::PlayerAssessment {
    let scores = |agreement, error, combined| Some(proto::FairPlayScores { agreement, error, combined });
    let threshold = |band: proto::FairPlayBand, z: f64, p: f64| proto::BandThreshold { band: band as i32, p, z };
    let per_game = vec![
        game("games[0] game 1", proto::Player::Red, 58, 0.62, 1.4),
        game("games[1] game 1", proto::Player::Black, 61, 0.71, 2.9),
        game("games[2] game 1", proto::Player::Red, 61, 0.66, 2.2),
    ];
    proto::PlayerAssessment {
        player: player.into(),
        games: 3,
        rating: 1850.0,
        positions: 180,
        excluded_book: 24,
        excluded_forced: 7,
        excluded_decided: 31,
        top1: Some(proto::ProjectedFigure { observed: 0.667, projected: 0.48, sd: 0.037 }),
        top3: Some(proto::ProjectedFigure { observed: 0.89, projected: 0.78, sd: 0.031 }),
        scaled_error: Some(proto::ProjectedFigure { observed: 0.061, projected: 0.118, sd: 0.014 }),
        average_loss: Some(proto::ProjectedFigure { observed: 14.2, projected: 31.5, sd: 4.1 }),
        accuracy: 91.3,
        performance: Some(proto::PerformanceRating { rating: 2410.0, low: 2260.0, high: 2600.0, at_edge: true }),
        raw_z: scores(5.05, 4.07, 4.95),
        z: scores(4.51, 3.77, 4.5),
        p: scores(3.2e-6, 8.2e-5, 3.4e-6),
        family_p: scores(3.2e-4, 8.2e-3, 3.4e-4),
        family_size: 100,
        band: proto::FairPlayBand::Strong as i32,
        thresholds: vec![
            threshold(proto::FairPlayBand::Review, 2.75, 2.98e-3),
            threshold(proto::FairPlayBand::Strong, 4.0, 3.17e-5),
            threshold(proto::FairPlayBand::Mark, 5.0, 2.87e-7),
        ],
        min_positions: 50,
        weightiest_games: vec![per_game[1].clone(), per_game[2].clone()],
        per_game,
        weightiest_plies: vec![
            ply("games[1] game 1", 12, fen, plies[0].0, plies[0].1, 2),
            ply("games[2] game 1", 31, fen, plies[1].0, plies[1].1, 0),
        ],
        sensitivity: 0.081,
        consistency: 0.52,
        statement: STATEMENT.into(),
    }
}

fn xiangqi() -> proto::PlayerAssessment {
    assessment("Wang <&> \"Lei\"", XIANGQI_START, [("h2e2", "b2e2"), ("b0c2", "h0g2")])
}

/// The page as XML (its `<!DOCTYPE html>` is a DTD to an XML reader).
fn parse(text: &str) -> Document<'_> {
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    Document::parse_with_options(text, options).expect("the page is well-formed XML")
}

fn elements<'a, 'i>(doc: &'a Document<'i>, tag: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants().filter(|n| n.is_element() && n.tag_name().name() == tag).collect()
}

fn with_class<'a, 'i>(doc: &'a Document<'i>, tag: &str, class: &str) -> Vec<Node<'a, 'i>> {
    elements(doc, tag)
        .into_iter()
        .filter(|n| n.attribute("class").is_some_and(|c| c.split(' ').any(|w| w == class)))
        .collect()
}

fn text_of(n: Node) -> String {
    n.descendants().filter(|d| d.is_text()).filter_map(|d| d.text()).collect()
}

/// No script, and no link out but the SVG namespace.
fn self_contained(html: &str) {
    assert!(!html.to_lowercase().contains("<script"), "a script in the page");
    for scheme in ["http://", "https://"] {
        for (at, _) in html.match_indices(scheme) {
            let rest = &html[at..];
            assert!(
                rest.starts_with("http://www.w3.org/2000/svg\"") || rest.starts_with("http://www.w3.org/1999/xhtml\""),
                "a link out: {}",
                &rest[..rest.len().min(60)]
            );
        }
    }
    assert!(!html.contains(" src=") && !html.contains("@import") && !html.contains("url(http"));
}

#[test]
fn the_page_holds_the_player_band_statement_figures_charts_and_diagrams() {
    let a = xiangqi();
    let html = render(&a, &model("xiangqi"));
    self_contained(&html);
    let doc = parse(&html);
    // The player's name is escaped in the markup and read back whole.
    assert!(html.contains("Wang &lt;&amp;&gt; &quot;Lei&quot;"));
    let player = with_class(&doc, "p", "player");
    assert_eq!(player.len(), 1);
    assert!(text_of(player[0]).contains("Wang <&> \"Lei\""));
    assert!(text_of(elements(&doc, "title")[0]).contains("Wang <&> \"Lei\""));
    // The band, large, with its badge; the statement.
    let band = with_class(&doc, "div", "band");
    assert_eq!(band.len(), 1);
    assert_eq!(band[0].attribute("data-band"), Some("STRONG"));
    assert!(text_of(band[0]).contains("STRONG"));
    assert_eq!(with_class(&doc, "svg", "band-badge").len(), 1);
    assert_eq!(text_of(with_class(&doc, "p", "statement")[0]), STATEMENT);
    // The header's facts and the model's settings.
    let param =
        |key: &str| doc.descendants().find(|n| n.attribute("data-param") == Some(key)).map(text_of).unwrap_or_default();
    assert_eq!(param("engine_version"), "chuhe 0.9.0");
    assert_eq!(param("evaluation"), "classical");
    assert_eq!(param("nodes_per_ply"), "200000");
    assert_eq!(param("multipv"), "5");
    assert_eq!(param("rule_set"), "XIANGQI_ASIAN_V1");
    assert_eq!(param("book_plies"), "8");
    assert_eq!(param("family_size"), "100");
    assert!(param("min_positions").contains("50"));
    let fact =
        |key: &str| doc.descendants().find(|n| n.attribute("data-fact") == Some(key)).map(text_of).unwrap_or_default();
    assert!(fact("rating").contains("1850"));
    assert!(fact("positions").contains("180"));
    assert!(fact("excluded").contains("24 book, 7 forced, 31 decided"));
    // The figures, the scores (small p in scientific notation) and the rating.
    let row = |attr: &str, key: &str| {
        doc.descendants().find(|n| n.attribute(attr) == Some(key)).map(text_of).unwrap_or_default()
    };
    assert!(row("data-figure", "top1").contains("66.7 %") && row("data-figure", "top1").contains("48.0 %"));
    assert!(row("data-figure", "average_loss").contains("31.5"));
    assert!(row("data-figure", "accuracy").contains("91.3"));
    let combined = row("data-score", "combined");
    assert!(combined.contains("+4.95") && combined.contains("+4.50") && combined.contains("3.40e-6"));
    assert!(combined.contains("3.40e-4"));
    assert!(html.contains("2410 (95 % interval 2260 to 2600)") && html.contains("at the edge"));
    let thresholds = elements(&doc, "tr").into_iter().filter(|n| n.attribute("data-band").is_some()).count();
    assert_eq!(thresholds, 3);
    assert!(row("data-band", "MARK").contains("2.87e-7"));
    // The z chart: a point per game at its z, a line per threshold.
    let zchart = with_class(&doc, "svg", "z-per-game");
    assert_eq!(zchart.len(), 1);
    let points: Vec<_> = zchart[0].descendants().filter(|n| n.attribute("class") == Some("game")).collect();
    assert_eq!(points.len(), 3);
    let cy = |n: &Node| n.attribute("cy").and_then(|v| v.parse::<f64>().ok()).unwrap();
    assert!(cy(&points[1]) < cy(&points[2]) && cy(&points[2]) < cy(&points[0]), "higher z, higher point");
    assert_eq!(zchart[0].descendants().filter(|n| n.attribute("class") == Some("threshold")).count(), 3);
    // The agreement chart: a point per game, the projection's bars.
    let achart = with_class(&doc, "svg", "agreement-per-game");
    assert_eq!(achart.len(), 1);
    let games = achart[0]
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.split(' ').next() == Some("game")))
        .count();
    assert_eq!(games, 3);
    assert!(achart[0].descendants().any(|n| n.attribute("class") == Some("spread")));
    // The second game's 71 % is above 48 % + 2 × 3.7 % × √(180/61).
    assert!(
        achart[0]
            .descendants()
            .any(|n| n.attribute("class") == Some("game above") && n.attribute("data-game") == Some("2"))
    );
    // The weightiest games.
    let table = with_class(&doc, "table", "games");
    assert_eq!(table.len(), 1);
    assert_eq!(table[0].descendants().filter(|n| n.has_tag_name("tr")).count(), 3);
    assert!(text_of(table[0]).contains("games[1] game 1") && text_of(table[0]).contains("Black"));
    // A diagram per weightiest ply, both arrows drawn.
    let boards = with_class(&doc, "svg", "board");
    assert_eq!(boards.len(), 2);
    assert_eq!(boards[0].descendants().filter(|n| n.attribute("data-piece").is_some()).count(), 32);
    let arrow = |b: &Node, class: &str| {
        b.descendants()
            .find(|n| n.attribute("class") == Some(class))
            .map(|n| (n.attribute("data-from").unwrap().to_string(), n.attribute("data-to").unwrap().to_string()))
    };
    assert_eq!(arrow(&boards[0], "arrow played"), Some(("h2".into(), "e2".into())));
    assert_eq!(arrow(&boards[0], "arrow engine"), Some(("b2".into(), "e2".into())));
    assert_eq!(arrow(&boards[1], "arrow played"), Some(("b0".into(), "c2".into())));
    let figures = with_class(&doc, "figure", "diagram");
    assert_eq!(figures[0].attribute("data-move-index"), Some("12"));
    let caption = text_of(figures[1]);
    assert!(caption.contains("games[2] game 1") && caption.contains("ply 32") && caption.contains("beyond"));
    assert!(caption.contains("8.3 %") && caption.contains("Red to move"));
}

#[test]
fn markup_in_names_and_sources_cannot_inject_elements() {
    let mut a = assessment(
        "</p><script>alert(1)</script><img src=x onerror=alert(2)>",
        XIANGQI_START,
        [("h2e2", "b2e2"), ("h0g2", "h2e2")],
    );
    a.per_game[0].source = "<b onclick=\"x\">evil</b>".into();
    a.weightiest_games[0].source = "<i>evil</i>&amp;".into();
    a.weightiest_plies[0].source = "]]><svg onload=alert(3)>".into();
    a.statement = "<a href=\"https://example.com\">click</a>".into();
    let html = render(&a, &model("xiangqi"));
    let doc = parse(&html);
    for tag in ["script", "img", "b", "i", "a"] {
        let found: Vec<_> =
            elements(&doc, tag).into_iter().filter(|n| tag != "b" || n.attribute("onclick").is_some()).collect();
        assert!(found.is_empty(), "an injected <{tag}>");
    }
    assert!(doc.descendants().all(|n| n.attributes().all(|at| !at.name().starts_with("on"))));
    assert_eq!(with_class(&doc, "svg", "board").len(), 2, "no injected svg");
    assert!(text_of(with_class(&doc, "p", "player")[0]).contains("<script>alert(1)</script>"));
    assert!(text_of(with_class(&doc, "p", "statement")[0]).contains("https://example.com"));
    assert!(!html.contains("<script") && !html.contains("<a href"));
}

#[test]
fn a_janggi_model_and_position_render_with_janggi_sides_and_pieces() {
    let mut a = assessment("김철수", JANGGI_START, [("h2e2", "b2e2"), ("a3a4", "i3i4")]);
    a.band = proto::FairPlayBand::Clear as i32;
    a.weightiest_plies[1].fen = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR b - - 0 1".into();
    a.weightiest_plies[1].played_move = "a6a5".into();
    a.weightiest_plies[1].best_move = "i6i5".into();
    let html = render(&a, &model("janggi"));
    self_contained(&html);
    let doc = parse(&html);
    assert!(html.contains("(Janggi)") && html.contains("김철수"));
    assert_eq!(with_class(&doc, "div", "band")[0].attribute("data-band"), Some("CLEAR"));
    let boards = with_class(&doc, "svg", "board");
    assert_eq!(boards.len(), 2);
    assert!(boards.iter().all(|b| b.attribute("class") == Some("board janggi")));
    assert!(html.contains('漢') && html.contains('包') && !html.contains("楚 河"));
    assert!(text_of(with_class(&doc, "table", "games")[0]).contains("Han"));
    let captions: Vec<String> = with_class(&doc, "figure", "diagram").into_iter().map(text_of).collect();
    assert!(captions[0].contains("Cho to move") && captions[1].contains("Han to move"));
    assert!(boards[1].descendants().any(|n| n.attribute("data-from") == Some("a6")));
}

#[test]
fn a_thousand_games_make_a_page_of_reasonable_size() {
    let mut a = xiangqi();
    a.games = 1000;
    a.positions = 60_000;
    a.per_game = (0..1000)
        .map(|i| {
            let z = ((i * 37) % 100) as f64 / 20.0 - 2.5;
            game(&format!("games[{i}] game 1"), proto::Player::Red, 60, 0.4 + z / 20.0, z)
        })
        .collect();
    let html = render(&a, &model("xiangqi"));
    assert!(html.len() < 200_000, "the page is {} bytes", html.len());
    let doc = parse(&html);
    let zchart = with_class(&doc, "svg", "z-per-game")[0];
    let paths: Vec<_> = zchart.descendants().filter(|n| n.attribute("class") == Some("games")).collect();
    assert_eq!(paths.len(), 1);
    assert_eq!(paths[0].attribute("d").unwrap().matches('M').count(), 1000);
    assert!(zchart.descendants().all(|n| n.attribute("class") != Some("game")));
    let achart = with_class(&doc, "svg", "agreement-per-game")[0];
    let marks: usize = achart
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("games")))
        .map(|n| n.attribute("d").unwrap().matches('M').count())
        .sum();
    assert_eq!(marks, 1000);
}

#[test]
fn an_empty_assessment_still_renders_a_page() {
    let a = proto::PlayerAssessment { band: proto::FairPlayBand::InsufficientData as i32, ..Default::default() };
    let html = render(&a, &model("xiangqi"));
    self_contained(&html);
    let doc = parse(&html);
    assert_eq!(with_class(&doc, "div", "band")[0].attribute("data-band"), Some("INSUFFICIENT_DATA"));
    assert!(html.contains("unrated") && html.contains("No ply counted"));
    assert!(html.contains("Intrinsic performance rating:</b> none"));
    let combined = doc.descendants().find(|n| n.attribute("data-score") == Some("combined")).map(text_of);
    assert!(combined.is_some_and(|t| t.ends_with("----")), "missing scores are written -, not 0");
    assert!(with_class(&doc, "svg", "board").is_empty());
}

#[test]
fn an_unreadable_fen_is_said_not_drawn() {
    let mut a = xiangqi();
    a.weightiest_plies[0].fen = "not a fen".into();
    let html = render(&a, &model("xiangqi"));
    let doc = parse(&html);
    assert_eq!(with_class(&doc, "svg", "board").len(), 1);
    assert!(html.contains("The position does not read"));
}

#[test]
fn small_p_values_are_written_in_scientific_notation() {
    assert_eq!(p_text(0.0312), "0.0312");
    assert_eq!(p_text(0.001), "0.0010");
    assert_eq!(p_text(3.4e-6), "3.40e-6");
    assert_eq!(p_text(2.87e-7), "2.87e-7");
    assert_eq!(p_text(0.0), "< 1e-323");
    assert_eq!(p_text(f64::NAN), "-");
    assert_eq!(z_text(4.5), "+4.50");
    assert_eq!(tick_step(1000), 100);
}
