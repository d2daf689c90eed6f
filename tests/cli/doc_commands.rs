//! The `chuhe` commands of the pages (README.md, deploy/README.md, docs/*.md): each one's
//! flags are flags of its command, the quick ones run as written, every flag of
//! `chuhe serve --help` is in docs/operating.md, and the pages stay short.

use std::collections::BTreeMap;
use std::process::Command;

use crate::common;
use crate::common::doc_pages::{DocCommand, commands, pages};

/// Commands that answer at once from a position, so the tests run them as written.
const QUICK: &[&str] = &["perft", "moves", "adjudicate", "convert", "analyze", "audit"];

/// Commands whose own commands take the flags (`chuhe fairplay calibrate ...`).
const NESTED: &[&str] = &["fairplay", "jobs"];

fn help(command: &str) -> String {
    let words: Vec<&str> = command.split(' ').chain(["--help"]).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe")).args(&words).output().expect("run chuhe");
    assert!(out.status.success(), "chuhe {command} --help: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The long flags a help text lists, in its order (`--help` left out): the lines that
/// open with a flag (`      --listen <LISTEN>`, `  -v, --verbose`), not the
/// descriptions indented below them.
fn listed_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|line| {
            let text = line.trim_start();
            if line.len() - text.len() > 6 {
                return None;
            }
            let long = match text.as_bytes() {
                [b'-', short, b',', b' ', ..] if *short != b'-' => &text[4..],
                _ => text,
            };
            let flag = long.strip_prefix("--")?.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).next()?;
            (flag != "help" && !flag.is_empty()).then(|| format!("--{flag}"))
        })
        .collect()
}

/// A page's command as `chuhe` sees it: its command (with its own command, for the
/// [`NESTED`] ones) and its arguments, up to a pipe or `&`. `cargo run ... -- ARGS` is
/// `chuhe ARGS`; no command is `serve`.
fn chuhe_arguments(command: &DocCommand) -> Option<(String, Vec<String>)> {
    let words = &command.words;
    let rest: &[String] = match words[0].as_str() {
        "chuhe" => &words[1..],
        "cargo" if words.get(1).is_some_and(|w| w == "run") => {
            &words[words.iter().position(|w| w == "--").map_or(words.len(), |i| i + 1)..]
        }
        _ => return None,
    };
    let rest: Vec<String> =
        rest.iter().take_while(|w| !["|", "&", "&&", ";", ">"].contains(&w.as_str())).cloned().collect();
    match rest.first() {
        Some(first) if NESTED.contains(&first.as_str()) && rest.len() > 1 => {
            Some((format!("{first} {}", rest[1]), rest[2..].to_vec()))
        }
        Some(first) if !first.starts_with('-') => Some((first.clone(), rest[1..].to_vec())),
        _ => Some(("serve".to_string(), rest)),
    }
}

/// Every `chuhe` command of the pages' `sh` blocks, with the page it is on.
fn page_commands() -> Vec<(String, DocCommand)> {
    let mut found = Vec::new();
    for (file, text) in pages() {
        for program in ["chuhe", "cargo"] {
            for command in commands(&text, program) {
                if command.language == "sh" && chuhe_arguments(&command).is_some() {
                    found.push((file.clone(), command));
                }
            }
        }
    }
    found
}

/// Every flag of `chuhe COMMAND --help` (at least `least` of them) is in the flag table
/// of `page`.
fn every_flag_is_on_the_page(command: &str, least: usize, page: &str) {
    let flags = listed_flags(&help(command));
    assert!(flags.len() >= least, "chuhe {command} --help lists {} flags: {flags:?}", flags.len());
    let text = common::repo_text(page);
    let missing: Vec<&String> = flags.iter().filter(|flag| !text.contains(&format!("`{flag}`"))).collect();
    assert!(
        missing.is_empty(),
        "{page} does not list these flags of `chuhe {command} --help` (add a row to its flag table): {}",
        missing.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
    );
}

#[test]
fn every_flag_of_serve_is_in_operating_md() {
    every_flag_is_on_the_page("serve", 30, "docs/operating.md");
}

#[test]
fn every_flag_of_worker_is_in_jobs_md() {
    every_flag_is_on_the_page("worker", 10, "docs/jobs.md");
}

#[test]
fn every_command_of_the_pages_takes_the_flags_it_shows() {
    let mut helps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let found = page_commands();
    assert!(found.len() >= 20, "the pages' chuhe commands were found: {}", found.len());
    for (file, command) in &found {
        let (name, arguments) = chuhe_arguments(command).expect("a chuhe command");
        let known = helps.entry(name.clone()).or_insert_with(|| listed_flags(&help(&name)));
        for flag in arguments.iter().filter(|a| a.starts_with("--") && a.as_str() != "--help") {
            let flag = flag.split('=').next().expect("a flag");
            assert!(
                known.iter().any(|k| k == flag),
                "{file}: `{}`: chuhe {name} has no flag {flag}",
                command.words.join(" ")
            );
        }
    }
}

#[test]
fn the_quick_commands_of_the_pages_run_as_written() {
    let mut ran = 0;
    for (file, command) in page_commands() {
        let (name, arguments) = chuhe_arguments(&command).expect("a chuhe command");
        if !QUICK.contains(&name.as_str()) {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_chuhe")).arg(&name).args(&arguments).output().expect("run chuhe");
        let shown = command.words.join(" ");
        assert!(out.status.success(), "{file}: `{shown}`: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{file}: `{shown}` printed nothing");
        ran += 1;
    }
    assert!(ran >= 10, "the pages' quick commands were found: {ran}");
}

#[test]
fn the_readme_shows_the_test_command_ci_runs() {
    let ci = common::repo_text(".ci/run");
    let command = ci.lines().rev().find(|l| !l.trim().is_empty() && !l.starts_with('#')).expect("a command");
    let readme = common::repo_text("README.md");
    assert!(
        readme.lines().any(|l| l.split(" #").next().map(str::trim_end) == Some(command)),
        "README.md does not show `{command}`, the command .ci/run runs"
    );
}

#[test]
fn the_pages_stay_short_and_say_whom_they_are_for() {
    for (file, text) in pages() {
        let lines = text.lines().count();
        if file == "README.md" {
            assert!(lines <= 300, "README.md has {lines} lines");
        } else if let Some(page) = file.strip_prefix("docs/") {
            assert!(lines < 600, "{file} has {lines} lines");
            let opening = text.lines().skip(1).find(|l| !l.trim().is_empty()).unwrap_or_default();
            assert!(opening.starts_with("For "), "{page} does not open by saying whom it is for: {opening}");
        }
    }
}

#[test]
fn flags_are_read_from_help_lines() {
    let text =
        "Options:\n      --listen <LISTEN>  gRPC\n  -v, --verbose  more\n      --help  help\n  text --not-this\n";
    assert_eq!(listed_flags(text), vec!["--listen", "--verbose"]);
}
