//! A request's game of any variant: the one place a request is routed by its variant.
//! Each RPC that serves every variant builds an [`AnyGame`](crate::game::AnyGame) here
//! and matches it once; the 9x10 arm is answered with [`crate::api::convert`], the Three
//! Kingdoms arm by [`crate::api::three_kingdoms`] and
//! [`crate::api::three_kingdoms_analysis`].
//!
//! A Three Kingdoms request's `rule_set` is checked before its position (its game has
//! no other rule set to take), a 9x10 request's after its position and moves (the
//! rule set must be one of the position's variant).

use super::convert::{self, ContentLimits};
use super::error::{Error, required};
use super::proto;
use super::three_kingdoms;
use crate::game::AnyGame;
use crate::rules::three_kingdoms::Game as ThreeKingdomsGame;

/// Does the position name Three Kingdoms? Every other value goes the 9x10 way, which
/// checks it (`convert::variant`).
fn is_three_kingdoms(p: &proto::Position) -> bool {
    p.variant == proto::Variant::ThreeKingdoms as i32
}

/// The game of a request's `position` (its start and every move, each checked; an
/// illegal one is INVALID_ARGUMENT naming it) under the request's `rule_set`
/// (unspecified: none named).
pub fn request_game(
    position: Option<&proto::Position>,
    rule_set: i32,
    limits: ContentLimits,
) -> Result<AnyGame, Error> {
    let p = required(position, "position")?;
    if is_three_kingdoms(p) {
        three_kingdoms::check_rule_set(rule_set, "rule_set")?;
        Ok(AnyGame::ThreeKingdoms(three_kingdoms::game(p, "position", limits)?))
    } else {
        let game = convert::game_from_request(p, "position", limits)?;
        Ok(AnyGame::Board(convert::under_rule_set(game, rule_set, "rule_set")?))
    }
}

/// The start of a request's position `p`, no move played and no rule set named: the
/// record RPCs (ValidateGame, Adjudicate) read and check its moves themselves.
pub fn request_start(p: &proto::Position) -> Result<AnyGame, Error> {
    if is_three_kingdoms(p) {
        Ok(AnyGame::ThreeKingdoms(ThreeKingdomsGame::new(three_kingdoms::start_position(p, "position")?)))
    } else {
        Ok(AnyGame::Board(convert::start_game(p, "position")?))
    }
}
