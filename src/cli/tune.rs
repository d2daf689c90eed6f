//! `chuhe tune`: the Xiangqi (or, with `--janggi`, the Janggi) evaluation's weights
//! fitted to game records or to positions labelled with a stronger search's scores;
//! `chuhe label`: those labels, from any UCI engine.

use chuhe::search::eval::WEIGHTS;
use chuhe::search::janggi_eval::WEIGHTS as JANGGI_WEIGHTS;
use chuhe::search::tune::janggi::{build_janggi_data_set, janggi_weights_source};
use chuhe::search::tune::labels::{label_line, positions_to_label, read_labels};
use chuhe::search::tune::{DataSet, ReadSummary, RecordedPosition, Selected, Selection, Tuner};
use chuhe::search::tune::{
    ReplayPosition, build_data_set, error, fit_scale, read_records, read_records_of, weights_source,
};
use chuhe::selfplay::{Engine, EngineConfig, EngineScore, Ranks};

use crate::Failure;

/// The arguments of `chuhe tune`.
#[derive(clap::Args)]
pub struct TuneArgs {
    /// Game records as `chuhe match --pgn` writes them (several files may be given).
    #[arg(required_unless_present = "labels")]
    pub records: Vec<std::path::PathBuf>,
    /// Positions labelled with a search's scores (`chuhe label`), tuned on besides the
    /// records (repeatable).
    #[arg(long)]
    pub labels: Vec<std::path::PathBuf>,
    /// The logistic that reads a label's score as an expected result: centipawns per
    /// tenfold odds.
    #[arg(long, default_value_t = 400.0)]
    pub label_scale: f64,
    /// Where to write the tuned weights (the layout of `src/search/eval_weights.rs`).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Steps over the whole data set.
    #[arg(long, default_value_t = 1000)]
    pub epochs: usize,
    /// Step size in centipawns.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Positions before this ply of their game are left out (the opening book's).
    #[arg(long, default_value_t = 8)]
    pub skip_plies: usize,
    /// Positions whose quiet score is further from zero than this are left out.
    #[arg(long, default_value_t = 2000)]
    pub max_score: i32,
    /// Weight of the penalty on each weight's squared distance from its current value.
    #[arg(long, default_value_t = 1e-7)]
    pub anchor: f64,
    /// One game in this many is held out of the tuning, to measure the error on
    /// positions the tuning has not seen (0: none).
    #[arg(long, default_value_t = 10)]
    pub hold_out: usize,
    /// Tune the Janggi evaluation on Janggi records (`chuhe match --janggi --pgn`),
    /// written in the layout of `src/search/janggi_weights.rs`.
    #[arg(long)]
    pub janggi: bool,
}

/// The data sets to tune on and to check with, from every record file.
fn data_sets(args: &TuneArgs, selection: Selection) -> Result<(DataSet, DataSet, Selected), Failure> {
    if args.janggi {
        let mut positions = read_all(&args.records, read_records_of::<chuhe::rules::janggi::Position>)?;
        positions.append(&mut read_labelled(args)?);
        let (held_out, tuned_on) = split(args, positions);
        let (data, selected) = build_janggi_data_set(tuned_on, selection);
        Ok((data, build_janggi_data_set(held_out, selection).0, selected))
    } else {
        let mut positions = read_all(&args.records, read_records)?;
        positions.append(&mut read_labelled(args)?);
        let (held_out, tuned_on) = split(args, positions);
        let (data, selected) = build_data_set(tuned_on, selection);
        Ok((data, build_data_set(held_out, selection).0, selected))
    }
}

/// The positions of every record file, each file's count printed.
fn read_all<P>(
    paths: &[std::path::PathBuf],
    read: fn(&str) -> (Vec<RecordedPosition<P>>, ReadSummary),
) -> Result<Vec<RecordedPosition<P>>, Failure> {
    let mut positions = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        let (mut read, summary) = read(&text);
        out!("{}: {} games, {} left out, {} positions", path.display(), summary.games, summary.skipped, read.len());
        positions.append(&mut read);
    }
    Ok(positions)
}

/// The positions of every label file, each file's count printed.
fn read_labelled<P: ReplayPosition>(args: &TuneArgs) -> Result<Vec<RecordedPosition<P>>, Failure> {
    if !(args.label_scale > 0.0 && args.label_scale.is_finite()) {
        return Err(Failure::Message("--label-scale must be positive".into()));
    }
    let mut positions = Vec::new();
    for path in &args.labels {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        let (mut read, summary) = read_labels(&text, args.label_scale);
        out!("{}: {} labelled positions, {} lines left out", path.display(), summary.positions, summary.skipped);
        positions.append(&mut read);
    }
    Ok(positions)
}

/// The held-out games' positions (one game in `--hold-out`) and the others.
fn split<P>(
    args: &TuneArgs,
    positions: Vec<RecordedPosition<P>>,
) -> (Vec<RecordedPosition<P>>, Vec<RecordedPosition<P>>) {
    positions.into_iter().partition(|p| args.hold_out > 0 && p.game % args.hold_out == args.hold_out - 1)
}

/// Reads the records, fits the logistic's scale, tunes and writes the weights; prints
/// the data set's size and the error as it falls.
pub fn run_tune(args: TuneArgs) -> Result<(), Failure> {
    if args.epochs == 0 || !(args.rate > 0.0 && args.rate.is_finite()) {
        return Err(Failure::Message("--epochs and --rate must be positive".into()));
    }
    let selection = Selection { skip_plies: args.skip_plies, max_score: args.max_score };
    let (data, check, selected) = data_sets(&args, selection)?;
    out!("data set: {} positions ({} repeated, {} left out)", selected.kept, selected.repeated, selected.left_out);
    out!("held out: {} positions", check.len());
    if data.is_empty() {
        return Err(Failure::Message("no position to tune on".into()));
    }
    let weights: &[[i32; 2]] = if args.janggi { &JANGGI_WEIGHTS } else { &WEIGHTS };
    let start: Vec<f64> = weights.iter().flat_map(|w| [w[0] as f64, w[1] as f64]).collect();
    let k = fit_scale(&data, &start);
    out!("logistic scale k = {k:.6} (K = {:.3} in the base-10, 400-point form)", k * 400.0 / 10f64.ln());
    let mut tuner = Tuner::new(weights, k, args.rate);
    tuner.anchor_weight = args.anchor;
    out!("error before: {:.6}, held out {:.6}", error(&data, &tuner.weights, k), error(&check, &tuner.weights, k));
    for epoch in 1..=args.epochs {
        let before = tuner.step(&data);
        if epoch % 100 == 0 || epoch == 1 {
            out!("epoch {epoch:>5}: error {before:.6}, held out {:.6}", error(&check, &tuner.weights, k));
        }
    }
    let tuned = tuner.rounded_terms(weights.len());
    let flat: Vec<f64> = tuned.iter().flat_map(|w| [w[0] as f64, w[1] as f64]).collect();
    out!("error after (rounded weights): {:.6}, held out {:.6}", error(&data, &flat, k), error(&check, &flat, k));
    let source = if args.janggi { janggi_weights_source(&tuned) } else { weights_source(&tuned) };
    std::fs::write(&args.out, source).map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
    out!("weights written to {}", args.out.display());
    Ok(())
}

/// The arguments of `chuhe label`.
#[derive(clap::Args)]
pub struct LabelArgs {
    /// Game records whose positions to label (`chuhe match --pgn`).
    #[arg(required = true)]
    pub records: Vec<std::path::PathBuf>,
    /// The labelling engine's command (for example `fairy-stockfish`).
    #[arg(long)]
    pub engine: String,
    /// Its UCI options, `Name=Value`, repeatable.
    #[arg(long)]
    pub option: Vec<String>,
    /// Nodes it searches each position.
    #[arg(long, default_value_t = 10_000)]
    pub nodes: u64,
    /// Positions before this ply of their game are left out (the opening book's).
    #[arg(long, default_value_t = 8)]
    pub skip_plies: usize,
    /// Label one position in this many (after the opening, checks and repeats are left
    /// out).
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Label Janggi records (the engine is told `UCI_Variant janggi` unless its options
    /// set the variant).
    #[arg(long)]
    pub janggi: bool,
    /// Where to write the labels (one `FEN;score` line a position, the score for Red).
    #[arg(long)]
    pub out: std::path::PathBuf,
}

/// Searches each chosen position of the records with the engine and writes its score.
pub fn run_label(args: LabelArgs) -> Result<(), Failure> {
    let options = crate::cli::matches::engine_options(&args.option, args.janggi)?;
    let config =
        EngineConfig { command: args.engine.clone(), options, ranks: Ranks::FromZero, budget: None, assist: None };
    let mut engine = Engine::start_with(&config).map_err(Failure::Message)?;
    let file =
        std::fs::File::create(&args.out).map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
    let mut file = std::io::BufWriter::new(file);
    if args.janggi {
        let positions = read_all(&args.records, read_records_of::<chuhe::rules::janggi::Position>)?;
        label_all(&args, &mut engine, positions_to_label(positions, args.skip_plies, args.every), &mut file)
    } else {
        let positions = read_all(&args.records, read_records)?;
        label_all(&args, &mut engine, positions_to_label(positions, args.skip_plies, args.every), &mut file)
    }
}

/// Labels `positions` one by one, the file flushed every thousand (a run stopped early
/// leaves its labels so far); a mate score or no score leaves the position out.
fn label_all<P: ReplayPosition>(
    args: &LabelArgs,
    engine: &mut Engine,
    positions: Vec<P>,
    file: &mut impl std::io::Write,
) -> Result<(), Failure> {
    let go = format!("go nodes {}", args.nodes);
    let (total, mut written, mut left_out) = (positions.len(), 0, 0);
    out!("{total} positions to label");
    for (i, position) in positions.iter().enumerate() {
        match engine.score(&position.fen(), &go).map_err(Failure::Message)? {
            Some(EngineScore::Centipawns(cp)) => {
                let for_red = if position.turn() == chuhe::rules::types::Color::Red { cp } else { -cp };
                writeln!(file, "{}", label_line(position, for_red))
                    .map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
                written += 1;
            }
            _ => left_out += 1,
        }
        if (i + 1) % 1000 == 0 {
            file.flush().map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
            out!("{} of {total} searched", i + 1);
        }
    }
    file.flush().map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
    out!("{written} labels written to {}, {left_out} positions left out (a mate, or no score)", args.out.display());
    Ok(())
}
