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
use chuhe::rules::xiangqi::handicap::{self, NamedStart};
use chuhe::service::convert::ContentLimits;
use chuhe::service::engine::{Engine, EngineConfig};
use chuhe::service::proto;
use chuhe::service::server::{ServerConfig, serve};
use chuhe::telemetry::{self, LogFormat};

/// A call allocates many small strings and messages; mimalloc serves them with far
/// fewer instructions than the system allocator (see the load bench).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `println!` that hands a failed write back as a [`Failure`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*).map_err(Failure::from)?
    }};
}

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
    /// Xiangqi handicap start instead of `--fen` (two-moves, three-moves, four-moves,
    /// one-horse, horse-and-move, two-horses, one-chariot, nine-pieces), with its rules;
    /// `N-moves` for the odds of any number of moves up to 10 (`6-moves`).
    #[arg(long)]
    preset: Option<String>,
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
    /// Search a position: best move, score, principal variation.
    Analyze {
        #[command(flatten)]
        position: PositionArgs,
        /// Time budget in milliseconds (default: 1000 when neither --depth nor --nodes is
        /// given, else none).
        #[arg(long)]
        movetime: Option<u32>,
        /// Depth limit (plies).
        #[arg(long)]
        depth: Option<u32>,
        /// Node limit.
        #[arg(long)]
        nodes: Option<u64>,
        /// Number of best lines.
        #[arg(long, default_value_t = 1)]
        multipv: u32,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size.
        #[arg(long, default_value_t = 64)]
        hash_mb: usize,
        /// Rule set whose repetition rules the search follows (default: the variant's).
        #[arg(long, value_enum)]
        rules: Option<RulesArg>,
        /// Print the AnalyzeResponse in the canonical protobuf JSON mapping.
        #[arg(long)]
        json: bool,
    },
    /// Speak UCI on stdin/stdout.
    Uci {
        #[arg(long, default_value_t = 64)]
        hash_mb: usize,
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Play a match between two UCI engines from an opening book; print each game and
    /// the score of engine A with an Elo estimate.
    Match {
        /// Command of engine A (for example `target/release/chuhe uci`).
        #[arg(long)]
        engine_a: String,
        /// Command of engine B.
        #[arg(long)]
        engine_b: String,
        /// Extra UCI options for A, `Name=Value`, repeatable.
        #[arg(long)]
        option_a: Vec<String>,
        /// Extra UCI options for B, `Name=Value`, repeatable.
        #[arg(long)]
        option_b: Vec<String>,
        /// Number of games (each opening is played with both colours).
        #[arg(long, default_value_t = 20)]
        games: usize,
        /// Time per move in milliseconds.
        #[arg(long, default_value_t = 100)]
        movetime: u64,
        /// Nodes per move instead of a time: games that do not depend on the machine's
        /// load (each engine must search with one thread).
        #[arg(long)]
        nodes: Option<u64>,
        /// Opening book: one line of ICCS moves per opening.
        #[arg(long, default_value = "tests/data/openings.txt")]
        openings: std::path::PathBuf,
        /// Games longer than this many plies are drawn.
        #[arg(long, default_value_t = 300)]
        max_plies: usize,
        /// How engine A writes ranks: 0 (ICCS, 0-9) or 1 (1-10, as Fairy-Stockfish).
        #[arg(long, default_value = "0", value_parser = parse_ranks)]
        ranks_a: chuhe::selfplay::Ranks,
        /// How engine B writes ranks: 0 or 1.
        #[arg(long, default_value = "0", value_parser = parse_ranks)]
        ranks_b: chuhe::selfplay::Ranks,
        /// Sequential probability ratio test `elo0,elo1` (alpha = beta = 0.05) on the
        /// pairs of games: stop as soon as it decides.
        #[arg(long)]
        sprt: Option<String>,
        /// Append each game to this file as a PGN-style record.
        #[arg(long)]
        pgn: Option<std::path::PathBuf>,
    },
    /// Judge a game record: the result and the rule that decided it.
    Adjudicate {
        #[command(flatten)]
        position: PositionArgs,
        /// Rule set (default: the variant's, simplified for Xiangqi, janggi-casual for
        /// Janggi).
        #[arg(long, value_enum)]
        rules: Option<RulesArg>,
        /// Print the response message in the canonical protobuf JSON mapping.
        #[arg(long)]
        json: bool,
    },
    /// Convert moves from one notation to another, checking each for legality.
    Convert(ConvertArgs),
}

#[derive(clap::Args)]
struct ConvertArgs {
    /// The game: Xiangqi, or Janggi (whose moves are written in ICCS, coordinates,
    /// algebraic or Korean notation).
    #[arg(long, value_enum, default_value = "xiangqi")]
    variant: Variant,
    /// Start position as FEN, or `startpos`.
    #[arg(long, default_value = "startpos")]
    fen: String,
    /// Xiangqi handicap start instead of `--fen` (see `moves --help`).
    #[arg(long)]
    preset: Option<String>,
    /// The moves to convert, in the `--from` notation, separated by spaces.
    #[arg(long)]
    moves: String,
    /// Notation of `--moves`.
    #[arg(long, value_enum, default_value = "iccs")]
    from: NotationArg,
    /// Notation to write.
    #[arg(long, value_enum, default_value = "iccs")]
    to: NotationArg,
    /// Print the ConvertMoves response in the canonical protobuf JSON mapping.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum NotationArg {
    /// `h2e2`
    Iccs,
    /// `h3-e3` (ranks 1-10)
    Coordinate,
    /// `C2.5`
    Wxf,
    /// `炮二平五`
    Chinese,
    /// `B2=5` (Italian letters)
    Italian,
    /// `Bhe3` (algebraic, Italian letters)
    Algebraic,
    /// `79졸78` (Korean, as Janggi records write moves)
    Korean,
}

impl NotationArg {
    fn proto(self) -> proto::Notation {
        match self {
            NotationArg::Iccs => proto::Notation::Iccs,
            NotationArg::Coordinate => proto::Notation::Coordinate,
            NotationArg::Wxf => proto::Notation::Wxf,
            NotationArg::Chinese => proto::Notation::Chinese,
            NotationArg::Italian => proto::Notation::Italian,
            NotationArg::Algebraic => proto::Notation::Algebraic,
            NotationArg::Korean => proto::Notation::Korean,
        }
    }
}

/// `chuhe convert`: prints the converted moves on one line, or the response as JSON.
fn run_convert(args: ConvertArgs) -> Result<(), Failure> {
    let (preset, handicap_moves) = proto_start(args.preset.as_deref())?;
    let request = proto::ConvertMovesRequest {
        start: Some(proto::Position {
            variant: args.variant.proto() as i32,
            fen: args.fen,
            preset,
            handicap_moves,
            ..Default::default()
        }),
        moves: args.moves.split_whitespace().map(str::to_string).collect(),
        from: args.from.proto() as i32,
        to: args.to.proto() as i32,
    };
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let r = chuhe::service::notation::convert_moves(&request, limits)
        .map_err(|s| Failure::Message(s.message().to_string()))?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&r).map_err(|e| Failure::Message(e.to_string()))?);
    } else {
        out!("{}", r.moves.join(" "));
    }
    Ok(())
}

impl RulesArg {
    fn to_proto(rules: Option<RulesArg>) -> proto::RuleSet {
        match rules {
            None => proto::RuleSet::Unspecified,
            Some(RulesArg::Simplified) => proto::RuleSet::SimplifiedV1,
            Some(RulesArg::Asian) => proto::RuleSet::AsianV1,
            Some(RulesArg::Tournament) => proto::RuleSet::TournamentV1,
            Some(RulesArg::JanggiCasual) => proto::RuleSet::JanggiCasualV1,
            Some(RulesArg::JanggiTournament) => proto::RuleSet::JanggiTournamentV1,
            Some(RulesArg::ThreeKingdoms) => proto::RuleSet::ThreeKingdomsV1,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RulesArg {
    /// SIMPLIFIED_V1: perpetual check loses, other repetitions draw.
    Simplified,
    /// ASIAN_V1: perpetual check and chase.
    Asian,
    /// TOURNAMENT_V1: perpetual check and perpetual attack, with the listed exceptions.
    Tournament,
    /// JANGGI_CASUAL_V1: bikjang claims and two passes draw, repetition draws.
    #[value(name = "janggi-casual")]
    JanggiCasual,
    /// JANGGI_TOURNAMENT_V1: counting, a 200-ply limit, perpetual check loses.
    #[value(name = "janggi-tournament")]
    JanggiTournament,
    /// THREE_KINGDOMS_V1: the Three Kingdoms rules of this service.
    #[value(name = "three-kingdoms")]
    ThreeKingdoms,
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
    /// Transposition table size shared by all searches, in MiB.
    #[arg(long, env = "CHUHE_HASH_MB", default_value_t = 64)]
    hash_mb: usize,
    /// Threads per search (Lazy SMP).
    #[arg(long, env = "CHUHE_THREADS", default_value_t = 1)]
    threads: usize,
    /// Searches that run at once (0: one per core); more wait briefly, then are refused.
    #[arg(long, env = "CHUHE_SEARCH_WORKERS", default_value_t = 0)]
    search_workers: usize,
    /// Longest time budget an analysis request may ask for, in milliseconds.
    #[arg(long, env = "CHUHE_MAX_ANALYSIS_MS", default_value_t = 10_000)]
    max_analysis_ms: u64,
    /// Longest wait for a free search thread before RESOURCE_EXHAUSTED, in milliseconds.
    #[arg(long, env = "CHUHE_MAX_QUEUE_WAIT_MS", default_value_t = 50)]
    max_queue_wait_ms: u64,
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

/// Why a command stopped early.
enum Failure {
    /// Bad input or an error, said on stderr (exit status 2).
    Message(String),
    /// The reader of the output went away (`chuhe moves | head`): a quiet end, as for
    /// other command-line tools.
    OutputClosed,
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => Failure::OutputClosed,
            _ => Failure::Message(format!("writing the output: {e}")),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) | Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::Message(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command.unwrap_or_else(|| Command::Serve(ServeArgs::default())) {
        Command::Serve(args) => run_server(args),
        Command::Match {
            engine_a,
            engine_b,
            option_a,
            option_b,
            games,
            movetime,
            nodes,
            openings,
            max_plies,
            ranks_a,
            ranks_b,
            sprt,
            pgn,
        } => {
            use chuhe::selfplay::Budget;
            let budget = nodes.map_or(Budget::Movetime(movetime), Budget::Nodes);
            let settings = MatchSettings { games, budget, openings, max_plies, sprt, pgn };
            run_match((&engine_a, &option_a, ranks_a), (&engine_b, &option_b, ranks_b), &settings)
        }
        Command::Uci { hash_mb, threads } => {
            chuhe::uci::run(std::io::stdin().lock(), std::io::stdout(), hash_mb, threads);
            Ok(())
        }
        Command::Analyze { position, movetime, depth, nodes, multipv, hash_mb, rules, json, .. }
            if matches!(position.variant, Variant::ThreeKingdoms) =>
        {
            let request = proto::AnalyzeRequest {
                position: Some(proto_position(&position)?),
                limits: Some(proto::SearchLimits {
                    depth: depth.unwrap_or(0),
                    nodes: nodes.unwrap_or(0),
                    // Zero with a depth or node limit: no time limit.
                    movetime_ms: movetime_or_default(movetime, depth, nodes).unwrap_or(0),
                }),
                multipv,
                rule_set: RulesArg::to_proto(rules) as i32,
                ..Default::default()
            };
            analyze_three_kingdoms(&request, hash_mb, json)
        }
        Command::Analyze { position, movetime, depth, nodes, multipv, threads, hash_mb, rules, json } => {
            let limits = ContentLimits { max_game_plies: usize::MAX };
            let game = chuhe::service::convert::AnyGame::from_request(&proto_position(&position)?, "position", limits)
                .map_err(|s| Failure::Message(s.message().to_string()))?;
            let rules =
                chuhe::service::convert::optional_rule_set(RulesArg::to_proto(rules) as i32, "rules", game.variant())
                    .map_err(|s| Failure::Message(s.message().to_string()))?;
            let engine = Engine::new(EngineConfig {
                hash_mb,
                workers: 1,
                threads_per_search: threads,
                ..EngineConfig::default()
            });
            let params = chuhe::search::Params {
                limits: chuhe::search::Limits { depth, nodes, movetime: None },
                multipv: multipv.max(1) as usize,
                threads,
                ..Default::default()
            };
            let budget = movetime_or_default(movetime, depth, nodes).map(|ms| Duration::from_millis(ms as u64));
            let stop = std::sync::atomic::AtomicBool::new(false);
            let mut info = |r: &chuhe::search::Report| {
                if !json {
                    print_depth(&chuhe::service::analysis::progress(r, engine.tt.hit_rate()));
                }
            };
            let outcome =
                chuhe::service::analysis::run_search(&engine, &game, rules, &params, budget, &stop, &mut info);
            print_analysis(&chuhe::service::analysis::analyze_response(&outcome, engine.tt.hit_rate()), json)
        }
        Command::Convert(args) => run_convert(args),
        Command::Adjudicate { position, rules, json } => {
            let request = proto::AdjudicateRequest {
                position: Some(proto_position(&position)?),
                rule_set: RulesArg::to_proto(rules) as i32,
                events: Vec::new(),
            };
            let limits = ContentLimits { max_game_plies: usize::MAX };
            let r = chuhe::service::rules::adjudicate(&request, limits)
                .map_err(|s| Failure::Message(s.message().to_string()))?;
            if json {
                out!("{}", serde_json::to_string_pretty(&r).map_err(|e| Failure::Message(e.to_string()))?);
            } else {
                let name = |v: i32| proto::Player::try_from(v).map_or("?", |p| p.as_str_name());
                out!("result: {}", proto::GameResult::try_from(r.result).map_or("?", |x| x.as_str_name()));
                out!("winner: {}", name(r.winner));
                out!("termination: {}", proto::Termination::try_from(r.termination).map_or("?", |x| x.as_str_name()));
                out!("rule: {}", r.rule);
                out!("decided at ply: {}", r.decided_at_ply);
                if r.cycle_last_ply > 0 {
                    out!("cycle: plies {}-{}", r.cycle_first_ply, r.cycle_last_ply);
                }
                out!("explanation: {}", r.explanation);
            }
            Ok(())
        }
        Command::Perft { position, depth, divide } if matches!(position.variant, Variant::ThreeKingdoms) => {
            let mut pos = three_kingdoms_position(&position)?;
            print_perft(&mut pos, depth, divide)
        }
        Command::Moves { position, json: false } if matches!(position.variant, Variant::ThreeKingdoms) => {
            let pos = three_kingdoms_position(&position)?;
            let mut list = three_kingdoms::MoveList::new();
            pos.legal_moves(&mut list);
            for &m in &list {
                out!("{}", pos.move_text(m));
            }
            match pos.status() {
                three_kingdoms::Status::Ongoing => out!("status: ongoing"),
                three_kingdoms::Status::Won(k) => out!("status: {} wins", k.name()),
            }
            out!("side to move: {}", pos.side_to_move().name());
            out!("check: {}", if pos.in_check() { "yes" } else { "no" });
            out!("position: {pos}");
            Ok(())
        }
        Command::Perft { position, depth, divide } => match position.variant {
            Variant::Janggi => print_perft(&mut janggi_position(&position)?, depth, divide),
            _ => print_perft(&mut xiangqi_game(&position)?.position().clone(), depth, divide),
        },
        Command::Moves { position, json: true } => {
            let request =
                proto::ListLegalMovesRequest { position: Some(proto_position(&position)?), ..Default::default() };
            let limits = ContentLimits { max_game_plies: usize::MAX };
            let r = chuhe::service::rules::list_legal_moves(&request, limits)
                .map_err(|s| Failure::Message(s.message().to_string()))?;
            out!("{}", serde_json::to_string_pretty(&r).map_err(|e| Failure::Message(e.to_string()))?);
            Ok(())
        }
        Command::Moves { position, json: false } if matches!(position.variant, Variant::Janggi) => {
            let pos = janggi_position(&position)?;
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            for m in &list {
                out!("{m}");
            }
            out!("status: {}", pos.status().name());
            out!("check: {}", if pos.in_check() { "yes" } else { "no" });
            Ok(())
        }
        Command::Moves { position, json: false } => {
            let game = xiangqi_game(&position)?;
            let pos = game.position();
            let mut list = MoveList::new();
            // The game's moves: a handicap's rules hold too.
            game.legal_moves(&mut list);
            for m in &list {
                out!("{m}");
            }
            out!("status: {}", pos.status().name());
            out!("check: {}", if pos.in_check() { "yes" } else { "no" });
            Ok(())
        }
    }
}

fn parse_ranks(s: &str) -> Result<chuhe::selfplay::Ranks, String> {
    chuhe::selfplay::Ranks::parse(s).ok_or_else(|| format!("ranks {s:?}: 0 or 1"))
}

/// The conditions of a match.
struct MatchSettings {
    games: usize,
    budget: chuhe::selfplay::Budget,
    openings: std::path::PathBuf,
    max_plies: usize,
    sprt: Option<String>,
    pgn: Option<std::path::PathBuf>,
}

/// Plays the match: each opening with both colours (a pair of games), and prints each
/// game, the score with Elo and its 95 % interval, and the test's state if one runs.
fn run_match(
    a: (&str, &[String], chuhe::selfplay::Ranks),
    b: (&str, &[String], chuhe::selfplay::Ranks),
    settings: &MatchSettings,
) -> Result<(), Failure> {
    use chuhe::selfplay::{Engine, EngineConfig, Sprt, SprtState, Verdict, elo_interval, game_record};
    use chuhe::selfplay::{play_game_recorded, read_openings};
    let options = |list: &[String]| -> Result<Vec<(String, String)>, Failure> {
        list.iter()
            .map(|o| {
                o.split_once('=')
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .ok_or_else(|| Failure::Message(format!("option {o:?} is not Name=Value")))
            })
            .collect()
    };
    let sprt = match &settings.sprt {
        None => None,
        Some(text) => {
            let bounds: Option<Vec<f64>> = text.split(',').map(|x| x.trim().parse().ok()).collect();
            match bounds.as_deref() {
                Some(&[elo0, elo1]) if elo0 < elo1 => Some(Sprt { elo0, elo1 }),
                _ => return Err(Failure::Message(format!("--sprt {text:?}: elo0,elo1 with elo0 < elo1"))),
            }
        }
    };
    let openings = &settings.openings;
    let text =
        std::fs::read_to_string(openings).map_err(|e| Failure::Message(format!("{}: {e}", openings.display())))?;
    let book = read_openings(&text).map_err(Failure::Message)?;
    if book.is_empty() {
        return Err(Failure::Message("the opening book is empty".into()));
    }
    let config = |(command, opts, ranks): (&str, &[String], chuhe::selfplay::Ranks)| -> Result<EngineConfig, Failure> {
        Ok(EngineConfig { command: command.to_string(), options: options(opts)?, ranks })
    };
    let mut ea = Engine::start_with(&config(a)?).map_err(Failure::Message)?;
    let mut eb = Engine::start_with(&config(b)?).map_err(Failure::Message)?;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut pairs = [0usize; 5];
    let mut pair_points = 0.0;
    let mut state = SprtState::Continue;
    for i in 0..settings.games {
        let opening = (i / 2) % book.len();
        let a_red = i % 2 == 0;
        let (verdict, plies, reason, moves) =
            play_game_recorded(&mut ea, &mut eb, &book[opening], a_red, settings.budget, settings.max_plies)
                .map_err(Failure::Message)?;
        match verdict {
            Verdict::AWins => wins += 1,
            Verdict::Draw => draws += 1,
            Verdict::BWins => losses += 1,
        }
        out!(
            "game {:>3} opening {:>2} A as {:<5} {:?} after {plies} plies: {reason}",
            i + 1,
            opening + 1,
            if a_red { "red" } else { "black" },
            verdict
        );
        if let Some(path) = &settings.pgn {
            let (red, black) = if a_red { ("A", "B") } else { ("B", "A") };
            let red_verdict = match (verdict, a_red) {
                (v, true) => v,
                (Verdict::AWins, false) => Verdict::BWins,
                (Verdict::BWins, false) => Verdict::AWins,
                (Verdict::Draw, false) => Verdict::Draw,
            };
            let record = game_record(i + 1, red, black, red_verdict, &reason, &moves);
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, record.as_bytes()))
                .map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        }
        pair_points += verdict.points();
        if i % 2 == 1 {
            pairs[(pair_points * 2.0).round() as usize] += 1;
            pair_points = 0.0;
            if let Some(test) = sprt {
                let llr = test.llr_pentanomial(pairs);
                state = Sprt::state(llr);
                let (lower, upper) = Sprt::bounds();
                out!("sprt llr {llr:.2} ({lower:.2}, {upper:.2}) pairs {pairs:?}");
                if state != SprtState::Continue {
                    break;
                }
            }
        }
    }
    let n = wins + draws + losses;
    let score = (wins as f64 + 0.5 * draws as f64) / n.max(1) as f64;
    let (diff, low, high) = elo_interval(wins, draws, losses);
    out!(
        "A: +{wins} ={draws} -{losses}  score {:.1}%  Elo {diff:+.0} ± {:.0} (95 %: {low:+.0} to {high:+.0})",
        score * 100.0,
        (high - low) / 2.0
    );
    if let Some(test) = sprt {
        let verdict = match state {
            SprtState::AcceptH1 => "H1 accepted",
            SprtState::AcceptH0 => "H0 accepted",
            SprtState::Continue => "undecided",
        };
        out!("SPRT [{}, {}]: {verdict}, llr {:.2}", test.elo0, test.elo1, test.llr_pentanomial(pairs));
    }
    Ok(())
}

impl Variant {
    fn proto(self) -> proto::Variant {
        match self {
            Variant::Xiangqi => proto::Variant::Xiangqi,
            Variant::Janggi => proto::Variant::Janggi,
            Variant::ThreeKingdoms => proto::Variant::ThreeKingdoms,
        }
    }
}

/// `chuhe analyze`'s time budget: `--movetime`, else one second unless a depth or node
/// limit is given.
fn movetime_or_default(movetime: Option<u32>, depth: Option<u32>, nodes: Option<u64>) -> Option<u32> {
    movetime.or((depth.is_none() && nodes.is_none()).then_some(1000))
}

/// `chuhe analyze --variant three-kingdoms`: the service's search on this thread, each
/// depth on stderr, the result on stdout.
fn analyze_three_kingdoms(request: &proto::AnalyzeRequest, hash_mb: usize, json: bool) -> Result<(), Failure> {
    use chuhe::service::three_kingdoms_analysis::analyze_here;
    let engine = Engine::new(EngineConfig {
        hash_mb,
        workers: 1,
        // The command line's own --movetime is the limit.
        max_analysis: Duration::from_secs(86_400),
        ..EngineConfig::default()
    });
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let mut info = |p: &proto::AnalyzeStreamResponse| {
        if !json {
            print_depth(p);
        }
    };
    let r = analyze_here(&engine, request, limits, &mut info).map_err(|s| Failure::Message(s.message().to_string()))?;
    print_analysis(&r, json)
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
fn print_analysis(r: &proto::AnalyzeResponse, json: bool) -> Result<(), Failure> {
    if json {
        out!("{}", serde_json::to_string_pretty(r).map_err(|e| Failure::Message(e.to_string()))?);
    } else {
        out!("bestmove: {}", r.best_move);
        out!("score: {}", score_text(r.lines.first()));
        out!("pv: {}", r.lines.first().map(|l| l.pv.join(" ")).unwrap_or_default());
        out!("depth: {} nodes: {} nps: {} time: {}ms", r.depth, r.nodes, r.nps, r.time_ms);
    }
    Ok(())
}

fn proto_position(args: &PositionArgs) -> Result<proto::Position, Failure> {
    let (preset, handicap_moves) = proto_start(args.preset.as_deref())?;
    let fen = if args.no_flag_bearers && args.fen.trim() == "startpos" {
        three_kingdoms::text::START_WITHOUT_FLAG_BEARERS.to_string()
    } else {
        args.fen.clone()
    };
    Ok(proto::Position {
        variant: args.variant.proto() as i32,
        fen,
        moves: args.moves.split_whitespace().map(str::to_string).collect(),
        preset,
        handicap_moves,
        ..Default::default()
    })
}

/// The handicap start named on the command line: a preset, or `N-moves`.
fn start_arg(name: Option<&str>) -> Result<Option<NamedStart>, Failure> {
    let Some(name) = name else { return Ok(None) };
    NamedStart::from_name(name).map(Some).ok_or_else(|| {
        Failure::Message(format!("unknown preset {name:?}: a preset's name, or N-moves up to {}", handicap::MAX_MOVES))
    })
}

/// The API's preset and handicap moves for the start named on the command line
/// (unspecified and none when no start is named).
fn proto_start(name: Option<&str>) -> Result<(i32, u32), Failure> {
    Ok(match start_arg(name)? {
        None => (proto::StartPreset::Unspecified as i32, 0),
        Some(start) => {
            let (preset, moves) = chuhe::service::convert::proto_start(start);
            (preset as i32, moves)
        }
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
        engine: EngineConfig {
            hash_mb: args.hash_mb,
            threads_per_search: args.threads.max(1),
            workers: if args.search_workers == 0 { EngineConfig::default().workers } else { args.search_workers },
            max_analysis: Duration::from_millis(args.max_analysis_ms),
            max_queue_wait: Duration::from_millis(args.max_queue_wait_ms),
            ..EngineConfig::default()
        },
    };
    let runtime =
        tokio::runtime::Runtime::new().map_err(|e| Failure::Message(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let grpc = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Failure::Message(format!("cannot listen on {}: {e}", args.listen)))?;
        let metrics = tokio::net::TcpListener::bind(args.metrics_listen)
            .await
            .map_err(|e| Failure::Message(format!("cannot listen on {}: {e}", args.metrics_listen)))?;
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
        serve(config, grpc, shutdown).await.map_err(|e| Failure::Message(format!("server error: {e}")))
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

/// Perft (or divide) of any variant's position.
fn print_perft<N: perft::Node>(pos: &mut N, depth: u32, divide: bool) -> Result<(), Failure> {
    if divide {
        let mut total = 0;
        for (m, n) in perft::divide(pos, depth) {
            out!("{m}: {n}");
            total += n;
        }
        out!();
        out!("{total}");
    } else {
        out!("{}", perft::perft(pos, depth));
    }
    Ok(())
}

/// A Janggi position from `--fen` and `--moves` (a pass is written `pass`).
fn janggi_position(args: &PositionArgs) -> Result<chuhe::rules::janggi::Position, Failure> {
    let mut pos = fen::janggi(&args.fen).map_err(|e| Failure::Message(e.to_string()))?;
    for (i, text) in args.moves.split_whitespace().enumerate() {
        let m =
            Move::parse_iccs(text).ok_or_else(|| Failure::Message(format!("move {} ({text:?}) is not ICCS", i + 1)))?;
        pos.play(m).map_err(|_| Failure::Message(format!("move {} ({text}) is illegal", i + 1)))?;
    }
    Ok(pos)
}

/// A Three Kingdoms position from `--fen` (a position text or `startpos`) and `--moves`
/// (point names).
fn three_kingdoms_position(args: &PositionArgs) -> Result<three_kingdoms::Position, Failure> {
    let mut pos = if args.fen.trim() == "startpos" {
        three_kingdoms::Position::startpos(!args.no_flag_bearers)
    } else {
        three_kingdoms::Position::from_text(&args.fen).map_err(|e| Failure::Message(e.to_string()))?
    };
    for (i, text) in args.moves.split_whitespace().enumerate() {
        let m = pos.parse_move(text).map_err(|e| Failure::Message(format!("move {} ({text}): {e}", i + 1)))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

fn xiangqi_game(args: &PositionArgs) -> Result<Game, Failure> {
    match args.variant {
        Variant::Xiangqi => {}
        other => return Err(Failure::Message(format!("variant {other:?} is not supported yet"))),
    }
    let mut game = match start_arg(args.preset.as_deref())? {
        Some(start) => Game::with_handicap(start.position(), start.handicap()),
        None => Game::new(fen::xiangqi(&args.fen).map_err(|e| Failure::Message(e.to_string()))?),
    };
    for (i, text) in args.moves.split_whitespace().enumerate() {
        let m =
            Move::parse_iccs(text).ok_or_else(|| Failure::Message(format!("move {} ({text:?}) is not ICCS", i + 1)))?;
        game.play(m).map_err(|_| Failure::Message(format!("move {} ({text}) is illegal", i + 1)))?;
    }
    Ok(game)
}
