//! A match runner: two UCI engines (two builds, one build with two settings, or this
//! engine and another) play games at a fixed time or node count per move from a small
//! opening book, colours alternating, and the rules judge every move and every ending.
//! Used to keep only the changes that win.
//!
//! ```text
//! chuhe match --engine-a "target/release/chuhe uci" --engine-b "/tmp/old/chuhe uci" \
//!     --games 200 --nodes 30000 --sprt 0,10
//! ```
//!
//! With `--tc 10+0.1` each engine has a clock instead (10 s for the game, 0.1 s more
//! after each move, sent as `go wtime btime winc binc`); the runner times each answer
//! and an engine whose clock runs out loses on time.
//!
//! Each engine may write its ranks 0-9 (ICCS, as chuhe does) or 1-10 (as
//! Fairy-Stockfish does, `--ranks-b 1`); the runner converts both ways. An engine that
//! offers the `UCI_Variant` option is told `xiangqi`. The score is given with an Elo
//! estimate and its 95 % interval; with `--sprt elo0,elo1` the match also runs a
//! sequential probability ratio test (alpha = beta = 0.05) on the pairs of games of
//! one opening and stops as soon as it accepts either hypothesis.

use std::time::{Duration, Instant};

use crate::rules::BoardPosition;
use crate::rules::game::{Game as RecordGame, RecordedPosition};
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move};
use crate::rules::xiangqi::Game;
use crate::rules::xiangqi::Position;
use crate::rules::xiangqi::adjudicate::{RuleSet, judge_position};

/// The Xiangqi start position, as every engine reads it.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// What each engine gets for a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Milliseconds: the usual match condition, but the machine's load plays along.
    Movetime(u64),
    /// Nodes: the same games on a loaded machine as on an idle one (one search thread),
    /// though a change that slows the search down is not charged for it.
    Nodes(u64),
    /// A clock for the game: this many milliseconds each, and this many more after
    /// each move. An engine whose clock runs out loses.
    Clock {
        /// Each side's time at the start.
        base_ms: u64,
        /// Added after each of a side's moves.
        increment_ms: u64,
    },
}

impl Budget {
    /// The UCI `go` command of this budget (a clock as it stands at a game's start).
    pub fn go_command(self) -> String {
        match self {
            Budget::Movetime(ms) => format!("go movetime {ms}"),
            Budget::Nodes(n) => format!("go nodes {n}"),
            Budget::Clock { base_ms, increment_ms } => GameClock::new(base_ms, increment_ms).go_command(),
        }
    }

    /// A clock from `SECONDS+INCREMENT` (both in seconds, `10+0.1`), or `SECONDS`.
    pub fn parse_clock(text: &str) -> Option<Budget> {
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let ms = |s: &str| -> Option<u64> {
            let v: f64 = s.trim().parse().ok()?;
            (0.0..1e9).contains(&v).then(|| (v * 1000.0).round() as u64)
        };
        Some(Budget::Clock { base_ms: ms(base)?, increment_ms: ms(inc)? })
    }
}

/// Both sides' clocks in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// Time left, by colour (Red first).
    left: [Duration; 2],
    increment: Duration,
}

impl GameClock {
    /// Both sides' clocks at `base_ms`, gaining `increment_ms` after each move.
    pub fn new(base_ms: u64, increment_ms: u64) -> GameClock {
        GameClock { left: [Duration::from_millis(base_ms); 2], increment: Duration::from_millis(increment_ms) }
    }

    /// Time left for `color`.
    pub fn left(&self, color: Color) -> Duration {
        self.left[color.index()]
    }

    /// The UCI `go` command for the side to move (Red's time is `wtime`).
    pub fn go_command(&self) -> String {
        let inc = self.increment.as_millis();
        format!("go wtime {} btime {} winc {inc} binc {inc}", self.left[0].as_millis(), self.left[1].as_millis())
    }

    /// Charges `color` for a move that took `elapsed`: false if its time ran out
    /// (the clock is then left at zero), else the increment is added.
    pub fn charge(&mut self, color: Color, elapsed: Duration) -> bool {
        let left = &mut self.left[color.index()];
        match left.checked_sub(elapsed) {
            Some(rest) => {
                *left = rest + self.increment;
                true
            }
            None => {
                *left = Duration::ZERO;
                false
            }
        }
    }
}

/// Result of one game from engine A's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Engine A won.
    AWins,
    /// A draw.
    Draw,
    /// Engine B won.
    BWins,
}

impl Verdict {
    /// A's points: 1, ½ or 0.
    pub fn points(self) -> f64 {
        match self {
            Verdict::AWins => 1.0,
            Verdict::Draw => 0.5,
            Verdict::BWins => 0.0,
        }
    }
}

/// One game of a match, as the summary and the records list it.
pub struct GameRecord {
    /// The opening's index in the book.
    pub opening: usize,
    /// Did engine A play Red (Cho in Janggi)?
    pub a_plays_red: bool,
    /// The result, from A's view.
    pub verdict: Verdict,
    /// Plies played.
    pub plies: usize,
    /// How the game ended, in words.
    pub reason: String,
}

/// The referee: has the game ended (by the rules, or at `max_plies`)? The verdict for
/// A (who plays Red if `a_plays_red`) and why.
pub fn referee(game: &Game, a_plays_red: bool, max_plies: usize) -> Option<(Verdict, String)> {
    judged(judge_position(game, RuleSet::SimplifiedV1), game.plies().len(), a_plays_red, max_plies)
}

/// The verdict for A of the rules' ruling on a game of `plies` plies, if any, else a
/// draw once `max_plies` are played.
fn judged(
    ruling: Option<crate::rules::outcome::Ruling>,
    plies: usize,
    a_plays_red: bool,
    max_plies: usize,
) -> Option<(Verdict, String)> {
    if let Some(r) = ruling {
        let verdict = match r.result {
            GameResult::Win(c) => verdict_for(c, a_plays_red),
            _ => Verdict::Draw,
        };
        return Some((verdict, r.explanation));
    }
    (plies >= max_plies).then(|| (Verdict::Draw, format!("{max_plies} plies played")))
}

fn verdict_for(winner: Color, a_plays_red: bool) -> Verdict {
    if (winner == Color::Red) == a_plays_red { Verdict::AWins } else { Verdict::BWins }
}

/// A referee of a game (see [`referee`]): has the game ended, A playing Red (Cho) or
/// not, at most the given plies? The verdict for A, and why.
pub type Referee<P> = fn(&RecordGame<P>, bool, usize) -> Option<(Verdict, String)>;

/// What a match game of one 9x10 variant needs besides its position: its start as
/// engines read it, its referee, how its moves are written to and read from an engine
/// (a Janggi pass has its own texts), and its names of the sides.
pub struct MatchRules<P: RecordedPosition> {
    /// The start position.
    pub start: fn() -> P,
    /// The start position's FEN, sent to the engines.
    pub start_fen: &'static str,
    /// Has the game ended (see [`referee`])? The verdict for A, and why.
    pub referee: Referee<P>,
    /// The text of a move, played in a position, in an engine's ranks.
    pub write: fn(Ranks, &P, Move) -> String,
    /// A move an engine wrote in its ranks, in a position (`None` if no move).
    pub read: fn(Ranks, &P, &str) -> Option<Move>,
    /// The variant's name of a side (`red`, Janggi's `cho`).
    pub side_name: fn(Color) -> &'static str,
}

/// Xiangqi's match rules: judged by [`referee`], moves in the engine's ranks.
pub const XIANGQI: MatchRules<Position> = MatchRules {
    start: Position::startpos,
    start_fen: START_FEN,
    referee,
    write: |ranks, _, m| ranks.write(m),
    read: |ranks, _, text| ranks.read(text),
    side_name: Color::name,
};

/// Plays one Xiangqi game from the start after `opening`; the rules judge each move
/// (an illegal move loses) and each ending. The verdict, the number of plies, why it
/// ended, and the moves played.
pub fn play_game_recorded(
    a: &mut Engine,
    b: &mut Engine,
    opening: &[Move],
    a_plays_red: bool,
    budget: Budget,
    max_plies: usize,
) -> Result<(Verdict, usize, String, Vec<Move>), String> {
    play_recorded(&XIANGQI, a, b, opening, a_plays_red, budget, max_plies)
}

/// Plays one game of the variant of `rules` from its start after `opening` (each
/// opening move checked); A plays Red (Cho) if `a_plays_red`. The rules judge each
/// move (an illegal one loses) and each ending; with a clock budget, an engine whose
/// clock runs out loses on time. The verdict, the plies, why it ended, the moves.
pub fn play_recorded<P: BoardPosition + RecordedPosition>(
    rules: &MatchRules<P>,
    a: &mut Engine,
    b: &mut Engine,
    opening: &[Move],
    a_plays_red: bool,
    budget: Budget,
    max_plies: usize,
) -> Result<(Verdict, usize, String, Vec<Move>), String> {
    let mut game = RecordGame::new((rules.start)());
    for &m in opening {
        game.play(m).map_err(|_| format!("opening move {m} is illegal"))?;
    }
    a.new_game()?;
    b.new_game()?;
    let mut clock = match budget {
        Budget::Clock { base_ms, increment_ms } => Some(GameClock::new(base_ms, increment_ms)),
        _ => None,
    };
    loop {
        let moves: Vec<Move> = game.plies().iter().map(|p| p.mv).collect();
        if let Some((verdict, reason)) = (rules.referee)(&game, a_plays_red, max_plies) {
            return Ok((verdict, moves.len(), reason, moves));
        }
        let mover = game.position().turn();
        let engine = if (mover == Color::Red) == a_plays_red { &mut *a } else { &mut *b };
        let ranks = engine.ranks();
        let mut replay = game.start().clone();
        let texts: Vec<String> = moves
            .iter()
            .map(|&m| {
                let text = (rules.write)(ranks, &replay, m);
                replay.play_unchecked(m);
                text
            })
            .collect();
        let go = match engine.own_budget() {
            Some(own) => own.go_command(),
            None => clock.as_ref().map_or_else(|| budget.go_command(), GameClock::go_command),
        };
        let started = Instant::now();
        let text = engine.best_move_text(rules.start_fen, &texts, &go)?;
        if let Some(clock) = &mut clock
            && !clock.charge(mover, started.elapsed())
        {
            let reason = format!("{} lost on time", (rules.side_name)(mover));
            return Ok((verdict_for(mover.other(), a_plays_red), moves.len(), reason, moves));
        }
        match (rules.read)(ranks, game.position(), &text).filter(|&m| game.position().is_legal(m)) {
            Some(m) => {
                game.play_unchecked(m);
            }
            None => {
                let reason = format!("{} played illegal {text:?}", (rules.side_name)(mover));
                return Ok((verdict_for(mover.other(), a_plays_red), moves.len(), reason, moves));
            }
        }
    }
}

/// A side's player as a record names it: a name, and a rating when one is given.
#[derive(Clone, Copy, Debug)]
pub struct Seat<'a> {
    /// The name (`[Red]`, `[Black]`).
    pub name: &'a str,
    /// The rating (`[RedElo]`, `[BlackElo]`).
    pub rating: Option<u32>,
}

impl<'a> Seat<'a> {
    /// A player known by name only.
    pub fn named(name: &'a str) -> Seat<'a> {
        Seat { name, rating: None }
    }
}

/// One game as a PGN-style record (ICCS moves, ranks from 0).
pub fn game_record(round: usize, red: &str, black: &str, verdict_red: Verdict, reason: &str, moves: &[Move]) -> String {
    game_record_from(START_FEN, round, Seat::named(red), Seat::named(black), verdict_red, reason, moves)
}

/// [`game_record`] of a game from `start_fen` (a pass is written `pass`), with the
/// players' ratings when they are given.
pub fn game_record_from(
    start_fen: &str,
    round: usize,
    red: Seat,
    black: Seat,
    verdict_red: Verdict,
    reason: &str,
    moves: &[Move],
) -> String {
    let result = match verdict_red {
        Verdict::AWins => "1-0",
        Verdict::Draw => "1/2-1/2",
        Verdict::BWins => "0-1",
    };
    let (red_name, black_name) = (red.name.replace('"', "'"), black.name.replace('"', "'"));
    let mut text =
        format!("[Event \"chuhe match\"]\n[Round \"{round}\"]\n[Red \"{red_name}\"]\n[Black \"{black_name}\"]\n");
    for (tag, rating) in [("RedElo", red.rating), ("BlackElo", black.rating)] {
        if let Some(rating) = rating {
            text += &format!("[{tag} \"{rating}\"]\n");
        }
    }
    text += &format!(
        "[Result \"{result}\"]\n[Termination \"{}\"]\n[FEN \"{start_fen}\"]\n[Format \"ICCS\"]\n\n",
        reason.replace('"', "'")
    );
    let mut line = String::new();
    for (i, m) in moves.iter().enumerate() {
        if i % 2 == 0 {
            line.push_str(&format!("{}. ", i / 2 + 1));
        }
        line.push_str(&format!("{m} "));
        if line.len() > 70 {
            text.push_str(line.trim_end());
            text.push('\n');
            line.clear();
        }
    }
    line.push_str(result);
    text.push_str(&line);
    text.push_str("\n\n");
    text
}

/// A game of either 9x10 variant from `start` and its moves in ICCS (for tests).
#[cfg(test)]
fn game_from<P: RecordedPosition<Move = Move>>(start: P, moves: &[&str]) -> RecordGame<P> {
    let mut game = RecordGame::new(start);
    for m in moves {
        game.play(Move::parse_iccs(m).unwrap()).unwrap();
    }
    game
}

mod uci_engine;
pub use uci_engine::{Assist, Engine, EngineConfig, EngineScore, Ranks};

mod openings;
pub use openings::{random_openings, read_openings};

mod janggi;
pub use janggi::{
    JANGGI, JANGGI_START_FEN, janggi_referee, play_janggi_game_recorded, random_janggi_openings, read_janggi_move,
    write_janggi_move,
};

mod stats;
pub use stats::{Sprt, SprtState, elo, elo_interval, elo_of, score_of};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_and_run() {
        assert_eq!(Budget::parse_clock("10+0.1"), Some(Budget::Clock { base_ms: 10_000, increment_ms: 100 }));
        assert_eq!(Budget::parse_clock("0.5"), Some(Budget::Clock { base_ms: 500, increment_ms: 0 }));
        for bad in ["", "x", "10+", "-1+0", "1+-1", "inf"] {
            assert_eq!(Budget::parse_clock(bad), None, "{bad}");
        }
        let mut clock = GameClock::new(1_000, 100);
        assert_eq!(clock.go_command(), "go wtime 1000 btime 1000 winc 100 binc 100");
        // Red spends 300 ms and gets the increment; Black's clock does not move.
        assert!(clock.charge(Color::Red, Duration::from_millis(300)));
        assert_eq!(clock.go_command(), "go wtime 800 btime 1000 winc 100 binc 100");
        // Exactly the time left is still in time; a moment more is not.
        assert!(clock.charge(Color::Black, Duration::from_millis(1_000)));
        assert_eq!(clock.left(Color::Black), Duration::from_millis(100));
        assert!(!clock.charge(Color::Red, Duration::from_millis(801)));
        assert_eq!(clock.left(Color::Red), Duration::ZERO);
    }

    #[test]
    fn sprt_matches_the_formula_by_hand() {
        // 60 wins, 20 draws, 20 losses; H0 0 Elo, H1 10 Elo. s0 = 0.5,
        // s1 = 1 / (1 + 10^(-1/40)) = 0.5143868; mean 0.7; variance
        // (60 + 20/4) / 100 - 0.49 = 0.16; LLR = 100 * 0.0143868 * (1.4 - 1.0143868) / 0.32.
        let sprt = Sprt { elo0: 0.0, elo1: 10.0 };
        let s1 = 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0));
        assert!((s1 - 0.514_386_8).abs() < 1e-6);
        let by_hand = 100.0 * (s1 - 0.5) * (1.4 - 0.5 - s1) / (2.0 * 0.16);
        let llr = sprt.llr_trinomial(60, 20, 20);
        assert!((llr - by_hand).abs() < 1e-9, "{llr} {by_hand}");
        assert!((llr - 1.7337).abs() < 1e-3, "{llr}");
        // Bounds: ln(0.05 / 0.95) and ln(0.95 / 0.05).
        let (lo, hi) = Sprt::bounds();
        assert!((lo + 2.944_438_98).abs() < 1e-6 && (hi - 2.944_438_98).abs() < 1e-6);
        assert_eq!(Sprt::state(llr), SprtState::Continue);
        assert_eq!(Sprt::state(3.0), SprtState::AcceptH1);
        assert_eq!(Sprt::state(-3.0), SprtState::AcceptH0);
        // A score exactly halfway between s0 and s1 is no evidence either way.
        let sym = Sprt { elo0: -10.0, elo1: 10.0 };
        assert!(sym.llr_trinomial(30, 40, 30).abs() < 1e-9);
        // Pentanomial: 10 pairs at 2/2, 10 at 1/2, 10 at 0/2 has mean 0.5.
        assert!(sym.llr_pentanomial([10, 0, 10, 0, 10]).abs() < 1e-9);
        // 20 pairs 1.5/2 and 10 pairs 1/2: mean (20 * 0.75 + 10 * 0.5) / 30 = 2/3, variance
        // (20 * (1/12)^2 + 10 * (1/6)^2) / 30 = 1/72.
        let llr = sprt.llr_pentanomial([0, 0, 10, 20, 0]);
        let by_hand = 30.0 * (s1 - 0.5) * (4.0 / 3.0 - 0.5 - s1) / (2.0 / 72.0);
        assert!((llr - by_hand).abs() < 1e-9, "{llr} {by_hand}");
        assert!(sprt.llr_trinomial(0, 0, 0) == 0.0);
    }

    #[test]
    fn elo_interval_brackets_the_estimate() {
        let (e, lo, hi) = elo_interval(60, 20, 20);
        // Score 0.7: -400 log10(1/0.7 - 1) = 147.2; sd = sqrt(0.16 / 100) = 0.04.
        assert!((e - 147.19).abs() < 0.01, "{e}");
        assert!((lo - elo_of(0.7 - 1.96 * 0.04)).abs() < 1e-9 && (hi - elo_of(0.7 + 1.96 * 0.04)).abs() < 1e-9);
        assert!(lo < e && e < hi);
        let (e, lo, hi) = elo_interval(10, 80, 10);
        assert!(e.abs() < 1e-9 && (lo + hi).abs() < 1e-9);
        assert!((score_of(elo_of(0.3)) - 0.3).abs() < 1e-12);
    }

    fn game_of(fen: &str, moves: &[&str]) -> Game {
        game_from(crate::notation::fen::xiangqi(fen).unwrap(), moves)
    }

    #[test]
    fn the_referee_sees_mate() {
        // Red's chariot mates on the back rank: Black to move has no reply.
        let game = game_of("3k5/9/3P5/9/9/9/9/9/R8/4K4 w - - 0 1", &["a1a9"]);
        let (verdict, reason) = referee(&game, true, 300).expect("mate ends the game");
        assert_eq!(verdict, Verdict::AWins, "{reason}");
        let (verdict, _) = referee(&game, false, 300).unwrap();
        assert_eq!(verdict, Verdict::BWins);
        // The same position one move earlier goes on.
        assert!(referee(&game_of("3k5/9/3P5/9/9/9/9/9/R8/4K4 w - - 0 1", &[]), true, 300).is_none());
    }

    #[test]
    fn the_referee_ends_repetitions_and_long_games() {
        // Both sides shuffle their chariots: a third occurrence with no check or chase
        // is a draw.
        let shuffle = ["a0a1", "i9i8", "a1a0", "i8i9"];
        let moves: Vec<&str> = shuffle.iter().cycle().take(8).copied().collect();
        let game = game_of("3k4r/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", &moves);
        let (verdict, reason) = referee(&game, true, 300).expect("the repetition ends the game");
        assert_eq!(verdict, Verdict::Draw, "{reason}");
        let short = game_of("3k4r/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", &moves[..2]);
        assert!(referee(&short, true, 300).is_none());
        let (verdict, reason) = referee(&short, true, 2).unwrap();
        assert_eq!(verdict, Verdict::Draw);
        assert!(reason.contains("2 plies"));
    }

    #[test]
    fn a_record_lists_the_moves() {
        let moves: Vec<Move> = ["h2e2", "h9g7", "h0g2"].iter().map(|m| Move::parse_iccs(m).unwrap()).collect();
        let text = game_record(3, "new", "base", Verdict::AWins, "checkmate", &moves);
        assert!(text.contains("[Result \"1-0\"]") && text.contains("[Round \"3\"]"));
        assert!(text.contains("1. h2e2 h9g7 2. h0g2 1-0"), "{text}");
    }
}
