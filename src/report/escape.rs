//! Escaping of every text the audit page writes: the page is XML-well-formed HTML, so
//! one escape serves element text and attribute values alike.

use std::fmt;

/// A text written escaped: `&`, `<`, `>`, `"` and `'` become entities, and the control
/// characters and non-characters that neither HTML nor XML allows are dropped.
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                '\t' | '\n' | '\r' => f.write_fmt(format_args!("{c}"))?,
                c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
                c => f.write_fmt(format_args!("{c}"))?,
            }
        }
        Ok(())
    }
}

/// `text` escaped for the page.
pub fn esc(text: &str) -> Escaped<'_> {
    Escaped(text)
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn markup_and_quotes_become_entities() {
        assert_eq!(esc(r#"<a href="x">'&'</a>"#).to_string(), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    #[test]
    fn control_characters_are_dropped_and_other_text_kept() {
        assert_eq!(esc("楚\u{0}河\u{1b}\n漢\u{FFFF}界").to_string(), "楚河\n漢界");
    }
}
