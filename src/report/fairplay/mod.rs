//! The assessment page: one player's AssessPlayer answer as a self-contained HTML page
//! (inline SVG and CSS, no script, nothing fetched), in the audit page's style: the
//! header with the player, the band and the statement of what it means, the model's
//! settings; the figures against the model's projection, the z-scores and p-values,
//! the intrinsic performance rating and the bands' thresholds; a chart of each game's
//! z in order and one of each game's agreement against the projection; the weightiest
//! games; and a board diagram per weightiest ply with the move played and the engine's.
//!
//! The page stays small whatever the number of games: a game is a circle with its
//! `<title>` up to [`TITLED_GAMES`] games, beyond that all games are one SVG path of
//! dots per series. The markup is well-formed XML as well as HTML.

use std::fmt::Write as _;

use super::board::diagram;
use super::escape::esc;
use super::palette::{FLAGS, PLAYED_MOVE};
use super::side_name;
use crate::api::proto;
use crate::fairplay::model::Model;
use crate::game::{BoardGame, Variant};
use crate::notation::Notation;
use crate::rules::types::{Color, Move};

mod charts;
#[cfg(test)]
use charts::tick_step;
use charts::{agreement_chart, z_chart};

const STYLE: &str = include_str!("../style.css");

/// What the assessment page adds to the audit page's style sheet.
const FAIRPLAY_STYLE: &str = "
.band { display: flex; align-items: center; gap: 14px; margin: 0.7em 0 0.4em; padding: 6px 12px; border-left: 8px solid #777; background: #F7F7F7; }
.band svg.band-badge { width: 46px; height: 46px; flex: none; }
.band-name { font-size: 2.4em; font-weight: 800; letter-spacing: 0.05em; line-height: 1.1; }
.band-meaning { color: #333; }
.statement { font-size: 1.1em; font-weight: 600; margin: 0.6em 0 0.9em; padding: 8px 12px; border: 2px solid #0072B2; background: #F0F6FB; }
.facts { display: flex; flex-wrap: wrap; gap: 2px 22px; }
.tables { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
tr.current td, tr.current th, tr.combined td, tr.combined th { background: #F2F2F2; font-weight: 600; }
.ply-facts { margin: 4px 0 0; }
@media print { .band, .statement { print-color-adjust: exact; -webkit-print-color-adjust: exact; } }
";

/// Up to this many games, each point of the charts is its own element with a title.
pub const TITLED_GAMES: usize = 100;
/// At most this many weightiest games and plies are shown.
const MAX_WEIGHTIEST_GAMES: usize = 50;
const MAX_WEIGHTIEST_PLIES: usize = 10;
/// The z chart's axis stops here; a game's z beyond is drawn at the edge.
const Z_CAP: f64 = 12.0;

/// A game's point (Okabe-Ito blue).
const POINT: &str = "#0072B2";
/// A game above the projection's band (Okabe-Ito vermillion).
const ABOVE: &str = PLAYED_MOVE;
/// The projection's band.
const SPREAD: &str = "#C8C8C8";
/// CLEAR's colour (Okabe-Ito bluish green); the bands above it are the flags' colours.
const CLEAR: &str = "#009E73";
const NO_BAND: &str = "#999999";

/// The page of one player's assessment under `model`.
pub fn render(a: &proto::PlayerAssessment, model: &Model) -> String {
    let variant = model.settings.variant.parse::<Variant>().unwrap_or(Variant::Xiangqi);
    let player = if a.player.is_empty() { "(unnamed player)" } else { a.player.as_str() };
    let title = format!("Fair-play assessment: {player} ({})", variant.name());
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><title>{}</title><style>{STYLE}{FAIRPLAY_STYLE}</style></head><body>",
        esc(&title)
    );
    header(&mut s, a, model, player);
    figures(&mut s, a);
    let _ = write!(
        s,
        r#"<section id="z-per-game"><h2>z per game over time</h2><figure class="graph-figure"><div class="scroll">{}</div><figcaption>Each game's own combined z, the games in order (the oldest first). The dashed lines are the bands' thresholds of the player's combined z for a family of one, drawn for scale: the band follows all games together, not any one.{}</figcaption></figure></section>"#,
        z_chart(a),
        if a.per_game.len() > TITLED_GAMES { "" } else { " Hover a point for its game." }
    );
    let _ = write!(
        s,
        r#"<section id="agreement-per-game"><h2>Projected against actual agreement</h2><figure class="graph-figure"><div class="scroll">{}</div><figcaption>Each game's top-1 agreement (points) against the projected top-1 agreement of all the games (line) with ± 2 sd for a game (bars). A game's sd is approximated as the overall sd × √(positions counted ÷ the game's positions): the projection's own spread per game is not in the answer. Triangles: a game above its bar.</figcaption></figure></section>"#,
        agreement_chart(a)
    );
    weightiest_games(&mut s, a, variant);
    weightiest_plies(&mut s, a, variant);
    s.push_str("</body></html>\n");
    s
}

/// How a band looks and reads.
struct BandLook {
    /// Its name (`REVIEW`, `INSUFFICIENT_DATA`).
    name: &'static str,
    /// What it means.
    meaning: &'static str,
    colour: &'static str,
}

fn band_of(band: i32) -> proto::FairPlayBand {
    proto::FairPlayBand::try_from(band).unwrap_or(proto::FairPlayBand::Unspecified)
}

fn band_look(band: i32) -> BandLook {
    use proto::FairPlayBand as B;
    let (name, meaning, colour) = match band_of(band) {
        B::InsufficientData => ("INSUFFICIENT_DATA", "Too few counted positions for any band but this one.", NO_BAND),
        B::Clear => ("CLEAR", "Nothing beyond what an honest player of the rating shows.", CLEAR),
        B::Review => ("REVIEW", "Worth a reviewer's look.", FLAGS[0].colour),
        B::Strong => ("STRONG", "Strong statistical evidence.", FLAGS[1].colour),
        B::Mark => ("MARK", "Evidence beyond any honest population of the family's size.", FLAGS[2].colour),
        B::Unspecified => ("UNSPECIFIED", "No band was given.", NO_BAND),
    };
    BandLook { name, meaning, colour }
}

/// A band's marker centred on (0, 0), `r` its half size: REVIEW, STRONG and MARK take
/// the flags' colours and shapes, mildest first (circle, square, triangle); CLEAR is a
/// bluish green diamond, no band a hollow grey circle.
fn band_marker(band: i32, r: f64) -> String {
    use proto::FairPlayBand as B;
    match band_of(band) {
        B::Review => FLAGS[0].marker(r),
        B::Strong => FLAGS[1].marker(r),
        B::Mark => FLAGS[2].marker(r),
        B::Clear => format!(
            r##"<polygon points="0,{:.1} {r:.1},0 0,{r:.1} {:.1},0" fill="{CLEAR}" stroke="#000" stroke-width="1"/>"##,
            -r, -r
        ),
        _ => format!(r##"<circle r="{:.1}" fill="#FFFFFF" stroke="{NO_BAND}" stroke-width="2"/>"##, r - 1.0),
    }
}

/// A band's badge, `size` pixels square.
fn band_badge(band: i32, size: u32, class: &str) -> String {
    format!(
        r#"<svg class="{class}" viewBox="-8 -8 16 16" width="{size}" height="{size}" aria-hidden="true" xmlns="http://www.w3.org/2000/svg">{}</svg>"#,
        band_marker(band, 6.0)
    )
}

/// A number with `digits` decimals, `-` when it is not finite.
fn num(x: f64, digits: usize) -> String {
    if x.is_finite() { format!("{x:.digits$}") } else { "-".into() }
}

/// A share as a percentage.
fn pct(x: f64) -> String {
    if x.is_finite() { format!("{:.1} %", 100.0 * x) } else { "-".into() }
}

/// A z-score, signed.
fn z_text(z: f64) -> String {
    if z.is_finite() { format!("{z:+.2}") } else { "-".into() }
}

/// A p-value: four decimals down to 0.001, scientific notation below (`1.23e-7`).
fn p_text(p: f64) -> String {
    if !p.is_finite() || p < 0.0 {
        "-".into()
    } else if p == 0.0 {
        "< 1e-323".into()
    } else if p >= 0.001 {
        format!("{p:.4}")
    } else {
        format!("{p:.2e}")
    }
}

/// The side to move's name from a Color.
fn color_name(variant: Variant, c: Color) -> &'static str {
    let player = match c {
        Color::Red => proto::Player::Red,
        Color::Black => proto::Player::Black,
    };
    side_name(variant, player as i32)
}

/// The player, the games, the band with its statement, and the model's settings.
fn header(s: &mut String, a: &proto::PlayerAssessment, model: &Model, player: &str) {
    let look = band_look(a.band);
    let _ = write!(s, r#"<header><h1>Fair-play assessment</h1><p class="player"><b>Player:</b> {}</p>"#, esc(player));
    let rating = if a.rating > 0.0 && a.rating.is_finite() {
        format!("{:.0}", a.rating)
    } else {
        "unrated (the pooled model)".to_string()
    };
    let excluded = format!("{} book, {} forced, {} decided", a.excluded_book, a.excluded_forced, a.excluded_decided);
    let facts: [(&str, &str, String); 4] = [
        ("games", "Games", a.games.to_string()),
        ("rating", "Rating", rating),
        ("positions", "Positions counted", a.positions.to_string()),
        ("excluded", "Plies left out", excluded),
    ];
    s.push_str(r#"<div class="facts">"#);
    for (key, label, value) in facts {
        let _ = write!(s, r#"<p data-fact="{key}"><b>{label}:</b> {}</p>"#, esc(&value));
    }
    s.push_str("</div>");
    let _ = write!(
        s,
        r#"<div class="band" data-band="{}" style="border-left-color: {}">{}<div><div class="band-name">{}</div><div class="band-meaning">{}</div></div></div>"#,
        look.name,
        look.colour,
        band_badge(a.band, 46, "band-badge"),
        look.name.replace('_', " "),
        esc(look.meaning)
    );
    let statement = if a.statement.is_empty() { "(no statement given)" } else { a.statement.as_str() };
    let _ = write!(s, r#"<p class="statement">{}</p>"#, esc(statement));
    let m = &model.settings;
    let exclusions = if m.exclusions.is_empty() { "none".to_string() } else { m.exclusions.join(", ") };
    let inf = model.honest.inflation;
    let params: [(&str, &str, String); 14] = [
        ("variant", "Variant", m.variant.clone()),
        ("engine_version", "Engine version", m.engine_version.clone()),
        ("evaluation", "Evaluation", m.evaluation.clone()),
        ("nodes_per_ply", "Nodes per ply", m.nodes_per_ply.to_string()),
        ("multipv", "Lines (multipv)", m.multipv.to_string()),
        ("rule_set", "Rule set", m.rule_set.clone()),
        ("book_plies", "Book plies", m.book_plies.to_string()),
        ("exclusions", "Left out besides the book", exclusions),
        ("family_size", "Family size (players screened)", a.family_size.max(1).to_string()),
        ("sensitivity", "Sensitivity s at the rating", num(a.sensitivity, 4)),
        ("consistency", "Consistency c at the rating", num(a.consistency, 4)),
        (
            "inflation",
            "Inflation (agreement, error, combined)",
            format!("{}, {}, {}", num(inf.agreement, 3), num(inf.error, 3), num(inf.combined, 3)),
        ),
        (
            "calibration",
            "Calibrated on",
            format!(
                "{} games, {} players, {} positions",
                model.population.games, model.population.players, model.population.positions
            ),
        ),
        ("honest", "Honest spread measured on", format!("{} {}s", model.honest.units, model.honest.unit)),
    ];
    s.push_str(r#"<dl class="params">"#);
    for (key, label, value) in params {
        let _ = write!(s, r#"<div><dt>{label}</dt><dd data-param="{key}">{}</dd></div>"#, esc(&value));
    }
    s.push_str("</dl></header>");
}

/// A row of the figures' table: its key in the markup, its name, the figure and how
/// its numbers are written.
struct FigureRow {
    key: &'static str,
    label: &'static str,
    figure: Option<proto::ProjectedFigure>,
    write: fn(f64) -> String,
}

/// A row of the scores' table: its key, its name and which score it reads.
struct ScoreRow {
    key: &'static str,
    label: &'static str,
    get: fn(&proto::FairPlayScores) -> f64,
}

/// The figures against the projection, the z-scores and p-values, the performance
/// rating and the bands' thresholds.
fn figures(s: &mut String, a: &proto::PlayerAssessment) {
    s.push_str(r#"<section id="figures"><h2>Figures</h2><div class="tables"><div class="scroll"><table class="figures"><thead><tr><th scope="col">Figure</th><th scope="col">Observed</th><th scope="col">Projected</th><th scope="col">± sd</th></tr></thead><tbody>"#);
    let rows = [
        FigureRow { key: "top1", label: "Top-1 agreement", figure: a.top1, write: pct },
        FigureRow { key: "top3", label: "Top-3 agreement", figure: a.top3, write: pct },
        FigureRow { key: "scaled_error", label: "Average scaled error", figure: a.scaled_error, write: |x| num(x, 3) },
        FigureRow { key: "average_loss", label: "Average loss (cp)", figure: a.average_loss, write: |x| num(x, 1) },
    ];
    for row in rows {
        // A figure the answer does not hold is written `-`, not as zero.
        let f = row.figure.unwrap_or(proto::ProjectedFigure { observed: f64::NAN, projected: f64::NAN, sd: f64::NAN });
        let _ = write!(
            s,
            r#"<tr data-figure="{}"><th scope="row">{}</th><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            row.key,
            row.label,
            (row.write)(f.observed),
            (row.write)(f.projected),
            (row.write)(f.sd)
        );
    }
    let _ = write!(
        s,
        r#"<tr data-figure="accuracy"><th scope="row">Accuracy</th><td>{}</td><td>-</td><td>-</td></tr></tbody></table></div>"#,
        num(a.accuracy, 1)
    );
    let family = a.family_size.max(1);
    let _ = write!(
        s,
        r#"<div class="scroll"><table class="scores"><thead><tr><th scope="col">Score</th><th scope="col">Raw z</th><th scope="col">z after inflation</th><th scope="col">p</th><th scope="col">Family p ({family} player{})</th></tr></thead><tbody>"#,
        if family == 1 { "" } else { "s" }
    );
    // A score the answer does not hold is written `-`, not as zero.
    let nan = proto::FairPlayScores { agreement: f64::NAN, error: f64::NAN, combined: f64::NAN };
    let scores = |f: &Option<proto::FairPlayScores>| f.unwrap_or(nan);
    let (raw, z, p, fp) = (scores(&a.raw_z), scores(&a.z), scores(&a.p), scores(&a.family_p));
    let rows = [
        ScoreRow { key: "agreement", label: "Agreement (top-1)", get: |x| x.agreement },
        ScoreRow { key: "error", label: "Error (scaled)", get: |x| x.error },
        ScoreRow { key: "combined", label: "Combined: the band follows it", get: |x| x.combined },
    ];
    for row in rows {
        let class = if row.key == "combined" { r#" class="combined""# } else { "" };
        let _ = write!(
            s,
            r#"<tr data-score="{}"{class}><th scope="row">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            row.key,
            row.label,
            z_text((row.get)(&raw)),
            z_text((row.get)(&z)),
            esc(&p_text((row.get)(&p))),
            esc(&p_text((row.get)(&fp)))
        );
    }
    s.push_str("</tbody></table></div>");
    thresholds(s, a);
    s.push_str("</div>");
    performance(s, a);
    s.push_str(r#"<p class="note">Positive z: more agreement, or fewer errors, than the model projects for an honest player of the rating. The p-values are one-sided; the family p is the chance that at least one of the family's honest players scores as high (Šidák).</p></section>"#);
}

/// The bands' thresholds, the assessment's band marked.
fn thresholds(s: &mut String, a: &proto::PlayerAssessment) {
    s.push_str(r#"<div class="scroll"><table class="thresholds"><thead><tr><th scope="col">Band</th><th scope="col">Combined z (family of one)</th><th scope="col">Family p at most</th></tr></thead><tbody>"#);
    for t in &a.thresholds {
        let look = band_look(t.band);
        let current = if t.band == a.band { r#" class="current""# } else { "" };
        let _ = write!(
            s,
            r#"<tr data-band="{}"{current}><th scope="row">{} {}</th><td>{}</td><td>{}</td></tr>"#,
            look.name,
            band_badge(t.band, 14, "badge"),
            look.name,
            num(t.z, 2),
            esc(&p_text(t.p))
        );
    }
    let _ = write!(
        s,
        r#"</tbody></table><p class="note" data-param="min_positions">Fewer than {} counted positions: INSUFFICIENT_DATA ({} counted).</p></div>"#,
        a.min_positions, a.positions
    );
}

/// The intrinsic performance rating, with its interval.
fn performance(s: &mut String, a: &proto::PlayerAssessment) {
    match &a.performance {
        Some(p) => {
            let _ = write!(
                s,
                r#"<p class="performance" data-rating="{}"><b>Intrinsic performance rating:</b> {} (95 % interval {} to {}){}</p>"#,
                num(p.rating, 0),
                num(p.rating, 0),
                num(p.low, 0),
                num(p.high, 0),
                if p.at_edge { r#" <span class="note">at the edge of the calibrated ratings: a bound, not an estimate</span>"# } else { "" }
            );
        }
        None => s.push_str(r#"<p class="performance"><b>Intrinsic performance rating:</b> none (the model's bands are not by rating)</p>"#),
    }
}

/// The weightiest games, most first.
fn weightiest_games(s: &mut String, a: &proto::PlayerAssessment, variant: Variant) {
    s.push_str(r#"<section id="weightiest-games"><h2>Weightiest games</h2>"#);
    if a.weightiest_games.is_empty() {
        s.push_str(r#"<p class="note">No game counted.</p></section>"#);
        return;
    }
    s.push_str(r#"<div class="scroll"><table class="games"><thead><tr><th scope="col">#</th><th scope="col">Source</th><th scope="col">Side</th><th scope="col">Positions</th><th scope="col">Top-1 agreement</th><th scope="col">z</th><th scope="col">Contribution to the combined z</th></tr></thead><tbody>"#);
    for (i, g) in a.weightiest_games.iter().take(MAX_WEIGHTIEST_GAMES).enumerate() {
        let _ = write!(
            s,
            r#"<tr class="game"><td>{}</td><td class="tx">{}</td><td class="tx">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            i + 1,
            esc(&g.source),
            side_name(variant, g.side),
            g.positions,
            pct(g.agreement),
            z_text(g.z),
            z_text(g.contribution)
        );
    }
    s.push_str("</tbody></table></div></section>");
}

/// A diagram per weightiest ply: the position before it, the move played and the
/// engine's drawn as arrows.
fn weightiest_plies(s: &mut String, a: &proto::PlayerAssessment, variant: Variant) {
    s.push_str(r#"<section id="weightiest-plies"><h2>Weightiest plies</h2>"#);
    if a.weightiest_plies.is_empty() {
        s.push_str(r#"<p class="note">No ply counted.</p></section>"#);
        return;
    }
    let _ = write!(
        s,
        r#"<p class="note">Arrows: <span class="key-played">solid, the move played</span>; <span class="key-engine">dashed, the engine's move</span>. {} at the bottom. The probability is the model's, for an honest player of the rating, of the move played.</p><div class="diagrams">"#,
        side_name(variant, proto::Player::Red as i32)
    );
    for p in a.weightiest_plies.iter().take(MAX_WEIGHTIEST_PLIES) {
        let ply = u64::from(p.move_index) + 1;
        let rank = if p.played_rank == 0 {
            "beyond the engine's lines".to_string()
        } else {
            format!("line {}", p.played_rank)
        };
        let (svg, side) = match BoardGame::from_fen(variant, &p.fen) {
            Ok(game) => {
                let mv = |text: &str| game.parse_move(text, Notation::Iccs).ok().or_else(|| Move::parse_iccs(text));
                let side = color_name(variant, game.turn());
                let label = format!(
                    "{}, ply {ply}, {side} to move: played {}, engine {}",
                    p.source, p.played_move, p.best_move
                );
                (
                    diagram(variant, game.board(), mv(&p.played_move), mv(&p.best_move), &label),
                    format!(", {side} to move"),
                )
            }
            Err(e) => (format!(r#"<p class="note">The position does not read: {}</p>"#, esc(&e)), String::new()),
        };
        let _ = write!(
            s,
            r#"<figure class="diagram" data-move-index="{}">{svg}<figcaption><b>{}</b>, ply {ply} (move index {}){}: played <b class="key-played">{}</b> ({}), engine <b class="key-engine">{}</b>; probability {}; contribution {}</figcaption></figure>"#,
            p.move_index,
            esc(&p.source),
            p.move_index,
            side,
            esc(&p.played_move),
            esc(&rank),
            esc(&p.best_move),
            pct(p.probability),
            z_text(p.contribution)
        );
    }
    s.push_str("</div></section>");
}

#[cfg(test)]
mod tests;
