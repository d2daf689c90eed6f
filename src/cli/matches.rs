//! `chuhe match`: two UCI engines play from an opening book, the rules as referee.

use crate::Failure;

#[allow(clippy::too_many_arguments)]
pub fn run_match(
    engine_a: &str,
    engine_b: &str,
    option_a: &[String],
    option_b: &[String],
    games: usize,
    budget: chuhe::selfplay::Budget,
    openings: &std::path::Path,
    max_plies: usize,
) -> Result<(), Failure> {
    use chuhe::selfplay::{Engine, Verdict, elo, play_game, read_openings};
    let options = |list: &[String]| -> Result<Vec<(String, String)>, Failure> {
        list.iter()
            .map(|o| {
                o.split_once('=')
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .ok_or_else(|| Failure::Message(format!("option {o:?} is not Name=Value")))
            })
            .collect()
    };
    let text =
        std::fs::read_to_string(openings).map_err(|e| Failure::Message(format!("{}: {e}", openings.display())))?;
    let book = read_openings(&text).map_err(Failure::Message)?;
    if book.is_empty() {
        return Err(Failure::Message("the opening book is empty".into()));
    }
    let mut a = Engine::start(engine_a, &options(option_a)?).map_err(Failure::Message)?;
    let mut b = Engine::start(engine_b, &options(option_b)?).map_err(Failure::Message)?;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for i in 0..games {
        let opening = (i / 2) % book.len();
        let a_red = i % 2 == 0;
        let (verdict, plies, reason) =
            play_game(&mut a, &mut b, &book[opening], a_red, budget, max_plies).map_err(Failure::Message)?;
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
    }
    let n = wins + draws + losses;
    let score = (wins as f64 + 0.5 * draws as f64) / n.max(1) as f64;
    let (diff, margin) = elo(score, n);
    out!("A: +{wins} ={draws} -{losses}  score {:.1}%  Elo {diff:+.0} ± {margin:.0}", score * 100.0);
    Ok(())
}
