//! Calibration: a model fitted on a platform's honest games.
//!
//! The judged sides are split in two, deterministically: a quarter of the players (by a
//! hash of the name) are held out when there are at least [`MIN_PLAYERS_TO_SPLIT`]
//! players, else every fourth game. The rest is fitted: by rating band
//! ([`BAND_WIDTH`] points, a band merged into its neighbour below
//! [`MIN_BAND_POSITIONS`] positions; one band when the games carry no ratings) and all
//! together (the pooled band). The held-out players are then scored against the fit,
//! each as one unit (all its games; game sides when fewer than [`MIN_UNITS`] players
//! have [`MIN_UNIT_POSITIONS`] positions), and each z's spread over them, at least 1,
//! is its inflation: what assessments divide that z by.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::choice::{Choice, fit};
use super::games::ScreenedGame;
use super::model::{Band, FORMAT, Honest, Model, Population, Settings, Spread, VERSION};
use super::sides::{Excluded, Side, sides_of};
use super::statistics::{Inflation, PositionTerms, Tally, mean_sd};

/// Rating points per band.
pub const BAND_WIDTH: f64 = 200.0;
/// Fewest positions a band is fitted on.
pub const MIN_BAND_POSITIONS: usize = 2000;
/// Fewest positions a calibration is made from.
pub const MIN_POSITIONS: usize = 500;
/// Fewest players for holding out players rather than games.
pub const MIN_PLAYERS_TO_SPLIT: usize = 8;
/// Fewest held-out units the spread is measured on.
pub const MIN_UNITS: usize = 10;
/// Fewest positions of a held-out unit.
pub const MIN_UNIT_POSITIONS: usize = 20;

/// Why a calibration could not be made.
#[derive(Clone, Debug, PartialEq)]
pub enum CalibrationError {
    /// Too few counted positions.
    TooFewPositions {
        /// Counted.
        found: usize,
    },
    /// Too few held-out units to measure the spread.
    TooFewUnits {
        /// Found.
        found: usize,
    },
}

impl fmt::Display for CalibrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalibrationError::TooFewPositions { found } => {
                write!(f, "{found} counted positions: a calibration needs at least {MIN_POSITIONS}")
            }
            CalibrationError::TooFewUnits { found } => write!(
                f,
                "{found} held-out units of at least {MIN_UNIT_POSITIONS} positions: at least {MIN_UNITS} are needed to measure the honest spread"
            ),
        }
    }
}

impl std::error::Error for CalibrationError {}

/// A stable hash of a name (FNV-1a), for the split.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The bands of the fitted sides: (low, high) rating bounds, by [`BAND_WIDTH`],
/// merged up to [`MIN_BAND_POSITIONS`].
fn band_bounds(sides: &[&Side]) -> Vec<(f64, f64)> {
    let mut by_band: BTreeMap<i64, usize> = BTreeMap::new();
    for s in sides {
        if let Some(r) = s.rating() {
            *by_band.entry((r / BAND_WIDTH).floor() as i64).or_default() += s.counted.len();
        }
    }
    let mut bounds: Vec<(f64, f64, usize)> = Vec::new();
    for (band, n) in by_band {
        let (low, high) = (band as f64 * BAND_WIDTH, (band + 1) as f64 * BAND_WIDTH);
        match bounds.last_mut() {
            Some(last) if last.2 < MIN_BAND_POSITIONS => *last = (last.0, high, last.2 + n),
            _ => bounds.push((low, high, n)),
        }
    }
    if bounds.len() >= 2 && bounds.last().is_some_and(|b| b.2 < MIN_BAND_POSITIONS) {
        let small = bounds.pop().unwrap_or_default();
        if let Some(last) = bounds.last_mut() {
            *last = (last.0, small.1, last.2 + small.2);
        }
    }
    bounds.into_iter().map(|(l, h, _)| (l, h)).collect()
}

/// Fits one band on its sides.
fn fit_band(sides: &[&Side], bounds: Option<(f64, f64)>) -> Band {
    let choices: Vec<Choice> = sides.iter().flat_map(|s| s.counted.iter().map(|c| c.choice.clone())).collect();
    let rated: Vec<(f64, usize)> = sides.iter().filter_map(|s| s.rating().map(|r| (r, s.counted.len()))).collect();
    let weight: usize = rated.iter().map(|r| r.1).sum();
    let rating =
        (bounds.is_some() && weight > 0).then(|| rated.iter().map(|(r, n)| r * *n as f64).sum::<f64>() / weight as f64);
    Band {
        rating_low: bounds.map(|b| b.0),
        rating_high: bounds.map(|b| b.1),
        rating,
        sides: sides.len(),
        positions: choices.len(),
        params: fit(&choices),
    }
}

/// Calibrates a model on judged games (every side honest) with their settings.
pub fn calibrate(games: &[ScreenedGame], settings: Settings) -> Result<Model, CalibrationError> {
    let book = settings.book_plies as usize;
    let sides: Vec<Side> = games.iter().enumerate().flat_map(|(i, g)| sides_of(i, g, book)).collect();
    let positions: usize = sides.iter().map(|s| s.counted.len()).sum();
    if positions < MIN_POSITIONS {
        return Err(CalibrationError::TooFewPositions { found: positions });
    }
    let players: BTreeSet<&str> = sides.iter().map(Side::player).collect();
    let by_player = players.len() >= MIN_PLAYERS_TO_SPLIT;
    let held_out = |s: &Side| if by_player { name_hash(s.player()).is_multiple_of(4) } else { s.game % 4 == 3 };
    let (test, train): (Vec<&Side>, Vec<&Side>) = sides.iter().partition(|s| held_out(s));
    let bands = match band_bounds(&train) {
        bounds if bounds.is_empty() => vec![fit_band(&train, None)],
        bounds => bounds
            .into_iter()
            .map(|(low, high)| {
                let members: Vec<&Side> =
                    train.iter().copied().filter(|s| s.rating().is_some_and(|r| r >= low && r < high)).collect();
                fit_band(&members, Some((low, high)))
            })
            .collect(),
    };
    let pooled = fit_band(&train, None);
    let mut excluded = Excluded::default();
    sides.iter().for_each(|s| excluded.add(s.excluded));
    let mut model = Model {
        format: FORMAT.to_string(),
        version: VERSION,
        settings,
        bands,
        pooled,
        honest: Honest {
            unit: String::new(),
            units: 0,
            positions_per_unit: 0.0,
            agreement: Spread { mean: 0.0, sd: 0.0 },
            error: Spread { mean: 0.0, sd: 0.0 },
            combined: Spread { mean: 0.0, sd: 0.0 },
            inflation: Inflation::NONE,
        },
        population: Population {
            games: games.len(),
            players: players.len(),
            positions,
            held_out_positions: test.iter().map(|s| s.counted.len()).sum(),
            excluded,
        },
    };
    model.honest = honest_spread(&model, &test, by_player)?;
    Ok(model)
}

/// The z-scores of the held-out units against the fit.
fn honest_spread<'s, 'g>(model: &Model, test: &[&'s Side<'g>], by_player: bool) -> Result<Honest, CalibrationError> {
    let mut players: BTreeMap<String, Vec<&'s Side<'g>>> = BTreeMap::new();
    let mut game_sides: BTreeMap<String, Vec<&'s Side<'g>>> = BTreeMap::new();
    for &s in test {
        players.entry(s.player().to_string()).or_default().push(s);
        game_sides.entry(format!("{}:{:?}", s.game, s.color)).or_default().push(s);
    }
    fn big<'s, 'g>(units: &BTreeMap<String, Vec<&'s Side<'g>>>) -> Vec<Vec<&'s Side<'g>>> {
        units
            .values()
            .filter(|u| u.iter().map(|s| s.counted.len()).sum::<usize>() >= MIN_UNIT_POSITIONS)
            .cloned()
            .collect()
    }
    let (unit, units) = match big(&players) {
        u if by_player && u.len() >= MIN_UNITS => ("player", u),
        _ => ("game side", big(&game_sides)),
    };
    if units.len() < MIN_UNITS {
        return Err(CalibrationError::TooFewUnits { found: units.len() });
    }
    let mut zs = (Vec::new(), Vec::new(), Vec::new());
    let mut positions = 0;
    for sides in &units {
        let ratings: Vec<f64> = sides.iter().filter_map(|s| s.rating()).collect();
        let rating = (ratings.len() == sides.len()).then(|| ratings.iter().sum::<f64>() / ratings.len() as f64);
        let params = model.params_at(rating);
        let mut tally = Tally::default();
        for c in sides.iter().flat_map(|s| &s.counted) {
            tally.add(&PositionTerms::of(&c.choice, params));
        }
        positions += tally.positions;
        let z = tally.zs();
        zs.0.push(z.agreement);
        zs.1.push(z.error);
        zs.2.push(z.combined);
    }
    let spread = |v: &[f64]| {
        let (mean, sd) = mean_sd(v);
        Spread { mean, sd }
    };
    let (a, e, c) = (spread(&zs.0), spread(&zs.1), spread(&zs.2));
    Ok(Honest {
        unit: unit.to_string(),
        units: units.len(),
        positions_per_unit: positions as f64 / units.len() as f64,
        agreement: a,
        error: e,
        combined: c,
        inflation: Inflation { agreement: a.sd.max(1.0), error: e.sd.max(1.0), combined: c.sd.max(1.0) },
    })
}
