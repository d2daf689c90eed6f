//! Real, complete game records replayed to their end: public Xiangqi and Janggi records
//! of tests/data/records/ (each names its source in a `Source` tag), and the annotated
//! Janggi game of the project's Italian seed text.

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

/// The annotated game of the seed's Janggi text ("Una partita esplicativa",
/// Baggio-Veronesi, GP95, 1-0), written in its Italian algebraic notation.
///
/// Readings of the seed: "Baggio (Cb1-Ch1)" and "Veronesi (Cb10-Cg10)" give the points
/// each player's horses start on; Baggio's are on rank 1 and he plays `1.Cc3`, so he
/// is Cho (who moves first, ranks 1-3) with both horses outside (마상상마), and Veronesi
/// is Han with horses on b10 and g10, that is elephant-horse-elephant-horse from his own
/// side (h10 to b10, 상마상마). A lower-case file letter moves a soldier (`ab7`, `g5`,
/// `g5xg6`); R M E C T B are general, guard, elephant, horse, chariot, cannon. The
/// game ends when Han resigns after `21.Bd3+!` ("Abbandona"); the note's line
/// `21.... e7 22.Td6+ cd7 23.Txd7#` (four dots: Han's move 21) is the mate Han avoided
/// by resigning, a double check by chariot and cannon ("lo scacco è doppio, T e B").
#[test]
fn the_annotated_janggi_game_of_the_seed() {
    use chuhe::notation::algebraic;
    use chuhe::rules::janggi::adjudicate::{RuleSet as JanggiRules, adjudicate as judge};
    use chuhe::rules::janggi::{self, Setup4};
    use chuhe::rules::outcome::{Event, EventKind};
    use chuhe::rules::types::{Piece, PieceKind, Square};

    let path = format!("{}/tests/data/records/baggio-veronesi-1995-janggi.txt", env!("CARGO_MANIFEST_DIR"));
    let raw = record::split(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(raw.tag("Variant"), Some("Janggi"));
    assert_eq!(raw.result.as_deref(), Some("1-0"));
    let start = janggi::start_position(Setup4::HorseElephantElephantHorse, Setup4::ElephantHorseElephantHorse);
    // The record's setup tags, written from the players' horses, name this start.
    let setup = |tag: &str, side| Setup4::from_korean(raw.tag(tag).unwrap(), side).unwrap();
    let tagged = janggi::start_position(setup(record::CHO_SETUP, Color::Red), setup(record::HAN_SETUP, Color::Black));
    assert!(tagged == start);
    let horse = |color| Piece::new(color, PieceKind::Horse);
    for (point, color) in [("b0", Color::Red), ("h0", Color::Red), ("b9", Color::Black), ("g9", Color::Black)] {
        assert_eq!(start.board().piece_at(Square::parse(point).unwrap()), Some(horse(color)), "{point}");
    }

    let mut game = janggi::Game::new(start.clone());
    let mut rewritten = Vec::new();
    let play = |game: &mut janggi::Game, rewritten: &mut Vec<String>, token: &str| {
        let pos = game.position().clone();
        let m = algebraic::parse_move(&pos, token).unwrap_or_else(|e| panic!("move {}: {e}", game.plies().len() + 1));
        let canonical = algebraic::format(&pos, m);
        assert_eq!(algebraic::parse_move(&pos, &canonical), Ok(m), "{canonical}");
        // The seed's check marks are the rules' checks.
        assert_eq!(token.contains(['+', '#']), pos.gives_check(m), "{token}");
        game.play(m).unwrap();
        rewritten.push(canonical);
    };
    for token in &raw.moves {
        play(&mut game, &mut rewritten, token);
    }
    assert_eq!(game.plies().len(), 41, "21 moves of Cho, 20 of Han");
    assert!(game.position().in_check(), "21.Bd3+ checks through the palace diagonal");
    assert_eq!(game.position().status(), Status::Ongoing, "Han could go on, and resigns");
    let resign = [Event { kind: EventKind::Resign(Color::Black), ply: 41 }];
    for rules in [JanggiRules::CasualV1, JanggiRules::TournamentV1] {
        let moves: Vec<_> = game.plies().iter().map(|p| p.mv).collect();
        let ruling = judge(&start, &moves, rules, &[]).unwrap();
        assert_eq!(ruling.result, GameResult::Ongoing, "{rules:?}");
        let ruling = judge(&start, &moves, rules, &resign).unwrap();
        assert_eq!((ruling.result, ruling.termination), (GameResult::Win(Color::Red), Some(Termination::Resignation)));
    }
    // Written canonically: the seed's text without its `!` and `?`, and without the
    // from-points it gives where none is needed (Cg10-f8, g5xg6, Ch4f5).
    let canonical = "Cc3 Cc8 Cg3 ab7 Bhe3 Cf8 ih4 Ef7 g5 Mf9 Cf5 g6 gxg6 Ta6 g7 Exh4+ Cxh4 Th6 Cf5 Th2+ Mf2 \
                     Bbe8 ab4 Cg6 Ti4 Bh1 Ta6 Tg2 Bd3 Th10 Ti3 Thh2 Tf3 Txg1 Bf1 Th9 Cd6 ed7 Cf7+ Rd9 Bd3+";
    assert_eq!(rewritten.join(" "), canonical);

    // The note's mating line.
    for token in ["e7", "Td6+", "cd7", "Txd7#"] {
        play(&mut game, &mut rewritten, token);
    }
    assert_eq!(game.position().status(), Status::Checkmate);
    assert_eq!(game.position().checkers().count_ones(), 2, "double check: chariot and cannon");
    assert_eq!(rewritten.last().map(String::as_str), Some("Txd7#"));
    let moves: Vec<_> = game.plies().iter().map(|p| p.mv).collect();
    for rules in [JanggiRules::CasualV1, JanggiRules::TournamentV1] {
        let ruling = judge(&start, &moves, rules, &[]).unwrap();
        assert_eq!(ruling.result, GameResult::Win(Color::Red), "{rules:?}");
        assert_eq!(ruling.termination, Some(Termination::Checkmate), "{rules:?}");
        assert_eq!(ruling.decided_at_ply, 45, "{rules:?}");
    }
}

/// A Korean record (.gib) of a friendly game, 2016 (하여명-전동하, Cho wins).
///
/// Readings: each ply has its own number; a point is the row from the top (Han's back
/// rank 1, Cho's back rank 0) and the file from Cho's left; the setups (초차림, 한차림)
/// read both sides from Cho's side of the board, left to right: Han's "상마상마" puts
/// its horses on c10 and h10, as its moves 13마34 and 18마37 show (from Han's own side
/// that is horse-elephant-horse-elephant).
#[test]
fn a_korean_janggi_record() {
    use chuhe::notation::korean;
    use chuhe::rules::janggi::adjudicate::{RuleSet as JanggiRules, adjudicate as judge};
    use chuhe::rules::janggi::{self, Setup4};
    use chuhe::rules::outcome::{Event, EventKind};

    let path = format!("{}/tests/data/records/ha-yeomyeong-jeon-dongha-2016.gib", env!("CARGO_MANIFEST_DIR"));
    let raw = record::split(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(raw.tag("초차림"), Some("상마상마"));
    assert_eq!(raw.tag("한차림"), Some("상마상마"));
    assert_eq!(raw.tag("대국결과"), Some("초 완승"));
    let start = janggi::start_position(Setup4::ElephantHorseElephantHorse, Setup4::HorseElephantHorseElephant);
    let mut game = janggi::Game::new(start.clone());
    for (i, token) in raw.moves.iter().enumerate() {
        let pos = game.position().clone();
        let m = korean::parse_move(&pos, token).unwrap_or_else(|e| panic!("ply {}: {e}", i + 1));
        // The record writes every move canonically: captures named, checks marked.
        assert_eq!(korean::format(&pos, m), *token, "ply {}", i + 1);
        game.play(m).unwrap();
    }
    assert_eq!(raw.tag("총수"), Some(game.plies().len().to_string().as_str()));
    let moves: Vec<_> = game.plies().iter().map(|p| p.mv).collect();
    // "초 완승": Cho wins, but nothing on the board ends the game: Han resigned.
    assert_eq!(game.position().status(), Status::Ongoing);
    let resign = [Event { kind: EventKind::Resign(Color::Black), ply: moves.len() }];
    for rules in [JanggiRules::CasualV1, JanggiRules::TournamentV1] {
        let ruling = judge(&start, &moves, rules, &[]).unwrap();
        assert_eq!((ruling.result, ruling.termination), (GameResult::Ongoing, None), "{rules:?}");
        let ruling = judge(&start, &moves, rules, &resign).unwrap();
        assert_eq!((ruling.result, ruling.termination), (GameResult::Win(Color::Red), Some(Termination::Resignation)));
    }
}

/// The Janggi records: file, notation, plies, result.
const JANGGI_RECORDS: [(&str, Notation, usize, GameResult); 2] = [
    ("baggio-veronesi-1995-janggi.txt", Notation::Algebraic, 41, GameResult::Win(Color::Red)),
    // No Result tag: the .gib says "초 완승" (Cho wins) in its own result tag.
    ("ha-yeomyeong-jeon-dongha-2016.gib", Notation::Korean, 73, GameResult::Win(Color::Red)),
];

#[test]
fn janggi_records_import_and_survive_export_in_every_janggi_notation() {
    use chuhe::rules::janggi::{self, Setup4};
    for (file, notation, plies, result) in JANGGI_RECORDS {
        let path = format!("{}/tests/data/records/{file}", env!("CARGO_MANIFEST_DIR"));
        let (rec, read_as) = record::import_janggi(&std::fs::read_to_string(&path).unwrap(), None)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!((read_as, rec.moves.len(), rec.result), (notation, plies, result), "{file}");
        let (cho, han) = rec.named_start.expect("setup tags");
        assert!(rec.start == janggi::start_position(cho, han), "{file}");
        let mut game = janggi::Game::new(rec.start.clone());
        for &m in &rec.moves {
            game.play(m).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        }
        let janggi_notations = Notation::ALL.into_iter().filter(|n| n.applies_to_janggi());
        assert_eq!(janggi_notations.clone().count(), 4);
        for n in janggi_notations {
            let text = record::export_janggi(&rec, n);
            assert!(text.starts_with("[Source "), "{text}");
            assert!(text.contains("[Variant \"Janggi\"]") && !text.contains("[FEN "), "{file} in {n}:\n{text}");
            let setup_tags =
                format!("[초차림 \"{}\"]\n[한차림 \"{}\"]", cho.korean(Color::Red), han.korean(Color::Black));
            assert!(text.contains(&setup_tags), "{file} in {n}:\n{text}");
            let (back, read_as) =
                record::import_janggi(&text, None).unwrap_or_else(|e| panic!("{file} in {n}: {e}\n{text}"));
            assert_eq!(read_as, n, "{file}");
            assert_eq!(back.named_start, rec.named_start, "{file} in {n}");
            assert_eq!(back.moves, rec.moves, "{file} in {n}");
            assert_eq!((back.result, &back.comments), (rec.result, &rec.comments), "{file} in {n}");
        }
    }
    // The gib's first moves, written in each notation.
    let (rec, _) = record::import_janggi(
        "[초차림 \"상마상마\"]\n[한차림 \"상마상마\"]\n1. 71졸72 2. 49병48 3. 08마87 4. 18마37",
        None,
    )
    .unwrap();
    assert_eq!(rec.named_start, Some((Setup4::ElephantHorseElephantHorse, Setup4::HorseElephantHorseElephant)));
    let moves = |n| record::export_janggi(&rec, n).lines().last().unwrap().to_string();
    assert_eq!(moves(Notation::Korean), "1. 71졸72 49병48 2. 08마87 18마37 *");
    assert_eq!(moves(Notation::Iccs), "1. a3b3 i6h6 2. h0g2 h9g7 *");
    assert_eq!(moves(Notation::Coordinate), "1. a4-b4 i7-h7 2. h1-g3 h10-g8 *");
    assert_eq!(moves(Notation::Algebraic), "1. ab4 ih7 2. Cg3 Cg8 *");
    // A notation that does not apply to Janggi is written as ICCS.
    assert!(record::export_janggi(&rec, Notation::Wxf).contains("[Format \"ICCS\"]\n\n1. a3b3"));
}

#[test]
fn janggi_records_with_passes_fens_and_errors() {
    use chuhe::rules::janggi::{self, Setup4};
    use record::RecordError as E;
    // Passes in every notation; the usual start needs no tags.
    let (rec, n) = record::import_janggi("1. pass b9c7 2. b0c2 pass *", None).unwrap();
    assert_eq!((n, rec.named_start), (Notation::Iccs, None));
    assert!(rec.start == janggi::Position::startpos());
    for (n, text) in [
        (Notation::Iccs, "1. pass b9c7 2. b0c2 pass *"),
        (Notation::Coordinate, "1. pass b10-c8 2. b1-c3 pass *"),
        (Notation::Algebraic, "1. pass Cc8 2. Cc3 pass *"),
        (Notation::Korean, "1. 한수쉼 12마33 2. 02마83 한수쉼 *"),
    ] {
        let out = record::export_janggi(&rec, n);
        assert!(!out.contains("[초차림") && !out.contains("[FEN"), "{out}");
        assert_eq!(out.lines().last(), Some(text), "{n}");
        assert_eq!(record::import_janggi(&out, None).unwrap().0.moves, rec.moves, "{n}");
    }
    // A FEN start is written and read as a FEN.
    let fen = "3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1";
    let (rec, _) = record::import_janggi(&format!("[FEN \"{fen}\"]\n1. h4e4 1-0"), None).unwrap();
    assert_eq!(rec.result, GameResult::Win(Color::Red));
    let out = record::export_janggi(&rec, Notation::Algebraic);
    assert!(out.contains(&format!("[FEN \"{fen}\"]")) && out.contains("1. Te5# 1-0"), "{out}");
    // The FEN and the setup tags agree, or the record is refused.
    let usual = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
    let both = format!("[FEN \"{usual}\"]\n[초차림 \"마상상마\"]\n");
    assert_eq!(
        record::import_janggi(&both, None).unwrap().0.named_start.unwrap().0,
        Setup4::HorseElephantElephantHorse
    );
    let bad = |text: &str, n| record::import_janggi(text, n).unwrap_err();
    assert_eq!(bad(&format!("[FEN \"{usual}\"]\n[초차림 \"상마상마\"]\n"), None), E::FenNotSetups);
    assert!(matches!(bad("[한차림 \"마마상상\"]\n", None), E::Setup { tag: "한차림", .. }));
    assert_eq!(bad("[Preset \"two-moves\"]\n", None), E::JanggiPreset);
    assert_eq!(bad("[Format \"WXF\"]\n1. C2.5", None), E::Inapplicable { notation: Notation::Wxf });
    assert_eq!(bad("1. b0c2", Some(Notation::Chinese)), E::Inapplicable { notation: Notation::Chinese });
    let E::Move { index: 1, error } = bad("1. 02마83 12마34", None) else { panic!() };
    assert_eq!(error.notation, Notation::Korean);
    assert!(error.to_string().contains("12마34"), "{error}");

    // The .gib result tag states the result, alone or in agreement with the others.
    let result = |text: &str| record::import_janggi(text, None).map(|(rec, _)| rec.result);
    assert_eq!(result("[대국결과 \"한 불계승\"]\n1. 02마83"), Ok(GameResult::Win(Color::Black)));
    assert_eq!(result("[대국결과 \"무승부\"]\n1. 02마83 1/2-1/2"), Ok(GameResult::Draw));
    assert_eq!(result("[Result \"1-0\"]\n[대국결과 \"초 시간승\"]\n1. 02마83"), Ok(GameResult::Win(Color::Red)));
    assert_eq!(result("[대국결과 \"미상\"]\n1. 02마83"), Ok(GameResult::Ongoing), "unknown: no result");
    let e = bad("[Result \"1-0\"]\n[대국결과 \"한 완승\"]\n1. 02마83", None);
    assert_eq!(e, E::ResultMismatch { first: ("Result tag", "1-0"), second: ("대국결과 tag", "0-1") });
    assert_eq!(e.to_string(), "the Result tag says 1-0 but the 대국결과 tag says 0-1");
    // Xiangqi records keep the tag as a tag.
    let (rec, _) = record::import("[대국결과 \"한 완승\"]\n1. h2e2", None).unwrap();
    assert_eq!((rec.result, rec.tag("대국결과")), (GameResult::Ongoing, Some("한 완승")));
}
