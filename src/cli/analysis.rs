//! `chuhe analyze`: the API's search on this thread, each depth on stderr, the result
//! on stdout.

use std::time::Duration;

use chuhe::api::convert::ContentLimits;
use chuhe::api::proto;
use chuhe::engine::{Engine, EngineConfig, SearchPriority};

use chuhe::game::RuleSet;

use super::args::{PositionArgs, api_failure, json, proto_position, proto_rule_set};
use crate::Failure;

/// The options of `chuhe analyze`.
#[derive(clap::Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    /// The position to analyse.
    pub position: PositionArgs,
    /// Time budget in milliseconds (default: 1000 when neither --depth nor --nodes is
    /// given, else none).
    #[arg(long)]
    pub movetime: Option<u32>,
    /// Depth limit (plies).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Node limit.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Number of best lines.
    #[arg(long, default_value_t = 1)]
    pub multipv: u32,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Transposition table size.
    #[arg(long, default_value_t = 64)]
    pub hash_mb: usize,
    /// Rule set whose repetition rules the search follows (default: the variant's).
    #[arg(long, value_enum)]
    pub rules: Option<RuleSet>,
    /// Print the AnalyzeResponse in the canonical protobuf JSON mapping.
    #[arg(long)]
    pub json: bool,
}

/// `chuhe analyze`.
pub fn run_analyze(a: AnalyzeArgs) -> Result<(), Failure> {
    let request = proto::AnalyzeRequest {
        position: Some(proto_position(&a.position)?),
        limits: Some(proto::SearchLimits {
            depth: a.depth.unwrap_or(0),
            nodes: a.nodes.unwrap_or(0),
            // Zero with a depth or node limit: no time limit.
            movetime_ms: movetime_or_default(a.movetime, a.depth, a.nodes).unwrap_or(0),
            clock: None,
        }),
        multipv: a.multipv,
        rule_set: proto_rule_set(a.rules) as i32,
        ..Default::default()
    };
    let engine = Engine::new(EngineConfig {
        hash_mb: a.hash_mb,
        workers: 1,
        threads_per_search: a.threads.max(1),
        // The command line's own --movetime is the limit.
        max_analysis: Duration::from_secs(86_400),
        // Alone in its process: no rules call to give way to.
        search_priority: SearchPriority::UNCHANGED,
        ..EngineConfig::default()
    });
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let mut info = |p: &proto::AnalyzeStreamResponse| {
        if !a.json {
            print_depth(p);
        }
    };
    let r = chuhe::api::analysis::analyze_here(&engine, &request, limits, &mut info).map_err(api_failure)?;
    print_analysis(&r, a.json)
}

/// `chuhe analyze`'s time budget: `--movetime`, else one second unless a depth or node
/// limit is given.
fn movetime_or_default(movetime: Option<u32>, depth: Option<u32>, nodes: Option<u64>) -> Option<u32> {
    movetime.or((depth.is_none() && nodes.is_none()).then_some(1000))
}

/// A line's score as `chuhe analyze` writes it: `cp 35`, `mate 3` (`mate -2`: mated).
fn score_text(line: Option<&proto::PrincipalVariation>) -> String {
    match line.and_then(|l| l.score.and_then(|s| s.value)) {
        Some(proto::score::Value::Cp(cp)) => format!("cp {cp}"),
        Some(proto::score::Value::Mate(n)) => format!("mate {n}"),
        None => "none".to_string(),
    }
}

/// One finished depth of `chuhe analyze`, on stderr.
fn print_depth(p: &proto::AnalyzeStreamResponse) {
    if let Some(line) = p.lines.first() {
        let (depth, nodes, time) = (p.depth, p.nodes, p.time_ms);
        eprintln!(
            "depth {depth} score {} nodes {nodes} time {time}ms pv {}",
            score_text(Some(line)),
            line.pv.join(" ")
        );
    }
}

/// The result of `chuhe analyze`: the response in the JSON mapping, or as text lines.
fn print_analysis(r: &proto::AnalyzeResponse, as_json: bool) -> Result<(), Failure> {
    if as_json {
        out!("{}", json(r)?);
    } else {
        out!("bestmove: {}", r.best_move);
        out!("score: {}", score_text(r.lines.first()));
        out!("pv: {}", r.lines.first().map(|l| l.pv.join(" ")).unwrap_or_default());
        out!("depth: {} nodes: {} nps: {} time: {}ms", r.depth, r.nodes, r.nps, r.time_ms);
    }
    Ok(())
}
