//! A player's games against the model: figures, projections, z-scores with p-values,
//! an intrinsic performance rating, the weightiest games and plies, and a band.
//!
//! The band follows the combined z's one-sided p-value adjusted for the family of
//! players screened (Šidák, [`family_p`]): REVIEW at most [`BANDS`]' first p, STRONG
//! the second, MARK the third (z 2.75, 4.0 and 5.0 for a family of one), below
//! [`MIN_POSITIONS`] counted positions INSUFFICIENT_DATA. The thresholds are fixed
//! here, not fitted on any population.

use std::collections::BTreeSet;
use std::fmt;

use super::choice::{Params, Statistic};
use super::games::{ScreenedGame, Source};
use super::model::Model;
use super::sides::{Counted, Excluded, Side, sides_of};
use super::statistics::{PositionTerms, Tally, Zs, family_p, normal_tail};

/// Fewest counted positions for a band other than INSUFFICIENT_DATA.
pub const MIN_POSITIONS: usize = 50;
/// Games reported among the weightiest.
pub const WEIGHTIEST_GAMES: usize = 5;
/// Plies reported among the weightiest.
pub const WEIGHTIEST_PLIES: usize = 10;

/// What the figures say, most suspicious last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Fewer than [`MIN_POSITIONS`] counted positions.
    InsufficientData,
    /// Nothing beyond what an honest player of this rating shows.
    Clear,
    /// Worth a reviewer's look.
    Review,
    /// Strong statistical evidence.
    Strong,
    /// Evidence beyond any honest population of the family's size.
    Mark,
}

impl Verdict {
    /// The band's name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::InsufficientData => "INSUFFICIENT_DATA",
            Verdict::Clear => "CLEAR",
            Verdict::Review => "REVIEW",
            Verdict::Strong => "STRONG",
            Verdict::Mark => "MARK",
        }
    }
}

/// The bands above CLEAR and the z each needs for a family of one.
pub const BANDS: [(Verdict, f64); 3] = [(Verdict::Review, 2.75), (Verdict::Strong, 4.0), (Verdict::Mark, 5.0)];

/// A band's threshold: the family-adjusted p-value at or below which it is given.
pub fn threshold_p(z: f64) -> f64 {
    normal_tail(z)
}

/// The sentence every assessment carries.
pub const STATEMENT: &str = "This is statistical evidence of how unusual the moves are for an honest player of \
this rating under a model calibrated on honest games, not a finding that the player cheated.";

/// How an assessment was asked for.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The player (`None`: every player named).
    pub player: Option<&'a str>,
    /// Players screened in the period, for the family-wise p-value (at least 1).
    pub family_size: u64,
    /// The rating to assess at instead of the records' (the player's mean).
    pub rating: Option<f64>,
}

/// Why an assessment could not be made.
#[derive(Clone, Debug, PartialEq)]
pub enum AssessError {
    /// The player asked for plays in none of the games.
    UnknownPlayer(String),
    /// A family size of 0.
    NoFamily,
    /// A rating out of range.
    Rating(f64),
}

impl fmt::Display for AssessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssessError::UnknownPlayer(p) => write!(f, "{p:?} plays in none of the games"),
            AssessError::NoFamily => {
                f.write_str("a family of 0 players: give how many players are screened, at least 1")
            }
            AssessError::Rating(r) => write!(f, "rating {r}: give a rating from 0 to 5000"),
        }
    }
}

impl std::error::Error for AssessError {}

/// An observed figure beside its projection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Projected {
    /// What the player did (a share or an average per position).
    pub observed: f64,
    /// What the model projects for the rating.
    pub projected: f64,
    /// The projection's standard deviation.
    pub sd: f64,
}

/// The intrinsic performance rating: the rating whose projected scaled error is the
/// player's, with the ratings not rejected at 95 %.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Performance {
    /// The estimate.
    pub rating: f64,
    /// Lowest rating of the interval.
    pub low: f64,
    /// Highest.
    pub high: f64,
    /// The estimate or a bound lies at the edge of the calibrated ratings (the truth
    /// may be beyond).
    pub at_edge: bool,
}

/// One game's weight in the assessment.
#[derive(Clone, Debug, PartialEq)]
pub struct GameWeight {
    /// The game.
    pub source: Source,
    /// The player's colour index (0 Red).
    pub color: usize,
    /// Its counted positions.
    pub positions: usize,
    /// Top-1 agreement in it.
    pub agreement: f64,
    /// The game's own combined z (against the same parameters).
    pub z: f64,
    /// What it adds to the player's combined z.
    pub contribution: f64,
}

/// One ply's weight.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyWeight {
    /// The game.
    pub source: Source,
    /// The ply's index in the game.
    pub index: usize,
    /// The position before it (FEN).
    pub fen: String,
    /// The move played and the engine's (canonical text).
    pub played: String,
    /// The engine's choice.
    pub best: String,
    /// Rank among the lines (0: beyond them).
    pub rank: usize,
    /// The model's probability of the played slot.
    pub probability: f64,
    /// What it adds to the combined z.
    pub contribution: f64,
}

/// A player's assessment.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// The player.
    pub player: String,
    /// Games played.
    pub games: usize,
    /// The rating assessed at (`None`: unrated, the pooled parameters).
    pub rating: Option<f64>,
    /// The parameters used.
    pub params: Params,
    /// Counted positions.
    pub positions: usize,
    /// Plies left out.
    pub excluded: Excluded,
    /// Top-1 agreement (share).
    pub top1: Projected,
    /// Top-3 agreement (share).
    pub top3: Projected,
    /// Average scaled error.
    pub scaled_error: Projected,
    /// Average centipawn loss.
    pub loss: Projected,
    /// Average accuracy (0 to 100), observed only.
    pub accuracy: f64,
    /// The intrinsic performance rating, when the model has rated bands.
    pub performance: Option<Performance>,
    /// The z-scores before the inflation.
    pub raw_z: Zs,
    /// The z-scores after it.
    pub z: Zs,
    /// One-sided p-values of `z`.
    pub p: Zs,
    /// The same for a family of `family_size`.
    pub family_p: Zs,
    /// Players screened.
    pub family_size: u64,
    /// The band.
    pub verdict: Verdict,
    /// The games, in order.
    pub per_game: Vec<GameWeight>,
    /// The weightiest games, most first.
    pub weightiest_games: Vec<GameWeight>,
    /// The weightiest plies, most first.
    pub weightiest_plies: Vec<PlyWeight>,
}

fn tally_of<'a>(counted: impl Iterator<Item = &'a Counted<'a>>, p: Params) -> (Tally, Vec<PositionTerms>) {
    let mut tally = Tally::default();
    let terms: Vec<PositionTerms> = counted.map(|c| PositionTerms::of(&c.choice, p)).collect();
    terms.iter().for_each(|t| tally.add(t));
    (tally, terms)
}

fn projected(t: &Tally, s: Statistic) -> Projected {
    let n = t.positions.max(1) as f64;
    let sums = t.of(s);
    Projected { observed: sums.observed / n, projected: sums.projected / n, sd: sums.variance.sqrt() / n }
}

/// The error z at `rating` (deflated), for the performance rating.
fn error_z(model: &Model, counted: &[&Counted], rating: f64) -> f64 {
    let (t, _) = tally_of(counted.iter().copied(), model.params_at(Some(rating)));
    t.zs().error / model.honest.inflation.error
}

fn performance(model: &Model, counted: &[&Counted]) -> Option<Performance> {
    let (lo, hi) = model.rating_range()?;
    let grid: Vec<f64> = (0..=100).map(|i| lo + (hi - lo) * f64::from(i) / 100.0).collect();
    let zs: Vec<f64> = grid.iter().map(|&r| error_z(model, counted, r)).collect();
    // z rises as the rating falls: a higher rating projects fewer errors.
    let crossing = |target: f64| {
        grid.iter().zip(&zs).min_by(|a, b| (a.1 - target).abs().total_cmp(&(b.1 - target).abs())).map(|(r, _)| *r)
    };
    let rating = crossing(0.0)?;
    let (low, high) = (crossing(1.96)?, crossing(-1.96)?);
    let (low, high) = (low.min(high), low.max(high));
    let edge = |r: f64| (r - lo).abs() < 1e-9 || (r - hi).abs() < 1e-9;
    Some(Performance { rating, low, high, at_edge: edge(rating) || edge(low) || edge(high) })
}

fn zs_map(z: Zs, f: impl Fn(f64) -> f64) -> Zs {
    Zs { agreement: f(z.agreement), error: f(z.error), combined: f(z.combined) }
}

/// The verdict of a counted-position total and family-adjusted p.
pub fn verdict(positions: usize, family_p: f64) -> Verdict {
    if positions < MIN_POSITIONS {
        return Verdict::InsufficientData;
    }
    BANDS.iter().rev().find(|(_, z)| family_p <= threshold_p(*z)).map_or(Verdict::Clear, |b| b.0)
}

/// One player's assessment over the sides they played.
fn assess_player(model: &Model, player: &str, sides: &[&Side], request: &Request) -> Assessment {
    let ratings: Vec<f64> = sides.iter().filter_map(|s| s.rating()).collect();
    let rating = request
        .rating
        .or_else(|| (ratings.len() == sides.len()).then(|| ratings.iter().sum::<f64>() / ratings.len().max(1) as f64));
    let rating = rating.filter(|_| model.rated());
    let params = model.params_at(rating);
    let counted: Vec<&Counted> = sides.iter().flat_map(|s| &s.counted).collect();
    let (tally, terms) = tally_of(counted.iter().copied(), params);
    let mut excluded = Excluded::default();
    sides.iter().for_each(|s| excluded.add(s.excluded));
    let inflation = model.honest.inflation;
    let raw_z = tally.zs();
    let z = raw_z.deflated(inflation);
    let p = zs_map(z, normal_tail);
    let family = zs_map(p, |p| family_p(p, request.family_size));
    let deflate = inflation.combined;
    let mut at = 0;
    let per_game: Vec<GameWeight> = sides
        .iter()
        .map(|s| {
            let n = s.counted.len();
            let own = &terms[at..at + n];
            at += n;
            let mut alone = Tally::default();
            own.iter().for_each(|t| alone.add(t));
            GameWeight {
                source: s.screened.source.clone(),
                color: super::sides::color_index(s.color),
                positions: n,
                agreement: alone.of(Statistic::Top1).observed / n.max(1) as f64,
                z: alone.zs().combined / deflate,
                contribution: own.iter().map(|t| tally.contribution(t)).sum::<f64>() / deflate,
            }
        })
        .collect();
    let mut weightiest_games = per_game.clone();
    weightiest_games.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
    weightiest_games.truncate(WEIGHTIEST_GAMES);
    let mut plies: Vec<(f64, usize)> =
        terms.iter().enumerate().map(|(i, t)| (tally.contribution(t) / deflate, i)).collect();
    plies.sort_by(|a, b| b.0.total_cmp(&a.0));
    let side_of_position: Vec<&Side> = sides.iter().flat_map(|s| s.counted.iter().map(move |_| *s)).collect();
    let weightiest_plies = plies
        .into_iter()
        .take(WEIGHTIEST_PLIES)
        .map(|(contribution, i)| {
            let (side, c) = (side_of_position[i], counted[i]);
            let e = c.evidence;
            let mut position = side.screened.start.clone();
            side.screened.moves[..e.index].iter().for_each(|&m| position.play_unchecked(m));
            PlyWeight {
                source: side.screened.source.clone(),
                index: e.index,
                fen: position.fen(),
                played: e.played.to_string(),
                best: e.best.to_string(),
                rank: e.played_rank.unwrap_or(0),
                probability: c.choice.probabilities(params)[c.choice.played],
                contribution,
            }
        })
        .collect();
    let n = counted.len().max(1) as f64;
    Assessment {
        player: player.to_string(),
        games: sides.len(),
        rating,
        params,
        positions: counted.len(),
        excluded,
        top1: projected(&tally, Statistic::Top1),
        top3: projected(&tally, Statistic::Top3),
        scaled_error: projected(&tally, Statistic::ScaledError),
        loss: projected(&tally, Statistic::Loss),
        accuracy: counted.iter().map(|c| c.accuracy()).sum::<f64>() / n,
        performance: if counted.is_empty() { None } else { performance(model, &counted) },
        raw_z,
        z,
        p,
        family_p: family,
        family_size: request.family_size,
        verdict: verdict(counted.len(), family.combined),
        per_game,
        weightiest_games,
        weightiest_plies,
    }
}

/// The players a request names, in order of first appearance.
pub fn players_of(games: &[ScreenedGame], request: &Request) -> Result<Vec<String>, AssessError> {
    let mut seen = BTreeSet::new();
    let mut players = Vec::new();
    for name in games.iter().flat_map(|g| g.players.iter()) {
        if request.player.is_none_or(|p| p == name) && seen.insert(name.clone()) {
            players.push(name.clone());
        }
    }
    match request.player {
        Some(p) if players.is_empty() => Err(AssessError::UnknownPlayer(p.to_string())),
        _ => Ok(players),
    }
}

/// Checks a request before any search.
pub fn check(games: &[ScreenedGame], request: &Request) -> Result<Vec<String>, AssessError> {
    if request.family_size == 0 {
        return Err(AssessError::NoFamily);
    }
    if let Some(r) = request.rating.filter(|r| !(r.is_finite() && (0.0..=5000.0).contains(r))) {
        return Err(AssessError::Rating(r));
    }
    players_of(games, request)
}

/// Assesses every player the request names over the judged games.
pub fn assess(model: &Model, games: &[ScreenedGame], request: &Request) -> Result<Vec<Assessment>, AssessError> {
    let players = check(games, request)?;
    let book = model.settings.book_plies as usize;
    let sides: Vec<Side> = games.iter().enumerate().flat_map(|(i, g)| sides_of(i, g, book)).collect();
    Ok(players
        .iter()
        .map(|name| {
            let theirs: Vec<&Side> = sides.iter().filter(|s| s.player() == name).collect();
            assess_player(model, name, &theirs, request)
        })
        .collect())
}
