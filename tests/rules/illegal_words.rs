//! The words of an illegal move: the error of playing one, and each reason's description,
//! which records, notation errors and the service's answers quote.

use std::collections::HashSet;

use chuhe::notation::fen;
use chuhe::rules::illegal::IllegalReason;
use chuhe::rules::types::Move;

#[test]
fn playing_an_illegal_move_names_it() {
    let mut pos = fen::xiangqi("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
    let err = pos.play(Move::parse_iccs("a0b1").unwrap()).unwrap_err();
    assert_eq!(err.to_string(), "illegal move a0b1");
}

#[test]
fn every_reason_has_words_of_its_own() {
    use IllegalReason::*;
    let all = [
        GameOver,
        PassNotAllowed,
        NoPiece,
        NotYourPiece,
        CapturesOwnPiece,
        CannotMoveThatWay,
        PathBlocked,
        CannonNeedsOneScreen,
        LeavesGeneralAttacked,
        GeneralsFace,
        HandicapCrossesRiver,
        HandicapOwnRiverBank,
        HandicapExtraMoveChecks,
        HandicapProtectedPiece,
    ];
    let words: HashSet<&str> = all.iter().map(|r| r.describe()).collect();
    assert_eq!(words.len(), all.len(), "two reasons share their words");
    assert!(words.iter().all(|w| w.split_whitespace().count() >= 3), "{words:?}");
    assert_eq!(PassNotAllowed.describe(), "passing is not allowed");
    assert!(CannonNeedsOneScreen.describe().contains("cannon"));
    assert!(LeavesGeneralAttacked.describe().contains("general"));
}
