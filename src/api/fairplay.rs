//! AnalysisService: AssessPlayer, a player's games against the server's fair-play
//! model ([`crate::fairplay`]); the models the server holds; the messages of an
//! assessment, which the command line prints too.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request};
use super::proto;
use crate::engine::{Engine, SearchStream};
use crate::fairplay::assess::{self, Assessment, BANDS, MIN_POSITIONS, STATEMENT, Verdict, threshold_p};
use crate::fairplay::games::{ScreenedGame, Source, read_games};
use crate::fairplay::judge::PlyEvidence;
use crate::fairplay::model::{Model, Settings};
use crate::fairplay::screen::{Judging, judge_games};
use crate::fairplay::statistics::Zs;
use crate::game::{AnyGame, BoardGame, Variant};
use crate::rules::types::Move;
use crate::search::{Line, Score};

/// Most games one AssessPlayer call judges (each at most the server's game length), so
/// that one call's work is bounded.
pub const MAX_GAMES: usize = 500;

/// The fair-play models the server holds: one per variant, each read again when its
/// file changes (a file that does not read leaves the model in use).
#[derive(Default)]
pub struct Models {
    files: Vec<(PathBuf, Mutex<String>)>,
    current: RwLock<Vec<HeldModel>>,
}

/// A model in use, with the digest of its file's text.
struct HeldModel {
    model: Arc<Model>,
    digest: String,
}

impl HeldModel {
    fn new(text: &str, model: Model) -> HeldModel {
        let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
        let digest = digest.as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect();
        HeldModel { model: Arc::new(model), digest }
    }
}

fn read_model(path: &Path) -> Result<(String, Model), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let model = Model::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((text, model))
}

impl Models {
    /// Reads every file; two models of one variant, or a file that does not read, is
    /// an error naming the file.
    pub fn open(paths: &[PathBuf]) -> Result<Models, String> {
        let mut files = Vec::new();
        let mut models: Vec<HeldModel> = Vec::new();
        for path in paths {
            let (text, model) = read_model(path)?;
            if models.iter().any(|m| m.model.settings.variant == model.settings.variant) {
                return Err(format!("{}: a second model for {}", path.display(), model.settings.variant));
            }
            models.push(HeldModel::new(&text, model));
            files.push((path.clone(), Mutex::new(text)));
        }
        Ok(Models { files, current: RwLock::new(models) })
    }

    /// The model of a variant.
    pub fn of(&self, variant: Variant) -> Option<Arc<Model>> {
        self.held(variant, |m| m.model.clone())
    }

    /// The first 64 bits of the SHA-256 of the text of the variant's model file, in hex:
    /// what tells one model from another in a job's id.
    pub fn digest(&self, variant: Variant) -> Option<String> {
        self.held(variant, |m| m.digest.clone())
    }

    fn held<T>(&self, variant: Variant, part: impl Fn(&HeldModel) -> T) -> Option<T> {
        let models = self.current.read().unwrap_or_else(|e| e.into_inner());
        models.iter().find(|m| m.model.settings.variant == variant.id()).map(part)
    }

    /// Reads each file again whose text changed; says whether a model changed.
    pub fn reload_if_changed(&self) -> bool {
        let mut changed = false;
        for (i, (path, last)) in self.files.iter().enumerate() {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            match read_model(path) {
                Ok((text, _)) if text == *last => {}
                Ok((text, model)) => {
                    let held = HeldModel::new(&text, model);
                    *last = text;
                    let model = &held.model;
                    let mut models = self.current.write().unwrap_or_else(|e| e.into_inner());
                    let variant = &model.settings.variant;
                    if models.iter().enumerate().any(|(j, m)| j != i && m.model.settings.variant == *variant) {
                        tracing::error!(
                            "{}: a second model for {}; the previous stays",
                            path.display(),
                            model.settings.variant
                        );
                        continue;
                    }
                    tracing::info!("{}: fair-play model reloaded", path.display());
                    models[i] = held;
                    changed = true;
                }
                Err(e) => tracing::error!("fair-play model does not load ({e}); the previous stays in use"),
            }
        }
        changed
    }
}

/// The API's band of a verdict.
pub fn proto_band(v: Verdict) -> proto::FairPlayBand {
    use proto::FairPlayBand as B;
    match v {
        Verdict::InsufficientData => B::InsufficientData,
        Verdict::Clear => B::Clear,
        Verdict::Review => B::Review,
        Verdict::Strong => B::Strong,
        Verdict::Mark => B::Mark,
    }
}

fn scores(z: Zs) -> proto::FairPlayScores {
    proto::FairPlayScores { agreement: z.agreement, error: z.error, combined: z.combined }
}

fn figure(p: assess::Projected) -> proto::ProjectedFigure {
    proto::ProjectedFigure { observed: p.observed, projected: p.projected, sd: p.sd }
}

fn game_message(g: &assess::GameWeight) -> proto::AssessedGame {
    let side = if g.color == 0 { proto::Player::Red } else { proto::Player::Black };
    proto::AssessedGame {
        source: g.source.to_string(),
        side: side as i32,
        positions: g.positions as u32,
        agreement: g.agreement,
        z: g.z,
        contribution: g.contribution,
    }
}

/// An assessment as the API gives it.
pub fn assessment_message(a: &Assessment) -> proto::PlayerAssessment {
    proto::PlayerAssessment {
        player: a.player.clone(),
        games: a.games as u32,
        rating: a.rating.unwrap_or(0.0),
        positions: a.positions as u32,
        excluded_book: a.excluded.book as u32,
        excluded_forced: a.excluded.forced as u32,
        excluded_decided: a.excluded.decided as u32,
        top1: Some(figure(a.top1)),
        top3: Some(figure(a.top3)),
        scaled_error: Some(figure(a.scaled_error)),
        average_loss: Some(figure(a.loss)),
        accuracy: a.accuracy,
        performance: a.performance.map(|p| proto::PerformanceRating {
            rating: p.rating,
            low: p.low,
            high: p.high,
            at_edge: p.at_edge,
        }),
        raw_z: Some(scores(a.raw_z)),
        z: Some(scores(a.z)),
        p: Some(scores(a.p)),
        family_p: Some(scores(a.family_p)),
        family_size: a.family_size,
        band: proto_band(a.verdict) as i32,
        thresholds: BANDS
            .iter()
            .map(|&(band, z)| proto::BandThreshold { band: proto_band(band) as i32, p: threshold_p(z), z })
            .collect(),
        min_positions: MIN_POSITIONS as u32,
        per_game: a.per_game.iter().map(game_message).collect(),
        weightiest_games: a.weightiest_games.iter().map(game_message).collect(),
        weightiest_plies: a
            .weightiest_plies
            .iter()
            .map(|p| proto::AssessedPly {
                source: p.source.to_string(),
                move_index: p.index as u32,
                fen: p.fen.clone(),
                played_move: p.played.clone(),
                best_move: p.best.clone(),
                played_rank: p.rank as u32,
                probability: p.probability,
                contribution: p.contribution,
            })
            .collect(),
        sensitivity: a.params.s,
        consistency: a.params.c,
        statement: STATEMENT.to_string(),
    }
}

fn domain_score(s: Option<&proto::Score>) -> Option<Score> {
    match s?.value? {
        proto::score::Value::Cp(c) => Some(Score::Centipawns(c)),
        proto::score::Value::Mate(n) => Some(Score::Mate(n)),
    }
}

/// Checks that an audit was made with the model's settings.
fn check_audit_settings(audit: &proto::AuditGameResponse, s: &Settings, field: &str) -> Result<(), Error> {
    let p = audit.summary.as_ref().and_then(|s| s.parameters.as_ref()).ok_or_else(|| {
        bad_request(format!("{field}.summary.parameters"), "an audit names the parameters it was made with")
    })?;
    let rule_set = proto::RuleSet::try_from(p.rule_set)
        .ok()
        .and_then(convert::rule_set_of)
        .map(|r| r.id().to_string())
        .unwrap_or_default();
    let checks: [(&str, String, String); 6] = [
        ("engine_version", p.engine_version.clone(), s.engine_version.clone()),
        ("evaluation", p.evaluation.clone(), s.evaluation.clone()),
        ("nodes_per_ply", p.nodes_per_ply.to_string(), s.nodes_per_ply.to_string()),
        ("multipv", p.multipv.to_string(), s.multipv.to_string()),
        ("book_plies", p.book_plies.to_string(), s.book_plies.to_string()),
        ("rule_set", rule_set, s.rule_set.clone()),
    ];
    for (name, got, want) in checks {
        if got != want {
            return Err(bad_request(
                format!("{field}.summary.parameters.{name}"),
                format!("the audit was made with {name} {got}; the judging's is {want}"),
            ));
        }
    }
    if p.movetime_ms_per_ply != 0 {
        return Err(bad_request(
            format!("{field}.summary.parameters.movetime_ms_per_ply"),
            "the model judges at a node budget only",
        ));
    }
    Ok(())
}

/// The judged plies of an audit, checked against the game's moves.
pub fn audit_evidence(
    audit: &proto::AuditGameResponse,
    start: &BoardGame,
    moves: &[Move],
    field: &str,
) -> Result<Vec<PlyEvidence>, Error> {
    let mut out = Vec::with_capacity(audit.plies.len());
    let mut position = start.clone();
    let mut at = 0;
    for (i, ply) in audit.plies.iter().enumerate() {
        let here = format!("{field}.plies[{i}]");
        let index = ply.move_index as usize;
        if index >= moves.len() || index < at {
            return Err(bad_request(format!("{here}.move_index"), "not a move of the game, in order"));
        }
        moves[at..index].iter().for_each(|&m| position.play_unchecked(m));
        at = index;
        let parse = |text: &str, what: &str| {
            position
                .parse_move(text, crate::notation::Notation::Iccs)
                .map_err(|e| bad_request(format!("{here}.{what}"), e.to_string()))
        };
        let played = parse(&ply.played_move, "played_move")?;
        if played != moves[index] {
            return Err(bad_request(format!("{here}.played_move"), "not the game's move at that index"));
        }
        let mut lines = Vec::with_capacity(ply.lines.len());
        for (j, l) in ply.lines.iter().enumerate() {
            let score = domain_score(l.score.as_ref())
                .ok_or_else(|| bad_request(format!("{here}.lines[{j}].score"), "a line has a score"))?;
            let first = match l.pv.first() {
                Some(m) => parse(m, &format!("lines[{j}].pv[0]"))?,
                None => return Err(bad_request(format!("{here}.lines[{j}].pv"), "a line has a move")),
            };
            lines.push(Line { score, pv: vec![first] });
        }
        if ply.legal_moves == 0 {
            return Err(bad_request(
                format!("{here}.legal_moves"),
                "the audit names no legal move count (an older server's audit)",
            ));
        }
        let best_score = domain_score(ply.best_score.as_ref()).unwrap_or(Score::Centipawns(0));
        out.push(PlyEvidence {
            index,
            mover: position.turn(),
            played,
            best: parse(&ply.best_move, "best_move")?,
            best_score,
            played_score: domain_score(ply.played_score.as_ref()).unwrap_or(best_score),
            played_rank: (ply.played_rank > 0).then_some(ply.played_rank as usize),
            lines,
            legal_moves: ply.legal_moves as usize,
            depth: ply.depth,
            nodes: ply.nodes,
        });
    }
    Ok(out)
}

/// The games of a request, each checked, with their audits' evidence (audits made
/// with `settings`, a model's or a calibration's).
pub fn request_games(
    games: &[proto::FairPlayGame],
    settings: &Settings,
    judging: &Judging,
    limits: ContentLimits,
) -> Result<Vec<ScreenedGame>, Error> {
    let mut out = Vec::new();
    for (i, g) in games.iter().enumerate() {
        if out.len() > MAX_GAMES {
            break;
        }
        let field = format!("games[{i}]");
        if !g.record.is_empty() {
            let read = read_games(&field, &g.record, judging.rules, g.gib)
                .map_err(|e| bad_request(format!("{field}.record"), e.to_string()))?;
            for game in &read {
                limits.check_plies(game.moves.len(), format!("{field}.record"))?;
            }
            out.extend(read);
            continue;
        }
        let position =
            g.position.as_ref().ok_or_else(|| bad_request(&field, "give a record, or a position with its audit"))?;
        let end = match super::game::request_position(position, &format!("{field}.position"), limits)? {
            AnyGame::Board(b) if b.variant() == judging.rules.variant() => b,
            _ => {
                return Err(bad_request(
                    format!("{field}.position.variant"),
                    format!("the model is for {}", judging.rules.variant()),
                ));
            }
        };
        let moves = end.moves();
        let start = end
            .at_start()
            .with_rules(Some(judging.rules))
            .map_err(|e| bad_request(format!("{field}.position"), e.to_string()))?;
        let rating = |r: f64, name: &str| match r {
            0.0 => Ok(None),
            r if r.is_finite() && r > 0.0 && r <= 5000.0 => Ok(Some(r)),
            _ => Err(bad_request(format!("{field}.{name}"), "a rating from 0 to 5000 (0: unknown)")),
        };
        let ratings = [rating(g.red_rating, "red_rating")?, rating(g.black_rating, "black_rating")?];
        for (name, value) in [("red", &g.red), ("black", &g.black)] {
            if value.trim().is_empty() {
                return Err(bad_request(format!("{field}.{name}"), "name the player"));
            }
        }
        let audit =
            g.audit.as_ref().ok_or_else(|| bad_request(format!("{field}.audit"), "a position comes with its audit"))?;
        check_audit_settings(audit, settings, &format!("{field}.audit"))?;
        let evidence = audit_evidence(audit, &start, &moves, &format!("{field}.audit"))?;
        out.push(ScreenedGame {
            source: Source { file: field, game: 1 },
            players: [g.red.trim().to_string(), g.black.trim().to_string()],
            ratings,
            start,
            moves,
            evidence: Some(evidence),
        });
    }
    if out.is_empty() {
        return Err(bad_request("games", "give at least one game"));
    }
    if out.len() > MAX_GAMES {
        return Err(bad_request("games", format!("{} games: at most {MAX_GAMES} a call", out.len())));
    }
    Ok(out)
}

/// A game audited as AuditGame audits it with the judging's settings (both sides, on
/// the calling thread), ready to be passed back as a [`proto::FairPlayGame`]: the
/// audit made once, assessed again under other models or groupings without a search.
pub fn audited_game(engine: &Engine, game: &ScreenedGame, judging: &Judging) -> Result<proto::FairPlayGame, Error> {
    let position = proto::Position {
        variant: convert::proto_variant(game.start.variant()) as i32,
        fen: game.start.fen(),
        moves: game.moves.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    };
    let request = proto::AuditGameRequest {
        position: Some(position.clone()),
        rule_set: convert::proto_rule_set(judging.rules) as i32,
        nodes_per_ply: judging.nodes,
        multipv: judging.multipv,
        book_plies: judging.book_plies,
        ..Default::default()
    };
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let audit = super::audit::audit_here(engine, &request, limits, &mut |_| {})?;
    let [red, black] = game.players.clone();
    let [red_rating, black_rating] = game.ratings.map(|r| r.unwrap_or(0.0));
    Ok(proto::FairPlayGame {
        position: Some(position),
        red,
        black,
        red_rating,
        black_rating,
        audit: Some(audit),
        ..Default::default()
    })
}

/// The assessment request in the domain's terms, checked.
pub fn assess_request(r: &proto::AssessPlayerRequest) -> Result<assess::Request<'_>, Error> {
    let family_size = r.family_size.unwrap_or(1);
    if family_size == 0 {
        return Err(bad_request("family_size", "at least 1: the players screened in the period"));
    }
    if let Some(x) = r.rating.filter(|x| !(x.is_finite() && (0.0..=5000.0).contains(x))) {
        return Err(bad_request("rating", format!("{x}: a rating from 0 to 5000")));
    }
    let player = Some(r.player.trim()).filter(|p| !p.is_empty());
    Ok(assess::Request { player, family_size, rating: r.rating })
}

/// What an assessment needs, checked: the model of the games' variant, the judging it
/// describes on this engine, and the games.
pub struct Prepared {
    /// The model.
    pub model: Arc<Model>,
    /// How its positions are judged.
    pub judging: Judging,
    /// The games, those passed with their audits already judged.
    pub games: Vec<ScreenedGame>,
}

/// Checks an assessment request against the models held: Xiangqi or Janggi, a model
/// for it that this engine reproduces, games that read, a player among them.
pub fn prepare_assessment(
    engine: &Engine,
    models: &Models,
    r: &proto::AssessPlayerRequest,
    limits: ContentLimits,
) -> Result<Prepared, Error> {
    let variant = assessed_variant(r.variant)?;
    let model = models.of(variant).ok_or_else(|| {
        Error::FailedPrecondition(format!(
            "the server has no fair-play model for {variant} (chuhe serve --fairplay-model)"
        ))
    })?;
    let judging = Judging::of_model(&model, engine).map_err(|(name, want, got)| {
        Error::FailedPrecondition(format!(
            "the server's model was calibrated with {name} {want}; this server's is {got}"
        ))
    })?;
    let request = assess_request(r)?;
    let games = request_games(&r.games, &model.settings, &judging, limits)?;
    assess::check(&games, &request)
        .map_err(|e| bad_request(if request.player.is_some() { "player" } else { "games" }, e.to_string()))?;
    Ok(Prepared { model, judging, games })
}

/// The variant an assessment request names, if assessments serve it.
pub fn assessed_variant(value: i32) -> Result<Variant, Error> {
    match super::game::request_variant(value, "variant")? {
        Some(v @ (Variant::Xiangqi | Variant::Janggi)) => Ok(v),
        Some(Variant::ThreeKingdoms) => Err(bad_request(
            "variant",
            "fair-play assessments serve Xiangqi and Janggi: a Three Kingdoms game has three players and no single loss per move",
        )),
        None => Err(bad_request("variant", "name the variant of the games")),
    }
}

/// The messages of AssessPlayer.
pub type AssessStream = SearchStream<proto::AssessPlayerResponse>;

/// AssessPlayer: every game checked, then judged on one search thread (a progress
/// message per game), then one assessment per player.
pub async fn assess_player(
    engine: &Arc<Engine>,
    models: &Models,
    r: &proto::AssessPlayerRequest,
    limits: ContentLimits,
) -> Result<AssessStream, Error> {
    let Prepared { model, judging, mut games } = prepare_assessment(engine, models, r, limits)?;
    let request = assess_request(r)?;
    let (player, family_size, rating) = (request.player.map(str::to_string), request.family_size, request.rating);
    let screening = judging.screening(engine, 1);
    let stream = engine
        .stream(None, move |engine, stop, send| {
            use proto::assess_player_response::Message;
            let total = games.len() as u32;
            let (tx, rx) = std::sync::mpsc::channel::<(usize, usize)>();
            let wanted = |g: &ScreenedGame, c: crate::rules::types::Color| {
                player.as_deref().is_none_or(|p| g.players[crate::fairplay::sides::color_index(c)] == p)
            };
            let sources: Vec<String> = games.iter().map(|g| g.source.to_string()).collect();
            let finished = std::thread::scope(|scope| {
                let games = &mut games;
                let judge = scope.spawn(move || {
                    let tx = tx;
                    judge_games(engine, &screening, games, &wanted, stop, &|g, done| {
                        let _ = tx.send((g, done));
                    })
                });
                for (g, done) in rx {
                    let progress =
                        proto::AssessProgress { games_done: done as u32, games: total, source: sources[g].clone() };
                    send(proto::AssessPlayerResponse { message: Some(Message::Progress(progress)) });
                }
                judge.join().unwrap_or(false)
            });
            if !finished {
                return;
            }
            let request = assess::Request { player: player.as_deref(), family_size, rating };
            if let Ok(all) = assess::assess(&model, &games, &request) {
                for a in &all {
                    send(proto::AssessPlayerResponse { message: Some(Message::Assessment(assessment_message(a))) });
                }
            }
        })
        .await?;
    Ok(stream)
}
