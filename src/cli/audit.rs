//! `chuhe audit`: a game's plies against the engine's lines, a table per ply and a
//! summary per side (the AuditGame RPC on this thread).

use std::time::Duration;

use chuhe::api::convert::ContentLimits;
use chuhe::api::proto;
use chuhe::engine::{Engine, EngineConfig};

use chuhe::game::RuleSet;
use chuhe::rules::types::Color;

use super::args::{PositionArgs, api_failure, json, proto_position, proto_rule_set};
use crate::Failure;

#[derive(clap::Args)]
/// The arguments of `chuhe audit`.
pub struct AuditArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// A game record (PGN-style text, or a Janggi .gib) instead of `--fen` and
    /// `--moves`; its tags name the variant and the start.
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
}

/// `chuhe audit`: the API's audit on this thread, a table of the plies and the
/// summary, or the response as JSON.
pub fn run_audit(args: AuditArgs) -> Result<(), Failure> {
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let position = match &args.record {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
            let request = proto::ImportRecordRequest { text, ..Default::default() };
            let record = chuhe::api::notation::import_record(&request, limits).map_err(api_failure)?;
            record.position.unwrap_or_default()
        }
        None => proto_position(&args.position)?,
    };
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
    let r = chuhe::api::audit::audit_here(&engine, &request, limits, &mut |_| {}).map_err(api_failure)?;
    if args.json {
        out!("{}", json(&r)?);
        return Ok(());
    }
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
    let summary = r.summary.unwrap_or_default();
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
    let class = proto::AuditMoveClass::try_from(p.class)
        .map_or("?", |c| c.as_str_name().trim_start_matches("AUDIT_MOVE_CLASS_"))
        .to_lowercase();
    let flags = [(p.forced, "forced"), (p.decided, "decided")]
        .iter()
        .filter(|f| f.0)
        .map(|f| f.1)
        .collect::<Vec<_>>()
        .join(",");
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
