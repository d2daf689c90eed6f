//! The model file: the settings the positions were judged with, the fitted parameters
//! of each rating band, and the spread of held-out honest players' z-scores.
//!
//! JSON, versioned by `format` and `version`. An assessment judges its games with the
//! model's settings and refuses to run when the engine cannot reproduce them (another
//! engine version or evaluation), and refuses audits made with other settings.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::choice::Params;
use super::sides::Excluded;
use super::statistics::Inflation;

/// The `format` of a model file.
pub const FORMAT: &str = "chuhe-fairplay-model";
/// The version this build reads and writes.
pub const VERSION: u32 = 1;

/// What the positions were judged with; an assessment must use the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// `xiangqi` or `janggi`.
    pub variant: String,
    /// The engine's version.
    pub engine_version: String,
    /// What evaluated the searches: `classical`, or the net's identity.
    pub evaluation: String,
    /// Node budget of each search.
    pub nodes_per_ply: u64,
    /// Engine lines per ply.
    pub multipv: u32,
    /// The rule set the searches followed.
    pub rule_set: String,
    /// Plies at the start of each game not judged.
    pub book_plies: u32,
    /// What is left out of the figures besides the book.
    pub exclusions: Vec<String>,
}

/// The exclusions this build applies (besides the book).
pub fn exclusions() -> Vec<String> {
    ["forced", "decided"].map(String::from).to_vec()
}

impl Settings {
    /// The first setting in which `other` differs: (name, this, other).
    pub fn difference(&self, other: &Settings) -> Option<(&'static str, String, String)> {
        let fields: [(&'static str, String, String); 8] = [
            ("variant", self.variant.clone(), other.variant.clone()),
            ("engine version", self.engine_version.clone(), other.engine_version.clone()),
            ("evaluation", self.evaluation.clone(), other.evaluation.clone()),
            ("nodes per ply", self.nodes_per_ply.to_string(), other.nodes_per_ply.to_string()),
            ("multipv", self.multipv.to_string(), other.multipv.to_string()),
            ("rule set", self.rule_set.clone(), other.rule_set.clone()),
            ("book plies", self.book_plies.to_string(), other.book_plies.to_string()),
            ("exclusions", self.exclusions.join(","), other.exclusions.join(",")),
        ];
        fields.into_iter().find(|(_, a, b)| a != b)
    }
}

/// One rating band's fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Lowest rating in the band (`None`: unrated players, or no bound).
    pub rating_low: Option<f64>,
    /// Highest rating in the band.
    pub rating_high: Option<f64>,
    /// The mean rating of its positions (`None`: no ratings).
    pub rating: Option<f64>,
    /// Game sides fitted.
    pub sides: usize,
    /// Positions fitted.
    pub positions: usize,
    /// The fitted parameters.
    pub params: Params,
}

/// The spread of one z-score over held-out honest players.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Their mean.
    pub mean: f64,
    /// Their standard deviation.
    pub sd: f64,
}

/// What held-out honest players' z-scores looked like.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Honest {
    /// What a unit is: `player` (all of a held-out player's games) or `game side`.
    pub unit: String,
    /// Units measured.
    pub units: usize,
    /// Mean positions per unit.
    pub positions_per_unit: f64,
    /// Agreement z.
    pub agreement: Spread,
    /// Error z.
    pub error: Spread,
    /// Combined z.
    pub combined: Spread,
    /// What each z is divided by: its spread, at least 1.
    pub inflation: Inflation,
}

/// What the calibration read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Population {
    /// Games read.
    pub games: usize,
    /// Players named.
    pub players: usize,
    /// Positions counted (fitted and held out).
    pub positions: usize,
    /// Positions held out to measure the spread.
    pub held_out_positions: usize,
    /// Plies left out.
    pub excluded: Excluded,
}

/// A calibrated move-choice model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Always [`FORMAT`].
    pub format: String,
    /// The file's version.
    pub version: u32,
    /// The settings positions are judged with.
    pub settings: Settings,
    /// The bands by rating, lowest first (one band without ratings).
    pub bands: Vec<Band>,
    /// All fitted positions together: for a player without a rating.
    pub pooled: Band,
    /// The held-out honest players.
    pub honest: Honest,
    /// What was read.
    pub population: Population,
}

/// Why a model file cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelError {
    /// Not JSON of a model.
    Unreadable(String),
    /// Another format or version.
    Version {
        /// What the file says.
        found: String,
    },
    /// Parameters out of their range.
    Invalid(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Unreadable(e) => write!(f, "not a fair-play model: {e}"),
            ModelError::Version { found } => {
                write!(f, "a model file of {found}; this build reads {FORMAT} version {VERSION}")
            }
            ModelError::Invalid(e) => write!(f, "an invalid model: {e}"),
        }
    }
}

impl std::error::Error for ModelError {}

impl Model {
    /// Reads a model from its JSON, checking its format, version and parameters.
    pub fn from_json(text: &str) -> Result<Model, ModelError> {
        #[derive(Deserialize)]
        struct Header {
            format: Option<String>,
            version: Option<u32>,
        }
        let header: Header = serde_json::from_str(text).map_err(|e| ModelError::Unreadable(e.to_string()))?;
        if header.format.as_deref() != Some(FORMAT) || header.version != Some(VERSION) {
            let found =
                format!("{} version {}", header.format.as_deref().unwrap_or("no format"), header.version.unwrap_or(0));
            return Err(ModelError::Version { found });
        }
        let model: Model = serde_json::from_str(text).map_err(|e| ModelError::Unreadable(e.to_string()))?;
        let ok = |p: Params| p.s.is_finite() && p.s > 0.0 && p.c.is_finite() && p.c > 0.0;
        if model.bands.is_empty() || !model.bands.iter().chain([&model.pooled]).all(|b| ok(b.params)) {
            return Err(ModelError::Invalid("each band needs a positive sensitivity and consistency".into()));
        }
        let inf = model.honest.inflation;
        if ![inf.agreement, inf.error, inf.combined].iter().all(|x| x.is_finite() && *x >= 1.0) {
            return Err(ModelError::Invalid("inflation factors are at least 1".into()));
        }
        Ok(model)
    }

    /// The model as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Whether the bands are by rating.
    pub fn rated(&self) -> bool {
        self.bands.iter().all(|b| b.rating.is_some())
    }

    /// The parameters for a player of `rating`: between the two bands around it, linear
    /// in rating on ln s and c; the nearest band's beyond them; the pooled ones for a
    /// player without a rating, or when the bands are not by rating.
    pub fn params_at(&self, rating: Option<f64>) -> Params {
        let (Some(r), true) = (rating, self.rated()) else { return self.pooled.params };
        let centre = |b: &Band| b.rating.unwrap_or(0.0);
        let (first, last) = (&self.bands[0], &self.bands[self.bands.len() - 1]);
        if r <= centre(first) {
            return first.params;
        }
        if r >= centre(last) {
            return last.params;
        }
        let pair = self.bands.windows(2).find(|w| r <= centre(&w[1])).unwrap_or(&self.bands[..2]);
        let (a, b) = (&pair[0], &pair[1]);
        let t = (r - centre(a)) / (centre(b) - centre(a)).max(1e-9);
        Params {
            s: (a.params.s.ln() + t * (b.params.s.ln() - a.params.s.ln())).exp(),
            c: a.params.c + t * (b.params.c - a.params.c),
        }
    }

    /// The lowest and highest band centres (`None` with fewer than two rated bands).
    pub fn rating_range(&self) -> Option<(f64, f64)> {
        (self.rated() && self.bands.len() >= 2)
            .then(|| (self.bands[0].rating.unwrap_or(0.0), self.bands[self.bands.len() - 1].rating.unwrap_or(0.0)))
    }
}
