//! `chuhe train`: data files of `chuhe datagen` to a quantised net file (see
//! [`chuhe::train::trainer`] and [`chuhe::train::export`]).

use std::io::Write as _;
use std::time::Instant;

use chuhe::search::nnue::Network;
use chuhe::search::nnue::net::identity;
use chuhe::train::data::Record;
use chuhe::train::data::{DataVariant, for_each_record, open_data};
use chuhe::train::export::{net_file, net_variant, quantisation_error};
use chuhe::train::model::{LossShape, Sample};
use chuhe::train::trainer::{TrainSettings, agreement, fit_k, mean_loss, sample_of, train};

use crate::Failure;
use chuhe::game::Variant;

/// The arguments of `chuhe train`.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// Data files (`chuhe datagen --out`).
    #[arg(required = true)]
    pub data: Vec<std::path::PathBuf>,
    /// The net file to write.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// The variant of the net; records of another variant are refused.
    #[arg(long, value_enum, default_value = "xiangqi")]
    pub variant: Variant,
    /// Hidden width H (a multiple of 16 up to 1024).
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// Output buckets by material (1 to 16).
    #[arg(long, default_value_t = 8)]
    pub buckets: usize,
    /// Passes over the data.
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 8192)]
    pub batch: usize,
    /// Adam's initial step size (it falls along a cosine to a tenth).
    #[arg(long, default_value_t = 0.002)]
    pub lr: f32,
    /// The weight of the score in the target; the result has the rest (with a few
    /// million positions the score alone teaches best: a result is shared by every
    /// position of its game).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f32,
    /// The logistic scale of the scores (centipawns); fitted to the data if not given.
    #[arg(long)]
    pub k: Option<f32>,
    /// Evaluation units (centipawns) per unit of the float output, written in the file.
    #[arg(long, default_value_t = 400)]
    pub scale: i32,
    /// Threads computing each batch's gradient.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// One game in this many is held out to measure the validation loss.
    #[arg(long, default_value_t = 20)]
    pub validation: u32,
    /// Positions whose score is further from zero than this are left out.
    #[arg(long, default_value_t = 3000)]
    pub max_score: i32,
    /// Train only on the positions as played. By default each training position is
    /// also trained on as its mirror image between the wings (same score, same
    /// result): twice the positions from the same games, and a stronger net.
    #[arg(long = "no-mirror", action = clap::ArgAction::SetFalse)]
    pub mirror: bool,
    /// Seed of the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Reads the data, fits the logistic scale, trains, prints the losses, writes the net.
pub fn run_train(args: TrainArgs) -> Result<(), Failure> {
    let fail = |m: String| Failure::Message(m);
    if args.hidden == 0 || !args.hidden.is_multiple_of(16) || args.hidden > 1024 || !(1..=16).contains(&args.buckets) {
        return Err(fail("--hidden must be a multiple of 16 up to 1024 and --buckets 1 to 16".into()));
    }
    if args.epochs == 0 || args.batch == 0 || args.validation < 2 || !(1..=64).contains(&args.threads) {
        return Err(fail("--epochs and --batch must be positive, --validation 2 or more, --threads 1 to 64".into()));
    }
    let positive_rate = args.lr > 0.0 && args.lr.is_finite();
    if !positive_rate || !(0.0..=1.0).contains(&args.lambda) || args.scale <= 0 {
        return Err(fail("--lr and --scale must be positive and --lambda within 0 and 1".into()));
    }
    if args.k.is_some_and(|k| !(k > 0.0 && k.is_finite())) {
        return Err(fail("--k must be positive".into()));
    }
    let variant = match args.variant {
        Variant::Xiangqi => DataVariant::Xiangqi,
        Variant::Janggi => DataVariant::Janggi,
        Variant::ThreeKingdoms => return Err(fail("a net is trained for Xiangqi or Janggi".into())),
    };
    let started = Instant::now();
    let (mut training, validation, check) = read_samples(&args, variant)?;
    out!(
        "{} training positions, {} held out ({:.1} s to read)",
        training.len(),
        validation.len(),
        started.elapsed().as_secs_f64()
    );
    if training.is_empty() || validation.is_empty() {
        return Err(fail("too few positions to train on and to hold out".into()));
    }
    let k = match args.k {
        Some(k) => k,
        None => fit_k(&training),
    };
    out!("logistic scale K = {k:.1}{}", if args.k.is_some() { " (given)" } else { " (fitted)" });
    let settings = TrainSettings {
        hidden: args.hidden,
        buckets: args.buckets,
        scale: args.scale as f32,
        lambda: args.lambda,
        epochs: args.epochs,
        batch: args.batch,
        learning_rate: args.lr,
        threads: args.threads,
        seed: args.seed,
    };
    let shape = LossShape { scale: settings.scale, k, lambda: settings.lambda };
    let model = chuhe::train::model::Model::new(settings.hidden, settings.buckets, settings.seed);
    out!("epoch 0: validation loss {:.6}", mean_loss(&model, &validation, &shape, settings.threads));
    let mut kept: Option<(usize, f64)> = None;
    let model = train(&settings, k, &mut training, &validation, &mut |e| {
        if kept.is_none_or(|(_, lowest)| e.validation < lowest) {
            kept = Some((e.epoch, e.validation));
        }
        let line = format!(
            "epoch {}: training loss {:.6}, validation loss {:.6}, {:.0} s",
            e.epoch,
            e.train,
            e.validation,
            started.elapsed().as_secs_f64()
        );
        // A closed output must not stop the training: the net is still written.
        let _ = writeln!(std::io::stdout(), "{line}");
    });
    if let Some((epoch, loss)) = kept.filter(|_| !validation.is_empty()) {
        out!("kept the net of epoch {epoch}, the lowest validation loss ({loss:.6})");
    }
    out!(
        "held-out decided games: {:.1} % of predictions on the winner's side",
        100.0 * agreement(&model, &validation, settings.scale, k)
    );
    let bytes = net_file(&model, variant, args.scale);
    std::fs::write(&args.out, &bytes).map_err(|e| fail(format!("{}: {e}", args.out.display())))?;
    out!("{} written to {} ({} bytes)", identity(&bytes), args.out.display(), bytes.len());
    let name = args.out.display().to_string();
    let net = Network::from_bytes(&bytes, net_variant(variant), &name).map_err(|e| fail(e.to_string()))?;
    let (mean, worst) = quantisation_error(&model, &net, &check, args.scale);
    out!(
        "quantised against float on {} held-out positions: mean |difference| {mean:.2}, largest {worst:.1}",
        check.len()
    );
    Ok(())
}

/// The training samples, the held-out samples, and the held-out records compared
/// after quantisation.
type Split = (Vec<Sample>, Vec<Sample>, Vec<Record>);

/// Held-out records kept to compare the quantised net with the float model.
const CHECKED: usize = 2000;

/// The samples of every data file, split into training and held-out games, and the
/// first held-out records.
fn read_samples(args: &TrainArgs, variant: DataVariant) -> Result<Split, Failure> {
    let (mut training, mut validation, mut check) = (Vec::new(), Vec::new(), Vec::new());
    for path in &args.data {
        let mut file = open_data(path)
            .and_then(|f| f.ok_or_else(|| format!("{}: no such file", path.display())))
            .map_err(Failure::Message)?;
        let mut wrong_variant = 0usize;
        let read = for_each_record(&mut file, |r| {
            if r.variant != variant {
                wrong_variant += 1;
                return;
            }
            if let Some(s) = sample_of(&r, args.buckets, args.max_score) {
                if r.game % args.validation != 0 {
                    training.push(s);
                    if args.mirror {
                        training.extend(sample_of(&r.mirrored(), args.buckets, args.max_score));
                    }
                } else {
                    validation.push(s);
                    if check.len() < CHECKED {
                        check.push(r);
                    }
                }
            }
        })
        .map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        if wrong_variant > 0 {
            return Err(Failure::Message(format!("{}: {wrong_variant} records of another variant", path.display())));
        }
        out!("{}: {read} records", path.display());
    }
    Ok((training, validation, check))
}
