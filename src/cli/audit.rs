//! `chuhe audit`: a game's plies against the engine's lines, a table per ply and a
//! summary per side (the AuditGame RPC on this thread), or the audit page
//! ([`chuhe::report`]) of this audit or of an AuditGame answer read from its JSON.

use std::time::Duration;

use chuhe::api::convert::ContentLimits;
use chuhe::api::proto;
use chuhe::engine::{Engine, EngineConfig};
use chuhe::report::graph::evaluation_graph;
use chuhe::report::{AuditPage, AuditedGame, StatedResult, class_name, page_variant, ply_notes, render_page};

use chuhe::game::{RuleSet, Variant};
use chuhe::rules::types::Color;

use super::args::{PositionArgs, api_failure, json, proto_position, proto_rule_set};
use crate::Failure;

#[derive(clap::Args)]
/// The arguments of `chuhe audit`.
pub struct AuditArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// A game record (PGN-style text, or a Janggi .gib) instead of `--fen` and
    /// `--moves`; its tags name the variant and the start (a `.gib` file, or
    /// `--variant janggi`, is read as Janggi).
    #[arg(long)]
    record: Option<std::path::PathBuf>,
    /// Node budget per ply (default 50000 unless --movetime is given).
    #[arg(long)]
    nodes: Option<u64>,
    /// Time budget per ply in milliseconds (the audit then depends on the machine's
    /// load).
    #[arg(long)]
    movetime: Option<u32>,
    /// Engine lines the played move is compared with.
    #[arg(long, default_value_t = 3)]
    multipv: u32,
    /// Plies at the start not audited (the opening book).
    #[arg(long, default_value_t = 0)]
    book: u32,
    /// The side to audit (default: both).
    #[arg(long, value_enum)]
    side: Option<Color>,
    /// Time spent on each ply in milliseconds, separated by spaces, one per move.
    #[arg(long, default_value = "")]
    clock: String,
    /// Rule set whose repetition rules the searches follow (default: the variant's).
    #[arg(long, value_enum)]
    rules: Option<RuleSet>,
    /// Print the AuditGameResponse in the canonical protobuf JSON mapping.
    #[arg(long)]
    json: bool,
    /// Write the audit page, one self-contained HTML file, here.
    #[arg(long)]
    html: Option<std::path::PathBuf>,
    /// Write the evaluation graph alone, an SVG file, here.
    #[arg(long)]
    svg: Option<std::path::PathBuf>,
    /// Audit nothing: read this AuditGame answer (its JSON, as the RPC's JSON mapping
    /// prints it) and render it; the game (`--record`, or `--fen` and `--moves`) is
    /// optional and adds the players, the result and the board diagrams.
    #[arg(long)]
    from_json: Option<std::path::PathBuf>,
}

/// The audited game as the arguments give it: its position, the record's tags and the
/// result it states (none without a record).
struct GivenGame {
    position: proto::Position,
    tags: Vec<proto::RecordTag>,
    stated: Option<StatedResult>,
}

fn given_game(args: &AuditArgs, limits: ContentLimits) -> Result<GivenGame, Failure> {
    let Some(path) = &args.record else {
        return Ok(GivenGame { position: proto_position(&args.position)?, tags: Vec::new(), stated: None });
    };
    let record = read_record(path, args.position.variant, limits)?;
    let stated = proto::GameResult::try_from(record.result)
        .ok()
        .map(|result| StatedResult { result, winner: proto::Player::try_from(record.winner).unwrap_or_default() });
    Ok(GivenGame { position: record.position.unwrap_or_default(), tags: record.tags, stated })
}

/// The game record at `path` as ImportRecord reads it (a `.gib` file, or `variant`
/// Janggi, as Janggi).
pub fn read_record(
    path: &std::path::Path,
    variant: Variant,
    limits: ContentLimits,
) -> Result<proto::ImportRecordResponse, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
    // A .gib names no variant; it is Janggi's format.
    let gib = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gib"));
    let variant = match variant {
        Variant::Janggi => proto::Variant::Janggi,
        _ if gib => proto::Variant::Janggi,
        _ => proto::Variant::Unspecified,
    };
    let request = proto::ImportRecordRequest { text, variant: variant as i32, ..Default::default() };
    chuhe::api::notation::import_record(&request, limits)
        .map_err(|e| Failure::Message(format!("{}: {e}", path.display())))
}

/// Whether the arguments name a game at all: a record, or a start or moves of their own.
fn names_a_game(args: &AuditArgs) -> bool {
    let p = &args.position;
    args.record.is_some() || !p.moves.trim().is_empty() || p.fen.trim() != "startpos" || p.preset.is_some()
}

/// `chuhe audit`: the API's audit on this thread (or an answer read back), a table of
/// the plies and the summary, the response as JSON, or the page and the graph.
pub fn run_audit(args: AuditArgs) -> Result<(), Failure> {
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let game = match &args.from_json {
        Some(_) if !names_a_game(&args) => None,
        _ => Some(given_game(&args, limits)?),
    };
    let r = match &args.from_json {
        Some(path) => read_answer(path)?,
        None => audit(&args, game.as_ref().map(|g| g.position.clone()).unwrap_or_default(), limits)?,
    };
    if args.json {
        out!("{}", json(&r)?);
    }
    if args.html.is_some() || args.svg.is_some() {
        return write_page(&args, &r, game);
    }
    if !args.json {
        print_table(&r)?;
    }
    Ok(())
}

/// An AuditGame answer from its JSON (the proto JSON mapping: field names in either
/// case, enums by name or number, 64-bit numbers as strings or numbers).
fn read_answer(path: &std::path::Path) -> Result<proto::AuditGameResponse, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Message(format!("{}: not an AuditGame answer: {e}", path.display())))
}

fn audit(
    args: &AuditArgs,
    position: proto::Position,
    limits: ContentLimits,
) -> Result<proto::AuditGameResponse, Failure> {
    let clock_ms = args
        .clock
        .split_whitespace()
        .map(|t| t.parse::<u32>().map_err(|_| Failure::Message(format!("--clock: {t:?} is not milliseconds"))))
        .collect::<Result<Vec<u32>, Failure>>()?;
    let players = match args.side {
        None => Vec::new(),
        Some(side) => vec![proto::Player::from(side) as i32],
    };
    let request = proto::AuditGameRequest {
        position: Some(position),
        rule_set: proto_rule_set(args.rules) as i32,
        players,
        nodes_per_ply: args.nodes.unwrap_or(0),
        movetime_ms_per_ply: args.movetime.unwrap_or(0),
        multipv: args.multipv,
        book_plies: args.book,
        clock_ms,
    };
    let engine = Engine::new(EngineConfig {
        hash_mb: 1,
        workers: 1,
        // The command line's own budget is the limit.
        max_analysis: Duration::from_secs(86_400),
        ..EngineConfig::default()
    });
    chuhe::api::audit::audit_here(&engine, &request, limits, &mut |_| {}).map_err(api_failure)
}

/// Writes the page and the graph the arguments ask for; the game, when given, must be
/// the one audited.
fn write_page(args: &AuditArgs, r: &proto::AuditGameResponse, game: Option<GivenGame>) -> Result<(), Failure> {
    let rule_set = r.summary.as_ref().and_then(|s| s.parameters.as_ref()).map_or(0, |p| p.rule_set);
    let audited = match game {
        Some(g) => Some(AuditedGame::new(&g.position, rule_set, &g.tags, g.stated).map_err(api_failure)?),
        None => None,
    };
    if let Some(g) = &audited {
        g.check(r).map_err(Failure::Message)?;
    }
    let page = AuditPage { answer: r, game: audited.as_ref() };
    // Each file written is named on stdout, unless stdout carries the answer's JSON.
    let write = |path: &std::path::Path, text: String| {
        std::fs::write(path, text).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        if !args.json {
            out!("wrote {}", path.display());
        }
        Ok::<(), Failure>(())
    };
    if let Some(path) = &args.html {
        write(path, render_page(&page))?;
    }
    if let Some(path) = &args.svg {
        let plies = audited.as_ref().map_or(0, |g| g.plies());
        write(path, evaluation_graph(r, plies, page_variant(&page)))?;
    }
    Ok(())
}

/// The table of the plies, then each side's figures and the parameters.
fn print_table(r: &proto::AuditGameResponse) -> Result<(), Failure> {
    out!(
        "{:>4} {:<5} {:<6} {:<6} {:>10} {:>10} {:>4} {:>5} {:<11} flags",
        "ply",
        "side",
        "played",
        "best",
        "best",
        "played",
        "rank",
        "loss",
        "class"
    );
    for p in &r.plies {
        out!("{}", audit_row(p));
    }
    let summary = r.summary.clone().unwrap_or_default();
    for s in &summary.sides {
        let side = proto::Player::try_from(s.player).map_or("?", |p| p.as_str_name());
        out!(
            "{side}: {} plies counted ({} book, {} forced, {} decided)",
            s.plies_counted,
            s.plies_book,
            s.plies_forced,
            s.plies_decided
        );
        out!(
            "  average loss {:.1} cp, median {:.1} cp, accuracy {:.1}",
            s.average_cp_loss,
            s.median_cp_loss,
            s.accuracy
        );
        out!(
            "  top-1 {:.1} %, top-3 {:.1} %, longest top-1 run {}",
            100.0 * s.top1_agreement,
            100.0 * s.top3_agreement,
            s.longest_top1_run
        );
        out!(
            "  best {} excellent {} good {} inaccuracies {} mistakes {} blunders {}",
            s.best,
            s.excellent,
            s.good,
            s.inaccuracies,
            s.mistakes,
            s.blunders
        );
        if let Some(c) = s.time_difficulty_correlation {
            out!("  time/difficulty correlation {c:.2}");
        }
    }
    if let Some(p) = summary.parameters {
        out!(
            "engine {} nodes/ply {} movetime/ply {} ms multipv {} threads {} hash {} MiB, {} nodes in all",
            p.engine_version,
            p.nodes_per_ply,
            p.movetime_ms_per_ply,
            p.multipv,
            p.threads,
            p.hash_mb,
            summary.nodes
        );
    }
    Ok(())
}

/// One ply of `chuhe audit`'s table.
fn audit_row(p: &proto::AuditPly) -> String {
    let score = |s: Option<proto::Score>| match s.and_then(|s| s.value) {
        Some(proto::score::Value::Cp(cp)) => format!("cp {cp}"),
        Some(proto::score::Value::Mate(n)) => format!("mate {n}"),
        None => "-".into(),
    };
    let side = if p.mover == proto::Player::Red as i32 { "red" } else { "black" };
    let class = class_name(p.class);
    let flags = ply_notes(p).join(",");
    format!(
        "{:>4} {:<5} {:<6} {:<6} {:>10} {:>10} {:>4} {:>5} {:<11} {flags}",
        p.move_index + 1,
        side,
        p.played_move,
        p.best_move,
        score(p.best_score),
        score(p.played_score),
        p.played_rank,
        p.cp_loss,
        class
    )
}
