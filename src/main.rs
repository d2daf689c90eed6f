//! The `chuhe` command line: serve the API, or ask the rules directly.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use chuhe::notation::fen;
use chuhe::rules::history::Game;
use chuhe::rules::perft;
use chuhe::rules::three_kingdoms;
use chuhe::rules::types::{Move, MoveList};
use chuhe::service::convert::ContentLimits;
use chuhe::service::proto;
use chuhe::service::server::{ServerConfig, serve};
use chuhe::telemetry::{self, LogFormat};

#[derive(Parser)]
#[command(name = "chuhe", version, about = "Xiangqi, Janggi and Three Kingdoms rules and analysis")]
struct Cli {
    /// What to do; without a command, serve the API with default settings.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Variant {
    Xiangqi,
    Janggi,
    #[value(name = "three-kingdoms")]
    ThreeKingdoms,
}

#[derive(clap::Args)]
struct PositionArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    variant: Variant,
    /// Start position as FEN, or `startpos`.
    #[arg(long, default_value = "startpos")]
    fen: String,
    /// Moves to play from the FEN first, in ICCS, separated by spaces (Three Kingdoms:
    /// point names such as `Rh3-Re3`).
    #[arg(long, default_value = "")]
    moves: String,
    /// Three Kingdoms: `--fen startpos` without flag bearers.
    #[arg(long)]
    no_flag_bearers: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the gRPC API and the Prometheus metrics.
    Serve(ServeArgs),
    /// Count the leaf nodes of the legal move tree to a depth.
    Perft {
        #[command(flatten)]
        position: PositionArgs,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Print the count under each root move (ICCS) before the total.
        #[arg(long)]
        divide: bool,
    },
    /// List the legal moves of a position, then its status.
    Moves {
        #[command(flatten)]
        position: PositionArgs,
        /// Print the ListLegalMoves response in the canonical protobuf JSON mapping.
        #[arg(long)]
        json: bool,
    },
    /// Judge a game record: the result and the rule that decided it.
    Adjudicate {
        #[command(flatten)]
        position: PositionArgs,
        /// Rule set.
        #[arg(long, value_enum, default_value = "simplified")]
        rules: RulesArg,
        /// Print the response message in the canonical protobuf JSON mapping.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RulesArg {
    /// SIMPLIFIED_V1: perpetual check loses, other repetitions draw.
    Simplified,
    /// ASIAN_V1: perpetual check and chase.
    Asian,
}

#[derive(clap::Args)]
struct ServeArgs {
    /// gRPC listen address.
    #[arg(long, env = "CHUHE_LISTEN", default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
    /// Prometheus metrics listen address (`/metrics`).
    #[arg(long, env = "CHUHE_METRICS_LISTEN", default_value = "127.0.0.1:9464")]
    metrics_listen: SocketAddr,
    /// Requests handled at once; more are shed with RESOURCE_EXHAUSTED.
    #[arg(long, env = "CHUHE_MAX_CONCURRENCY", default_value_t = 256)]
    max_concurrency: usize,
    /// Longest a request may run, in milliseconds (a smaller grpc-timeout wins).
    #[arg(long, env = "CHUHE_REQUEST_TIMEOUT_MS", default_value_t = 30_000)]
    request_timeout_ms: u64,
    /// Largest request or response message, in bytes.
    #[arg(long, env = "CHUHE_MAX_MESSAGE_BYTES", default_value_t = 4 * 1024 * 1024)]
    max_message_bytes: usize,
    /// Most moves a position or game record may carry.
    #[arg(long, env = "CHUHE_MAX_GAME_PLIES", default_value_t = 10_000)]
    max_game_plies: usize,
    /// Seconds in-flight requests get to finish after SIGTERM or SIGINT.
    #[arg(long, env = "CHUHE_GRACE_PERIOD_S", default_value_t = 10)]
    grace_period_s: u64,
    /// Log format on stderr.
    #[arg(long, env = "CHUHE_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs::parse_from(["serve"])
    }
}

#[derive(Parser)]
struct ServeOnly {
    #[command(flatten)]
    args: ServeArgs,
}

impl ServeArgs {
    fn parse_from<I: IntoIterator<Item = &'static str>>(args: I) -> ServeArgs {
        ServeOnly::parse_from(args).args
    }
}

/// A failure to report on stderr with exit code 2.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command.unwrap_or_else(|| Command::Serve(ServeArgs::default())) {
        Command::Serve(args) => run_server(args),
        Command::Adjudicate { position, rules, json } => {
            let request = proto::AdjudicateRequest {
                position: Some(proto_position(&position)?),
                rule_set: match rules {
                    RulesArg::Simplified => proto::RuleSet::SimplifiedV1,
                    RulesArg::Asian => proto::RuleSet::AsianV1,
                } as i32,
                events: Vec::new(),
            };
            let limits = ContentLimits { max_game_plies: usize::MAX };
            let r =
                chuhe::service::rules::adjudicate(&request, limits).map_err(|s| Failure(s.message().to_string()))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&r).map_err(|e| Failure(e.to_string()))?);
            } else {
                let name = |v: i32| proto::Player::try_from(v).map_or("?", |p| p.as_str_name());
                println!("result: {}", proto::GameResult::try_from(r.result).map_or("?", |x| x.as_str_name()));
                println!("winner: {}", name(r.winner));
                println!(
                    "termination: {}",
                    proto::Termination::try_from(r.termination).map_or("?", |x| x.as_str_name())
                );
                println!("rule: {}", r.rule);
                println!("decided at ply: {}", r.decided_at_ply);
                if r.cycle_last_ply > 0 {
                    println!("cycle: plies {}-{}", r.cycle_first_ply, r.cycle_last_ply);
                }
                println!("explanation: {}", r.explanation);
            }
            Ok(())
        }
        Command::Perft { position, depth, divide } if matches!(position.variant, Variant::ThreeKingdoms) => {
            let mut pos = three_kingdoms_position(&position)?;
            print_perft(&mut pos, depth, divide);
            Ok(())
        }
        Command::Moves { position, json: false } if matches!(position.variant, Variant::ThreeKingdoms) => {
            let pos = three_kingdoms_position(&position)?;
            let mut list = three_kingdoms::MoveList::new();
            pos.legal_moves(&mut list);
            for &m in &list {
                println!("{}", pos.move_text(m));
            }
            match pos.status() {
                three_kingdoms::Status::Ongoing => println!("status: ongoing"),
                three_kingdoms::Status::Won(k) => println!("status: {} wins", k.name()),
            }
            println!("side to move: {}", pos.side_to_move().name());
            println!("check: {}", if pos.in_check() { "yes" } else { "no" });
            println!("position: {pos}");
            Ok(())
        }
        Command::Perft { position, depth, divide } => {
            let game = xiangqi_game(&position)?;
            let mut pos = game.position().clone();
            if divide {
                let mut total = 0;
                for (m, n) in perft::divide(&mut pos, depth) {
                    println!("{m}: {n}");
                    total += n;
                }
                println!();
                println!("{total}");
            } else {
                println!("{}", perft::perft(&mut pos, depth));
            }
            Ok(())
        }
        Command::Moves { position, json: true } => {
            let request =
                proto::ListLegalMovesRequest { position: Some(proto_position(&position)?), ..Default::default() };
            let limits = ContentLimits { max_game_plies: usize::MAX };
            let r = chuhe::service::rules::list_legal_moves(&request, limits)
                .map_err(|s| Failure(s.message().to_string()))?;
            println!("{}", serde_json::to_string_pretty(&r).map_err(|e| Failure(e.to_string()))?);
            Ok(())
        }
        Command::Moves { position, json: false } => {
            let game = xiangqi_game(&position)?;
            let pos = game.position();
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            for m in &list {
                println!("{m}");
            }
            println!("status: {}", pos.status().name());
            println!("check: {}", if pos.in_check() { "yes" } else { "no" });
            Ok(())
        }
    }
}

fn proto_position(args: &PositionArgs) -> Result<proto::Position, Failure> {
    let variant = match args.variant {
        Variant::Xiangqi => proto::Variant::Xiangqi,
        Variant::Janggi => proto::Variant::Janggi,
        Variant::ThreeKingdoms => proto::Variant::ThreeKingdoms,
    };
    Ok(proto::Position {
        variant: variant as i32,
        fen: args.fen.clone(),
        moves: args.moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    })
}

fn run_server(args: ServeArgs) -> Result<(), Failure> {
    telemetry::init_tracing(args.log_format);
    let config = ServerConfig {
        max_concurrency: args.max_concurrency,
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        max_message_bytes: args.max_message_bytes,
        max_game_plies: args.max_game_plies,
        grace_period: Duration::from_secs(args.grace_period_s),
    };
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Failure(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let grpc = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Failure(format!("cannot listen on {}: {e}", args.listen)))?;
        let metrics = tokio::net::TcpListener::bind(args.metrics_listen)
            .await
            .map_err(|e| Failure(format!("cannot listen on {}: {e}", args.metrics_listen)))?;
        telemetry::metrics_handle();
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut metrics_stop = stop_rx.clone();
        tokio::spawn(telemetry::serve_metrics(metrics, async move {
            let _ = metrics_stop.wait_for(|s| *s).await;
        }));
        tracing::info!(grpc = %args.listen, metrics = %args.metrics_listen, "serving");
        let shutdown = async move {
            termination_signal().await;
            let _ = stop_tx.send(true);
        };
        drop(stop_rx);
        serve(config, grpc, shutdown).await.map_err(|e| Failure(format!("server error: {e}")))
    })
}

/// SIGTERM (Kubernetes) or SIGINT (Ctrl-C).
async fn termination_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Perft (or divide) of a Three Kingdoms position, printed as for Xiangqi.
fn print_perft<N: perft::Node>(pos: &mut N, depth: u32, divide: bool) {
    if divide {
        let mut total = 0;
        for (m, n) in perft::divide(pos, depth) {
            println!("{m}: {n}");
            total += n;
        }
        println!();
        println!("{total}");
    } else {
        println!("{}", perft::perft(pos, depth));
    }
}

/// A Three Kingdoms position from `--fen` (a position text or `startpos`) and `--moves`
/// (point names).
fn three_kingdoms_position(args: &PositionArgs) -> Result<three_kingdoms::Position, Failure> {
    let mut pos = if args.fen.trim() == "startpos" {
        three_kingdoms::Position::startpos(!args.no_flag_bearers)
    } else {
        three_kingdoms::Position::from_text(&args.fen).map_err(|e| Failure(e.to_string()))?
    };
    for (i, text) in args.moves.split_whitespace().enumerate() {
        let m = pos.parse_move(text).map_err(|e| Failure(format!("move {} ({text}): {e}", i + 1)))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

fn xiangqi_game(args: &PositionArgs) -> Result<Game, Failure> {
    match args.variant {
        Variant::Xiangqi => {}
        other => return Err(Failure(format!("variant {other:?} is not supported yet"))),
    }
    let start = fen::xiangqi(&args.fen).map_err(|e| Failure(e.to_string()))?;
    let mut game = Game::new(start);
    for (i, text) in args.moves.split_whitespace().enumerate() {
        let m = Move::parse_iccs(text).ok_or_else(|| Failure(format!("move {} ({text:?}) is not ICCS", i + 1)))?;
        game.play(m).map_err(|_| Failure(format!("move {} ({text}) is illegal", i + 1)))?;
    }
    Ok(game)
}
