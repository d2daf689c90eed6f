//! Real, complete game records replayed to their end: public Xiangqi records of
//! tests/data/records/ (each names its source repository and file in a `Source` tag).

use chuhe::notation::Notation;
use chuhe::notation::record::{self, Record};
use chuhe::rules::Status;
use chuhe::rules::outcome::{GameResult, Termination};
use chuhe::rules::types::Color;
use chuhe::rules::xiangqi::adjudicate::{RuleSet, adjudicate};

/// How a record ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The last move mates: the rules decide the result.
    Mate(Color),
    /// Decided off the board (resignation, agreed draw): the last position is legal and
    /// the game goes on as far as the rules are concerned.
    OffTheBoard(GameResult),
}

/// Each record: file, notation it is read in, plies, how it ends.
const RECORDS: [(&str, Notation, usize, End); 8] = [
    ("lu-qin-xu-yinchuan-2004.pgn", Notation::Chinese, 143, End::OffTheBoard(GameResult::Win(Color::Red))),
    ("liu-dahua-yang-guanlin-1982.pgn", Notation::Chinese, 125, End::OffTheBoard(GameResult::Draw)),
    ("liu-dahua-yang-guanlin-1982-iccs.pgn", Notation::Iccs, 125, End::OffTheBoard(GameResult::Draw)),
    ("li-yiting-wang-jialiang-1959.pgn", Notation::Chinese, 85, End::OffTheBoard(GameResult::Draw)),
    // Nine-piece odds: Red without advisors, elephants and pawns, Black resigns.
    ("xu-yinchuan-nie-weiping-1999.pgn", Notation::Chinese, 75, End::OffTheBoard(GameResult::Win(Color::Red))),
    ("le-thien-vi-bi-bingjian-1997-iccs.pgn", Notation::Iccs, 43, End::Mate(Color::Red)),
    // Moves glued in pairs, as the database writes them.
    ("le-thien-vi-bi-bingjian-1997-chinese.pgn", Notation::Chinese, 43, End::Mate(Color::Red)),
    // Full-width WXF, glued in pairs, without a Format tag.
    ("le-thien-vi-bi-bingjian-1997-wxf.pgn", Notation::Wxf, 43, End::Mate(Color::Red)),
];

fn read(file: &str) -> (Record, Notation) {
    let path = format!("{}/tests/data/records/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(text.contains("[Source \""), "{file} names its source");
    record::import(&text, None).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn real_records_replay_to_their_end() {
    for (file, notation, plies, end) in RECORDS {
        let (rec, read_as) = read(file);
        assert_eq!(read_as, notation, "{file}");
        assert_eq!(rec.moves.len(), plies, "{file}");
        let mut game = rec.new_game();
        for (i, &m) in rec.moves.iter().enumerate() {
            assert!(game.play(m).is_ok(), "{file}: ply {} ({m}) is illegal", i + 1);
        }
        for rules in [RuleSet::SimplifiedV1, RuleSet::AsianV1, RuleSet::TournamentV1] {
            let ruling = adjudicate(&rec.start, &rec.moves, rules, &[]).unwrap_or_else(|e| panic!("{file}: {e:?}"));
            match end {
                End::Mate(winner) => {
                    assert_eq!(game.position().status(), Status::Checkmate, "{file}");
                    assert_eq!(ruling.result, GameResult::Win(winner), "{file} {rules:?}");
                    assert_eq!(ruling.termination, Some(Termination::Checkmate), "{file} {rules:?}");
                    assert_eq!(ruling.decided_at_ply, plies, "{file} {rules:?}");
                    assert_eq!(rec.result, ruling.result, "{file}: the record's result is the rules' result");
                }
                End::OffTheBoard(result) => {
                    // Resigned or agreed: nothing on the board ends the game, so the rules
                    // leave it going on, and the result is the record's word alone.
                    assert_eq!(game.position().status(), Status::Ongoing, "{file}");
                    assert_eq!(ruling.result, GameResult::Ongoing, "{file} {rules:?}");
                    assert_eq!(ruling.termination, None, "{file} {rules:?}");
                    assert_eq!(rec.result, result, "{file}");
                }
            }
        }
    }
}

#[test]
fn one_game_in_several_notations_reads_the_same() {
    let (chinese, _) = read("liu-dahua-yang-guanlin-1982.pgn");
    let (iccs, _) = read("liu-dahua-yang-guanlin-1982-iccs.pgn");
    assert_eq!(chinese.moves, iccs.moves);
    let (iccs, _) = read("le-thien-vi-bi-bingjian-1997-iccs.pgn");
    for file in ["le-thien-vi-bi-bingjian-1997-chinese.pgn", "le-thien-vi-bi-bingjian-1997-wxf.pgn"] {
        assert_eq!(read(file).0.moves, iccs.moves, "{file}");
    }
}

#[test]
fn real_records_survive_export_and_import_in_every_notation() {
    for (file, ..) in RECORDS {
        let (rec, _) = read(file);
        for n in Notation::ALL {
            let text = record::export(&rec, n);
            let (back, read_as) = record::import(&text, None).unwrap_or_else(|e| panic!("{file} in {n}: {e}\n{text}"));
            assert_eq!(read_as, n, "{file}");
            assert_eq!(back.start, rec.start, "{file} in {n}");
            assert_eq!(back.moves, rec.moves, "{file} in {n}");
            assert_eq!(back.result, rec.result, "{file} in {n}");
            assert_eq!(back.comments, rec.comments, "{file} in {n}");
            assert_eq!(back.tag("Source"), rec.tag("Source"), "{file} in {n}");
        }
    }
}
