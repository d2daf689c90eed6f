//! A match runner: two UCI engines (two builds, or one build with two settings) play
//! games at a fixed time per move from a small opening book, colours alternating, and
//! the rules judge every move and every ending. Used to keep only the changes that win.
//!
//! ```text
//! chuhe match --engine-a "target/release/chuhe uci" --engine-b "/tmp/old/chuhe uci" \
//!     --games 40 --movetime 100 --openings tests/data/openings.txt
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::rules::history::Game;
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, Move};
use crate::rules::xiangqi::Position;
use crate::rules::xiangqi::adjudicate::{RuleSet, judge_position};

/// A running UCI engine.
pub struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    /// Starts `command` (split on whitespace) and completes the UCI handshake.
    pub fn start(command: &str, options: &[(String, String)]) -> Result<Engine, String> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or("empty engine command")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut engine = Engine { child, input, output };
        engine.send("uci")?;
        engine.wait_for("uciok")?;
        for (name, value) in options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.send("isready")?;
        engine.wait_for("readyok")?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}").and_then(|_| self.input.flush()).map_err(|e| format!("engine input: {e}"))
    }

    fn wait_for(&mut self, prefix: &str) -> Result<String, String> {
        loop {
            let mut line = String::new();
            let n = self.output.read_line(&mut line).map_err(|e| format!("engine output: {e}"))?;
            if n == 0 {
                return Err(format!("engine exited before {prefix}"));
            }
            if line.starts_with(prefix) {
                return Ok(line.trim().to_string());
            }
        }
    }

    /// Asks for a move in the game's position.
    pub fn best_move(&mut self, start_fen: &str, moves: &[Move], budget: Budget) -> Result<String, String> {
        let list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        let position = if list.is_empty() {
            format!("position fen {start_fen}")
        } else {
            format!("position fen {start_fen} moves {}", list.join(" "))
        };
        self.send(&position)?;
        self.send(&match budget {
            Budget::Movetime(ms) => format!("go movetime {ms}"),
            Budget::Nodes(n) => format!("go nodes {n}"),
        })?;
        let line = self.wait_for("bestmove")?;
        Ok(line.split_whitespace().nth(1).unwrap_or("").to_string())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// What each engine gets for a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Milliseconds: the usual match condition, but the machine's load plays along.
    Movetime(u64),
    /// Nodes: the same games on a loaded machine as on an idle one (one search thread),
    /// though a change that slows the search down is not charged for it.
    Nodes(u64),
}

/// Result of one game from engine A's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    AWins,
    Draw,
    BWins,
}

pub struct GameRecord {
    pub opening: usize,
    pub a_plays_red: bool,
    pub verdict: Verdict,
    pub plies: usize,
    pub reason: String,
}

/// Reads an opening book: one line of ICCS moves per opening, `#` comments.
pub fn read_openings(text: &str) -> Result<Vec<Vec<Move>>, String> {
    let mut book = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut game = Game::new(Position::startpos());
        let mut moves = Vec::new();
        for t in line.split_whitespace() {
            let m = Move::parse_iccs(t).ok_or_else(|| format!("line {}: bad move {t}", i + 1))?;
            game.play(m).map_err(|_| format!("line {}: illegal move {t}", i + 1))?;
            moves.push(m);
        }
        book.push(moves);
    }
    Ok(book)
}

/// Plays one game; the rules judge each move (an illegal move loses) and each ending.
pub fn play_game(
    a: &mut Engine,
    b: &mut Engine,
    opening: &[Move],
    a_plays_red: bool,
    budget: Budget,
    max_plies: usize,
) -> Result<(Verdict, usize, String), String> {
    const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let mut game = Game::new(Position::startpos());
    for &m in opening {
        game.play_unchecked(m);
    }
    let verdict_for =
        |winner: Color| if (winner == Color::Red) == a_plays_red { Verdict::AWins } else { Verdict::BWins };
    loop {
        if let Some(r) = judge_position(&game, RuleSet::SimplifiedV1) {
            let verdict = match r.result {
                GameResult::Win(c) => verdict_for(c),
                _ => Verdict::Draw,
            };
            return Ok((verdict, game.plies().len(), r.explanation));
        }
        if game.plies().len() >= max_plies {
            return Ok((Verdict::Draw, game.plies().len(), format!("{max_plies} plies played")));
        }
        let mover = game.position().turn();
        let engine = if (mover == Color::Red) == a_plays_red { &mut *a } else { &mut *b };
        let moves: Vec<Move> = game.plies().iter().map(|p| p.mv).collect();
        let text = engine.best_move(START, &moves, budget)?;
        match Move::parse_iccs(&text).filter(|m| game.position().is_legal(*m)) {
            Some(m) => {
                game.play_unchecked(m);
            }
            None => {
                return Ok((
                    verdict_for(mover.other()),
                    game.plies().len(),
                    format!("{} played illegal {text:?}", mover.name()),
                ));
            }
        }
    }
}

/// Elo difference for a score fraction, and its rough 95% margin for `n` games.
pub fn elo(score: f64, n: usize) -> (f64, f64) {
    let s = score.clamp(0.001, 0.999);
    let diff = -400.0 * (1.0 / s - 1.0).log10();
    let sd = (s * (1.0 - s) / n.max(1) as f64).sqrt();
    let hi = (s + 1.96 * sd).clamp(0.001, 0.999);
    let margin = -400.0 * (1.0 / hi - 1.0).log10() - diff;
    (diff, margin)
}
