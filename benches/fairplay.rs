//! The cost of a player assessment at the default budget: one player's 20 Xiangqi games
//! of 100 plies (as people play, `common/people.rs`) judged at 20,000 nodes a ply with five
//! lines, on one and on two threads (the statistics after it take milliseconds). Run with `cargo bench --bench
//! fairplay`; it prints the seconds of each and the ratio before criterion's figures.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chuhe::engine::{Engine, EngineConfig};
use chuhe::fairplay::games::{ScreenedGame, Source};
use chuhe::fairplay::screen::{DEFAULT_BOOK_PLIES, DEFAULT_MULTIPV, DEFAULT_NODES, Judging, judge_games};
use chuhe::fairplay::sides::color_index;
use chuhe::game::{BoardGame, RuleSet, Variant};
use chuhe::rules::types::Color;
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "common/people.rs"]
mod people;

const GAMES: usize = 20;
const PLIES: usize = 100;

fn engine() -> std::sync::Arc<Engine> {
    Engine::new(EngineConfig { hash_mb: 16, workers: 1, max_analysis: Duration::from_secs(3600), ..Default::default() })
}

/// The player's 20 games, Red in the even ones.
fn games(engine: &Engine) -> Vec<ScreenedGame> {
    let rules = RuleSet::default_for(Variant::Xiangqi);
    (0..GAMES)
        .map(|i| {
            let player = "P".to_string();
            let other = format!("O{i}");
            ScreenedGame {
                source: Source { file: "bench".into(), game: i + 1 },
                players: if i % 2 == 0 { [player, other] } else { [other, player] },
                ratings: [None, None],
                start: BoardGame::startpos(Variant::Xiangqi).with_rules(Some(rules)).unwrap(),
                moves: people::play(engine, 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1), PLIES),
                evidence: None,
            }
        })
        .collect()
}

fn judging() -> Judging {
    Judging {
        rules: RuleSet::default_for(Variant::Xiangqi),
        nodes: DEFAULT_NODES,
        multipv: DEFAULT_MULTIPV,
        book_plies: DEFAULT_BOOK_PLIES,
    }
}

/// Judges the player's plies of `games` on `threads`; the plies judged.
fn judge(engine: &Engine, games: &[ScreenedGame], threads: usize) -> usize {
    let mut games = games.to_vec();
    let screening = judging().screening(engine, threads);
    let mine = |g: &ScreenedGame, c: Color| g.players[color_index(c)] == "P";
    judge_games(engine, &screening, &mut games, &mine, &AtomicBool::new(false), &|_, _| {});
    games.iter().map(|g| g.evidence.as_ref().map_or(0, Vec::len)).sum()
}

fn bench(c: &mut Criterion) {
    let engine = engine();
    let games = games(&engine);
    let timed = |threads| {
        let t = Instant::now();
        let plies = judge(&engine, &games, threads);
        (t.elapsed().as_secs_f64(), plies)
    };
    let ((one, plies), (two, _)) = (timed(1), timed(2));
    println!(
        "fairplay: a player's {GAMES} games, {plies} plies at {} nodes, {} lines: 1 thread {one:.2} s, 2 threads {two:.2} s (ratio {:.2})",
        DEFAULT_NODES,
        DEFAULT_MULTIPV,
        one / two
    );
    let mut group = c.benchmark_group("fairplay");
    group.sample_size(10).measurement_time(Duration::from_secs(60));
    group.bench_function("20 games, 2 threads", |b| b.iter(|| judge(&engine, &games, 2)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
