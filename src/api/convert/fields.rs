//! Enum fields of requests (notations, rule sets, events) read and checked, the caps
//! of repeated fields, and the adjudication's answers as messages.

use crate::api::error::{Error, bad_request, unimplemented};
use crate::api::proto;
use crate::game::{BoardGame, RuleSet, Variant};
use crate::notation::Notation;
use crate::rules::types::Color;
use crate::rules::xiangqi::adjudicate::Warning;
use crate::rules::{janggi, outcome};

type Status = Error;

/// A move notation of the API for the 9x10 games; unspecified is canonical (ICCS).
pub fn notation(value: i32, field: &str) -> Result<Notation, Status> {
    use proto::Notation as P;
    match P::try_from(value) {
        Ok(P::Unspecified | P::Iccs) => Ok(Notation::Iccs),
        Ok(P::Coordinate) => Ok(Notation::Coordinate),
        Ok(P::Wxf) => Ok(Notation::Wxf),
        Ok(P::Chinese) => Ok(Notation::Chinese),
        Ok(P::Italian) => Ok(Notation::Italian),
        Ok(P::Algebraic) => Ok(Notation::Algebraic),
        Ok(P::Korean) => Ok(Notation::Korean),
        Ok(P::PointName) => Err(bad_request(field, "NOTATION_POINT_NAME is the notation of Three Kingdoms")),
        Err(_) => Err(bad_request(field, format!("unknown notation {value}"))),
    }
}

/// Checks that the moves of `variant` are written in the notation of the request's
/// field: every notation for Xiangqi, those that name points for Janggi.
pub fn check_notation(variant: Variant, n: Notation, field: &str) -> Result<(), Status> {
    if variant == Variant::Janggi && !n.applies_to_janggi() {
        let detail = "Janggi moves are written in ICCS, coordinates, algebraic or Korean notation";
        return Err(bad_request(field, format!("{n} notation does not apply to Janggi: {detail}")));
    }
    Ok(())
}

/// The API's notation enum for a notation.
pub fn proto_notation(n: Notation) -> proto::Notation {
    match n {
        Notation::Iccs => proto::Notation::Iccs,
        Notation::Coordinate => proto::Notation::Coordinate,
        Notation::Wxf => proto::Notation::Wxf,
        Notation::Chinese => proto::Notation::Chinese,
        Notation::Italian => proto::Notation::Italian,
        Notation::Algebraic => proto::Notation::Algebraic,
        Notation::Korean => proto::Notation::Korean,
    }
}

/// Most entries of a repeated field that multiplies a request's work: notations to
/// write each move in (there are 8), root moves to search or leave out, events of a
/// record. Checked before any work.
pub const MAX_NOTATIONS: usize = 8;
/// See [`MAX_NOTATIONS`]; more moves than any position has.
pub const MAX_ROOT_MOVES: usize = 256;
/// See [`MAX_NOTATIONS`].
pub const MAX_EVENTS: usize = 256;

/// Checks that a repeated field has at most `max` entries.
pub fn check_count(len: usize, max: usize, field: &str) -> Result<(), Status> {
    if len > max {
        return Err(bad_request(field, format!("{len} entries exceed the limit of {max}")));
    }
    Ok(())
}

/// Checks that a record's events are in the order of their plies, as the API asks.
pub fn check_event_order(plies: impl Iterator<Item = u32>) -> Result<(), Status> {
    let mut last = 0;
    for (i, ply) in plies.enumerate() {
        if ply < last {
            return Err(bad_request(
                format!("events[{i}].ply"),
                format!("ply {ply} comes before the previous event's {last}: events are given in order of ply"),
            ));
        }
        last = ply;
    }
    Ok(())
}

/// The notations a request asks moves to be rendered in: each requested value with
/// its notation.
pub fn notations(values: &[i32], field: &str) -> Result<Vec<(i32, Notation)>, Status> {
    check_count(values.len(), MAX_NOTATIONS, field)?;
    values.iter().enumerate().map(|(i, &v)| Ok((v, notation(v, &format!("{field}[{i}]"))?))).collect()
}

/// A 9x10 game under the rule set a request names in `field`: unspecified names none
/// (the move warnings of ListLegalMoves and ValidateMove are then off, and a search
/// follows the variant's own judgement of cycles); an unknown value, or a rule set of
/// another variant, is refused.
pub fn under_rule_set(game: BoardGame, value: i32, field: &str) -> Result<BoardGame, Status> {
    let named = match proto::RuleSet::try_from(value) {
        Err(_) => return Err(bad_request(field, format!("unknown rule set {value}"))),
        Ok(proto::RuleSet::Unspecified) => None,
        Ok(named) => match rule_set_of(named) {
            Some(rules) => Some(rules),
            None => return Err(unimplemented(format!("rule set {} is not served yet", named.as_str_name()))),
        },
    };
    game.with_rules(named).map_err(|e| bad_request(field, e.to_string()))
}

/// The API's warning for what a move would make of a repetition (none: unspecified).
pub fn warning(w: Option<Warning>) -> proto::MoveWarning {
    match w {
        None => proto::MoveWarning::Unspecified,
        Some(Warning::RepetitionDraw) => proto::MoveWarning::RepetitionDraw,
        Some(Warning::ForbiddenCycle) => proto::MoveWarning::ForbiddenCycle,
    }
}

/// One step of a chase, as the API reports it.
pub fn chase_step(c: &outcome::ChaseStep) -> proto::ChaseStep {
    proto::ChaseStep {
        ply: c.ply as u32,
        chaser: Some(proto::Point::from(c.chaser)),
        chaser_kind: proto::PieceKind::from(c.chaser_kind) as i32,
        chased: Some(proto::Point::from(c.chased)),
        chased_kind: proto::PieceKind::from(c.chased_kind) as i32,
    }
}

/// A player event of a request (`field` names it in errors), for a game of `variant`.
pub fn event(e: &proto::GameEvent, field: &str, variant: Variant) -> Result<outcome::Event, Status> {
    let color = || match proto::Player::try_from(e.player) {
        Ok(proto::Player::Red) => Ok(Color::Red),
        Ok(proto::Player::Black) => Ok(Color::Black),
        _ => Err(bad_request(format!("{field}.player"), format!("a {} event names RED or BLACK", variant.name()))),
    };
    let kind = match proto::GameEventKind::try_from(e.kind) {
        Ok(proto::GameEventKind::Resign) => outcome::EventKind::Resign(color()?),
        Ok(proto::GameEventKind::Timeout) => outcome::EventKind::Timeout(color()?),
        Ok(proto::GameEventKind::DrawAgreed) => outcome::EventKind::DrawAgreed,
        Ok(proto::GameEventKind::BikjangClaim) if variant == Variant::Janggi => {
            outcome::EventKind::BikjangClaim(color()?)
        }
        Ok(other @ (proto::GameEventKind::BikjangClaim | proto::GameEventKind::Leave)) => {
            return Err(bad_request(
                format!("{field}.kind"),
                format!("{} does not apply to {}", other.as_str_name(), variant.name()),
            ));
        }
        Ok(proto::GameEventKind::Unspecified) => {
            return Err(bad_request(format!("{field}.kind"), "event kind must be set"));
        }
        Err(_) => return Err(bad_request(format!("{field}.kind"), format!("unknown event kind {}", e.kind))),
    };
    Ok(outcome::Event { kind, ply: e.ply as usize })
}

/// The API's termination for how a game ended (none: it goes on).
pub fn termination(t: Option<outcome::Termination>) -> proto::Termination {
    use outcome::Termination as T;
    use proto::Termination as P;
    match t {
        None => P::None,
        Some(T::Checkmate) => P::Checkmate,
        Some(T::Stalemate) => P::Stalemate,
        Some(T::PerpetualCheck) => P::PerpetualCheck,
        Some(T::MutualPerpetualCheck) => P::MutualPerpetual,
        Some(T::PerpetualChase) => P::PerpetualChase,
        Some(T::MutualPerpetualChase) => P::MutualPerpetual,
        Some(T::RepetitionDraw) => P::RepetitionDraw,
        Some(T::MoveLimit) => P::MoveLimit,
        Some(T::InsufficientMaterial) => P::InsufficientMaterial,
        Some(T::Resignation) => P::Resignation,
        Some(T::Timeout) => P::Timeout,
        Some(T::AgreedDraw) => P::AgreedDraw,
        Some(T::Bikjang) => P::Bikjang,
        Some(T::Counting) => P::Counting,
        Some(T::DoublePass) => P::DoublePass,
    }
}

/// The API's rule set enum for a rule set.
pub fn proto_rule_set(rules: RuleSet) -> proto::RuleSet {
    use crate::rules::xiangqi::adjudicate::RuleSet as X;
    use janggi::adjudicate::RuleSet as J;
    match rules {
        RuleSet::Xiangqi(X::SimplifiedV1) => proto::RuleSet::SimplifiedV1,
        RuleSet::Xiangqi(X::AsianV1) => proto::RuleSet::AsianV1,
        RuleSet::Xiangqi(X::TournamentV1) => proto::RuleSet::TournamentV1,
        RuleSet::Janggi(J::CasualV1) => proto::RuleSet::JanggiCasualV1,
        RuleSet::Janggi(J::TournamentV1) => proto::RuleSet::JanggiTournamentV1,
        RuleSet::ThreeKingdoms => proto::RuleSet::ThreeKingdomsV1,
    }
}

/// The rule set an API rule set enum names (`None`: unspecified or unknown).
pub fn rule_set_of(value: proto::RuleSet) -> Option<RuleSet> {
    RuleSet::ALL.into_iter().find(|&r| proto_rule_set(r) == value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rule set the API names but `RuleSet::ALL` misses would be refused as unknown:
    /// each value of the API's enum names a rule set of the domain, and maps back.
    #[test]
    fn every_api_rule_set_is_a_domain_rule_set() {
        let api = (1..).map_while(|v| proto::RuleSet::try_from(v).ok());
        let mut count = 0;
        for value in api {
            let rules = rule_set_of(value).unwrap_or_else(|| panic!("{value:?} names no rule set of RuleSet::ALL"));
            assert_eq!(proto_rule_set(rules), value);
            count += 1;
        }
        assert_eq!(count, RuleSet::ALL.len(), "every rule set has its value in the API's enum");
    }
}
