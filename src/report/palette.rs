//! The page's colours and marker shapes. Colours are from Okabe and Ito's palette,
//! which stays distinct for the common colour blindnesses; each flagged class has its
//! own shape as well, so that it reads in grey print and without colour at all.

use crate::api::proto::AuditMoveClass;

/// The engine's move on a diagram (Okabe-Ito blue).
pub const ENGINE_MOVE: &str = "#0072B2";
/// The played move on a diagram (Okabe-Ito vermillion).
pub const PLAYED_MOVE: &str = "#D55E00";

/// A class the page marks: inaccuracy, mistake or blunder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// The class.
    pub class: AuditMoveClass,
    /// Its name in the page's markup (`inaccuracy`, `mistake`, `blunder`).
    pub name: &'static str,
    /// Its name in prose.
    pub label: &'static str,
    /// Its fill colour.
    pub colour: &'static str,
    shape: Shape,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Circle,
    Square,
    Triangle,
}

/// The flagged classes, mildest first.
pub const FLAGS: [Flag; 3] = [
    Flag {
        class: AuditMoveClass::Inaccuracy,
        name: "inaccuracy",
        label: "Inaccuracy",
        colour: "#56B4E9",
        shape: Shape::Circle,
    },
    Flag { class: AuditMoveClass::Mistake, name: "mistake", label: "Mistake", colour: "#E69F00", shape: Shape::Square },
    Flag {
        class: AuditMoveClass::Blunder,
        name: "blunder",
        label: "Blunder",
        colour: "#D55E00",
        shape: Shape::Triangle,
    },
];

/// The flag of a ply's class (the proto's number), if the page marks it.
pub fn flag_of(class: i32) -> Option<Flag> {
    FLAGS.iter().copied().find(|f| f.class as i32 == class)
}

/// Whether a class gets a board diagram: mistakes and blunders.
pub fn has_diagram(class: i32) -> bool {
    class == AuditMoveClass::Mistake as i32 || class == AuditMoveClass::Blunder as i32
}

impl Flag {
    /// The marker centred on (0, 0), `r` its half size, in the class's colour with a dark
    /// outline.
    pub fn marker(self, r: f64) -> String {
        let paint = format!(r##"fill="{}" stroke="#000" stroke-width="1""##, self.colour);
        match self.shape {
            Shape::Circle => format!(r#"<circle r="{r:.1}" {paint}/>"#),
            Shape::Square => {
                let s = r * 0.9;
                format!(r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {paint}/>"#, -s, -s, 2.0 * s, 2.0 * s)
            }
            Shape::Triangle => {
                let h = r * 1.2;
                format!(r#"<polygon points="0,{:.1} {:.1},{:.1} {:.1},{:.1}" {paint}/>"#, -h, h, 0.8 * h, -h, 0.8 * h)
            }
        }
    }

    /// The marker's definition, `marker-NAME`, drawn once in the graph's `<defs>` and
    /// used by every marker and badge of the class.
    pub fn definition(self) -> String {
        format!(r#"<g id="marker-{}">{}</g>"#, self.name, self.marker(6.5))
    }

    /// A small badge of the marker, for the tables: a use of its definition, so that a
    /// table of thousands of flagged plies does not repeat the shape (the page holds the
    /// graph, which defines it).
    pub fn badge(self) -> String {
        format!(
            r##"<svg class="badge" viewBox="-8 -8 16 16" aria-hidden="true"><use href="#marker-{}"/></svg>"##,
            self.name
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flagged_class_has_its_own_colour_and_shape() {
        for (i, a) in FLAGS.iter().enumerate() {
            for b in &FLAGS[i + 1..] {
                assert_ne!(a.colour, b.colour);
                assert_ne!(a.shape, b.shape);
            }
        }
        assert_eq!(flag_of(AuditMoveClass::Good as i32), None);
        assert_eq!(flag_of(AuditMoveClass::Blunder as i32).map(|f| f.name), Some("blunder"));
        assert!(has_diagram(AuditMoveClass::Mistake as i32) && !has_diagram(AuditMoveClass::Inaccuracy as i32));
    }
}
