//! One UCI engine of a match, run as a child process: its handshake, its options, the
//! `go` command of a budget, and the move text of engines that write ranks from 1. An
//! engine may have an assistant that answers a share of its moves: the assisted player
//! of a fair-play population.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::Budget;
use crate::rules::types::{Move, Square};

/// How an engine writes the ranks of a move: from 0 (ICCS) or from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ranks {
    /// Ranks 0-9 (ICCS).
    #[default]
    FromZero,
    /// Ranks 1-10 (as Fairy-Stockfish writes Xiangqi and Janggi moves).
    FromOne,
}

impl Ranks {
    /// `0` or `1`.
    pub fn parse(s: &str) -> Option<Ranks> {
        match s.trim() {
            "0" => Some(Ranks::FromZero),
            "1" => Some(Ranks::FromOne),
            _ => None,
        }
    }

    /// The text of `m` in this engine's ranks.
    pub fn write(self, m: Move) -> String {
        match self {
            Ranks::FromZero => m.to_string(),
            Ranks::FromOne => {
                let point = |s: Square| format!("{}{}", (b'a' + s.file()) as char, s.rank() + 1);
                format!("{}{}", point(m.from()), point(m.to()))
            }
        }
    }

    /// A move in this engine's ranks (`None` if it is no move's text).
    pub fn read(self, text: &str) -> Option<Move> {
        match self {
            Ranks::FromZero => Move::parse_iccs(text),
            Ranks::FromOne => {
                let b = text.trim().as_bytes();
                let (from, rest) = read_point(b)?;
                let (to, rest) = read_point(rest)?;
                if !rest.is_empty() || from == to {
                    return None;
                }
                Some(Move::new(from, to))
            }
        }
    }
}

/// A point written with a rank from 1 (`a1`..`i10`), and what follows it.
fn read_point(b: &[u8]) -> Option<(Square, &[u8])> {
    let (&f, rest) = b.split_first()?;
    if !(b'a'..=b'i').contains(&f) {
        return None;
    }
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    let rank: u8 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    if !(1..=10).contains(&rank) {
        return None;
    }
    Some((Square::new(f - b'a', rank - 1), &rest[digits..]))
}

/// How to start and speak to one engine.
#[derive(Clone, Debug, Default)]
pub struct EngineConfig {
    /// The command, split on whitespace.
    pub command: String,
    /// UCI options, `(name, value)`, set after the handshake.
    pub options: Vec<(String, String)>,
    /// How the engine writes ranks.
    pub ranks: Ranks,
    /// This engine's own budget per move instead of the match's: nodes for engines of
    /// different speeds at a fixed ratio (games that do not depend on the load), or a
    /// time for time odds.
    pub budget: Option<Budget>,
    /// Another engine that chooses this engine's move on a share of its plies.
    pub assist: Option<Assist>,
}

/// An assistant: an engine whose first choice an assisted player plays on a share of
/// its moves, drawn at random from a seed (which moves are assisted is reproducible).
#[derive(Clone, Debug)]
pub struct Assist {
    /// The assistant (it writes ranks as the player it assists does).
    pub engine: Box<EngineConfig>,
    /// The share of moves it chooses, in [0, 1].
    pub share: f64,
    /// Its budget per move.
    pub budget: Budget,
    /// The seed of the draws.
    pub seed: u64,
}

/// A running assistant and the state of its draws.
struct Assistant {
    engine: Box<Engine>,
    share: f64,
    go: String,
    draws: u64,
}

impl Assistant {
    /// Draws whether it chooses the next move.
    fn chooses(&mut self) -> bool {
        let (next, value) = crate::rules::board::splitmix(self.draws);
        self.draws = next;
        ((value >> 11) as f64 / (1u64 << 53) as f64) < self.share
    }
}

/// A score a UCI engine reports in its `info` lines, from its side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns (`score cp N`).
    Centipawns(i32),
    /// A mate in this many moves, negative when the side to move is mated (`score mate N`).
    Mate(i32),
}

impl EngineScore {
    /// The score of an `info` line; `None` without one, or with only a bound
    /// (`lowerbound`, `upperbound`: an aspiration window's fail, not the search's value).
    pub fn read(line: &str) -> Option<EngineScore> {
        if line.starts_with("info string") {
            return None;
        }
        let mut words = line.split_whitespace().skip_while(|&w| w != "score").skip(1);
        let (kind, value) = (words.next()?, words.next()?.parse().ok()?);
        if matches!(words.next(), Some("lowerbound" | "upperbound")) {
            return None;
        }
        match kind {
            "cp" => Some(EngineScore::Centipawns(value)),
            "mate" => Some(EngineScore::Mate(value)),
            _ => None,
        }
    }
}

/// A running UCI engine.
pub struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    ranks: Ranks,
    budget: Option<Budget>,
    assistant: Option<Assistant>,
}

impl Engine {
    /// Starts `command` (split on whitespace) and completes the UCI handshake.
    pub fn start(command: &str, options: &[(String, String)]) -> Result<Engine, String> {
        let config = EngineConfig { command: command.into(), options: options.to_vec(), ..EngineConfig::default() };
        Engine::start_with(&config)
    }

    /// Starts an engine: the handshake, `UCI_Variant xiangqi` if it offers the option
    /// (and the options do not set it), then the options.
    pub fn start_with(config: &EngineConfig) -> Result<Engine, String> {
        let command = &config.command;
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
        let assistant = match &config.assist {
            None => None,
            Some(assist) => {
                if !(0.0..=1.0).contains(&assist.share) {
                    return Err(format!("assisted share {} is not in [0, 1]", assist.share));
                }
                let engine =
                    Box::new(Engine::start_with(&EngineConfig { ranks: config.ranks, ..(*assist.engine).clone() })?);
                Some(Assistant { engine, share: assist.share, go: assist.budget.go_command(), draws: assist.seed })
            }
        };
        let mut engine = Engine { child, input, output, ranks: config.ranks, budget: config.budget, assistant };
        engine.send("uci")?;
        let mut has_variant = false;
        loop {
            let line = engine.read_line("uciok")?;
            if line.starts_with("uciok") {
                break;
            }
            has_variant |= line.starts_with("option name UCI_Variant ");
        }
        let sets_variant = config.options.iter().any(|(n, _)| n.eq_ignore_ascii_case("UCI_Variant"));
        if has_variant && !sets_variant {
            engine.send("setoption name UCI_Variant value xiangqi")?;
        }
        for (name, value) in &config.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.send("isready")?;
        engine.wait_for("readyok")?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}").and_then(|_| self.input.flush()).map_err(|e| format!("engine input: {e}"))
    }

    fn read_line(&mut self, awaited: &str) -> Result<String, String> {
        let mut line = String::new();
        let n = self.output.read_line(&mut line).map_err(|e| format!("engine output: {e}"))?;
        if n == 0 {
            return Err(format!("engine exited before {awaited}"));
        }
        Ok(line.trim().to_string())
    }

    fn wait_for(&mut self, prefix: &str) -> Result<String, String> {
        loop {
            let line = self.read_line(prefix)?;
            if line.starts_with(prefix) {
                return Ok(line);
            }
        }
    }

    /// The engine's own budget per move, if it has one.
    pub fn own_budget(&self) -> Option<Budget> {
        self.budget
    }

    /// Tells the engine a new game begins.
    pub fn new_game(&mut self) -> Result<(), String> {
        if let Some(assistant) = &mut self.assistant {
            assistant.engine.new_game()?;
        }
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for("readyok").map(|_| ())
    }

    /// Asks for a move in the game's position; its text in ICCS (ranks from 0). A
    /// clock budget is sent as it stands at the start of a game (see
    /// [`Engine::best_move_with`] for a running clock).
    pub fn best_move(&mut self, start_fen: &str, moves: &[Move], budget: Budget) -> Result<String, String> {
        self.best_move_with(start_fen, moves, &budget.go_command())
    }

    /// Asks for a move with this `go` command.
    pub fn best_move_with(&mut self, start_fen: &str, moves: &[Move], go: &str) -> Result<String, String> {
        let list: Vec<String> = moves.iter().map(|&m| self.ranks.write(m)).collect();
        let text = self.best_move_text(start_fen, &list, go)?;
        Ok(self.ranks.read(&text).map_or(text, |m| m.to_string()))
    }

    /// Asks for a move after `moves`, already written in this engine's ranks; the
    /// answer as the engine wrote it (or, on an assisted move, as its assistant did).
    pub fn best_move_text(&mut self, start_fen: &str, moves: &[String], go: &str) -> Result<String, String> {
        if let Some(assistant) = &mut self.assistant
            && assistant.chooses()
        {
            let go = assistant.go.clone();
            return assistant.engine.best_move_text(start_fen, moves, &go);
        }
        let position = if moves.is_empty() {
            format!("position fen {start_fen}")
        } else {
            format!("position fen {start_fen} moves {}", moves.join(" "))
        };
        self.send(&position)?;
        self.send(go)?;
        let line = self.wait_for("bestmove")?;
        Ok(line.split_whitespace().nth(1).unwrap_or("").to_string())
    }

    /// Searches the position `fen` with this `go` command and returns the last score
    /// the engine reported (its side to move's view), `None` if it reported none.
    pub fn score(&mut self, fen: &str, go: &str) -> Result<Option<EngineScore>, String> {
        self.send(&format!("position fen {fen}"))?;
        self.send(go)?;
        let mut last = None;
        loop {
            let line = self.read_line("bestmove")?;
            if line.starts_with("bestmove") {
                return Ok(last);
            }
            if line.starts_with("info ") {
                last = EngineScore::read(&line).or(last);
            }
        }
    }

    /// How the engine writes ranks.
    pub fn ranks(&self) -> Ranks {
        self.ranks
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_from_info_lines_and_bounds_are_not() {
        let read = EngineScore::read;
        assert_eq!(
            read("info depth 9 seldepth 12 score cp -37 nodes 9000 pv h2e2"),
            Some(EngineScore::Centipawns(-37))
        );
        assert_eq!(read("info depth 5 score mate -3 pv a0a1"), Some(EngineScore::Mate(-3)));
        assert_eq!(read("info depth 9 score cp 120 lowerbound nodes 5"), None);
        assert_eq!(read("info depth 9 score cp 80 upperbound"), None);
        assert_eq!(read("info string score cp 10 is a string"), None);
        assert_eq!(read("info depth 1 nodes 20"), None);
        assert_eq!(read("info depth 1 score cp"), None);
    }

    #[test]
    fn ranks_convert_both_ways() {
        let m = Move::parse_iccs("h2e2").unwrap();
        assert_eq!(Ranks::FromOne.write(m), "h3e3");
        assert_eq!(Ranks::FromOne.read("h3e3"), Some(m));
        let top = Move::parse_iccs("a9a8").unwrap();
        assert_eq!(Ranks::FromOne.write(top), "a10a9");
        assert_eq!(Ranks::FromOne.read("a10a9"), Some(top));
        assert_eq!(Ranks::FromZero.write(top), "a9a8");
        assert_eq!(Ranks::FromZero.read("a9a8"), Some(top));
        assert_eq!(Ranks::FromOne.read("a0a1"), None);
        assert_eq!(Ranks::FromOne.read("a11a1"), None);
        assert_eq!(Ranks::FromOne.read("e2e2"), None, "a Janggi pass is no Xiangqi move");
        for from in Square::all() {
            for to in [Square::new(4, 9), Square::new(0, 0), Square::new(8, 5)] {
                if from != to {
                    let m = Move::new(from, to);
                    assert_eq!(Ranks::FromOne.read(&Ranks::FromOne.write(m)), Some(m));
                }
            }
        }
        assert_eq!(Ranks::parse("1"), Some(Ranks::FromOne));
        assert_eq!(Ranks::parse("2"), None);
    }
}
