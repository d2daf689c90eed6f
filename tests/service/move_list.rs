//! ListLegalMoves writes its response as bytes straight from the moves, while
//! ValidateMove describes a move through the generated message. Both must say the same
//! of every legal move: here in every perft position of the 9x10 variants and in the
//! positions a few plies into each, with notations and a rule set requested and without;
//! and the bytes written are those prost writes for the same message.

use chuhe::api::convert::ContentLimits;
use chuhe::api::proto::{self, Notation, RuleSet, Variant};
use chuhe::api::{rules, wire};
use prost::Message;

use crate::common;

const LIMITS: ContentLimits = ContentLimits { max_game_plies: 10_000 };

/// What a request may ask besides the position.
#[derive(Clone, Default)]
struct Asked {
    notations: Vec<i32>,
    rule_set: i32,
}

/// Lists the moves of `position`, and checks each against ValidateMove: the same
/// description (but the mover, which a list leaves unset), and `gives_check` as the
/// status after the move has it. Returns the listed moves' ICCS texts.
fn check_position(position: &proto::Position, asked: &Asked) -> Vec<String> {
    let request = proto::ListLegalMovesRequest {
        position: Some(position.clone()),
        notations: asked.notations.clone(),
        rule_set: asked.rule_set,
    };
    let written = rules::list_legal_moves_encoded(&request, LIMITS).unwrap_or_else(|e| panic!("{position:?}: {e:?}"));
    let list: proto::ListLegalMovesResponse = written.decode().expect("the written list decodes");
    // Byte for byte what prost writes for the same message.
    assert_eq!(list.encode_to_vec(), written.0, "{}", position.fen);
    let status = list.status.expect("a status");
    let texts: Vec<String> = list.moves.iter().map(|m| m.iccs.clone()).collect();
    let mut sorted = texts.clone();
    sorted.sort_by_key(|t| (t == "pass", t.clone()));
    assert_eq!(texts, sorted, "{}: moves out of order", position.fen);
    for listed in &list.moves {
        let validated = rules::validate_move(
            &proto::ValidateMoveRequest {
                position: Some(position.clone()),
                r#move: listed.iccs.clone(),
                notations: asked.notations.clone(),
                rule_set: asked.rule_set,
                ..Default::default()
            },
            LIMITS,
        )
        .unwrap();
        assert!(validated.legal, "{} {}: listed but illegal", position.fen, listed.iccs);
        let mut described = validated.r#move.expect("the move described");
        assert_eq!(described.player, status.side_to_move, "{} {}", position.fen, listed.iccs);
        described.player = proto::Player::Unspecified as i32;
        assert_eq!(listed, &described, "{} {}", position.fen, listed.iccs);
        let after = validated.status.expect("the status after the move");
        assert_eq!(listed.gives_check, after.in_check, "{} {}: gives_check", position.fen, listed.iccs);
    }
    texts
}

/// The positions of `variant`'s perft table and, from each, eight plies along the
/// first, a quarter, the middle, three quarters and the last listed move, each
/// checked by [`check_position`].
fn check_variant(variant: Variant, name: &str, asked: &Asked) -> usize {
    let mut checked = 0;
    for (_, fen) in common::perft_positions(name) {
        let mut position = proto::Position { variant: variant as i32, fen, ..Default::default() };
        for quarter in 0..=4 {
            position.moves.clear();
            for _ in 0..8 {
                let texts = check_position(&position, asked);
                checked += 1;
                // (The last move is a pass in Janggi, when allowed.)
                let Some(next) = texts.get(texts.len().saturating_sub(1) * quarter / 4) else { break };
                position.moves.push(next.clone());
            }
        }
    }
    checked
}

#[test]
fn xiangqi_list_says_what_validate_move_says() {
    let plain = check_variant(Variant::Xiangqi, "xiangqi", &Asked::default());
    assert!(plain > 250, "only {plain} positions checked");
    let asked = Asked {
        notations: [Notation::Wxf, Notation::Chinese, Notation::Iccs].map(|n| n as i32).to_vec(),
        rule_set: RuleSet::AsianV1 as i32,
    };
    check_variant(Variant::Xiangqi, "xiangqi", &asked);
}

#[test]
fn janggi_list_says_what_validate_move_says() {
    let plain = check_variant(Variant::Janggi, "janggi", &Asked::default());
    assert!(plain > 200, "only {plain} positions checked");
    let asked = Asked { notations: vec![Notation::Korean as i32, Notation::Algebraic as i32], rule_set: 0 };
    check_variant(Variant::Janggi, "janggi", &asked);
}

/// A repetition warning reaches the written list: the move that would complete a
/// cycle under the Asian rules carries it, in the list and in ValidateMove alike.
#[test]
fn warnings_reach_the_written_list() {
    let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
    let position = proto::Position {
        variant: Variant::Xiangqi as i32,
        fen: fen.to_string(),
        moves: "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7".split(' ').map(str::to_string).collect(),
        ..Default::default()
    };
    let asked = Asked { notations: Vec::new(), rule_set: RuleSet::AsianV1 as i32 };
    check_position(&position, &asked);
    let list = rules::list_legal_moves(
        &proto::ListLegalMovesRequest { position: Some(position), notations: Vec::new(), rule_set: asked.rule_set },
        LIMITS,
    )
    .unwrap();
    let warned: Vec<&str> = list
        .moves
        .iter()
        .filter(|m| m.warning != proto::MoveWarning::Unspecified as i32)
        .map(|m| m.iccs.as_str())
        .collect();
    assert!(warned.contains(&"b2a2"), "{warned:?}");
}

/// The writer itself: scalars left out at 0, an empty message still written, a body
/// over 127 bytes with a two-byte length, a generated message inside.
#[test]
fn the_wire_writer_writes_what_prost_reads() {
    let status = proto::PositionStatus { fen: "x".repeat(300), in_check: true, ..Default::default() };
    let mut w = wire::Writer::default();
    w.message(1, |w| {
        w.bytes(1, b"h2e2");
        w.message(2, |_| {});
        w.message(3, |w| {
            w.uint(1, 4);
            w.uint(2, 0);
        });
        w.uint(4, proto::PieceKind::Cannon as u64);
        w.uint(8, 1);
    });
    // A body longer than 127 bytes takes a two-byte length.
    w.message(1, |w| w.bytes(1, "x".repeat(200).as_bytes()));
    w.prost_message(2, &status);
    let decoded: proto::ListLegalMovesResponse = w.finish().decode().expect("decodes");
    assert_eq!(decoded.moves.len(), 2);
    let m = &decoded.moves[0];
    assert_eq!(m.iccs, "h2e2");
    assert_eq!(m.from, Some(proto::Point::default()));
    assert_eq!(m.to, Some(proto::Point { file: 4, rank: 0, name: String::new() }));
    assert_eq!(m.piece, proto::PieceKind::Cannon as i32);
    assert!(m.gives_check && !m.is_pass);
    assert_eq!(decoded.moves[1].iccs.len(), 200);
    assert_eq!(decoded.status, Some(status));
}
