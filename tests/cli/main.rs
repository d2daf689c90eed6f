//! The command line: the `chuhe` binary run as a process, its commands, UCI and self-play.
//!
//! One test binary for the layer, one module per concern or variant; the helpers shared
//! by the layers are in `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod adjudicate;
mod audit_page;
mod browser;
mod commands;
mod doc_commands;
mod fairplay;
mod janggi;
mod janggi_match;
mod jobs;
mod selfplay;
mod three_kingdoms;
mod train;
mod tune;
mod uci;

/// Writes a UCI engine as a shell script at `path`: it answers `uci` with the option
/// lines of `uci_reply` (shell commands, may be empty) and `uciok`, `isready` with
/// `readyok`, and runs `go_reply` at every `go`.
pub fn scripted_engine(path: &std::path::Path, uci_reply: &str, go_reply: &str) {
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\n\
             while read -r line; do\n\
               case \"$line\" in\n\
                 uci) {uci_reply} echo uciok ;;\n\
                 isready) echo readyok ;;\n\
                 go*) {go_reply} ;;\n\
                 quit) exit 0 ;;\n\
               esac\n\
             done\n"
        ),
    )
    .unwrap();
}
