//! The page's two tables: each side's figures, and every audited ply's evidence.

use std::fmt::Write as _;

use super::escape::esc;
use super::palette::flag_of;
use super::{class_name, ply_notes, score_text, side_name};
use crate::api::proto;
use crate::game::Variant;

/// One figure of the sides' table: its key in the markup, its name, and how a side's
/// summary writes it.
struct Figure {
    key: &'static str,
    label: &'static str,
    value: fn(&proto::AuditSideSummary) -> String,
}

const FIGURES: &[Figure] = &[
    Figure {
        key: "plies",
        label: "Plies counted (book, forced, decided)",
        value: |s| format!("{} ({}, {}, {})", s.plies_counted, s.plies_book, s.plies_forced, s.plies_decided),
    },
    Figure { key: "accuracy", label: "Accuracy", value: |s| format!("{:.1}", s.accuracy) },
    Figure { key: "average_cp_loss", label: "Average loss (cp)", value: |s| format!("{:.1}", s.average_cp_loss) },
    Figure { key: "median_cp_loss", label: "Median loss (cp)", value: |s| format!("{:.1}", s.median_cp_loss) },
    Figure { key: "top1", label: "Top-1 agreement", value: |s| format!("{:.1} %", 100.0 * s.top1_agreement) },
    Figure { key: "top3", label: "Top-3 agreement", value: |s| format!("{:.1} %", 100.0 * s.top3_agreement) },
    Figure { key: "best", label: "Best", value: |s| s.best.to_string() },
    Figure { key: "excellent", label: "Excellent", value: |s| s.excellent.to_string() },
    Figure { key: "good", label: "Good", value: |s| s.good.to_string() },
    Figure { key: "inaccuracies", label: "Inaccuracies", value: |s| s.inaccuracies.to_string() },
    Figure { key: "mistakes", label: "Mistakes", value: |s| s.mistakes.to_string() },
    Figure { key: "blunders", label: "Blunders", value: |s| s.blunders.to_string() },
    Figure { key: "longest_top1_run", label: "Longest top-1 run", value: |s| s.longest_top1_run.to_string() },
];

/// The badge of the flagged class a figure counts, if it counts one.
fn figure_badge(key: &str) -> String {
    let class = match key {
        "inaccuracies" => proto::AuditMoveClass::Inaccuracy,
        "mistakes" => proto::AuditMoveClass::Mistake,
        "blunders" => proto::AuditMoveClass::Blunder,
        _ => return String::new(),
    };
    flag_of(class as i32).map_or_else(String::new, |f| f.badge() + " ")
}

/// Each side's figures, a column per audited side; the time/difficulty correlation
/// when the audit had clock data.
pub fn sides_table(summary: &proto::AuditSummary, variant: Variant) -> String {
    let mut s = String::from(r#"<div class="scroll"><table class="sides"><thead><tr><th scope="col">Figure</th>"#);
    for side in &summary.sides {
        let _ = write!(s, r#"<th scope="col">{}</th>"#, side_name(variant, side.player));
    }
    s.push_str("</tr></thead><tbody>");
    let row = |s: &mut String, key: &str, label: &str, cells: Vec<String>| {
        let _ = write!(s, r#"<tr data-figure="{key}"><th scope="row">{}{}</th>"#, figure_badge(key), esc(label));
        for cell in cells {
            let _ = write!(s, "<td>{}</td>", esc(&cell));
        }
        s.push_str("</tr>");
    };
    for f in FIGURES {
        row(&mut s, f.key, f.label, summary.sides.iter().map(f.value).collect());
    }
    if summary.sides.iter().any(|side| side.time_difficulty_correlation.is_some()) {
        let cells = summary
            .sides
            .iter()
            .map(|side| side.time_difficulty_correlation.map_or_else(|| "-".into(), |c| format!("{c:.2}")))
            .collect();
        row(&mut s, "time_difficulty_correlation", "Time/difficulty correlation", cells);
    }
    s.push_str("</tbody></table></div>");
    s
}

/// Every audited ply, in game order; a flagged ply's row carries its class, and its
/// anchor `ply-N` is what the diagrams link to. A game may have thousands of plies, so
/// that a row holds its values and no more: the cells are aligned by column in the style
/// sheet, and a badge is a use of the graph's marker.
pub fn plies_table(answer: &proto::AuditGameResponse, variant: Variant) -> String {
    let with_clock = answer.plies.iter().any(|p| p.clock_ms > 0);
    let mut s = String::from(r#"<div class="scroll"><table class="plies"><thead><tr>"#);
    let mut heads = vec![
        "Ply",
        "Side",
        "Played",
        "Engine",
        "Engine's score",
        "Played score",
        "Rank",
        "Loss (cp)",
        "WP loss",
        "Class",
        "Notes",
        "Near best",
        "Depth",
        "Nodes",
    ];
    if with_clock {
        heads.push("Clock (s)");
    }
    for h in heads {
        let _ = write!(s, r#"<th scope="col">{h}</th>"#);
    }
    s.push_str("</tr></thead><tbody>");
    for p in &answer.plies {
        let ply = u64::from(p.move_index) + 1;
        let flag = flag_of(p.class);
        let notes = ply_notes(p).join(", ");
        let rank = if p.played_rank == 0 { "-".to_string() } else { p.played_rank.to_string() };
        let _ = write!(
            s,
            r#"<tr id="ply-{ply}"{}><td>{ply}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{rank}</td><td>{}</td><td>{:.1} %</td><td>{}{}</td><td>{notes}</td><td>{}</td><td>{}</td><td>{}</td>"#,
            flag.map_or_else(String::new, |f| format!(r#" class="{}""#, f.name)),
            side_name(variant, p.mover),
            esc(&p.played_move),
            esc(&p.best_move),
            esc(&score_text(p.best_score.as_ref())),
            esc(&score_text(p.played_score.as_ref())),
            p.cp_loss,
            100.0 * p.win_probability_loss,
            flag.map_or_else(String::new, |f| f.badge() + " "),
            esc(&class_name(p.class)),
            p.near_best,
            p.depth,
            p.nodes
        );
        if with_clock {
            let _ = write!(s, "<td>{:.1}</td>", f64::from(p.clock_ms) / 1000.0);
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s
}
