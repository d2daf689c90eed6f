//! The HTML page: the header (the game, its result, every audit parameter), the
//! evaluation graph, each side's figures, a diagram per mistake and blunder and the
//! table of plies, with the style sheet inline. The markup is well-formed XML as well
//! as HTML, so that a reader can parse it with either.

use std::fmt::Write as _;

use super::board::diagram;
use super::escape::esc;
use super::graph::evaluation_graph;
use super::palette::{flag_of, has_diagram};
use super::tables::{plies_table, sides_table};
use super::{AuditPage, page_variant, score_text, side_name};
use crate::api::proto;
use crate::game::Variant;
use crate::rules::types::Move;

const STYLE: &str = include_str!("style.css");

/// The page of `page`.
pub fn render_page(page: &AuditPage) -> String {
    let variant = page_variant(page);
    let answer = page.answer;
    let summary = answer.summary.clone().unwrap_or_default();
    let title = match page.game {
        Some(g) if g.names.iter().any(|n| !n.is_empty()) => {
            format!("Audit: {} – {} ({})", name_or_side(g, variant, 0), name_or_side(g, variant, 1), variant.name())
        }
        _ => format!("Audit of a {} game", variant.name()),
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><title>{}</title><style>{STYLE}</style></head><body>",
        esc(&title)
    );
    header(&mut s, page, variant, &summary, &title);
    let plies = page.game.map_or(0, |g| g.plies());
    let _ = write!(
        s,
        r#"<section id="graph"><h2>Evaluation</h2><figure class="graph-figure"><div class="scroll">{}</div><figcaption>{}'s win probability after each audited ply, from the score of the move played (the engine's view). Hover a marker for its ply and move.</figcaption></figure></section>"#,
        evaluation_graph(answer, plies, variant),
        side_name(variant, proto::Player::Red as i32)
    );
    let _ = write!(s, r#"<section id="sides"><h2>Per side</h2>{}</section>"#, sides_table(&summary, variant));
    diagrams(&mut s, page, variant);
    let _ = write!(
        s,
        r#"<section id="plies"><h2>Every audited ply</h2><p class="note">Scores in centipawns from the mover's view, in the position before the move (M<i>n</i>: a mate in <i>n</i> moves, -M<i>n</i>: mated); the loss is the engine's score less the played move's. Forced and decided plies are left out of the figures.</p>{}</section>"#,
        plies_table(answer, variant)
    );
    s.push_str("</body></html>\n");
    s
}

fn name_or_side(game: &super::AuditedGame, variant: Variant, side: usize) -> String {
    let player = [proto::Player::Red, proto::Player::Black][side] as i32;
    match game.names[side].as_str() {
        "" => side_name(variant, player).to_string(),
        name => name.to_string(),
    }
}

/// The game, its sides and result, the audited sides, and every parameter of the audit.
fn header(s: &mut String, page: &AuditPage, variant: Variant, summary: &proto::AuditSummary, title: &str) {
    let _ = write!(s, "<header><h1>{}</h1>", esc(title));
    if let Some(game) = page.game {
        for side in 0..2 {
            let player = [proto::Player::Red, proto::Player::Black][side] as i32;
            let name = if game.names[side].is_empty() { "(not named)" } else { &game.names[side] };
            let _ = write!(
                s,
                r#"<p class="player" data-side="{}"><b>{}:</b> {}</p>"#,
                side_name(variant, player).to_lowercase(),
                side_name(variant, player),
                esc(name)
            );
        }
        let _ = write!(
            s,
            r#"<p class="result"><b>Result:</b> {} <span class="note">({} moves)</span></p>"#,
            esc(&game.result),
            game.plies()
        );
    } else {
        s.push_str(r#"<p class="note">Rendered from the answer alone: give the audited game for its players, result and board diagrams.</p>"#);
    }
    let audited: Vec<&str> = summary.sides.iter().map(|side| side_name(variant, side.player)).collect();
    let _ = write!(s, r#"<p class="audited"><b>Audited:</b> {}</p>"#, esc(&audited.join(" and ")));
    let p = summary.parameters.clone().unwrap_or_default();
    let rule_set = proto::RuleSet::try_from(p.rule_set).map_or("?", |r| r.as_str_name());
    let movetime =
        if p.movetime_ms_per_ply == 0 { "none".to_string() } else { format!("{} ms", p.movetime_ms_per_ply) };
    let nodes = if p.nodes_per_ply == 0 { "none".to_string() } else { p.nodes_per_ply.to_string() };
    let params: [(&str, &str, String); 14] = [
        ("engine_version", "Engine version", p.engine_version.clone()),
        ("rule_set", "Rule set", rule_set.to_string()),
        ("nodes_per_ply", "Nodes per ply", nodes),
        ("movetime_ms_per_ply", "Time per ply", movetime),
        ("multipv", "Lines (multipv)", p.multipv.to_string()),
        ("threads", "Threads", p.threads.to_string()),
        ("hash_mb", "Hash (MiB)", p.hash_mb.to_string()),
        ("book_plies", "Book plies", p.book_plies.to_string()),
        ("deterministic", "Deterministic", if p.deterministic { "yes" } else { "no" }.to_string()),
        ("cp_loss_cap", "Loss cap (cp)", p.cp_loss_cap.to_string()),
        ("near_best_margin_cp", "Near-best margin (cp)", p.near_best_margin_cp.to_string()),
        ("decided_threshold_cp", "Decided beyond (cp)", p.decided_threshold_cp.to_string()),
        ("win_probability_scale", "Win probability k", format!("{}", p.win_probability_scale)),
        ("nodes", "Nodes in all", summary.nodes.to_string()),
    ];
    s.push_str(r#"<dl class="params">"#);
    for (key, label, value) in params {
        let _ = write!(s, r#"<div><dt>{label}</dt><dd data-param="{key}">{}</dd></div>"#, esc(&value));
    }
    s.push_str("</dl></header>");
}

/// A diagram per mistake and blunder: the position before the move, the move played
/// and the engine's drawn as arrows.
fn diagrams(s: &mut String, page: &AuditPage, variant: Variant) {
    let flagged: Vec<&proto::AuditPly> = page.answer.plies.iter().filter(|p| has_diagram(p.class)).collect();
    s.push_str(r#"<section id="diagrams"><h2>Mistakes and blunders on the board</h2>"#);
    if flagged.is_empty() {
        s.push_str(r#"<p class="note">No mistake or blunder.</p></section>"#);
        return;
    }
    let Some(game) = page.game else {
        s.push_str(
            r#"<p class="note">The board diagrams need the audited game (its record or its moves).</p></section>"#,
        );
        return;
    };
    let _ = write!(
        s,
        r#"<p class="note">Arrows: <span class="key-played">solid, the move played</span>; <span class="key-engine">dashed, the engine's move</span>. {} at the bottom.</p><div class="diagrams">"#,
        side_name(variant, proto::Player::Red as i32)
    );
    let mut indices: Vec<usize> = flagged.iter().map(|p| p.move_index as usize).collect();
    indices.sort_unstable();
    let boards = game.boards_before(&indices);
    for p in flagged {
        let index = p.move_index as usize;
        let Ok(at) = boards.binary_search_by_key(&index, |b| b.0) else { continue };
        let ply = index + 1;
        let flag = flag_of(p.class).map_or("", |f| f.name);
        let side = side_name(variant, p.mover);
        let label = format!("Ply {ply}, {side} to move: played {}, engine {}", p.played_move, p.best_move);
        let svg =
            diagram(variant, &boards[at].1, Move::parse_iccs(&p.played_move), Move::parse_iccs(&p.best_move), &label);
        let _ = write!(
            s,
            r##"<figure class="diagram {flag}" data-ply="{ply}">{svg}<figcaption><a href="#ply-{ply}">Ply {ply}</a>, {side}, {flag}: played <b class="key-played">{}</b> ({}), engine <b class="key-engine">{}</b> ({}); {} cp lost</figcaption></figure>"##,
            esc(&p.played_move),
            esc(&score_text(p.played_score.as_ref())),
            esc(&p.best_move),
            esc(&score_text(p.best_score.as_ref())),
            p.cp_loss
        );
    }
    s.push_str("</div></section>");
}
