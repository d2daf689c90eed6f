//! The Asian and tournament rule sets through the RulesService functions: Adjudicate
//! fills the chase steps, ListLegalMoves and ValidateMove mark the moves that would
//! complete a repetition under the request's rule set.

use chuhe::api::convert::ContentLimits;
use chuhe::api::proto;
use chuhe::api::rules;

use crate::common;
use common::bad_field;

const LIMITS: ContentLimits = ContentLimits { max_game_plies: 10_000 };

fn position(fen: &str, moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: fen.to_string(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

#[test]
fn asian_rules_judge_chases_and_warn_of_forbidden_cycles() {
    let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
    let cycle = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7";
    // The red cannon chases the black chariot on every move: Red loses.
    let resp = rules::adjudicate(
        &proto::AdjudicateRequest {
            position: Some(position(fen, &format!("{cycle} b2a2"))),
            rule_set: proto::RuleSet::AsianV1 as i32,
            events: vec![],
        },
        LIMITS,
    )
    .unwrap();
    assert_eq!(resp.winner, proto::Player::Black as i32);
    assert_eq!(resp.termination, proto::Termination::PerpetualChase as i32);
    assert_eq!(resp.side_at_fault, proto::Player::Red as i32);
    assert_eq!((resp.cycle_first_ply, resp.cycle_last_ply), (6, 9));
    assert_eq!(resp.rule, "perpetual-chase");
    let steps: Vec<(u32, String, i32, String, i32)> = resp
        .chases
        .iter()
        .map(|c| {
            let name = |p: &Option<proto::Point>| {
                p.as_ref().map_or(String::new(), |p| format!("{}{}", char::from(b'a' + p.file as u8), p.rank))
            };
            (c.ply, name(&c.chaser), c.chaser_kind, name(&c.chased), c.chased_kind)
        })
        .collect();
    let (cannon, chariot) = (proto::PieceKind::Cannon as i32, proto::PieceKind::Chariot as i32);
    assert_eq!(
        steps,
        [
            (7, "b2".to_string(), cannon, "b7".to_string(), chariot),
            (9, "a2".to_string(), cannon, "a7".to_string(), chariot)
        ]
    );
    // Under the tournament rules too (perpetual attack), judged over both cycles.
    let resp = rules::adjudicate(
        &proto::AdjudicateRequest {
            position: Some(position(fen, &format!("{cycle} b2a2"))),
            rule_set: proto::RuleSet::TournamentV1 as i32,
            events: vec![],
        },
        LIMITS,
    )
    .unwrap();
    assert_eq!(resp.termination, proto::Termination::PerpetualChase as i32);
    assert_eq!((resp.cycle_first_ply, resp.cycle_last_ply), (2, 9));

    // The move that would complete the cycle is marked; no other move is.
    let list = |rule_set: proto::RuleSet| proto::ListLegalMovesRequest {
        position: Some(position(fen, cycle)),
        rule_set: rule_set as i32,
        ..Default::default()
    };
    let warned = |moves: &[proto::Move]| {
        moves
            .iter()
            .filter(|m| m.warning != proto::MoveWarning::Unspecified as i32)
            .map(|m| (m.iccs.clone(), m.warning))
            .collect::<Vec<_>>()
    };
    let resp = rules::list_legal_moves(&list(proto::RuleSet::AsianV1), LIMITS).unwrap();
    assert_eq!(warned(&resp.moves), [("b2a2".to_string(), proto::MoveWarning::ForbiddenCycle as i32)]);
    let resp = rules::list_legal_moves(&list(proto::RuleSet::SimplifiedV1), LIMITS).unwrap();
    assert_eq!(warned(&resp.moves), [("b2a2".to_string(), proto::MoveWarning::RepetitionDraw as i32)]);
    // Without a rule set there are no warnings.
    let resp = rules::list_legal_moves(&list(proto::RuleSet::Unspecified), LIMITS).unwrap();
    assert!(warned(&resp.moves).is_empty());

    let validate = |rule_set: proto::RuleSet| proto::ValidateMoveRequest {
        position: Some(position(fen, cycle)),
        r#move: "b2a2".into(),
        rule_set: rule_set as i32,
        ..Default::default()
    };
    let resp = rules::validate_move(&validate(proto::RuleSet::AsianV1), LIMITS).unwrap();
    assert_eq!(resp.r#move.unwrap().warning, proto::MoveWarning::ForbiddenCycle as i32);
    let resp = rules::validate_move(&validate(proto::RuleSet::Unspecified), LIMITS).unwrap();
    assert_eq!(resp.r#move.unwrap().warning, proto::MoveWarning::Unspecified as i32);
    let err =
        rules::validate_move(&proto::ValidateMoveRequest { rule_set: 99, ..validate(proto::RuleSet::AsianV1) }, LIMITS)
            .unwrap_err();
    assert!(matches!(&err, chuhe::api::Error::BadField { field, .. } if field == "rule_set"), "{err:?}");
    assert_eq!(bad_field(&err.into()), "rule_set");
}
