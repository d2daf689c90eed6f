//! AnalysisService: AuditGame and AuditGameStream, the evidence for a fair-play review
//! of a Xiangqi or Janggi game.
//!
//! Each ply of an audited side past the book is judged by [`crate::fairplay::judge`]
//! (its formulas: losses, classes, forced and decided plies).
//!
//! Forced and decided plies are reported but left out of the side's figures. A side's
//! accuracy is the average over its counted plies of Lichess's per-move accuracy
//! `103.1668 * exp(-0.04354 * L) - 3.1669` clamped to 0-100, L the win probability
//! loss in percent.
//!
//! Determinism: every search of an audit runs on one thread with the audit's own
//! transposition table (`HASH_MB`), emptied before each ply, never the shared one. With
//! a node budget a ply's evidence is a function of the game up to it, the rule set and
//! the parameters only: the same request gives the same answer whatever the machine's
//! load or the other requests (as long as no search reaches the server's safety cap of
//! its longest analysis time). A time budget makes the answer depend on the load.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request};
use super::game::request_game;
use super::proto;
use super::searching::principal_variations;
use crate::engine::{Engine, SearchStream};
use crate::fairplay::judge::{Judgement, MoveClass, PlyEvidence, judge};
use crate::game::{AnyGame, BoardGame};
use crate::rules::types::{Color, Move};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Line, Params, Score};

/// Node budget per ply when the request sets no budget.
pub const DEFAULT_NODES: u64 = 50_000;
/// Largest node budget per ply a request may ask for.
pub const MAX_NODES_PER_PLY: u64 = 5_000_000;
/// Engine lines per ply when the request leaves `multipv` at 0.
pub const DEFAULT_MULTIPV: u32 = 3;
/// Most engine lines per ply.
pub const MAX_MULTIPV: u32 = 8;
/// Size of an audit's private transposition table, in MiB.
pub const HASH_MB: usize = 8;
pub use crate::fairplay::judge::{
    CP_LOSS_CAP, DECIDED_CP, MATE_CP, NEAR_BEST_CP, WP_SCALE, centipawns, move_accuracy, win_probability,
};

/// A checked audit request: everything the searches need, nothing left to refuse.
pub struct Audit {
    /// The start, under the rule set of the audit.
    start: BoardGame,
    moves: Vec<Move>,
    /// Audited sides: Red, Black.
    sides: [bool; 2],
    params: Params,
    /// The safety cap of each search.
    budget: Option<Duration>,
    book_plies: usize,
    clock_ms: Vec<u32>,
}

/// AuditGameStream asks what AuditGame asks.
pub fn audit_request(r: &proto::AuditGameStreamRequest) -> proto::AuditGameRequest {
    proto::AuditGameRequest {
        position: r.position.clone(),
        rule_set: r.rule_set,
        players: r.players.clone(),
        nodes_per_ply: r.nodes_per_ply,
        movetime_ms_per_ply: r.movetime_ms_per_ply,
        multipv: r.multipv,
        book_plies: r.book_plies,
        clock_ms: r.clock_ms.clone(),
    }
}

fn side(c: Color) -> usize {
    match c {
        Color::Red => 0,
        Color::Black => 1,
    }
}

/// Checks the whole request before any search: the variant, every move, the sides, the
/// budget, the lines and the clock data.
pub fn audit_job(engine: &Engine, r: &proto::AuditGameRequest, limits: ContentLimits) -> Result<Audit, Error> {
    let end = match request_game(r.position.as_ref(), r.rule_set, limits)? {
        AnyGame::Board(end) => end.with_default_rules(),
        AnyGame::ThreeKingdoms(_) => {
            return Err(bad_request(
                "position.variant",
                "audits serve Xiangqi and Janggi: a Three Kingdoms game has three players and no single loss per move",
            ));
        }
    };
    let moves = end.moves();
    let start = end.at_start();
    let mut sides = [r.players.is_empty(); 2];
    for (i, &p) in r.players.iter().enumerate() {
        match proto::Player::try_from(p) {
            Ok(proto::Player::Red) => sides[0] = true,
            Ok(proto::Player::Black) => sides[1] = true,
            _ => return Err(bad_request(format!("players[{i}]"), "name PLAYER_RED or PLAYER_BLACK")),
        }
    }
    if r.nodes_per_ply > MAX_NODES_PER_PLY {
        return Err(bad_request("nodes_per_ply", format!("at most {MAX_NODES_PER_PLY} nodes per ply")));
    }
    let max_ms = engine.config.max_analysis.as_millis();
    if u128::from(r.movetime_ms_per_ply) > max_ms {
        return Err(bad_request("movetime_ms_per_ply", format!("at most {max_ms} ms per ply")));
    }
    if r.multipv > MAX_MULTIPV {
        return Err(bad_request("multipv", format!("at most {MAX_MULTIPV} lines")));
    }
    if !r.clock_ms.is_empty() && r.clock_ms.len() != moves.len() {
        return Err(bad_request(
            "clock_ms",
            format!("{} times for {} moves: give one per move, or none", r.clock_ms.len(), moves.len()),
        ));
    }
    let movetime = (r.movetime_ms_per_ply > 0).then(|| Duration::from_millis(u64::from(r.movetime_ms_per_ply)));
    let nodes = match (r.nodes_per_ply, movetime) {
        (0, None) => Some(DEFAULT_NODES),
        (0, Some(_)) => None,
        (n, _) => Some(n),
    };
    let params = Params {
        limits: search::Limits { depth: None, nodes, movetime, clock: None },
        multipv: if r.multipv == 0 { DEFAULT_MULTIPV } else { r.multipv } as usize,
        threads: 1,
        search_moves: Vec::new(),
        exclude_moves: Vec::new(),
        nnue: engine.config.evaluation.net_for(start.net_variant()),
    };
    Ok(Audit {
        start,
        moves,
        sides,
        params,
        budget: Some(engine.config.max_analysis),
        book_plies: r.book_plies as usize,
        clock_ms: r.clock_ms.clone(),
    })
}

/// The API's class of a move class.
pub fn proto_class(c: MoveClass) -> proto::AuditMoveClass {
    use proto::AuditMoveClass as P;
    match c {
        MoveClass::Best => P::Best,
        MoveClass::Excellent => P::Excellent,
        MoveClass::Good => P::Good,
        MoveClass::Inaccuracy => P::Inaccuracy,
        MoveClass::Mistake => P::Mistake,
        MoveClass::Blunder => P::Blunder,
    }
}

fn score(s: Score) -> proto::Score {
    proto::Score {
        value: Some(match s {
            Score::Centipawns(c) => proto::score::Value::Cp(c),
            Score::Mate(n) => proto::score::Value::Mate(n),
        }),
    }
}

fn lines(lines: &[Line]) -> Vec<proto::PrincipalVariation> {
    principal_variations(lines.iter().map(|l| (score(l.score), l.pv.iter().map(|m| m.to_string()).collect())))
}

/// A ply's evidence as the API gives it.
pub fn audit_ply(e: &PlyEvidence, clock_ms: u32) -> proto::AuditPly {
    proto::AuditPly {
        move_index: e.index as u32,
        mover: proto::Player::from(e.mover) as i32,
        played_move: e.played.to_string(),
        best_move: e.best.to_string(),
        best_score: Some(score(e.best_score)),
        played_score: Some(score(e.played_score)),
        played_rank: e.played_rank.unwrap_or(0) as u32,
        cp_loss: e.cp_loss(),
        win_probability_loss: e.wp_loss(),
        class: proto_class(e.class()) as i32,
        forced: e.forced(),
        decided: e.decided(),
        near_best: e.near_best() as u32,
        lines: lines(&e.lines),
        depth: e.depth,
        nodes: e.nodes,
        clock_ms,
        legal_moves: e.legal_moves as u32,
    }
}

/// One side's figures, gathered ply by ply.
#[derive(Default)]
struct Tally {
    book: u32,
    forced: u32,
    decided: u32,
    losses: Vec<u32>,
    wp_losses: Vec<f64>,
    top1: u32,
    top3: u32,
    classes: [u32; 7],
    run: u32,
    longest_run: u32,
    /// (time spent, difficulty) of the counted plies with clock data.
    clock: Vec<(f64, f64)>,
}

impl Tally {
    fn add(&mut self, p: &proto::AuditPly, with_clock: bool) {
        if !p.forced {
            if p.played_rank == 1 || p.played_move == p.best_move {
                self.run += 1;
                self.longest_run = self.longest_run.max(self.run);
            } else {
                self.run = 0;
            }
        }
        if p.forced {
            self.forced += 1;
            return;
        }
        if p.decided {
            self.decided += 1;
            return;
        }
        self.losses.push(p.cp_loss);
        self.wp_losses.push(p.win_probability_loss);
        let first = p.played_rank == 1 || p.played_move == p.best_move;
        self.top1 += u32::from(first);
        self.top3 += u32::from(first || (1..=3).contains(&p.played_rank));
        if let Some(n) = self.classes.get_mut(p.class as usize) {
            *n += 1;
        }
        if with_clock {
            self.clock.push((f64::from(p.clock_ms), 1.0 / f64::from(p.near_best.max(1))));
        }
    }

    fn summary(&self, player: proto::Player) -> proto::AuditSideSummary {
        let n = self.losses.len();
        let share = |k: u32| if n == 0 { 0.0 } else { f64::from(k) / n as f64 };
        let mean = |v: &mut dyn Iterator<Item = f64>| if n == 0 { 0.0 } else { v.sum::<f64>() / n as f64 };
        let mut sorted = self.losses.clone();
        sorted.sort_unstable();
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => f64::from(sorted[n / 2]),
            _ => (f64::from(sorted[n / 2 - 1]) + f64::from(sorted[n / 2])) / 2.0,
        };
        use proto::AuditMoveClass as C;
        let class = |c: C| self.classes[c as usize];
        proto::AuditSideSummary {
            player: player as i32,
            plies_counted: n as u32,
            plies_book: self.book,
            plies_forced: self.forced,
            plies_decided: self.decided,
            average_cp_loss: mean(&mut self.losses.iter().map(|&l| f64::from(l))),
            median_cp_loss: median,
            top1_agreement: share(self.top1),
            top3_agreement: share(self.top3),
            accuracy: mean(&mut self.wp_losses.iter().map(|&l| move_accuracy(l))),
            best: class(C::Best),
            excellent: class(C::Excellent),
            good: class(C::Good),
            inaccuracies: class(C::Inaccuracy),
            mistakes: class(C::Mistake),
            blunders: class(C::Blunder),
            longest_top1_run: self.longest_run,
            time_difficulty_correlation: correlation(&self.clock),
        }
    }
}

/// Pearson's correlation of the pairs; `None` for fewer than three or a constant
/// series.
pub fn correlation(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let n = pairs.len() as f64;
    let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let r = sxy / (sxx * syy).sqrt();
    r.is_finite().then(|| r.clamp(-1.0, 1.0))
}

/// The parameters every search of the audit used.
fn parameters(audit: &Audit) -> proto::AuditParameters {
    let limits = &audit.params.limits;
    proto::AuditParameters {
        engine_version: super::analysis::ENGINE_VERSION.to_string(),
        evaluation: search::nnue::evaluation_name(audit.params.nnue.as_deref()),
        nodes_per_ply: limits.nodes.unwrap_or(0),
        movetime_ms_per_ply: limits.movetime.map_or(0, |t| t.as_millis() as u32),
        multipv: audit.params.multipv as u32,
        threads: audit.params.threads as u32,
        hash_mb: HASH_MB as u32,
        book_plies: audit.book_plies as u32,
        rule_set: convert::proto_rule_set(audit.start.rules_or_default()) as i32,
        deterministic: limits.movetime.is_none(),
        cp_loss_cap: CP_LOSS_CAP as u32,
        near_best_margin_cp: NEAR_BEST_CP as u32,
        decided_threshold_cp: DECIDED_CP as u32,
        win_probability_scale: WP_SCALE,
    }
}

/// Runs the audit on the calling thread, plies in game order: `on_ply` gets each judged
/// ply; the summary covers the plies judged before the stop flag, if it was raised.
pub fn run(
    engine: &Engine,
    audit: &Audit,
    stop: &AtomicBool,
    on_ply: &mut dyn FnMut(proto::AuditPly),
) -> proto::AuditSummary {
    run_from(engine, audit, stop, &|_| None, on_ply)
}

/// [`run`], taking the plies `known` has (by move index: judged earlier, by another
/// worker of a job) instead of judging them again. Each ply's evidence depends on the
/// game up to it only (see the module documentation), so the answer is the same.
pub fn run_from(
    engine: &Engine,
    audit: &Audit,
    stop: &AtomicBool,
    known: &dyn Fn(usize) -> Option<proto::AuditPly>,
    on_ply: &mut dyn FnMut(proto::AuditPly),
) -> proto::AuditSummary {
    let started = Instant::now();
    metrics::counter!("chuhe_audits_total").increment(1);
    let tt = TranspositionTable::new(HASH_MB);
    let mut tallies: [Tally; 2] = Default::default();
    let mut game = audit.start.clone();
    let mut nodes = 0;
    let with_clock = !audit.clock_ms.is_empty();
    let judgement = Judgement { engine, tt: &tt, params: &audit.params, budget: audit.budget, stop };
    for (index, &m) in audit.moves.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mover = side(game.turn());
        if audit.sides[mover] {
            if index < audit.book_plies {
                tallies[mover].book += 1;
            } else if let Some(ply) = known(index) {
                nodes += ply.nodes;
                tallies[mover].add(&ply, with_clock);
                on_ply(ply);
            } else {
                let Some(evidence) = judge(&judgement, &game, index, m) else { break };
                let ply = audit_ply(&evidence, audit.clock_ms.get(index).copied().unwrap_or(0));
                metrics::counter!("chuhe_audit_plies_total").increment(1);
                nodes += ply.nodes;
                tallies[mover].add(&ply, with_clock);
                on_ply(ply);
            }
        }
        game.play_unchecked(m);
    }
    metrics::histogram!("chuhe_audit_seconds").record(started.elapsed().as_secs_f64());
    let players = [proto::Player::Red, proto::Player::Black];
    let sides = (0..2).filter(|&s| audit.sides[s]).map(|s| tallies[s].summary(players[s])).collect();
    proto::AuditSummary { sides, parameters: Some(parameters(audit)), nodes }
}

/// AuditGame on the calling thread (the command line's `chuhe audit`): `on_ply` sees
/// each ply as AuditGameStream would send it.
pub fn audit_here(
    engine: &Engine,
    r: &proto::AuditGameRequest,
    limits: ContentLimits,
    on_ply: &mut dyn FnMut(&proto::AuditPly),
) -> Result<proto::AuditGameResponse, Error> {
    let audit = audit_job(engine, r, limits)?;
    let stop = AtomicBool::new(false);
    let mut plies = Vec::new();
    let summary = run(engine, &audit, &stop, &mut |p| {
        on_ply(&p);
        plies.push(p);
    });
    Ok(proto::AuditGameResponse { plies, summary: Some(summary) })
}

/// AuditGame: the whole audit on one search thread, answered when it ends. Dropping the
/// future (the client cancelled, or the deadline passed) stops it.
pub async fn audit_game(
    engine: &Arc<Engine>,
    r: &proto::AuditGameRequest,
    limits: ContentLimits,
) -> Result<proto::AuditGameResponse, Error> {
    let audit = audit_job(engine, r, limits)?;
    Ok(engine
        .run(None, move |engine, stop| {
            let mut plies = Vec::new();
            let summary = run(engine, &audit, stop, &mut |p| plies.push(p));
            proto::AuditGameResponse { plies, summary: Some(summary) }
        })
        .await?)
}

/// The messages of AuditGameStream: one per audited ply, then the summary.
pub type AuditStream = SearchStream<proto::AuditGameStreamResponse>;

/// AuditGameStream: [`audit_game`] with a message per ply as it is judged, then the
/// summary; dropping the stream stops the audit.
pub async fn audit_game_stream(
    engine: &Arc<Engine>,
    r: &proto::AuditGameStreamRequest,
    limits: ContentLimits,
) -> Result<AuditStream, Error> {
    let audit = audit_job(engine, &audit_request(r), limits)?;
    let stream = engine
        .stream(None, move |engine, stop, send| {
            use proto::audit_game_stream_response::Message;
            let wrap = |m| proto::AuditGameStreamResponse { message: Some(m) };
            let summary = run(engine, &audit, stop, &mut |p| send(wrap(Message::Ply(p))));
            if !stop.load(Ordering::Relaxed) {
                send(wrap(Message::Summary(summary)));
            }
        })
        .await?;
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_needs_three_varying_pairs() {
        assert_eq!(correlation(&[(1.0, 1.0), (2.0, 2.0)]), None);
        assert_eq!(correlation(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]), None);
        let r = correlation(&[(1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]).unwrap();
        assert!((r - 1.0).abs() < 1e-12);
        let r = correlation(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]).unwrap();
        assert!((r + 1.0).abs() < 1e-12);
    }
}
