//! `chuhe match`: two UCI engines play from an opening book, the rules as referee;
//! a score with Elo and its interval, and a sequential test that may stop it early.

use crate::Failure;

/// Reads how ranks are numbered (from 0 or from 1).
pub fn parse_ranks(s: &str) -> Result<chuhe::selfplay::Ranks, String> {
    chuhe::selfplay::Ranks::parse(s).ok_or_else(|| format!("ranks {s:?}: 0 or 1"))
}

/// Reads UCI options given as `Name=Value`; for Janggi, `UCI_Variant janggi` first
/// unless they set the variant (an engine offering the option is otherwise told
/// `xiangqi` when it starts).
pub fn engine_options(list: &[String], janggi: bool) -> Result<Vec<(String, String)>, Failure> {
    let mut options = list
        .iter()
        .map(|o| {
            o.split_once('=')
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .ok_or_else(|| Failure::Message(format!("option {o:?} is not Name=Value")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if janggi && !options.iter().any(|(n, _)| n.eq_ignore_ascii_case("UCI_Variant")) {
        options.insert(0, ("UCI_Variant".into(), "janggi".into()));
    }
    Ok(options)
}

/// One side of a match: its engine and how the records name it.
pub struct Contestant {
    /// The engine's command.
    pub command: String,
    /// Its UCI options, `Name=Value`.
    pub options: Vec<String>,
    /// How it writes ranks.
    pub ranks: chuhe::selfplay::Ranks,
    /// Its name in the records.
    pub name: String,
    /// Its rating in the records, if one is given.
    pub rating: Option<u32>,
    /// An assistant's command and the share of moves it chooses.
    pub assist: Option<(String, f64)>,
}

/// The conditions of a match.
pub struct MatchSettings {
    /// Games to play.
    pub games: usize,
    /// Each engine's time or depth per move.
    pub budget: chuhe::selfplay::Budget,
    /// Engine B's own budget per move (nodes, or a time for time odds), instead of
    /// `budget`.
    pub budget_b: Option<chuhe::selfplay::Budget>,
    /// The file of opening positions.
    pub openings: std::path::PathBuf,
    /// Instead of the file: random openings of this many plies, from this seed.
    pub random_openings: Option<(usize, u64)>,
    /// Plies after which a game is adjudicated a draw.
    pub max_plies: usize,
    /// The SPRT test to stop on, if any.
    pub sprt: Option<String>,
    /// Where to write the games' records.
    pub pgn: Option<std::path::PathBuf>,
    /// Janggi by the casual rules instead of Xiangqi.
    pub janggi: bool,
    /// The assistants' budget per move.
    pub assist_budget: chuhe::selfplay::Budget,
    /// The assistants' UCI options, `Name=Value`.
    pub assist_options: Vec<String>,
    /// The seed of the draws of which moves are assisted.
    pub seed: u64,
}

/// Plays the match: each opening with both colours (a pair of games), and prints each
/// game, the score with Elo and its 95 % interval, and the test's state if one runs.
pub fn run_match(a: &Contestant, b: &Contestant, settings: &MatchSettings) -> Result<(), Failure> {
    use chuhe::selfplay::{Assist, Engine, EngineConfig, Seat, Sprt, SprtState, Verdict, elo_interval};
    use chuhe::selfplay::{play_game_recorded, read_openings};
    let sprt = match &settings.sprt {
        None => None,
        Some(text) => {
            let bounds: Option<Vec<f64>> = text.split(',').map(|x| x.trim().parse().ok()).collect();
            match bounds.as_deref() {
                Some(&[elo0, elo1]) if elo0 < elo1 => Some(Sprt { elo0, elo1 }),
                _ => return Err(Failure::Message(format!("--sprt {text:?}: elo0,elo1 with elo0 < elo1"))),
            }
        }
    };
    let book = match settings.random_openings {
        Some((plies, seed)) if settings.janggi => {
            chuhe::selfplay::random_janggi_openings(settings.games.div_ceil(2), plies, seed)
        }
        Some((plies, seed)) => chuhe::selfplay::random_openings(settings.games.div_ceil(2), plies, seed),
        None if settings.janggi => return Err(Failure::Message("a Janggi match needs --random-openings".into())),
        None => {
            let openings = &settings.openings;
            let text = std::fs::read_to_string(openings)
                .map_err(|e| Failure::Message(format!("{}: {e}", openings.display())))?;
            read_openings(&text).map_err(Failure::Message)?
        }
    };
    if book.is_empty() {
        return Err(Failure::Message("the opening book is empty".into()));
    }
    let config =
        |side: &Contestant, budget: Option<chuhe::selfplay::Budget>, seed: u64| -> Result<EngineConfig, Failure> {
            let assist = match &side.assist {
                None => None,
                Some((command, share)) => {
                    let options = engine_options(&settings.assist_options, settings.janggi)?;
                    let engine =
                        Box::new(EngineConfig { command: command.clone(), options, ..EngineConfig::default() });
                    Some(Assist { engine, share: *share, budget: settings.assist_budget, seed })
                }
            };
            let options = engine_options(&side.options, settings.janggi)?;
            Ok(EngineConfig { command: side.command.clone(), options, ranks: side.ranks, budget, assist })
        };
    let mut ea = Engine::start_with(&config(a, None, settings.seed)?).map_err(Failure::Message)?;
    let mut eb = Engine::start_with(&config(b, settings.budget_b, !settings.seed)?).map_err(Failure::Message)?;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut pairs = [0usize; 5];
    let mut pair_points = 0.0;
    let mut state = SprtState::Continue;
    for i in 0..settings.games {
        let opening = (i / 2) % book.len();
        let a_red = i % 2 == 0;
        let play = if settings.janggi { chuhe::selfplay::play_janggi_game_recorded } else { play_game_recorded };
        let (verdict, plies, reason, moves) =
            play(&mut ea, &mut eb, &book[opening], a_red, settings.budget, settings.max_plies)
                .map_err(Failure::Message)?;
        match verdict {
            Verdict::AWins => wins += 1,
            Verdict::Draw => draws += 1,
            Verdict::BWins => losses += 1,
        }
        out!(
            "game {:>3} opening {:>2} A as {:<5} {:?} after {plies} plies: {reason}",
            i + 1,
            opening + 1,
            if a_red { "red" } else { "black" },
            verdict
        );
        if let Some(path) = &settings.pgn {
            let (seat_a, seat_b) = (Seat { name: &a.name, rating: a.rating }, Seat { name: &b.name, rating: b.rating });
            let (red, black) = if a_red { (seat_a, seat_b) } else { (seat_b, seat_a) };
            let red_verdict = match (verdict, a_red) {
                (v, true) => v,
                (Verdict::AWins, false) => Verdict::BWins,
                (Verdict::BWins, false) => Verdict::AWins,
                (Verdict::Draw, false) => Verdict::Draw,
            };
            let start = if settings.janggi { chuhe::selfplay::JANGGI_START_FEN } else { chuhe::selfplay::START_FEN };
            let record = chuhe::selfplay::game_record_from(start, i + 1, red, black, red_verdict, &reason, &moves);
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, record.as_bytes()))
                .map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        }
        pair_points += verdict.points();
        if i % 2 == 1 {
            pairs[(pair_points * 2.0).round() as usize] += 1;
            pair_points = 0.0;
            if let Some(test) = sprt {
                let llr = test.llr_pentanomial(pairs);
                state = Sprt::state(llr);
                let (lower, upper) = Sprt::bounds();
                out!("sprt llr {llr:.2} ({lower:.2}, {upper:.2}) pairs {pairs:?}");
                if state != SprtState::Continue {
                    break;
                }
            }
        }
    }
    let n = wins + draws + losses;
    let score = (wins as f64 + 0.5 * draws as f64) / n.max(1) as f64;
    let (diff, low, high) = elo_interval(wins, draws, losses);
    out!(
        "A: +{wins} ={draws} -{losses}  score {:.1}%  Elo {diff:+.0} ± {:.0} (95 %: {low:+.0} to {high:+.0})",
        score * 100.0,
        (high - low) / 2.0
    );
    if let Some(test) = sprt {
        let verdict = match state {
            SprtState::AcceptH1 => "H1 accepted",
            SprtState::AcceptH0 => "H0 accepted",
            SprtState::Continue => "undecided",
        };
        out!("SPRT [{}, {}]: {verdict}, llr {:.2}", test.elo0, test.elo1, test.llr_pentanomial(pairs));
    }
    Ok(())
}
