//! The assessment page's two charts: z per game over time, and each game's agreement
//! against the projection.

use std::fmt::Write as _;

use super::*;

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
pub(super) fn tick_step(games: usize) -> usize {
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
pub(super) fn z_chart(a: &proto::PlayerAssessment) -> String {
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
pub(super) fn agreement_chart(a: &proto::PlayerAssessment) -> String {
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
