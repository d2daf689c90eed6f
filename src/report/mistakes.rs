//! The page's mistakes and blunders: a board diagram for each of the worst
//! [`MAX_DIAGRAMS`] (the position before the move, the move played and the engine's drawn
//! as arrows), in game order, and the others listed with their ply, move, class and
//! loss, each linked to its row of the table of plies.

use std::cmp::Ordering;
use std::fmt::Write as _;

use super::board::diagram;
use super::escape::esc;
use super::palette::{flag_of, has_diagram};
use super::{AuditPage, class_name, score_text, side_name};
use crate::api::proto;
use crate::game::Variant;
use crate::rules::types::Move;

/// Most board diagrams a page draws. A diagram is some 16 KB of SVG and random play
/// makes a mistake every other ply: a diagram for each of a 10,000-ply game's made a
/// 98 MB page that a browser did not open within a minute. Forty are more than a
/// reviewer looks at one by one, and stay under a megabyte.
pub const MAX_DIAGRAMS: usize = 40;

/// The order of the diagrams' choice, worst first: the larger loss, then the larger
/// loss of win probability (losses are capped, so many blunders tie), then the earlier
/// ply.
pub fn worst_first(a: &proto::AuditPly, b: &proto::AuditPly) -> Ordering {
    b.cp_loss
        .cmp(&a.cp_loss)
        .then(b.win_probability_loss.total_cmp(&a.win_probability_loss))
        .then(a.move_index.cmp(&b.move_index))
}

/// The section of the mistakes and blunders of `page`.
pub fn mistakes(s: &mut String, page: &AuditPage, variant: Variant) {
    let mut drawn: Vec<&proto::AuditPly> = page.answer.plies.iter().filter(|p| has_diagram(p.class)).collect();
    s.push_str(r#"<section id="diagrams"><h2>Mistakes and blunders on the board</h2>"#);
    if drawn.is_empty() {
        s.push_str(r#"<p class="note">No mistake or blunder.</p></section>"#);
        return;
    }
    let Some(game) = page.game else {
        s.push_str(
            r#"<p class="note">The board diagrams need the audited game (its record or its moves).</p></section>"#,
        );
        return;
    };
    let total = drawn.len();
    drawn.sort_by(|a, b| worst_first(a, b));
    let mut listed = drawn.split_off(total.min(MAX_DIAGRAMS));
    drawn.sort_by_key(|p| p.move_index);
    listed.sort_by_key(|p| p.move_index);
    if !listed.is_empty() {
        let _ = write!(
            s,
            r##"<p class="note">The {} worst of the {total} mistakes and blunders (by loss) are drawn; <a href="#undrawn">the other {}</a> are listed after them.</p>"##,
            drawn.len(),
            listed.len()
        );
    }
    let _ = write!(
        s,
        r#"<p class="note">Arrows: <span class="key-played">solid, the move played</span>; <span class="key-engine">dashed, the engine's move</span>. {} at the bottom.</p><div class="diagrams">"#,
        side_name(variant, proto::Player::Red as i32)
    );
    let indices: Vec<usize> = drawn.iter().map(|p| p.move_index as usize).collect();
    let boards = game.boards_before(&indices);
    for p in drawn {
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
    s.push_str("</div>");
    if !listed.is_empty() {
        undrawn(s, &listed);
    }
    s.push_str("</section>");
}

/// The mistakes and blunders not drawn, in game order, each linked to its row.
fn undrawn(s: &mut String, listed: &[&proto::AuditPly]) {
    s.push_str(
        r#"<h3 id="undrawn">Not drawn</h3><div class="scroll"><table class="undrawn"><thead><tr><th scope="col">Ply</th><th scope="col">Played</th><th scope="col">Class</th><th scope="col">Loss (cp)</th></tr></thead><tbody>"#,
    );
    for p in listed {
        let ply = u64::from(p.move_index) + 1;
        let _ = write!(
            s,
            r##"<tr><td><a href="#ply-{ply}">{ply}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>"##,
            esc(&p.played_move),
            class_name(p.class),
            p.cp_loss
        );
    }
    s.push_str("</tbody></table></div>");
}
