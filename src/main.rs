//! The `chuhe` command line: serve the API, or ask the rules directly.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use chuhe::notation::fen;
use chuhe::rules::history::Game;
use chuhe::rules::perft;
use chuhe::rules::types::{Move, MoveList};

#[derive(Parser)]
#[command(name = "chuhe", version, about = "Xiangqi, Janggi and Three Kingdoms rules and analysis")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    /// Moves to play from the FEN first, in ICCS, separated by spaces.
    #[arg(long, default_value = "")]
    moves: String,
}

#[derive(Subcommand)]
enum Command {
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
    },
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
    match cli.command {
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
        Command::Moves { position } => {
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
