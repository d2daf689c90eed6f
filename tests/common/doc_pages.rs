//! The pages of the repository that show commands (README.md, deploy/README.md and
//! docs/*.md) and the commands of their code blocks, read as the shell would.

use std::path::PathBuf;

/// The pages whose commands the tests run, by their path from the root, with their text.
pub fn pages() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec!["README.md".to_string(), "deploy/README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("a docs/ entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths.into_iter().map(|path| (path.clone(), super::repo_text(&path))).collect()
}

/// One command of a page: its words, the language of its code block, and the answer
/// shown for it (a `json` block that follows the block the command ends, with only
/// blank lines between).
#[derive(Debug, PartialEq)]
pub struct DocCommand {
    pub words: Vec<String>,
    pub language: String,
    pub answer: Option<String>,
}

/// The commands of a Markdown page's code blocks that start with `program`, with
/// continued lines joined and split into words as the shell would (quotes, no
/// expansion).
pub fn commands(markdown: &str, program: &str) -> Vec<DocCommand> {
    let mut found: Vec<DocCommand> = Vec::new();
    // The language of the open block, if one is open.
    let mut block: Option<String> = None;
    // The open block's last line so far was a command of `program`.
    let mut ends_with_command = false;
    // The command that a json block opened now would answer.
    let mut answerable: Option<usize> = None;
    let mut answer: Option<(usize, String)> = None;
    let mut line = String::new();
    for raw in markdown.lines() {
        if let Some(fence) = raw.trim_start().strip_prefix("```") {
            match block.take() {
                None => {
                    let language = fence.trim().to_string();
                    if language == "json" {
                        answer = answerable.map(|i| (i, String::new()));
                    }
                    answerable = None;
                    ends_with_command = false;
                    block = Some(language);
                }
                Some(_) => {
                    if let Some((i, text)) = answer.take() {
                        found[i].answer = Some(text);
                    } else if ends_with_command {
                        answerable = Some(found.len() - 1);
                    }
                }
            }
            continue;
        }
        let Some(language) = &block else {
            if !raw.trim().is_empty() {
                answerable = None;
            }
            continue;
        };
        if let Some((_, text)) = &mut answer {
            text.push_str(raw);
            text.push('\n');
            continue;
        }
        line.push_str(raw.trim());
        if let Some(joined) = line.strip_suffix('\\') {
            line = format!("{} ", joined.trim_end());
            continue;
        }
        let words = shell_words(&line);
        if words.first().is_some_and(|w| w == program) {
            found.push(DocCommand { words, language: language.clone(), answer: None });
            ends_with_command = true;
        } else if !line.trim().is_empty() {
            ends_with_command = false;
        }
        line.clear();
    }
    found
}

/// A line split into words as the shell would: quotes kept together, `#` comments
/// dropped, no expansion.
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, '#') if word.is_none() => break,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    assert!(quote.is_none(), "unbalanced quote in: {line}");
    words.extend(word);
    words
}
