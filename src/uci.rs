//! UCI on stdin/stdout, so that GUIs and match runners can use the engine.
//!
//! Supported: `uci`, `isready`, `ucinewgame`, `setoption name Hash|Threads|UCI_Variant
//! value ...`, `position startpos|fen FEN [moves ...]` (ICCS), `go movetime|depth|nodes|
//! wtime btime winc binc movestogo|infinite`, `stop`, `quit`. `setoption name
//! UCI_Variant value janggi` switches to Janggi (then `startpos` is the Janggi start and
//! a pass is written `pass`); `value xiangqi` switches back. `Use NNUE` (a check)
//! chooses the nets over the classical evaluation; `EvalFile` and `EvalFileJanggi`
//! replace the embedded Xiangqi and Janggi nets by a file (`<embedded>` brings the
//! embedded one back); a file that cannot be loaded is an `info string` naming it, and
//! the net in place stays.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Engine, EngineConfig, Running, SearchPriority};
use crate::game::{BoardGame, RuleSet, Variant};
use crate::rules::types::Color;
use crate::search::nnue::{Evaluation, NetVariant, embedded};
use crate::search::time::Clock;
use crate::search::{self, Limits, Params, Score};

struct Session {
    /// One search at a time, on the engine's pool, with its table kept across `go`
    /// commands (cleared by `ucinewgame`), as the server keeps its own.
    engine: Arc<Engine>,
    threads: usize,
    variant: Variant,
    /// The rule set repetitions are judged by; `None`: the variant's default. Each
    /// game the session sets up is put under it.
    rules: Option<RuleSet>,
    game: BoardGame,
    running: Option<Running>,
    /// The classical evaluation or the nets, and which nets.
    evaluation: Evaluation,
}

/// The engine of a UCI session: one search thread at the process's own priority, no
/// limit on a search's time but the `go` command's own.
fn engine(hash_mb: usize) -> Arc<Engine> {
    Engine::new(EngineConfig {
        hash_mb,
        workers: 1,
        search_priority: SearchPriority::UNCHANGED,
        ..EngineConfig::default()
    })
}

fn format_score(s: Score) -> String {
    match s {
        Score::Centipawns(c) => format!("cp {c}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

/// Runs the protocol until `quit` or end of input.
pub fn run(input: impl BufRead, output: impl Write + Send + 'static, hash_mb: usize, threads: usize) {
    let out = Arc::new(std::sync::Mutex::new(output));
    let say = |out: &Arc<std::sync::Mutex<dyn Write + Send>>, line: String| {
        if let Ok(mut o) = out.lock() {
            let _ = writeln!(o, "{line}");
            let _ = o.flush();
        }
    };
    let out: Arc<std::sync::Mutex<dyn Write + Send>> = out;
    let mut s = Session {
        engine: engine(hash_mb),
        threads: threads.max(1),
        variant: Variant::Xiangqi,
        rules: None,
        game: BoardGame::startpos(Variant::Xiangqi),
        running: None,
        evaluation: Evaluation::default(),
    };
    for line in input.lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("uci") => {
                say(&out, "id name chuhe".into());
                say(&out, "id author the chuhe project".into());
                say(&out, "option name Hash type spin default 64 min 1 max 65536".into());
                say(&out, "option name Threads type spin default 1 min 1 max 256".into());
                say(&out, "option name UCI_Variant type combo default xiangqi var xiangqi var janggi".into());
                // Checked by default, as both variants' nets are.
                say(
                    &out,
                    format!(
                        "option name Use NNUE type check default {}",
                        embedded::nnue_by_default(NetVariant::Xiangqi)
                    ),
                );
                say(&out, format!("option name EvalFile type string default {EMBEDDED}"));
                say(&out, format!("option name EvalFileJanggi type string default {EMBEDDED}"));
                say(
                    &out,
                    "option name Rules type combo default default var default var simplified var asian \
                     var tournament var janggi-casual var janggi-tournament"
                        .into(),
                );
                say(&out, "uciok".into());
            }
            Some("isready") => say(&out, "readyok".into()),
            Some("ucinewgame") => {
                wait(&mut s);
                s.engine.tt.clear();
            }
            Some("setoption") => {
                wait(&mut s);
                let name = value_after(&words, "name");
                let value = value_after(&words, "value");
                match (name.as_deref(), value) {
                    (Some("Hash"), Some(v)) => {
                        if let Ok(mb) = v.parse::<usize>() {
                            s.engine = engine(mb);
                        }
                    }
                    (Some("Threads"), Some(v)) => s.threads = v.parse().unwrap_or(1).max(1),
                    (Some("Use NNUE"), Some(v)) => match v.parse::<bool>() {
                        Ok(on) => s.evaluation.use_nnue = Some(on),
                        Err(_) => say(&out, format!("info string Use NNUE: {v} is neither true nor false")),
                    },
                    (Some("EvalFile"), Some(v)) => say(&out, eval_file(&mut s.evaluation, NetVariant::Xiangqi, &v)),
                    (Some("EvalFileJanggi"), Some(v)) => {
                        say(&out, eval_file(&mut s.evaluation, NetVariant::Janggi, &v))
                    }
                    (Some("UCI_Variant"), Some(v)) => match v.parse::<Variant>() {
                        Ok(variant @ (Variant::Xiangqi | Variant::Janggi)) => {
                            s.variant = variant;
                            s.rules = None;
                            s.game = BoardGame::startpos(variant);
                        }
                        _ => say(&out, format!("info string variant {v} is not supported yet")),
                    },
                    (Some("Rules"), Some(v)) => {
                        match rule_set(&v).and_then(|rules| {
                            Ok((rules, s.game.clone().with_rules(rules).map_err(|e| format!("Rules: {e}"))?))
                        }) {
                            Ok((rules, game)) => (s.rules, s.game) = (rules, game),
                            Err(e) => say(&out, format!("info string {e}")),
                        }
                    }
                    _ => {}
                }
            }
            Some("position") => {
                wait(&mut s);
                match parse_position(&words, s.variant).and_then(|g| g.with_rules(s.rules).map_err(|e| e.to_string())) {
                    Ok(g) => s.game = g,
                    Err(e) => say(&out, format!("info string {e}")),
                }
            }
            Some("go") => {
                wait(&mut s);
                let params = Params {
                    nnue: s.evaluation.net_for(s.game.net_variant()),
                    ..go_params(&words, s.game.turn(), s.threads)
                };
                let (game, to_gui) = (s.game.clone(), out.clone());
                // The previous search has ended (`wait` above): its thread is free.
                let started = s.engine.try_admit().and_then(|permit| {
                    s.engine.start(permit, move |engine, stop| {
                        let mut info = |r: &search::Report| {
                            if let Some(line) = r.lines.first() {
                                let nps = (r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-6)) as u64;
                                let pv: Vec<String> = line.pv.iter().map(|m| m.to_string()).collect();
                                say(
                                    &to_gui,
                                    format!(
                                        "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {} pv {}",
                                        r.depth,
                                        r.seldepth,
                                        format_score(line.score),
                                        r.nodes,
                                        nps,
                                        r.elapsed.as_millis(),
                                        r.hashfull,
                                        pv.join(" ")
                                    ),
                                );
                            }
                        };
                        let outcome = engine.search(&game, &params, None, stop, &mut info);
                        let best = outcome.best.map_or("(none)".to_string(), |m| m.to_string());
                        match outcome.ponder {
                            Some(p) => say(&to_gui, format!("bestmove {best} ponder {p}")),
                            None => say(&to_gui, format!("bestmove {best}")),
                        }
                    })
                });
                match started {
                    Ok(running) => s.running = Some(running),
                    Err(e) => say(&out, format!("info string {e}")),
                }
            }
            Some("stop") => wait(&mut s),
            Some("quit") => {
                wait(&mut s);
                return;
            }
            _ => {}
        }
    }
    wait(&mut s);
}

/// The value of `EvalFile` and `EvalFileJanggi` that stands for the embedded net.
const EMBEDDED: &str = "<embedded>";

/// Puts the net file at `path` (or the embedded net) in `variant`'s place; the
/// answer to say, an error naming the file when it cannot be loaded (the net in
/// place then stays).
fn eval_file(evaluation: &mut Evaluation, variant: NetVariant, path: &str) -> String {
    if path == EMBEDDED {
        evaluation.set(embedded::network(variant));
    } else if let Err(e) = evaluation.load(variant, std::path::Path::new(path)) {
        return format!("info string {e}; the {} net stays {}", variant.name(), evaluation.network(variant).identity());
    }
    format!("info string {} net {}", variant.name(), evaluation.network(variant).identity())
}

/// Stops the running search, if any, and waits until it has said its best move.
fn wait(s: &mut Session) {
    if let Some(running) = s.running.take() {
        running.stop();
        running.wait();
    }
}

fn value_after(words: &[&str], key: &str) -> Option<String> {
    let i = words.iter().position(|w| *w == key)?;
    let end = words[i + 1..].iter().position(|w| *w == "value").map_or(words.len(), |p| i + 1 + p);
    let v = words[i + 1..end].join(" ");
    (!v.is_empty()).then_some(v)
}

fn parse_position(words: &[&str], variant: Variant) -> Result<BoardGame, String> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let spec = &words[1..moves_at.unwrap_or(words.len())];
    let text = match spec.first() {
        Some(&"startpos") => "startpos".to_string(),
        Some(&"fen") => spec[1..].join(" "),
        _ => return Err("position needs startpos or fen".into()),
    };
    let mut game = BoardGame::from_fen(variant, &text)?;
    if let Some(i) = moves_at {
        game.play_iccs(words[i + 1..].iter().copied()).map_err(|e| match e.reason {
            None => format!("bad move {}", e.text),
            Some(_) => format!("illegal move {}", e.text),
        })?;
    }
    Ok(game)
}

fn go_params(words: &[&str], turn: Color, threads: usize) -> Params {
    let num = |key: &str| -> Option<u64> {
        words.iter().position(|w| *w == key).and_then(|i| words.get(i + 1)?.parse().ok())
    };
    let mut limits = Limits { depth: num("depth").map(|d| d as u32), nodes: num("nodes"), ..Limits::default() };
    if let Some(ms) = num("movetime") {
        limits.movetime = Some(Duration::from_millis(ms));
    } else if !words.contains(&"infinite") {
        let (time, inc) = if turn == Color::Red { (num("wtime"), num("winc")) } else { (num("btime"), num("binc")) };
        if let Some(t) = time {
            limits.clock = Some(Clock {
                time: Duration::from_millis(t),
                increment: Duration::from_millis(inc.unwrap_or(0)),
                moves_to_go: num("movestogo").map(|n| n.min(u32::MAX as u64) as u32),
            });
        }
    }
    Params { limits, threads, ..Params::default() }
}

/// The `Rules` option: a rule set (of the session's variant, which putting the game
/// under it checks), or `default`.
fn rule_set(value: &str) -> Result<Option<RuleSet>, String> {
    if value.eq_ignore_ascii_case("default") {
        return Ok(None);
    }
    value.parse::<RuleSet>().map(Some).map_err(|_| format!("unknown rule set {value}"))
}
