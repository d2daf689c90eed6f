//! Draw offers: one policy for every variant. The side that answers an offer accepts
//! when it stands worse, declines when it stands better, and when level accepts only
//! in a quiet position (no check to meet, no capture to make), where a level score is
//! to be trusted. What "stands" means is each variant's: the score of the side to move
//! in the two-player games, the kingdom's value less its strongest rival's in Three
//! Kingdoms.

/// Within this many centipawns of level a side counts as level.
pub const LEVEL_MARGIN: i32 = 50;

/// How the side that answers stands, as its search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The search proved the game won for it.
    Won,
    /// The search proved the game lost for it.
    Lost,
    /// A margin in centipawns, positive when it stands better.
    Margin(i32),
}

/// The answer to a draw offer, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawAnswer {
    /// Accept: it stands worse.
    StandsWorse,
    /// Accept: level, and the position is quiet.
    LevelAndQuiet,
    /// Decline: it stands better.
    StandsBetter,
    /// Decline: level, but not quiet (a general attacked, or a capture to make).
    NotQuiet,
}

impl DrawAnswer {
    /// Is the offer accepted?
    pub fn accept(self) -> bool {
        matches!(self, DrawAnswer::StandsWorse | DrawAnswer::LevelAndQuiet)
    }
}

/// The policy: `quiet` is asked only when the standing is level.
pub fn answer(standing: Standing, quiet: impl FnOnce() -> bool) -> DrawAnswer {
    match standing {
        Standing::Won => DrawAnswer::StandsBetter,
        Standing::Lost => DrawAnswer::StandsWorse,
        Standing::Margin(c) if c < -LEVEL_MARGIN => DrawAnswer::StandsWorse,
        Standing::Margin(c) if c > LEVEL_MARGIN => DrawAnswer::StandsBetter,
        Standing::Margin(_) if quiet() => DrawAnswer::LevelAndQuiet,
        Standing::Margin(_) => DrawAnswer::NotQuiet,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worse_accepts_better_declines_level_asks_whether_quiet() {
        assert_eq!(answer(Standing::Lost, || panic!("not asked")), DrawAnswer::StandsWorse);
        assert_eq!(answer(Standing::Won, || panic!("not asked")), DrawAnswer::StandsBetter);
        assert_eq!(answer(Standing::Margin(-LEVEL_MARGIN - 1), || true), DrawAnswer::StandsWorse);
        assert_eq!(answer(Standing::Margin(LEVEL_MARGIN + 1), || true), DrawAnswer::StandsBetter);
        assert_eq!(answer(Standing::Margin(LEVEL_MARGIN), || true), DrawAnswer::LevelAndQuiet);
        assert_eq!(answer(Standing::Margin(-LEVEL_MARGIN), || false), DrawAnswer::NotQuiet);
        assert!(DrawAnswer::StandsWorse.accept() && DrawAnswer::LevelAndQuiet.accept());
        assert!(!DrawAnswer::StandsBetter.accept() && !DrawAnswer::NotQuiet.accept());
    }
}
