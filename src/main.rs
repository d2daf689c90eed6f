//! The `chuhe` command line: serve the API, or ask the rules directly.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use chuhe::game::RuleSet;
use cli::analysis::{AnalyzeArgs, run_analyze};
use cli::args::PositionArgs;
use cli::audit::{AuditArgs, run_audit};
use cli::datagen::{DatagenArgs, run_datagen};
use cli::fairplay::{FairplayCommand, run_fairplay};
use cli::jobs::{JobsCommand, WorkerArgs, run_jobs, run_worker};
use cli::matches::{Contestant, MatchSettings, parse_ranks, run_match};
use cli::rules::{ConvertArgs, run_adjudicate, run_convert, run_moves, run_perft};
use cli::serve::{ServeArgs, run_server};
use cli::train::{TrainArgs, run_train};
use cli::tune::{LabelArgs, TuneArgs, run_label, run_tune};

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

mod cli;

#[derive(Parser)]
#[command(name = "chuhe", version, about = "Xiangqi, Janggi and Three Kingdoms rules and analysis")]
struct Cli {
    /// What to do; without a command, serve the API with default settings.
    #[command(subcommand)]
    command: Option<Command>,
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
    Analyze(AnalyzeArgs),
    /// Fair play over many games: calibrate a move-choice model on honest games, and
    /// assess players against it.
    Fairplay {
        #[command(subcommand)]
        command: FairplayCommand,
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
        /// Nodes per move for engine B instead of `--nodes`: engines of different speeds
        /// at a fixed ratio (Fairy-Stockfish searches fewer nodes a second than chuhe).
        #[arg(long, requires = "nodes")]
        nodes_b: Option<u64>,
        /// Time per move for engine B instead of `--movetime`: time odds (`--movetime
        /// 100 --movetime-b 800` gives B eight times A's time).
        #[arg(long, conflicts_with_all = ["nodes", "tc"])]
        movetime_b: Option<u64>,
        /// A clock instead of a time per move: `SECONDS+INCREMENT` for each engine
        /// (`10+0.1`); an engine whose time runs out loses.
        #[arg(long, conflicts_with = "nodes")]
        tc: Option<String>,
        /// Opening book: one line of ICCS moves per opening.
        #[arg(long, default_value = "tests/data/openings.txt")]
        openings: std::path::PathBuf,
        /// Random openings of this many plies instead of the book (one per pair of
        /// games), for varied games to tune on.
        #[arg(long)]
        random_openings: Option<usize>,
        /// The seed of `--random-openings` and of the draws of assisted moves.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
        /// Play Janggi by the casual rules instead of Xiangqi (needs
        /// `--random-openings`; each engine is told `UCI_Variant janggi` unless its
        /// options set the variant, e.g. `--option-b UCI_Variant=janggicasual`).
        #[arg(long)]
        janggi: bool,
        /// A's name in the records.
        #[arg(long, default_value = "A")]
        name_a: String,
        /// B's name in the records.
        #[arg(long, default_value = "B")]
        name_b: String,
        /// A's rating in the records (`RedElo`/`BlackElo`).
        #[arg(long)]
        elo_a: Option<u32>,
        /// B's rating in the records.
        #[arg(long)]
        elo_b: Option<u32>,
        /// An assistant for A: an engine command whose first choice A plays on
        /// `--assist-share-a` of its moves (which moves is drawn from `--seed`). An
        /// assisted player, for measuring fair-play detection.
        #[arg(long)]
        assist_a: Option<String>,
        /// An assistant for B.
        #[arg(long)]
        assist_b: Option<String>,
        /// The share of A's moves its assistant chooses, 0 to 1.
        #[arg(long, default_value_t = 1.0, requires = "assist_a")]
        assist_share_a: f64,
        /// The share of B's moves its assistant chooses, 0 to 1.
        #[arg(long, default_value_t = 1.0, requires = "assist_b")]
        assist_share_b: f64,
        /// The assistants' time per move in milliseconds.
        #[arg(long, default_value_t = 100)]
        assist_movetime: u64,
        /// The assistants' nodes per move instead of a time.
        #[arg(long)]
        assist_nodes: Option<u64>,
        /// UCI options for the assistants, `Name=Value`, repeatable.
        #[arg(long)]
        assist_option: Vec<String>,
    },
    /// Judge a game record: the result and the rule that decided it.
    Adjudicate {
        #[command(flatten)]
        position: PositionArgs,
        /// Rule set (default: the variant's, simplified for Xiangqi, janggi-casual for
        /// Janggi).
        #[arg(long, value_enum)]
        rules: Option<RuleSet>,
        /// Print the response message in the canonical protobuf JSON mapping.
        #[arg(long)]
        json: bool,
    },
    /// Convert moves from one notation to another, checking each for legality.
    Convert(ConvertArgs),
    /// Audit a game for fair play: each ply against the engine's lines at a fixed
    /// budget, then a summary per side.
    Audit(AuditArgs),
    /// Tune the Xiangqi evaluation's weights on game records (`chuhe match --pgn`) and
    /// write them as `src/search/eval_weights.rs`.
    Tune(TuneArgs),
    /// Label the positions of game records with a UCI engine's scores, for `chuhe tune
    /// --labels`.
    Label(LabelArgs),
    /// Self-play games at a fixed node budget, their quiet positions written as
    /// training data for the learned evaluation (appended; a restart resumes).
    Datagen(DatagenArgs),
    /// Train a net for the learned evaluation on `datagen` data and write its file.
    Train(TrainArgs),
    /// The job queue: submit audits, wait for their results, look at the queue.
    Jobs {
        #[command(subcommand)]
        command: JobsCommand,
    },
    /// Take jobs from the queue and do them until SIGTERM.
    Worker(WorkerArgs),
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
            nodes_b,
            movetime_b,
            tc,
            openings,
            random_openings,
            seed,
            max_plies,
            ranks_a,
            ranks_b,
            sprt,
            pgn,
            janggi,
            name_a,
            name_b,
            elo_a,
            elo_b,
            assist_a,
            assist_b,
            assist_share_a,
            assist_share_b,
            assist_movetime,
            assist_nodes,
            assist_option,
        } => {
            use chuhe::selfplay::Budget;
            let budget = match (nodes, tc) {
                (Some(n), _) => Budget::Nodes(n),
                (None, Some(text)) => Budget::parse_clock(&text)
                    .ok_or_else(|| Failure::Message(format!("--tc {text:?}: SECONDS or SECONDS+INCREMENT")))?,
                (None, None) => Budget::Movetime(movetime),
            };
            let budget_b = nodes_b.map(Budget::Nodes).or(movetime_b.map(Budget::Movetime));
            let random_openings = random_openings.map(|plies| (plies, seed));
            let assist_budget = assist_nodes.map_or(Budget::Movetime(assist_movetime), Budget::Nodes);
            let settings = MatchSettings {
                games,
                budget,
                budget_b,
                openings,
                random_openings,
                max_plies,
                sprt,
                pgn,
                janggi,
                assist_budget,
                assist_options: assist_option,
                seed,
            };
            let a = Contestant {
                command: engine_a,
                options: option_a,
                ranks: ranks_a,
                name: name_a,
                rating: elo_a,
                assist: assist_a.map(|c| (c, assist_share_a)),
            };
            let b = Contestant {
                command: engine_b,
                options: option_b,
                ranks: ranks_b,
                name: name_b,
                rating: elo_b,
                assist: assist_b.map(|c| (c, assist_share_b)),
            };
            run_match(&a, &b, &settings)
        }
        Command::Uci { hash_mb, threads } => {
            chuhe::uci::run(std::io::stdin().lock(), std::io::stdout(), hash_mb, threads);
            Ok(())
        }
        Command::Analyze(args) => run_analyze(args),
        Command::Convert(args) => run_convert(args),
        Command::Audit(args) => run_audit(args),
        Command::Fairplay { command } => run_fairplay(command),
        Command::Tune(args) => run_tune(args),
        Command::Label(args) => run_label(args),
        Command::Datagen(args) => run_datagen(args),
        Command::Train(args) => run_train(args),
        Command::Jobs { command } => run_jobs(command),
        Command::Worker(args) => run_worker(args),
        Command::Adjudicate { position, rules, json } => run_adjudicate(&position, rules, json),
        Command::Perft { position, depth, divide } => run_perft(&position, depth, divide),
        Command::Moves { position, json } => run_moves(&position, json),
    }
}
