//! Self-play for training data: both sides played by this engine's search at a fixed
//! node budget a move, from random openings, each game's quiet positions written with
//! the search's score and the game's result ([`super::data`]).
//!
//! Game `i` of a run opens with the random line of seed `seed ^ i`, and a fixed-node
//! search on one thread with a fresh table is deterministic, so a run restarted on the
//! same file plays only the games it has not written yet and the file ends as one
//! uninterrupted run would have left it (up to the order of the games).
//!
//! A game ends by the rules (the match runner's referee), or is adjudicated to save
//! time: won once the score stays beyond [`Adjudication::win_score`] for one side for
//! [`Adjudication::win_plies`] plies, drawn once it stays within
//! [`Adjudication::draw_score`] of zero for [`Adjudication::draw_plies`] plies after
//! [`Adjudication::draw_after`], drawn at [`Adjudication::max_plies`].

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::data::{DataVariant, RECORD_BYTES, Record, for_each_record, open_data};
use crate::rules::game::{Game, RecordedPosition};
use crate::rules::types::{Color, Move, Square};
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, Params, Score, Searchable, search};
use crate::selfplay::{JANGGI, MatchRules, Verdict, XIANGQI, random_janggi_openings, random_openings};

/// When a game is called before its natural end.
#[derive(Clone, Copy, Debug)]
pub struct Adjudication {
    /// A score (centipawns, any side's view) that counts as decided.
    pub win_score: i32,
    /// Consecutive plies the score must stay decided for one side.
    pub win_plies: usize,
    /// A score within this of zero counts as level.
    pub draw_score: i32,
    /// Consecutive level plies that draw...
    pub draw_plies: usize,
    /// ...once the game is this many plies long.
    pub draw_after: usize,
    /// Games this long are drawn.
    pub max_plies: usize,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication { win_score: 1000, win_plies: 8, draw_score: 15, draw_plies: 30, draw_after: 120, max_plies: 320 }
    }
}

/// What a self-play run plays.
#[derive(Clone, Debug)]
pub struct DatagenSettings {
    /// Nodes searched each move.
    pub nodes: u64,
    /// Games of the run, by index `0..games`.
    pub games: u32,
    /// Random plies of each opening.
    pub opening_plies: usize,
    /// Openings whose score after the random plies is beyond this are not played.
    pub opening_max_score: i32,
    /// Mixed into each game's opening seed.
    pub seed: u64,
    /// Games played at once, each on its own thread.
    pub threads: usize,
    /// The transposition table of each game, in MB.
    pub hash_mb: usize,
    /// When games are called early.
    pub adjudication: Adjudication,
    /// The net both sides evaluate with (none: the classical evaluation), so that a
    /// later net learns from the games of the best engine so far.
    pub nnue: Option<std::sync::Arc<crate::search::nnue::Network>>,
}

/// A variant self-play can generate data for.
pub struct SelfPlayVariant<P: RecordedPosition + 'static> {
    rules: &'static MatchRules<P>,
    openings: fn(usize, usize, u64) -> Vec<Vec<Move>>,
    variant: DataVariant,
}

/// Xiangqi, judged by the match runner's referee (the simplified rules).
pub const XIANGQI_SELFPLAY: SelfPlayVariant<crate::rules::xiangqi::Position> =
    SelfPlayVariant { rules: &XIANGQI, openings: random_openings, variant: DataVariant::Xiangqi };

/// Janggi, judged by the casual rules.
pub const JANGGI_SELFPLAY: SelfPlayVariant<crate::rules::janggi::Position> =
    SelfPlayVariant { rules: &JANGGI, openings: random_janggi_openings, variant: DataVariant::Janggi };

/// The counts of a run so far, for its progress line.
#[derive(Default)]
pub struct Progress {
    /// Games finished (played or, for an unbalanced opening, skipped).
    pub games: AtomicU64,
    /// Games skipped for an unbalanced opening.
    pub skipped: AtomicU64,
    /// Positions written.
    pub positions: AtomicU64,
    /// Games won by Red (Cho), drawn, won by Black (Han).
    pub results: [AtomicU64; 3],
}

/// One finished game: its kept positions, labelled with its result.
struct PlayedGame {
    records: Vec<Record>,
    red_result: u8,
}

impl<P> SelfPlayVariant<P>
where
    P: Searchable + RecordedPosition<Move = Move> + 'static,
    Game<P>: crate::search::SearchGame<Position = P>,
{
    /// Plays game `index`: `None` if its opening is unbalanced (or ends the game).
    fn play(&self, settings: &DatagenSettings, index: u32) -> Option<PlayedGame> {
        let seed = settings.seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let opening = (self.openings)(1, settings.opening_plies, seed).pop()?;
        let mut game = Game::new((self.rules.start)());
        for m in opening {
            game.play(m).ok()?;
        }
        let tt = TranspositionTable::new(settings.hash_mb);
        let stop = AtomicBool::new(false);
        let params = Params {
            limits: Limits { nodes: Some(settings.nodes), ..Limits::default() },
            nnue: settings.nnue.clone(),
            ..Params::default()
        };
        let adj = settings.adjudication;
        let mut records = Vec::new();
        let (mut decided_for, mut decided_plies, mut level_plies) = (Color::Red, 0usize, 0usize);
        let mut first = true;
        let red_result = loop {
            if let Some((verdict, _)) = (self.rules.referee)(&game, true, adj.max_plies) {
                break match verdict {
                    Verdict::AWins => 2,
                    Verdict::Draw => 1,
                    Verdict::BWins => 0,
                };
            }
            let outcome = search(&game, &params, &tt, &stop, None, &mut |_| {});
            let best = outcome.best?;
            let pos = game.position();
            let mover = pos.turn();
            let (cp, mate) = match outcome.score() {
                Some(Score::Centipawns(cp)) => (cp, false),
                Some(Score::Mate(n)) => (if n > 0 { 30_000 } else { -30_000 }, true),
                None => return None,
            };
            if first {
                first = false;
                if cp.abs() > settings.opening_max_score {
                    return None;
                }
            }
            // Ruled wins (beyond the search's 10 000) and mates teach nothing a net
            // should learn as a score.
            if !mate && cp.abs() < 10_000 && !pos.in_check() && pos.captured(best).is_none() {
                records.push(record_of(pos, self.variant, cp, index));
            }
            let red_cp = if mover == Color::Red { cp } else { -cp };
            let leader = if red_cp > 0 { Color::Red } else { Color::Black };
            if red_cp.abs() >= adj.win_score {
                decided_plies = if leader == decided_for { decided_plies + 1 } else { 1 };
                decided_for = leader;
            } else {
                decided_plies = 0;
            }
            level_plies = if red_cp.abs() <= adj.draw_score { level_plies + 1 } else { 0 };
            if decided_plies >= adj.win_plies {
                break if decided_for == Color::Red { 2 } else { 0 };
            }
            if level_plies >= adj.draw_plies && game.plies().len() >= adj.draw_after {
                break 1;
            }
            game.play_unchecked(best);
        };
        Some(PlayedGame { records, red_result })
    }

    /// Plays the games of `settings` that `out` does not hold yet (by their index),
    /// appending each game's positions to it as the game ends; `report` is called
    /// about every `every` with the progress so far. The run's progress at the end.
    pub fn run(
        &self,
        settings: &DatagenSettings,
        out: &std::path::Path,
        every: Duration,
        report: &mut dyn FnMut(&Progress, Duration),
    ) -> Result<Progress, String> {
        let named = |e: std::io::Error| format!("{}: {e}", out.display());
        let done = games_in(out)?;
        let todo: Vec<u32> = (0..settings.games).filter(|i| !done.contains(i)).collect();
        let file = std::fs::OpenOptions::new().create(true).append(true).open(out).map_err(named)?;
        // A run stopped mid-write may have left part of a record: cut it, or every
        // record appended after it would be misread.
        let len = file.metadata().map_err(named)?.len();
        file.set_len(len - len % RECORD_BYTES as u64).map_err(named)?;
        let writer = Mutex::new(file);
        let next = AtomicUsize::new(0);
        let progress = Progress::default();
        let failure: Mutex<Option<String>> = Mutex::new(None);
        let start = Instant::now();
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..settings.threads.max(1))
                .map(|_| {
                    scope.spawn(|| {
                        while failure.lock().is_ok_and(|f| f.is_none()) {
                            let Some(&index) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                            let played = self.play(settings, index);
                            progress.games.fetch_add(1, Ordering::Relaxed);
                            let Some(mut played) = played else {
                                progress.skipped.fetch_add(1, Ordering::Relaxed);
                                continue;
                            };
                            for r in &mut played.records {
                                r.red_result = played.red_result;
                            }
                            progress.results[2 - played.red_result as usize].fetch_add(1, Ordering::Relaxed);
                            let mut bytes = Vec::with_capacity(played.records.len() * RECORD_BYTES);
                            for r in &played.records {
                                bytes.extend_from_slice(&r.encode());
                            }
                            let written =
                                writer.lock().map_err(|_| "a writer panicked".to_string()).and_then(|mut f| {
                                    use std::io::Write;
                                    f.write_all(&bytes).map_err(named)
                                });
                            match written {
                                Ok(()) => {
                                    progress.positions.fetch_add(played.records.len() as u64, Ordering::Relaxed);
                                }
                                Err(e) => {
                                    if let Ok(mut f) = failure.lock() {
                                        f.get_or_insert(e);
                                    }
                                }
                            }
                        }
                    })
                })
                .collect();
            let mut last = Instant::now();
            while !workers.iter().all(|w| w.is_finished()) {
                std::thread::sleep(Duration::from_millis(100));
                if last.elapsed() >= every {
                    last = Instant::now();
                    report(&progress, start.elapsed());
                }
            }
            for w in workers {
                let _ = w.join();
            }
        });
        match failure.into_inner().ok().flatten() {
            Some(e) => Err(e),
            None => Ok(progress),
        }
    }
}

/// The record of `pos` with its score; the result is filled in when the game ends.
fn record_of<P: Searchable>(pos: &P, variant: DataVariant, cp: i32, game: u32) -> Record {
    let mut board = [None; Square::COUNT];
    for (sq, piece) in pos.board().iter() {
        board[sq.index()] = Some(piece);
    }
    let score = cp.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    Record { board, turn: pos.turn(), score, red_result: 1, variant, game }
}

/// The indices of the games a data file holds (none if it does not exist); an error if
/// it is not a regular file.
pub fn games_in(path: &std::path::Path) -> Result<HashSet<u32>, String> {
    let mut games = HashSet::new();
    if let Some(mut file) = open_data(path)? {
        for_each_record(&mut file, |r| {
            games.insert(r.game);
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn settings(games: u32, threads: usize) -> DatagenSettings {
        DatagenSettings {
            nodes: 300,
            games,
            opening_plies: 6,
            opening_max_score: 30_000,
            seed: 5,
            threads,
            hash_mb: 1,
            adjudication: Adjudication { max_plies: 60, ..Adjudication::default() },
            nnue: None,
        }
    }

    fn sorted_records(path: &std::path::Path) -> Vec<Vec<u8>> {
        let mut file = std::fs::File::open(path).unwrap();
        let mut all = Vec::new();
        for_each_record(&mut file, |r| all.push(r.encode().to_vec())).unwrap();
        all.sort();
        all
    }

    #[test]
    fn a_restarted_run_ends_as_one_run_would() {
        let dir = std::env::temp_dir().join(format!("chuhe-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (whole, resumed) = (dir.join("whole.bin"), dir.join("resumed.bin"));
        let quiet = &mut |_: &Progress, _: Duration| {};
        let every = Duration::from_secs(60);
        let progress = XIANGQI_SELFPLAY.run(&settings(3, 2), &whole, every, quiet).unwrap();
        assert_eq!(progress.games.load(Ordering::Relaxed), 3);
        XIANGQI_SELFPLAY.run(&settings(2, 1), &resumed, every, quiet).unwrap();
        // A run stopped mid-write leaves part of a record: the restart cuts it.
        std::fs::OpenOptions::new().append(true).open(&resumed).unwrap().write_all(&[9; 7]).unwrap();
        let progress = XIANGQI_SELFPLAY.run(&settings(3, 1), &resumed, every, quiet).unwrap();
        assert_eq!(progress.games.load(Ordering::Relaxed), 1, "only the missing game is played");
        let records = sorted_records(&whole);
        assert!(records.len() > 30, "{}", records.len());
        assert_eq!(records, sorted_records(&resumed));
        let mut file = std::fs::File::open(&whole).unwrap();
        for_each_record(&mut file, |r| {
            assert!(r.game < 3 && r.variant == DataVariant::Xiangqi && r.red_result <= 2);
            assert!(i32::from(r.score).abs() < 10_000);
        })
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
