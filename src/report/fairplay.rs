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

const STYLE: &str = include_str!("style.css");

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

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 250.0;
const LEFT: f64 = 46.0;
/// Room for the threshold labels.
const RIGHT: f64 = 96.0;
/// Room for the legend.
const TOP: f64 = 30.0;
/// Room for the game numbers.
const BOTTOM: f64 = 30.0;
const PLOT_W: f64 = WIDTH - LEFT - RIGHT;
const PLOT_H: f64 = HEIGHT - TOP - BOTTOM;

/// The plot's axes: `games` slots along x, the game of index `i` (from 0) in the
/// middle of its slot; `low` to `high` up y.
struct Plot {
    games: usize,
    low: f64,
    high: f64,
}

impl Plot {
    fn x(&self, i: usize) -> f64 {
        LEFT + (i as f64 + 0.5) * PLOT_W / self.games.max(1) as f64
    }

    fn y(&self, v: f64) -> f64 {
        let v = if v.is_finite() { v.clamp(self.low, self.high) } else { self.low };
        TOP + (self.high - v) / (self.high - self.low).max(1e-9) * PLOT_H
    }

    fn open(&self, s: &mut String, class: &str, label: &str) {
        let _ = write!(
            s,
            r##"<svg class="graph {class}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{label}" font-family="sans-serif" xmlns="http://www.w3.org/2000/svg"><title>{label}</title><rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="#FFFFFF"/>"##
        );
    }

    /// A horizontal line at `v` across the plot.
    fn hline(&self, s: &mut String, v: f64, stroke: &str, width: f64, dash: &str) {
        let dash = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
        let y = self.y(v);
        let _ = write!(
            s,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#,
            LEFT + PLOT_W
        );
    }

    /// A label left of the plot at `v`.
    fn left_label(&self, s: &mut String, v: f64, text: &str) {
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#333" text-anchor="end" dominant-baseline="central">{}</text>"##,
            LEFT - 5.0,
            self.y(v),
            esc(text)
        );
    }

    /// The game numbers under the plot, the axis names and the frame.
    fn close_frame(&self, s: &mut String, y_name: &str) {
        let step = tick_step(self.games);
        for n in (step..=self.games).step_by(step) {
            let px = self.x(n - 1);
            let _ = write!(
                s,
                r##"<line x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}" stroke="#333" stroke-width="1"/><text x="{px:.1}" y="{:.1}" font-size="11" fill="#333" text-anchor="middle">{n}</text>"##,
                TOP + PLOT_H,
                TOP + PLOT_H + 4.0,
                TOP + PLOT_H + 16.0
            );
        }
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#555" text-anchor="end">game</text><text x="4" y="{:.1}" font-size="11" fill="#555">{y_name}</text><rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="none" stroke="#333" stroke-width="1"/>"##,
            LEFT + PLOT_W,
            HEIGHT - 2.0,
            TOP - 6.0
        );
    }
}

/// Game numbers every 1, 2, 5, 10, 20, 50... games: at most about twelve along the axis.
fn tick_step(games: usize) -> usize {
    let mut unit = 1usize;
    loop {
        for m in [1, 2, 5] {
            let step = unit.saturating_mul(m);
            if games / step <= 12 {
                return step;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// A legend entry at `at` along the top: its symbol (centred on (0, 0)) and its text;
/// where the next one goes.
fn legend_entry(s: &mut String, at: f64, symbol: &str, text: &str) -> f64 {
    let _ = write!(
        s,
        r##"<g transform="translate({:.1} 14)">{symbol}</g><text x="{:.1}" y="14" font-size="12" fill="#222" dominant-baseline="central">{}</text>"##,
        at + 8.0,
        at + 20.0,
        esc(text)
    );
    at + 28.0 + 6.5 * text.chars().count() as f64
}

/// The dash pattern of a band's threshold line: its own for each band, so that the
/// lines read without colour.
fn threshold_dash(band: i32) -> &'static str {
    match band_of(band) {
        proto::FairPlayBand::Review => "6 4",
        proto::FairPlayBand::Strong => "10 3 2 3",
        proto::FairPlayBand::Mark => "2 3",
        _ => "4 4",
    }
}

/// Each game's combined z in order, the zero line and the thresholds.
fn z_chart(a: &proto::PlayerAssessment) -> String {
    let zs: Vec<f64> = a.per_game.iter().map(|g| g.z).collect();
    let finite = || zs.iter().copied().filter(|z| z.is_finite());
    let thresholds: Vec<&proto::BandThreshold> = a.thresholds.iter().filter(|t| t.z.is_finite()).collect();
    let top_threshold = thresholds.iter().map(|t| t.z).fold(3.0f64, f64::max);
    let low = finite().fold(-3.0f64, f64::min).max(-Z_CAP);
    let high = finite().fold(top_threshold + 0.5, f64::max).min(Z_CAP);
    let step = [1.0, 2.0, 5.0].into_iter().find(|st| (high - low) / st <= 10.0).unwrap_or(5.0);
    let plot = Plot { games: zs.len().max(1), low: (low / step).floor() * step, high: (high / step).ceil() * step };
    let mut s = String::new();
    plot.open(&mut s, "z-per-game", "Each game's combined z, in order");
    let mut v = plot.low;
    while v <= plot.high + 1e-9 {
        if v != 0.0 {
            plot.hline(&mut s, v, "#DDD", 1.0, "3 3");
        }
        plot.left_label(&mut s, v, &if v == 0.0 { "0".to_string() } else { format!("{v:+}") });
        v += step;
    }
    plot.hline(&mut s, 0.0, "#777", 1.2, "");
    for t in &thresholds {
        let look = band_look(t.band);
        let y = plot.y(t.z);
        let _ = write!(
            s,
            r##"<g class="threshold" data-band="{}" data-z="{}"><title>{}: combined z {} (family of one), family p at most {}</title><line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{}" stroke-width="1.6" stroke-dasharray="{}"/><text x="{:.1}" y="{y:.1}" font-size="11" fill="#1A1A1A" dominant-baseline="central">{} {}</text></g>"##,
            look.name,
            t.z,
            look.name,
            num(t.z, 2),
            esc(&p_text(t.p)),
            LEFT + PLOT_W,
            look.colour,
            threshold_dash(t.band),
            LEFT + PLOT_W + 5.0,
            look.name,
            num(t.z, 2)
        );
    }
    let clamped = finite().any(|z| z.abs() > Z_CAP);
    if a.per_game.len() <= TITLED_GAMES {
        for (i, g) in a.per_game.iter().enumerate() {
            if !g.z.is_finite() {
                continue;
            }
            let _ = write!(
                s,
                r##"<circle class="game" data-game="{}" cx="{:.1}" cy="{:.1}" r="4" fill="{POINT}" stroke="#000" stroke-width="0.7"><title>Game {}: {}, {} positions, top-1 {}, z {}</title></circle>"##,
                i + 1,
                plot.x(i),
                plot.y(g.z),
                i + 1,
                esc(&g.source),
                g.positions,
                pct(g.agreement),
                z_text(g.z)
            );
        }
    } else {
        let mut d = String::new();
        for (i, g) in a.per_game.iter().enumerate().filter(|(_, g)| g.z.is_finite()) {
            let _ = write!(d, "M{:.1} {:.1}h0", plot.x(i), plot.y(g.z));
        }
        let _ = write!(
            s,
            r#"<path class="games" d="{d}" fill="none" stroke="{POINT}" stroke-width="5" stroke-linecap="round"/>"#
        );
    }
    let dot = format!(r##"<circle r="4" fill="{POINT}" stroke="#000" stroke-width="0.7"/>"##);
    let at = legend_entry(&mut s, LEFT, &dot, "a game's combined z");
    let dash = r##"<line x1="-8" y1="0" x2="8" y2="0" stroke="#333" stroke-width="1.6" stroke-dasharray="6 4"/>"##;
    let at = legend_entry(&mut s, at, dash, "band thresholds (family of one)");
    if clamped {
        legend_entry(&mut s, at, "", &format!("beyond ±{Z_CAP}: at the edge"));
    }
    plot.close_frame(&mut s, "z");
    s.push_str("</svg>");
    s
}

/// Each game's top-1 agreement against the overall projection with ± 2 sd per game.
fn agreement_chart(a: &proto::PlayerAssessment) -> String {
    let top1 = a.top1.unwrap_or_default();
    let total = if a.positions > 0 { a.positions } else { a.per_game.iter().map(|g| g.positions).sum() };
    let plot = Plot { games: a.per_game.len().max(1), low: 0.0, high: 1.0 };
    let mut s = String::new();
    plot.open(&mut s, "agreement-per-game", "Each game's top-1 agreement against the projection");
    for (v, label) in [(1.0, "100%"), (0.75, "75%"), (0.5, "50%"), (0.25, "25%"), (0.0, "0%")] {
        plot.hline(&mut s, v, "#DDD", 1.0, "3 3");
        plot.left_label(&mut s, v, label);
    }
    // Each game's band, one path: a vertical bar per game.
    let bar = (PLOT_W / plot.games as f64 * 0.6).clamp(1.0, 10.0);
    let mut bars = String::new();
    let mut bounds = Vec::with_capacity(a.per_game.len());
    for (i, g) in a.per_game.iter().enumerate() {
        let sd = if g.positions > 0 { top1.sd * (f64::from(total) / f64::from(g.positions)).sqrt() } else { f64::NAN };
        let band = (top1.projected.is_finite() && sd.is_finite())
            .then(|| ((top1.projected - 2.0 * sd).max(0.0), (top1.projected + 2.0 * sd).min(1.0)));
        if let Some((lo, hi)) = band {
            let _ = write!(bars, "M{:.1} {:.1}V{:.1}", plot.x(i), plot.y(lo), plot.y(hi));
        }
        bounds.push(band);
    }
    if !bars.is_empty() {
        let _ = write!(s, r#"<path class="spread" d="{bars}" fill="none" stroke="{SPREAD}" stroke-width="{bar:.1}"/>"#);
    }
    if top1.projected.is_finite() {
        plot.hline(&mut s, top1.projected, "#1A1A1A", 1.6, "");
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#1A1A1A" dominant-baseline="central">projected {}</text>"##,
            LEFT + PLOT_W + 5.0,
            plot.y(top1.projected),
            pct(top1.projected)
        );
    }
    let above = |i: usize, g: &proto::AssessedGame| bounds[i].is_some_and(|(_, hi)| g.agreement > hi);
    let triangle = |x: f64, y: f64| format!("M{x:.1} {:.1}l4.5 8h-9z", y - 5.0);
    if a.per_game.len() <= TITLED_GAMES {
        for (i, g) in a.per_game.iter().enumerate().filter(|(_, g)| g.agreement.is_finite()) {
            let (x, y) = (plot.x(i), plot.y(g.agreement));
            let title = format!(
                "Game {}: {}, top-1 {} of {} positions; projected {} ± {}",
                i + 1,
                g.source,
                pct(g.agreement),
                g.positions,
                pct(top1.projected),
                bounds[i].map_or("-".to_string(), |(lo, hi)| format!("{} to {}", pct(lo), pct(hi)))
            );
            let shape = if above(i, g) {
                format!(
                    r##"<path class="game above" d="{}" fill="{ABOVE}" stroke="#000" stroke-width="0.7""##,
                    triangle(x, y)
                )
            } else {
                format!(
                    r##"<circle class="game" cx="{x:.1}" cy="{y:.1}" r="4" fill="{POINT}" stroke="#000" stroke-width="0.7""##
                )
            };
            let end = if above(i, g) { "path" } else { "circle" };
            let _ = write!(s, r#"{shape} data-game="{}"><title>{}</title></{end}>"#, i + 1, esc(&title));
        }
    } else {
        let (mut within, mut beyond) = (String::new(), String::new());
        for (i, g) in a.per_game.iter().enumerate().filter(|(_, g)| g.agreement.is_finite()) {
            let (x, y) = (plot.x(i), plot.y(g.agreement));
            if above(i, g) {
                beyond.push_str(&triangle(x, y));
            } else {
                let _ = write!(within, "M{x:.1} {y:.1}h0");
            }
        }
        let _ = write!(
            s,
            r#"<path class="games" d="{within}" fill="none" stroke="{POINT}" stroke-width="5" stroke-linecap="round"/>"#
        );
        if !beyond.is_empty() {
            let _ = write!(
                s,
                r##"<path class="games above" d="{beyond}" fill="{ABOVE}" stroke="#000" stroke-width="0.5"/>"##
            );
        }
    }
    let dot = format!(r##"<circle r="4" fill="{POINT}" stroke="#000" stroke-width="0.7"/>"##);
    let at = legend_entry(&mut s, LEFT, &dot, "a game's top-1");
    let spread = format!(
        r##"<rect x="-3" y="-7" width="6" height="14" fill="{SPREAD}"/><line x1="-8" y1="0" x2="8" y2="0" stroke="#1A1A1A" stroke-width="1.6"/>"##
    );
    let at = legend_entry(&mut s, at, &spread, "projected ± 2 sd");
    let tri = format!(r##"<path d="{}" fill="{ABOVE}" stroke="#000" stroke-width="0.7"/>"##, triangle(0.0, 0.0));
    legend_entry(&mut s, at, &tri, "above its bar");
    plot.close_frame(&mut s, "top-1");
    s.push_str("</svg>");
    s
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
mod tests {
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
                    rest.starts_with("http://www.w3.org/2000/svg\"")
                        || rest.starts_with("http://www.w3.org/1999/xhtml\""),
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
        let param = |key: &str| {
            doc.descendants().find(|n| n.attribute("data-param") == Some(key)).map(text_of).unwrap_or_default()
        };
        assert_eq!(param("engine_version"), "chuhe 0.9.0");
        assert_eq!(param("evaluation"), "classical");
        assert_eq!(param("nodes_per_ply"), "200000");
        assert_eq!(param("multipv"), "5");
        assert_eq!(param("rule_set"), "XIANGQI_ASIAN_V1");
        assert_eq!(param("book_plies"), "8");
        assert_eq!(param("family_size"), "100");
        assert!(param("min_positions").contains("50"));
        let fact = |key: &str| {
            doc.descendants().find(|n| n.attribute("data-fact") == Some(key)).map(text_of).unwrap_or_default()
        };
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
}
