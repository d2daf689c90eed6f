//! Judging the plies of many games: each ply past the book of a side that is screened,
//! spread over threads, each thread with its own table (a ply's evidence does not
//! depend on which thread judged it, or when).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::engine::Engine;
use crate::engine::store::ENGINE_VERSION;
use crate::game::{BoardGame, RuleSet};
use crate::rules::types::Color;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, Params};

use super::model::{Model, Settings, exclusions};

use super::games::ScreenedGame;
use super::judge::{Judgement, PlyEvidence, judge};

/// Size of each thread's table, in MiB (the per-game audit's size).
pub const HASH_MB: usize = 8;

/// How the plies are judged.
#[derive(Clone)]
pub struct Screening {
    /// Budget, lines and evaluation of each search (one thread each).
    pub params: Params,
    /// The safety cap of each search.
    pub budget: Option<Duration>,
    /// Plies at the start of each game that are not judged.
    pub book_plies: usize,
    /// Threads judging plies at once.
    pub threads: usize,
}

/// Judges, in every game without evidence, the plies of the sides `screened` names
/// (by game and colour); `on_game` hears each game as its last ply is judged (its index
/// and how many games are done). Returns `false` when `stop` cut it short (the games'
/// evidence is then not filled).
pub fn judge_games(
    engine: &Engine,
    screening: &Screening,
    games: &mut [ScreenedGame],
    screened: &dyn Fn(&ScreenedGame, Color) -> bool,
    stop: &AtomicBool,
    on_game: &(dyn Fn(usize, usize) + Sync),
) -> bool {
    // The jobs: (game, ply), in game order.
    let mut jobs = Vec::new();
    let mut left = vec![0usize; games.len()];
    for (g, game) in games.iter().enumerate() {
        if game.evidence.is_some() {
            continue;
        }
        let mut turn = game.start.turn();
        for i in 0..game.moves.len() {
            if i >= screening.book_plies && screened(game, turn) {
                jobs.push((g, i));
                left[g] += 1;
            }
            turn = turn.other();
        }
    }
    let results: Vec<Mutex<Vec<PlyEvidence>>> = games.iter().map(|_| Mutex::new(Vec::new())).collect();
    let left: Vec<AtomicUsize> = left.into_iter().map(AtomicUsize::new).collect();
    let done = AtomicUsize::new(games.iter().filter(|g| g.evidence.is_some()).count());
    let next = AtomicUsize::new(0);
    for (g, n) in left.iter().enumerate() {
        if n.load(Ordering::Relaxed) == 0 && games[g].evidence.is_none() {
            on_game(g, done.fetch_add(1, Ordering::Relaxed) + 1);
        }
    }
    let shared: &[ScreenedGame] = games;
    std::thread::scope(|scope| {
        for _ in 0..screening.threads.max(1) {
            scope.spawn(|| {
                let tt = TranspositionTable::new(HASH_MB);
                let judgement =
                    Judgement { engine, tt: &tt, params: &screening.params, budget: screening.budget, stop };
                while let Some(&(g, i)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let game = &shared[g];
                    let mut position = game.start.clone();
                    game.moves[..i].iter().for_each(|&m| position.play_unchecked(m));
                    let Some(evidence) = judge(&judgement, &position, i, game.moves[i]) else { break };
                    results[g].lock().unwrap_or_else(|e| e.into_inner()).push(evidence);
                    if left[g].fetch_sub(1, Ordering::AcqRel) == 1 {
                        on_game(g, done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                }
            });
        }
    });
    if stop.load(Ordering::Relaxed) {
        return false;
    }
    for (game, result) in games.iter_mut().zip(results) {
        if game.evidence.is_none() {
            let mut plies = result.into_inner().unwrap_or_else(|e| e.into_inner());
            plies.sort_by_key(|p| p.index);
            game.evidence = Some(plies);
        }
    }
    true
}

/// Node budget per ply of a fair-play screening unless a calibration names another.
pub const DEFAULT_NODES: u64 = 20_000;
/// Engine lines per ply.
pub const DEFAULT_MULTIPV: u32 = 5;
/// Plies of the opening book (each side's first five moves).
pub const DEFAULT_BOOK_PLIES: u32 = 10;

/// What a screening judges with, as a model names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judging {
    /// The rule set the searches follow (its variant is the games').
    pub rules: RuleSet,
    /// Node budget of each search.
    pub nodes: u64,
    /// Engine lines per ply.
    pub multipv: u32,
    /// Plies at the start not judged.
    pub book_plies: u32,
}

impl Judging {
    /// The settings a model records for this judging on `engine`.
    pub fn settings(&self, engine: &Engine) -> Settings {
        let variant = self.rules.variant();
        let net = BoardGame::startpos(variant).net_variant();
        Settings {
            variant: variant.id().to_string(),
            engine_version: ENGINE_VERSION.to_string(),
            evaluation: engine.config.evaluation.name(net),
            nodes_per_ply: self.nodes,
            multipv: self.multipv,
            rule_set: self.rules.id().to_string(),
            book_plies: self.book_plies,
            exclusions: exclusions(),
        }
    }

    /// The judging a model's settings describe, if this build can reproduce them on
    /// `engine`; else the first setting that differs (name, the model's, the engine's).
    pub fn of_model(model: &Model, engine: &Engine) -> Result<Judging, (&'static str, String, String)> {
        let s = &model.settings;
        let rules: RuleSet =
            s.rule_set.parse().map_err(|_| ("rule set", s.rule_set.clone(), "a rule set of this build".to_string()))?;
        let judging = Judging { rules, nodes: s.nodes_per_ply, multipv: s.multipv, book_plies: s.book_plies };
        match s.difference(&judging.settings(engine)) {
            Some(d) => Err(d),
            None => Ok(judging),
        }
    }

    /// The screening of this judging on `engine`, over `threads`.
    pub fn screening(&self, engine: &Engine, threads: usize) -> Screening {
        let net = BoardGame::startpos(self.rules.variant()).net_variant();
        Screening {
            params: Params {
                limits: Limits { depth: None, nodes: Some(self.nodes), movetime: None, clock: None },
                multipv: self.multipv.max(1) as usize,
                threads: 1,
                search_moves: Vec::new(),
                exclude_moves: Vec::new(),
                nnue: engine.config.evaluation.net_for(net),
            },
            budget: Some(engine.config.max_analysis),
            book_plies: self.book_plies as usize,
            threads,
        }
    }
}
