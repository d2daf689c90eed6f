//! The HTML page: the header (the game, its result, every audit parameter), the
//! evaluation graph, each side's figures, the mistakes and blunders (the worst on the
//! board) and the table of plies, with the style sheet inline. The markup is well-formed XML as well
//! as HTML, so that a reader can parse it with either.

use std::fmt::Write as _;

use super::escape::esc;
use super::graph::evaluation_graph;
use super::mistakes::mistakes;
use super::tables::{plies_table, sides_table};
use super::{AuditPage, page_variant, side_name};
use crate::api::proto;
use crate::game::Variant;

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
    mistakes(&mut s, page, variant);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{AuditedGame, MAX_DIAGRAMS};

    /// The most a ply adds to the page, whatever it holds (see the worst ply below).
    const MOST_BYTES_PER_PLY: usize = 850;
    /// The page without its plies: style, header, the graph's frame, the diagrams.
    const MOST_FIXED_BYTES: usize = 1 << 20;

    /// `plies` moves of the horses out and back, every piece kept on the board, so that
    /// each diagram is as large as a diagram gets.
    fn shuffle(plies: usize) -> AuditedGame {
        let moves = ["b0c2", "b9c7", "c2b0", "c7b9"].iter().cycle().take(plies).map(|m| m.to_string()).collect();
        let position = proto::Position { variant: proto::Variant::Xiangqi as i32, moves, ..Default::default() };
        AuditedGame::new(&position, 0, &[], None).expect("a legal game")
    }

    /// Every ply at its largest: a blunder with both notes, the longest scores and
    /// numbers, a clock; forced and decided by turns, so that no two bands merge.
    fn worst_answer(game: &AuditedGame) -> proto::AuditGameResponse {
        let score = |v| Some(proto::Score { value: Some(v) });
        let plies = (0..game.plies())
            .map(|i| proto::AuditPly {
                move_index: i as u32,
                mover: if i % 2 == 0 { proto::Player::Black } else { proto::Player::Red } as i32,
                played_move: game.move_text(i).unwrap_or_default(),
                best_move: "b0a2".into(),
                best_score: score(proto::score::Value::Cp(-29_999)),
                played_score: score(proto::score::Value::Mate(-120)),
                played_rank: 8,
                cp_loss: 1000,
                win_probability_loss: 0.999,
                class: proto::AuditMoveClass::Blunder as i32,
                forced: i % 2 == 0,
                decided: true,
                near_best: 8,
                depth: 120,
                nodes: 10_000_000,
                clock_ms: 86_400_000,
                ..Default::default()
            })
            .collect();
        proto::AuditGameResponse { plies, summary: None }
    }

    fn page_bytes(plies: usize) -> usize {
        let game = shuffle(plies);
        let answer = worst_answer(&game);
        let page = render_page(&AuditPage { answer: &answer, game: Some(&game) });
        assert_eq!(page.matches(r#"<figure class="diagram"#).count(), MAX_DIAGRAMS);
        page.len()
    }

    #[test]
    fn a_page_grows_by_its_plies_and_no_more() {
        let (short, long) = (page_bytes(1_000), page_bytes(2_000));
        let per_ply = (long - short) / 1_000;
        assert!(per_ply <= MOST_BYTES_PER_PLY, "{per_ply} bytes a ply");
        let fixed = short - 1_000 * per_ply;
        assert!(fixed <= MOST_FIXED_BYTES, "{fixed} bytes beyond the plies");
    }
}
