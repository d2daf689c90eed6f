//! A request's game of any variant: the one place a request is routed by its variant.
//! Each RPC that serves every variant builds an [`AnyGame`](crate::game::AnyGame) here
//! and calls it through the traits of [`crate::api::variant`]; the 9x10 games answer
//! with [`crate::api::convert`], Three Kingdoms in [`crate::api::three_kingdoms`].
//!
//! The notation calls route the same way: ConvertMoves converts Three Kingdoms moves
//! too (in point names, its one notation); the record calls answer a Three Kingdoms
//! game with UNIMPLEMENTED naming the field, as no record format is defined for it.
//!
//! A Three Kingdoms request's `rule_set` is checked before its position (its game has
//! no other rule set to take), a 9x10 request's after its position and moves (the
//! rule set must be one of the position's variant).

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request, required};
use super::proto;
use super::three_kingdoms;
use crate::game::{AnyGame, Variant};
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
    }
    match request_position(p, "position", limits)? {
        AnyGame::Board(game) => Ok(AnyGame::Board(convert::under_rule_set(game, rule_set, "rule_set")?)),
        game => Ok(game),
    }
}

/// The game of the position `p`, the request's field `field` (its start and every
/// move, each checked), with no rule set named: for the calls that take none
/// (ConvertMoves, ExportRecord).
pub fn request_position(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<AnyGame, Error> {
    if is_three_kingdoms(p) {
        Ok(AnyGame::ThreeKingdoms(three_kingdoms::game(p, field, limits)?))
    } else {
        Ok(AnyGame::Board(convert::game_from_request(p, field, limits)?))
    }
}

/// The variant a request names in its field `field` (a `Variant` value): `None` when
/// unspecified; an unknown value is INVALID_ARGUMENT naming the field.
pub fn request_variant(value: i32, field: &str) -> Result<Option<Variant>, Error> {
    match proto::Variant::try_from(value) {
        Ok(proto::Variant::Unspecified) => Ok(None),
        Ok(proto::Variant::Xiangqi) => Ok(Some(Variant::Xiangqi)),
        Ok(proto::Variant::Janggi) => Ok(Some(Variant::Janggi)),
        Ok(proto::Variant::ThreeKingdoms) => Ok(Some(Variant::ThreeKingdoms)),
        Err(_) => Err(bad_request(field, format!("unknown variant {value}"))),
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
