//! `chuhe datagen`: self-play games written as training data for the learned
//! evaluation (see [`chuhe::train::datagen`] and the record format in
//! [`chuhe::train::data`]).

use std::time::Duration;

use chuhe::train::datagen::{
    Adjudication, DatagenSettings, JANGGI_SELFPLAY, Progress, SelfPlayVariant, XIANGQI_SELFPLAY,
};

use crate::Failure;
use chuhe::game::Variant;
use chuhe::search::nnue::{NetVariant, Network};

/// The arguments of `chuhe datagen`.
#[derive(clap::Args)]
pub struct DatagenArgs {
    /// The game (Xiangqi or Janggi).
    #[arg(long, value_enum, default_value = "xiangqi")]
    pub variant: Variant,
    /// The data file, appended to; a restart plays only the games it lacks.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Games of the run (indices 0 to this, each with its own opening).
    #[arg(long, default_value_t = 100_000)]
    pub games: u32,
    /// Nodes searched each move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Games played at once, one thread each.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 8)]
    pub opening_plies: usize,
    /// Openings whose first search scores beyond this (centipawns) are not played.
    #[arg(long, default_value_t = 300)]
    pub opening_max_score: i32,
    /// Mixed into each game's opening seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Transposition table of each game, in MB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// A score (centipawns) held by one side for `--win-plies` plies wins the game.
    #[arg(long, default_value_t = Adjudication::default().win_score)]
    pub win_score: i32,
    /// See `--win-score`.
    #[arg(long, default_value_t = Adjudication::default().win_plies)]
    pub win_plies: usize,
    /// Games this long are drawn.
    #[arg(long, default_value_t = Adjudication::default().max_plies)]
    pub max_plies: usize,
    /// Seconds between progress lines (on stderr).
    #[arg(long, default_value_t = 30)]
    pub progress: u64,
    /// The net both sides play with (a file of `chuhe train`, of the run's variant);
    /// without it, the classical evaluation. A later generation of data comes from the
    /// best engine so far.
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
}

/// Plays the run's missing games, printing a progress line now and then and a summary.
pub fn run_datagen(args: DatagenArgs) -> Result<(), Failure> {
    if args.nodes == 0 || args.threads == 0 || args.threads > 256 || args.hash_mb == 0 {
        return Err(Failure::Message("--nodes, --threads (up to 256) and --hash-mb must be positive".into()));
    }
    let adjudication = Adjudication {
        win_score: args.win_score,
        win_plies: args.win_plies,
        max_plies: args.max_plies,
        ..Adjudication::default()
    };
    let nnue = match (&args.eval_file, args.variant) {
        (None, _) => None,
        (Some(path), Variant::Xiangqi | Variant::Janggi) => {
            let variant = if args.variant == Variant::Janggi { NetVariant::Janggi } else { NetVariant::Xiangqi };
            let net = Network::from_file(path, variant).map_err(|e| Failure::Message(e.to_string()))?;
            eprintln!("playing with {}", net.identity());
            Some(std::sync::Arc::new(net))
        }
        (Some(_), Variant::ThreeKingdoms) => None,
    };
    let settings = DatagenSettings {
        nodes: args.nodes,
        games: args.games,
        opening_plies: args.opening_plies,
        opening_max_score: args.opening_max_score,
        seed: args.seed,
        threads: args.threads,
        hash_mb: args.hash_mb,
        adjudication,
        nnue,
    };
    let every = Duration::from_secs(args.progress.max(1));
    let progress = match args.variant {
        Variant::Xiangqi => generate(&XIANGQI_SELFPLAY, &settings, &args, every),
        Variant::Janggi => generate(&JANGGI_SELFPLAY, &settings, &args, every),
        Variant::ThreeKingdoms => return Err(Failure::Message("datagen plays Xiangqi or Janggi".into())),
    }
    .map_err(Failure::Message)?;
    out!("{}", line(&progress, None));
    Ok(())
}

fn generate<P>(
    variant: &SelfPlayVariant<P>,
    settings: &DatagenSettings,
    args: &DatagenArgs,
    every: Duration,
) -> Result<Progress, String>
where
    P: chuhe::search::Searchable + chuhe::rules::game::RecordedPosition<Move = chuhe::rules::types::Move> + 'static,
    chuhe::rules::game::Game<P>: chuhe::search::SearchGame<Position = P>,
{
    variant.run(settings, &args.out, every, &mut |p, elapsed| eprintln!("{}", line(p, Some(elapsed))))
}

/// The progress line: games, positions, results, and the rate when the time is given.
fn line(p: &Progress, elapsed: Option<Duration>) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let positions = p.positions.load(Relaxed);
    let rate = elapsed.map_or(String::new(), |t| {
        format!(", {:.0} positions/s, {:.0} s", positions as f64 / t.as_secs_f64().max(1e-3), t.as_secs_f64())
    });
    format!(
        "games {} ({} skipped), positions {positions}, red/cho +{} ={} -{}{rate}",
        p.games.load(Relaxed),
        p.skipped.load(Relaxed),
        p.results[0].load(Relaxed),
        p.results[1].load(Relaxed),
        p.results[2].load(Relaxed),
    )
}
