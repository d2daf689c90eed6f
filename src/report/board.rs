//! A board diagram in SVG: the points, the palaces, the river (Xiangqi's written, Janggi's
//! board runs through), the pieces drawn with their characters, and two arrows, the move
//! played and the engine's. Red (Cho) is at the bottom. Each piece carries its point and
//! FEN letter as `data-` attributes, each arrow its two points, so that a reader (and a
//! test) can check what is drawn where.

use std::fmt::Write as _;

use super::escape::esc;
use super::palette::{ENGINE_MOVE, PLAYED_MOVE};
use crate::game::Variant;
use crate::rules::board::Board;
use crate::rules::types::{Color, Move, Piece, PieceKind, Square};

/// Distance between two points.
const CELL: f64 = 40.0;
/// Space around the grid, room for the coordinates.
const MARGIN: f64 = 30.0;
const WIDTH: f64 = 8.0 * CELL + 2.0 * MARGIN;
const HEIGHT: f64 = 9.0 * CELL + 2.0 * MARGIN;
/// The reader's own fonts with the pieces' characters, serif first as boards print them.
const FONTS: &str = "'Noto Serif CJK SC', 'Noto Sans CJK SC', 'Source Han Serif', 'WenQuanYi Micro Hei', 'Songti SC', SimSun, 'Malgun Gothic', serif";

/// What differs between the two boards' looks.
struct Look {
    background: &'static str,
    line: &'static str,
    /// The river's text, or none when the grid runs through it (Janggi).
    river: Option<[&'static str; 2]>,
    /// Ink of Red's (Cho's) and Black's (Han's) characters.
    ink: [&'static str; 2],
    /// Octagonal pieces sized by their kind (Janggi), or round ones of one size.
    octagons: bool,
    /// The characters per kind, Red's (Cho's) then Black's (Han's), in kind order.
    glyphs: [[char; 7]; 2],
}

const XIANGQI: Look = Look {
    background: "#F3DCA8",
    line: "#6B4423",
    river: Some(["楚 河", "漢 界"]),
    ink: ["#C8102E", "#1A1A1A"],
    octagons: false,
    glyphs: [['帥', '仕', '相', '傌', '俥', '炮', '兵'], ['將', '士', '象', '馬', '車', '砲', '卒']],
};

const JANGGI: Look = Look {
    background: "#E9C98B",
    line: "#2B2B2B",
    river: None,
    ink: ["#00589C", "#C8102E"],
    octagons: true,
    glyphs: [['楚', '士', '象', '馬', '車', '包', '卒'], ['漢', '士', '象', '馬', '車', '包', '兵']],
};

fn look(variant: Variant) -> &'static Look {
    match variant {
        Variant::Janggi => &JANGGI,
        _ => &XIANGQI,
    }
}

fn x(file: u8) -> f64 {
    MARGIN + f64::from(file) * CELL
}

fn y(rank: u8) -> f64 {
    MARGIN + f64::from(9 - rank) * CELL
}

fn centre(sq: Square) -> (f64, f64) {
    (x(sq.file()), y(sq.rank()))
}

fn side(c: Color) -> usize {
    match c {
        Color::Red => 0,
        Color::Black => 1,
    }
}

/// The character of a piece on the variant's board.
pub fn glyph(variant: Variant, p: Piece) -> char {
    look(variant).glyphs[side(p.color())][p.kind().index()]
}

/// The diagram of `board` with the arrows of `played` and `best` (none for a pass or
/// an unknown move); `label` is its accessible name.
pub fn diagram(variant: Variant, board: &Board, played: Option<Move>, best: Option<Move>, label: &str) -> String {
    let look = look(variant);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="board {}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}" font-family="{FONTS}" xmlns="http://www.w3.org/2000/svg">"#,
        variant.id(),
        esc(label)
    );
    let _ = write!(s, r#"<title>{}</title>"#, esc(label));
    let _ = write!(s, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="{}"/>"#, look.background);
    grid(&mut s, look);
    coordinates(&mut s, look);
    for (sq, p) in board.iter() {
        piece(&mut s, variant, look, sq, p);
    }
    // The engine's move under the played one: where they share a point, the played
    // move, the evidence, stays on top.
    for (m, class, colour) in [(best, "engine", ENGINE_MOVE), (played, "played", PLAYED_MOVE)] {
        if let Some(m) = m.filter(|m| !m.is_pass()) {
            arrow(&mut s, m, class, colour);
        }
    }
    s.push_str("</svg>");
    s
}

fn line(s: &mut String, (x1, y1): (f64, f64), (x2, y2): (f64, f64), colour: &str, width: f64) {
    let _ = write!(
        s,
        r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{colour}" stroke-width="{width}"/>"#
    );
}

/// Ranks, files (broken at a written river), the frame and both palaces' diagonals.
fn grid(s: &mut String, look: &Look) {
    let ink = look.line;
    for rank in 0..10 {
        line(s, (x(0), y(rank)), (x(8), y(rank)), ink, 1.2);
    }
    for file in 0..9 {
        let edge = file == 0 || file == 8;
        if look.river.is_none() || edge {
            line(s, (x(file), y(0)), (x(file), y(9)), ink, 1.2);
        } else {
            line(s, (x(file), y(0)), (x(file), y(4)), ink, 1.2);
            line(s, (x(file), y(5)), (x(file), y(9)), ink, 1.2);
        }
    }
    let _ = write!(
        s,
        r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="{ink}" stroke-width="2.5"/>"#,
        x(0) - 4.0,
        y(9) - 4.0,
        8.0 * CELL + 8.0,
        9.0 * CELL + 8.0
    );
    for (low, high) in [(0, 2), (7, 9)] {
        line(s, (x(3), y(low)), (x(5), y(high)), ink, 1.2);
        line(s, (x(5), y(low)), (x(3), y(high)), ink, 1.2);
    }
    if let Some([left, right]) = look.river {
        let mid = (y(4) + y(5)) / 2.0;
        for (text, at) in [(left, x(2)), (right, x(6))] {
            let _ = write!(
                s,
                r#"<text class="river" x="{at:.1}" y="{mid:.1}" fill="{ink}" font-size="22" text-anchor="middle" dominant-baseline="central">{}</text>"#,
                esc(text)
            );
        }
    }
}

/// ICCS coordinates: files a to i under the board, ranks 0 to 9 on its left.
fn coordinates(s: &mut String, look: &Look) {
    for file in 0..9u8 {
        let name = char::from(b'a' + file);
        let _ = write!(
            s,
            r#"<text class="coord" x="{:.1}" y="{:.1}" fill="{}" font-size="11" text-anchor="middle">{name}</text>"#,
            x(file),
            HEIGHT - 6.0,
            look.line
        );
    }
    for rank in 0..10u8 {
        let _ = write!(
            s,
            r#"<text class="coord" x="3" y="{:.1}" fill="{}" font-size="11" dominant-baseline="central">{rank}</text>"#,
            y(rank),
            look.line
        );
    }
}

/// The radius of a piece: Janggi's general is the largest and its advisors and soldiers
/// the smallest; Xiangqi's pieces are all of one size.
fn radius(look: &Look, kind: PieceKind) -> f64 {
    match (look.octagons, kind) {
        (false, _) => 17.0,
        (true, PieceKind::General) => 19.0,
        (true, PieceKind::Advisor | PieceKind::Soldier) => 13.0,
        (true, _) => 16.5,
    }
}

fn piece(s: &mut String, variant: Variant, look: &Look, sq: Square, p: Piece) {
    let (cx, cy) = centre(sq);
    let r = radius(look, p.kind());
    let ink = look.ink[side(p.color())];
    let colour = p.color().name();
    let _ = write!(
        s,
        r#"<g class="piece {colour}" data-square="{}" data-piece="{}"><title>{} {} {}</title>"#,
        sq.name(),
        p.fen_char(),
        colour,
        p.kind().name(),
        sq.name()
    );
    if look.octagons {
        let points: Vec<String> = (0..8)
            .map(|i| {
                let a = std::f64::consts::PI / 8.0 * f64::from(2 * i + 1);
                format!("{:.1},{:.1}", cx + r * a.cos(), cy + r * a.sin())
            })
            .collect();
        let _ =
            write!(s, r##"<polygon points="{}" fill="#FFF8E6" stroke="{ink}" stroke-width="1.6"/>"##, points.join(" "));
    } else {
        let _ = write!(
            s,
            r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="#FFF3DC" stroke="{ink}" stroke-width="1.6"/><circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="none" stroke="{ink}" stroke-width="0.8"/>"##,
            r - 3.0
        );
    }
    let _ = write!(
        s,
        r#"<text x="{cx:.1}" y="{cy:.1}" fill="{ink}" font-size="{:.1}" text-anchor="middle" dominant-baseline="central">{}</text></g>"#,
        r * 1.05,
        glyph(variant, p)
    );
}

/// An arrow from the move's point to its target, shortened to leave both pieces seen.
fn arrow(s: &mut String, m: Move, class: &str, colour: &str) {
    let ((x1, y1), (x2, y2)) = (centre(m.from()), centre(m.to()));
    let (dx, dy) = (x2 - x1, y2 - y1);
    let length = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / length, dy / length);
    let (sx, sy) = (x1 + ux * 10.0, y1 + uy * 10.0);
    let (tx, ty) = (x2 - ux * 6.0, y2 - uy * 6.0);
    let (bx, by) = (tx - ux * 14.0, ty - uy * 14.0);
    let (nx, ny) = (-uy * 8.0, ux * 8.0);
    let dash = if class == "engine" { r#" stroke-dasharray="7 5""# } else { "" };
    let _ = write!(
        s,
        r#"<g class="arrow {class}" data-from="{}" data-to="{}" opacity="0.85"><line x1="{sx:.1}" y1="{sy:.1}" x2="{bx:.1}" y2="{by:.1}" stroke="{colour}" stroke-width="5" stroke-linecap="round"{dash}/><polygon points="{tx:.1},{ty:.1} {:.1},{:.1} {:.1},{:.1}" fill="{colour}"/></g>"#,
        m.from().name(),
        m.to().name(),
        bx + nx,
        by + ny,
        bx - nx,
        by - ny
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::BoardGame;

    #[test]
    fn each_piece_is_drawn_once_on_its_point_with_its_character() {
        let game = BoardGame::startpos(Variant::Xiangqi);
        let svg = diagram(Variant::Xiangqi, game.board(), Move::parse_iccs("h2e2"), None, "start");
        assert_eq!(svg.matches(r#"<g class="piece"#).count(), 32);
        assert!(svg.contains(r#"data-square="e0" data-piece="K""#));
        assert!(svg.contains(r#"data-square="h7" data-piece="c""#));
        assert!(svg.contains('帥') && svg.contains('砲') && svg.contains("楚 河"));
        assert!(svg.contains(r#"class="arrow played" data-from="h2" data-to="e2""#));
        assert!(!svg.contains("arrow engine"));
    }

    #[test]
    fn janggi_has_no_river_text_and_its_own_characters() {
        let game = BoardGame::startpos(Variant::Janggi);
        let svg = diagram(Variant::Janggi, game.board(), None, Move::parse_iccs("pass"), "start");
        assert!(!svg.contains("river") && !svg.contains("arrow"));
        assert!(svg.contains('楚') && svg.contains('漢') && svg.contains('包'));
        assert_eq!(svg.matches("<polygon").count(), 32);
    }
}
