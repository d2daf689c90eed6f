//! Reading the reference tables under `tests/data/`.
//!
//! Shared by several test crates; each uses only part of it.
#![allow(dead_code)]

use std::path::PathBuf;

/// The text of a file of the repository, by its path from the root.
pub fn repo_text(path: &str) -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Path of a file under `tests/data/`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("data").join(name)
}

/// The rows of a tab-separated table under `tests/data/`, header and `#` comments
/// dropped, each split into its columns (checked to be `columns` wide).
pub fn tsv_rows(name: &str, columns: usize) -> Vec<Vec<String>> {
    let path = data_path(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let _header = lines.next().unwrap_or_else(|| panic!("{name} has no header"));
    lines
        .map(|line| {
            let cols: Vec<String> = line.split('\t').map(str::to_string).collect();
            assert_eq!(cols.len(), columns, "{name}: row {line:?} does not have {columns} columns");
            cols
        })
        .collect()
}

/// One row of `perft.tsv`.
#[derive(Clone, Debug)]
pub struct PerftRow {
    pub variant: String,
    pub label: String,
    pub fen: String,
    pub depth: u32,
    pub nodes: u64,
}

pub fn perft_rows() -> Vec<PerftRow> {
    tsv_rows("perft.tsv", 5)
        .into_iter()
        .map(|c| PerftRow {
            variant: c[0].clone(),
            label: c[1].clone(),
            fen: c[2].clone(),
            depth: c[3].parse().expect("depth"),
            nodes: c[4].parse().expect("nodes"),
        })
        .collect()
}

/// One row of `perft-divide.tsv`: the node count under one root move.
#[derive(Clone, Debug)]
pub struct DivideRow {
    pub variant: String,
    pub label: String,
    pub fen: String,
    pub depth: u32,
    pub mv: String,
    pub nodes: u64,
}

pub fn divide_rows() -> Vec<DivideRow> {
    tsv_rows("perft-divide.tsv", 6)
        .into_iter()
        .map(|c| DivideRow {
            variant: c[0].clone(),
            label: c[1].clone(),
            fen: c[2].clone(),
            depth: c[3].parse().expect("depth"),
            mv: c[4].clone(),
            nodes: c[5].parse().expect("nodes"),
        })
        .collect()
}

/// The distinct positions of `perft.tsv` for one variant, as `(label, fen)`, in table order.
pub fn perft_positions(variant: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for row in perft_rows() {
        if row.variant == variant && !out.iter().any(|(_, f)| *f == row.fen) {
            out.push((row.label, row.fen));
        }
    }
    out
}
pub mod cpu;
pub mod doc_pages;
pub mod json_call;
pub mod mate;
pub mod raw_h2;
pub mod redis_server;
pub mod replay;
pub mod rng;
pub mod scratch;
pub mod server;
pub mod slow_xiangqi;
pub mod threads;
pub mod walk;

/// The field and description of the status's `google.rpc.BadRequest` detail (the status
/// must be INVALID_ARGUMENT with a violation).
pub fn violation(status: &tonic::Status) -> (String, String) {
    use tonic_types::StatusExt;
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    let details = status.get_error_details();
    let bad = details.bad_request().expect("BadRequest detail");
    (bad.field_violations[0].field.clone(), bad.field_violations[0].description.clone())
}

/// The field named by the status's `google.rpc.BadRequest` detail (the status must be
/// INVALID_ARGUMENT with a described violation).
pub fn bad_field(status: &tonic::Status) -> String {
    let (field, description) = violation(status);
    assert!(!description.is_empty());
    field
}

/// A ConvertMoves request: `moves` (separated by spaces) from `start`.
pub fn convert_request(
    start: chuhe::api::proto::Position,
    moves: &str,
    from: chuhe::api::proto::Notation,
    to: chuhe::api::proto::Notation,
) -> chuhe::api::proto::ConvertMovesRequest {
    chuhe::api::proto::ConvertMovesRequest {
        start: Some(start),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        from: from as i32,
        to: to as i32,
    }
}

/// A ListLegalMoves request of a Xiangqi position (`startpos` or a FEN).
pub fn list_request(fen: &str) -> chuhe::api::proto::ListLegalMovesRequest {
    chuhe::api::proto::ListLegalMovesRequest {
        position: Some(chuhe::api::proto::Position {
            variant: chuhe::api::proto::Variant::Xiangqi as i32,
            fen: fen.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `message` with the API key `key` (`authorization: Bearer <key>`).
pub fn with_key<T>(message: T, key: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {key}").parse().unwrap());
    request
}
