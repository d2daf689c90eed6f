//! `chuhe fairplay`: calibrate a move-choice model on honest games, and assess players
//! against it ([`chuhe::fairplay`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use chuhe::api::convert::ContentLimits;
use chuhe::api::fairplay::{assess_request, assessment_message, request_games};
use chuhe::api::proto;
use chuhe::engine::{Engine, EngineConfig};
use chuhe::fairplay::assess::{self, Assessment};
use chuhe::fairplay::calibrate::calibrate;
use chuhe::fairplay::games::{ScreenedGame, read_games};
use chuhe::fairplay::model::{Model, Settings};
use chuhe::fairplay::screen::{DEFAULT_BOOK_PLIES, DEFAULT_MULTIPV, DEFAULT_NODES, Judging, judge_games};
use chuhe::fairplay::sides::color_index;
use chuhe::game::{RuleSet, Variant};

use super::args::api_failure;
use crate::Failure;

/// `chuhe fairplay`'s commands.
#[derive(clap::Subcommand)]
pub enum FairplayCommand {
    /// Fit a move-choice model on a platform's honest games and write it.
    Calibrate(CalibrateArgs),
    /// Assess players over their games against a model.
    Assess(AssessArgs),
    /// Audit games once and write them as AssessPlayer's games (one JSON object a
    /// line), to calibrate and assess from without searching again.
    Screen(ScreenArgs),
}

#[derive(clap::Args)]
/// How plies are judged: the settings a model records.
pub struct JudgingArgs {
    /// The games' variant.
    #[arg(long, value_enum, default_value_t = Variant::Xiangqi)]
    variant: Variant,
    /// The rule set the searches follow (default: the variant's).
    #[arg(long, value_enum)]
    rules: Option<RuleSet>,
    /// Node budget of each ply's search.
    #[arg(long, default_value_t = DEFAULT_NODES)]
    nodes: u64,
    /// Engine lines per ply.
    #[arg(long, default_value_t = DEFAULT_MULTIPV)]
    multipv: u32,
    /// Plies at the start of each game not judged (the opening book).
    #[arg(long, default_value_t = DEFAULT_BOOK_PLIES)]
    book: u32,
}

impl JudgingArgs {
    fn judging(&self) -> Result<Judging, Failure> {
        if self.variant == Variant::ThreeKingdoms {
            return Err(Failure::Message("fair-play models serve Xiangqi and Janggi: a Three Kingdoms game has three players and no single loss per move".into()));
        }
        let rules = match self.rules {
            Some(r) => r.for_variant(self.variant).map_err(|e| Failure::Message(e.to_string()))?,
            None => RuleSet::default_for(self.variant),
        };
        if self.nodes == 0
            || self.nodes > chuhe::api::audit::MAX_NODES_PER_PLY
            || self.multipv == 0
            || self.multipv > chuhe::api::audit::MAX_MULTIPV
        {
            return Err(Failure::Message(format!(
                "--nodes 1 to {}, --multipv 1 to {}",
                chuhe::api::audit::MAX_NODES_PER_PLY,
                chuhe::api::audit::MAX_MULTIPV
            )));
        }
        Ok(Judging { rules, nodes: self.nodes, multipv: self.multipv, book_plies: self.book })
    }
}

#[derive(clap::Args)]
/// The arguments of `chuhe fairplay screen`.
pub struct ScreenArgs {
    /// Files of game records (many records to a file; `.gib` files are Janggi).
    #[arg(long, num_args = 1.., required = true)]
    games: Vec<PathBuf>,
    /// Where to write the audited games (JSON lines).
    #[arg(long)]
    out: PathBuf,
    /// Judge with this model's settings instead of the flags'.
    #[arg(long)]
    model: Option<PathBuf>,
    #[command(flatten)]
    judging: JudgingArgs,
    /// Threads auditing games at once.
    #[arg(long, default_value_t = chuhe::engine::default_search_workers())]
    threads: usize,
}

#[derive(clap::Args)]
/// The arguments of `chuhe fairplay calibrate`.
pub struct CalibrateArgs {
    /// Files of game records (many records to a file; `.gib` files are Janggi).
    #[arg(long, num_args = 1..)]
    games: Vec<PathBuf>,
    /// Files of games already audited with these settings (`chuhe fairplay screen`),
    /// one JSON object a line; they are not searched again.
    #[arg(long, num_args = 1..)]
    audits: Vec<PathBuf>,
    /// Where to write the model (JSON).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    judging: JudgingArgs,
    /// Threads judging plies at once.
    #[arg(long, default_value_t = chuhe::engine::default_search_workers())]
    threads: usize,
}

#[derive(clap::Args)]
/// The arguments of `chuhe fairplay assess`.
pub struct AssessArgs {
    /// The model (`chuhe fairplay calibrate`); its settings judge the games.
    #[arg(long)]
    model: PathBuf,
    /// Files of game records.
    #[arg(long, num_args = 1..)]
    games: Vec<PathBuf>,
    /// Files of games already audited, one JSON object a line: AssessPlayer's
    /// `FairPlayGame` (`position`, `red`, `black`, ratings, and `audit`, AuditGame's
    /// answer with the model's settings); they are not searched again.
    #[arg(long, num_args = 1..)]
    audits: Vec<PathBuf>,
    /// The player to assess (default: every player named).
    #[arg(long)]
    player: Option<String>,
    /// Players screened in the period, for the family-wise p-values.
    #[arg(long, default_value_t = 1)]
    family_size: u64,
    /// Assess at this rating instead of the mean of the records' ratings.
    #[arg(long)]
    rating: Option<f64>,
    /// Threads judging plies at once.
    #[arg(long, default_value_t = chuhe::engine::default_search_workers())]
    threads: usize,
    /// Print each player's assessment as AssessPlayer's JSON, one object a line.
    #[arg(long)]
    json: bool,
    /// Write one player's assessment as a self-contained HTML page (needs --player).
    #[arg(long, requires = "player")]
    html: Option<PathBuf>,
}

fn engine() -> std::sync::Arc<Engine> {
    Engine::new(EngineConfig {
        hash_mb: 1,
        workers: 1,
        // The command line's own budget is the limit.
        max_analysis: Duration::from_secs(86_400),
        ..EngineConfig::default()
    })
}

fn read_text(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))
}

fn read_all(paths: &[PathBuf], rules: RuleSet) -> Result<Vec<ScreenedGame>, Failure> {
    let mut games = Vec::new();
    for path in paths {
        let gib = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gib"));
        let text = read_text(path)?;
        games.extend(
            read_games(&path.display().to_string(), &text, rules, gib).map_err(|e| Failure::Message(e.to_string()))?,
        );
    }
    Ok(games)
}

fn progress(done: usize, total: usize) {
    if done == total || done.is_multiple_of(10) {
        eprintln!("judged {done} of {total} games");
    }
}

/// `chuhe fairplay`.
pub fn run_fairplay(command: FairplayCommand) -> Result<(), Failure> {
    match command {
        FairplayCommand::Calibrate(args) => run_calibrate(args),
        FairplayCommand::Assess(args) => run_assess(args),
        FairplayCommand::Screen(args) => run_screen(args),
    }
}

fn run_calibrate(args: CalibrateArgs) -> Result<(), Failure> {
    let judging = args.judging.judging()?;
    if args.games.is_empty() && args.audits.is_empty() {
        return Err(Failure::Message("give --games or --audits".into()));
    }
    let engine = engine();
    let mut games = read_all(&args.games, judging.rules)?;
    games.extend(read_audits(&args.audits, &judging.settings(&engine), &judging)?);
    let total = games.len();
    let stop = AtomicBool::new(false);
    judge_games(&engine, &judging.screening(&engine, args.threads), &mut games, &|_, _| true, &stop, &|_, done| {
        progress(done, total)
    });
    let model = calibrate(&games, judging.settings(&engine)).map_err(|e| Failure::Message(e.to_string()))?;
    std::fs::write(&args.out, model.to_json() + "\n")
        .map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
    let h = &model.honest;
    out!(
        "{} games, {} players, {} positions ({} held out); {} bands; honest combined z over {} {}s: mean {:.3}, spread {:.3}",
        model.population.games,
        model.population.players,
        model.population.positions,
        model.population.held_out_positions,
        model.bands.len(),
        h.units,
        h.unit,
        h.combined.mean,
        h.combined.sd
    );
    for b in &model.bands {
        let rating = b.rating.map_or("unrated".to_string(), |r| format!("rating {r:.0}"));
        out!("  {rating}: {} positions, s {:.2}, c {:.3}", b.positions, b.params.s, b.params.c);
    }
    Ok(())
}

fn read_audits(paths: &[PathBuf], settings: &Settings, judging: &Judging) -> Result<Vec<ScreenedGame>, Failure> {
    let mut games = Vec::new();
    for path in paths {
        let text = read_text(path)?;
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let game: proto::FairPlayGame = serde_json::from_str(line)
                .map_err(|e| Failure::Message(format!("{} line {}: {e}", path.display(), i + 1)))?;
            lines.push((i, game));
        }
        for (i, game) in lines {
            let limits = ContentLimits { max_game_plies: usize::MAX };
            let mut read = request_games(std::slice::from_ref(&game), settings, judging, limits)
                .map_err(|e| Failure::Message(format!("{} line {}: {}", path.display(), i + 1, e)))?;
            for g in &mut read {
                g.source.file = path.display().to_string();
                g.source.game = i + 1;
            }
            games.extend(read);
        }
    }
    Ok(games)
}

fn run_assess(args: AssessArgs) -> Result<(), Failure> {
    let engine = engine();
    let (model, judging) = model_judging(&args.model, &engine)?;
    if args.games.is_empty() && args.audits.is_empty() {
        return Err(Failure::Message("give --games or --audits".into()));
    }
    let request = proto::AssessPlayerRequest {
        player: args.player.clone().unwrap_or_default(),
        family_size: Some(args.family_size),
        rating: args.rating,
        ..Default::default()
    };
    let domain = assess_request(&request).map_err(api_failure)?;
    let mut games = read_all(&args.games, judging.rules)?;
    games.extend(read_audits(&args.audits, &model.settings, &judging)?);
    assess::check(&games, &domain).map_err(|e| Failure::Message(e.to_string()))?;
    let total = games.len();
    let stop = AtomicBool::new(false);
    let wanted = |g: &ScreenedGame, c| domain.player.is_none_or(|p| g.players[color_index(c)] == p);
    judge_games(&engine, &judging.screening(&engine, args.threads), &mut games, &wanted, &stop, &|_, done| {
        progress(done, total)
    });
    let all = assess::assess(&model, &games, &domain).map_err(|e| Failure::Message(e.to_string()))?;
    for a in &all {
        if args.json {
            out!("{}", serde_json::to_string(&assessment_message(a)).map_err(|e| Failure::Message(e.to_string()))?);
        } else {
            print_assessment(a)?;
        }
    }
    if let (Some(path), Some(a)) = (&args.html, all.first()) {
        let page = chuhe::report::fairplay::render(&assessment_message(a), &model);
        std::fs::write(path, page).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// A model and the judging it names, refused if this engine cannot reproduce it.
fn model_judging(path: &Path, engine: &Engine) -> Result<(Model, Judging), Failure> {
    let model =
        Model::from_json(&read_text(path)?).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
    let judging = Judging::of_model(&model, engine).map_err(|(name, want, got)| {
        Failure::Message(format!("{}: calibrated with {name} {want}; this engine's is {got}", path.display()))
    })?;
    Ok((model, judging))
}

fn run_screen(args: ScreenArgs) -> Result<(), Failure> {
    let engine = engine();
    let judging = match &args.model {
        Some(path) => model_judging(path, &engine)?.1,
        None => args.judging.judging()?,
    };
    let games = read_all(&args.games, judging.rules)?;
    let total = games.len();
    let lines = std::sync::Mutex::new(vec![None; total]);
    let (next, done) = (std::sync::atomic::AtomicUsize::new(0), std::sync::atomic::AtomicUsize::new(0));
    let audit_next = || {
        use std::sync::atomic::Ordering::Relaxed;
        loop {
            let i = next.fetch_add(1, Relaxed);
            let Some(game) = games.get(i) else { return };
            let line = chuhe::api::fairplay::audited_game(&engine, game, &judging)
                .map_err(|e| format!("{} game {}: {e}", game.source.file, game.source.game))
                .and_then(|g| serde_json::to_string(&g).map_err(|e| e.to_string()));
            lines.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(line);
            progress(done.fetch_add(1, Relaxed) + 1, total);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..args.threads.clamp(1, total.max(1)) {
            scope.spawn(audit_next);
        }
    });
    let mut text = String::new();
    for line in lines.into_inner().unwrap_or_else(|p| p.into_inner()) {
        text += &line.unwrap_or_else(|| Err("a game was not audited".into())).map_err(Failure::Message)?;
        text.push('\n');
    }
    std::fs::write(&args.out, text).map_err(|e| Failure::Message(format!("{}: {e}", args.out.display())))?;
    out!("{total} games audited to {}", args.out.display());
    Ok(())
}

fn print_assessment(a: &Assessment) -> Result<(), Failure> {
    let rating = a.rating.map_or("unrated".to_string(), |r| format!("rating {r:.0}"));
    out!(
        "{}: {}, {} games, {} positions ({} book, {} forced, {} decided left out)",
        a.player,
        rating,
        a.games,
        a.positions,
        a.excluded.book,
        a.excluded.forced,
        a.excluded.decided
    );
    out!(
        "  top-1 {:.3} (projected {:.3} ± {:.3}), top-3 {:.3} ({:.3}), scaled error {:.2} ({:.2} ± {:.2}), loss {:.1} cp, accuracy {:.1}",
        a.top1.observed,
        a.top1.projected,
        a.top1.sd,
        a.top3.observed,
        a.top3.projected,
        a.scaled_error.observed,
        a.scaled_error.projected,
        a.scaled_error.sd,
        a.loss.observed,
        a.accuracy
    );
    if let Some(p) = a.performance {
        out!(
            "  intrinsic performance {:.0} (95 %: {:.0} to {:.0}{})",
            p.rating,
            p.low,
            p.high,
            if p.at_edge { ", at the calibrated range's edge" } else { "" }
        );
    }
    out!(
        "  z agreement {:.2}, error {:.2}, combined {:.2}; p {:.2e} (family of {}: {:.2e}): {}",
        a.z.agreement,
        a.z.error,
        a.z.combined,
        a.p.combined,
        a.family_size,
        a.family_p.combined,
        a.verdict.name()
    );
    Ok(())
}
