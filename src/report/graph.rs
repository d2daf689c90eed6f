//! The evaluation graph in SVG: Red's (Cho's) win probability after each audited ply,
//! the book, forced and decided plies shaded, and each inaccuracy, mistake and blunder
//! marked in its colour and shape with its ply and move in a `<title>` (shown on hover,
//! no script). The curve's points follow the answer's plies in order, one each; each
//! marker carries its ply as `data-ply`, each band its first and last plies as
//! `data-ply` and `data-last-ply` (a run of forced or decided plies is one band).

use std::fmt::Write as _;

use super::escape::esc;
use super::palette::{FLAGS, flag_of};
use super::{red_win_probability, side_name, win_probability_scale};
use crate::api::proto;
use crate::game::Variant;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 270.0;
const LEFT: f64 = 46.0;
const RIGHT: f64 = 12.0;
/// Room for the legend above the plot.
const TOP: f64 = 34.0;
/// Room for the ply numbers under it.
const BOTTOM: f64 = 30.0;
const PLOT_W: f64 = WIDTH - LEFT - RIGHT;
const PLOT_H: f64 = HEIGHT - TOP - BOTTOM;

const BOOK: &str = "#DDDDDD";
const DECIDED: &str = "#EFE8CF";
const FORCED_HATCH: &str = "#8C8C8C";
const CURVE: &str = "#1A1A1A";

/// Where the plies lie along the x axis: `plies` slots, the ply numbered `n` (from 1)
/// in the middle of the n-th.
struct Axis {
    plies: usize,
}

impl Axis {
    fn slot(&self) -> f64 {
        PLOT_W / self.plies as f64
    }

    fn x(&self, ply: usize) -> f64 {
        LEFT + (ply as f64 - 0.5) * self.slot()
    }

    fn slot_left(&self, ply: usize) -> f64 {
        LEFT + (ply as f64 - 1.0) * self.slot()
    }
}

fn y(wp: f64) -> f64 {
    let wp = if wp.is_finite() { wp.clamp(0.0, 1.0) } else { 0.5 };
    TOP + (1.0 - wp) * PLOT_H
}

/// The graph of `answer` over a game of `game_plies` moves (the last audited ply's
/// number when more), in `variant`'s side names.
pub fn evaluation_graph(answer: &proto::AuditGameResponse, game_plies: usize, variant: Variant) -> String {
    let last_audited = answer.plies.iter().map(|p| p.move_index as usize + 1).max().unwrap_or(0);
    let axis = Axis { plies: game_plies.max(last_audited).max(1) };
    let scale = win_probability_scale(answer);
    let red = side_name(variant, proto::Player::Red as i32);
    let book = answer.summary.as_ref().and_then(|s| s.parameters.as_ref()).map_or(0, |p| p.book_plies as usize);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="graph" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{red}'s win probability after each ply" font-family="sans-serif" xmlns="http://www.w3.org/2000/svg">"#
    );
    let _ = write!(
        s,
        r#"<title>{red}'s win probability after each ply</title><defs><pattern id="forced-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="{BOOK}"/><line x1="0" y1="0" x2="0" y2="6" stroke="{FORCED_HATCH}" stroke-width="2"/></pattern>{}</defs>"#,
        FLAGS.iter().map(|f| f.definition()).collect::<String>()
    );
    let _ = write!(s, r##"<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="#FFFFFF"/>"##);
    bands(&mut s, &axis, answer, book.min(axis.plies));
    frame(&mut s, &axis, red, variant);
    let points: Vec<(usize, f64, f64)> = answer
        .plies
        .iter()
        .map(|p| {
            let ply = p.move_index as usize + 1;
            (ply, axis.x(ply), y(red_win_probability(p, scale)))
        })
        .collect();
    curve(&mut s, &points);
    for (p, &(ply, px, py)) in answer.plies.iter().zip(&points) {
        if let Some(flag) = flag_of(p.class) {
            let _ = write!(
                s,
                r##"<g class="marker {}" data-ply="{ply}" transform="translate({px:.1} {py:.1})"><title>{}</title><use href="#marker-{}"/></g>"##,
                flag.name,
                esc(&format!(
                    "Ply {ply} ({}): {}, {} ({} cp lost); engine: {}",
                    side_name(variant, p.mover),
                    p.played_move,
                    flag.label.to_lowercase(),
                    p.cp_loss,
                    p.best_move
                )),
                flag.name
            );
        }
    }
    legend(&mut s);
    s.push_str("</svg>");
    s
}

/// The shaded plies: the book as one band, then each run of forced plies and of
/// decided ones (plies that follow each other, each forced, or each decided and not
/// forced) as one.
fn bands(s: &mut String, axis: &Axis, answer: &proto::AuditGameResponse, book: usize) {
    if book > 0 {
        let _ = write!(
            s,
            r#"<rect class="band book" data-ply="1" x="{LEFT}" y="{TOP}" width="{:.1}" height="{PLOT_H}" fill="{BOOK}"><title>Book: plies 1 to {book}, not audited</title></rect>"#,
            book as f64 * axis.slot()
        );
    }
    let shade = |p: &proto::AuditPly| match (p.forced, p.decided) {
        (true, _) => Some(("forced", "url(#forced-hatch)")),
        (false, true) => Some(("decided", DECIDED)),
        (false, false) => None,
    };
    let mut runs: Vec<(&str, &str, usize, usize)> = Vec::new();
    for p in &answer.plies {
        let ply = p.move_index as usize + 1;
        let Some((what, fill)) = shade(p) else { continue };
        match runs.last_mut() {
            Some(run) if run.0 == what && run.3 + 1 == ply => run.3 = ply,
            _ => runs.push((what, fill, ply, ply)),
        }
    }
    for (what, fill, first, last) in runs {
        let plies = if first == last { format!("Ply {first}") } else { format!("Plies {first} to {last}") };
        let _ = write!(
            s,
            r#"<rect class="band {what}" data-ply="{first}" data-last-ply="{last}" x="{:.1}" y="{TOP}" width="{:.2}" height="{PLOT_H}" fill="{fill}"><title>{plies}: {what}, not counted</title></rect>"#,
            axis.slot_left(first),
            axis.slot() * (last + 1 - first) as f64
        );
    }
}

/// The frame, the 25 % lines, the probability labels and the ply numbers.
fn frame(s: &mut String, axis: &Axis, red: &str, variant: Variant) {
    for (wp, label) in [(1.0, "100%"), (0.75, ""), (0.5, "50%"), (0.25, ""), (0.0, "0%")] {
        let (stroke, dash) = if wp == 0.5 { ("#777", "") } else { ("#CCC", r#" stroke-dasharray="3 3""#) };
        let _ = write!(
            s,
            r#"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="1"{dash}/>"#,
            y(wp),
            LEFT + PLOT_W,
            y(wp)
        );
        if !label.is_empty() {
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#333" text-anchor="end" dominant-baseline="central">{label}</text>"##,
                LEFT - 5.0,
                y(wp)
            );
        }
    }
    let black = side_name(variant, proto::Player::Black as i32);
    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#555">{red} ahead</text><text x="{:.1}" y="{:.1}" font-size="11" fill="#555" dominant-baseline="hanging">{black} ahead</text>"##,
        LEFT + 4.0,
        TOP + 12.0,
        LEFT + 4.0,
        TOP + PLOT_H - 14.0
    );
    let step = tick_step(axis.plies);
    for ply in (step..=axis.plies).step_by(step) {
        let px = axis.x(ply);
        let _ = write!(
            s,
            r##"<line x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}" stroke="#333" stroke-width="1"/><text x="{px:.1}" y="{:.1}" font-size="11" fill="#333" text-anchor="middle">{ply}</text>"##,
            TOP + PLOT_H,
            TOP + PLOT_H + 4.0,
            TOP + PLOT_H + 16.0
        );
    }
    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#555" text-anchor="end">ply</text><rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="none" stroke="#333" stroke-width="1"/>"##,
        LEFT + PLOT_W,
        HEIGHT - 2.0
    );
}

/// Ply numbers every 1, 2, 5, 10, 20, 50... plies: at most about twelve along the axis.
fn tick_step(plies: usize) -> usize {
    let mut unit = 1usize;
    loop {
        for m in [1, 2, 5] {
            let step = unit.saturating_mul(m);
            if plies / step <= 12 {
                return step;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// The curve through the points, and the area between it and the even line, shaded.
fn curve(s: &mut String, points: &[(usize, f64, f64)]) {
    let (Some(first), Some(last)) = (points.first(), points.last()) else { return };
    let path: Vec<String> = points.iter().map(|&(_, px, py)| format!("{px:.1},{py:.1}")).collect();
    let even = y(0.5);
    let _ = write!(
        s,
        r##"<polygon class="area" points="{:.1},{even:.1} {} {:.1},{even:.1}" fill="#000" fill-opacity="0.08"/>"##,
        first.1,
        path.join(" "),
        last.1
    );
    let _ = write!(
        s,
        r#"<polyline class="eval" points="{}" fill="none" stroke="{CURVE}" stroke-width="1.8" stroke-linejoin="round"/>"#,
        path.join(" ")
    );
}

/// What the shades and the markers mean, above the plot.
fn legend(s: &mut String) {
    let mut at = LEFT;
    let swatches = [("Book", BOOK.to_string()), ("Forced", "url(#forced-hatch)".into()), ("Decided", DECIDED.into())];
    for (label, fill) in swatches {
        let _ = write!(
            s,
            r##"<rect x="{at:.1}" y="9" width="14" height="14" fill="{fill}" stroke="#999"/><text x="{:.1}" y="16" font-size="12" fill="#222" dominant-baseline="central">{label}</text>"##,
            at + 19.0
        );
        at += 92.0;
    }
    for flag in FLAGS {
        let _ = write!(
            s,
            r##"<use href="#marker-{}" transform="translate({:.1} 16)"/><text x="{:.1}" y="16" font-size="12" fill="#222" dominant-baseline="central">{}</text>"##,
            flag.name,
            at + 7.0,
            at + 19.0,
            flag.label
        );
        at += 104.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_stay_few_whatever_the_length() {
        assert_eq!(tick_step(10), 1);
        assert_eq!(tick_step(120), 10);
        assert_eq!(tick_step(121), 10);
        assert_eq!(tick_step(130), 20);
        assert!(usize::MAX / tick_step(usize::MAX) <= 12);
    }

    #[test]
    fn an_empty_answer_draws_a_frame_and_no_curve() {
        let svg = evaluation_graph(&proto::AuditGameResponse::default(), 0, Variant::Xiangqi);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(!svg.contains("polyline") && !svg.contains("class=\"marker"));
    }
}
