//! Three Kingdoms: what the rules answer besides the moves. Where each piece may stand
//! (walked from its start points with its own steps, apart from the engine), why a move
//! is refused, who gives check, how a record ended and when each kingdom fell, and the
//! text forms with their errors.

use std::collections::BTreeSet;

use chuhe::rules::illegal::IllegalReason;
use chuhe::rules::three_kingdoms::outcome::{
    AdjudicationError, Defeat, DefeatCause, Event, EventKind, Game, GameResult, Termination, adjudicate,
};
use chuhe::rules::three_kingdoms::text::{self, MAX_LEN};
use chuhe::rules::three_kingdoms::{
    Kind, Kingdom, Move, MoveError, ParseError, Piece, Point, Position, PositionError, Setup, TextError,
};

use super::three_kingdoms::{mv, position, pt};

// ---------------------------------------------------------------------------
// Where a piece may stand

/// Whether a (file, rank) point lies in a region of a half.
type Region = fn(i32, i32) -> bool;

/// The (file, rank) points of its own half that a piece of `kind` can reach from its
/// start points by its own steps on an empty board (files 0..9, ranks 1..=5), from the
/// spec's start position and moves. Soldiers also reach every point of the other
/// halves: they enter them on the bank and step down and sideways from there.
fn reachable_at_home(kind: Kind) -> BTreeSet<(i32, i32)> {
    let in_palace: Region = |f, r| (3..=5).contains(&f) && (1..=3).contains(&r);
    let in_half: Region = |f, r| (0..9).contains(&f) && (1..=5).contains(&r);
    let (starts, steps, allowed) = match kind {
        Kind::General => (vec![(4, 1)], vec![(0, 1), (0, -1), (1, 0), (-1, 0)], in_palace),
        Kind::Advisor => (vec![(3, 1), (5, 1)], vec![(1, 1), (1, -1), (-1, 1), (-1, -1)], in_palace),
        Kind::Elephant => (vec![(2, 1), (6, 1)], vec![(2, 2), (2, -2), (-2, 2), (-2, -2)], in_half),
        Kind::Soldier => (vec![(0, 4), (2, 4), (4, 4), (6, 4), (8, 4)], vec![(0, 1)], in_half),
        _ => unreachable!("only the pieces bound to a region"),
    };
    let mut seen: BTreeSet<(i32, i32)> = starts.iter().copied().collect();
    let mut todo = starts;
    while let Some((f, r)) = todo.pop() {
        for &(df, dr) in &steps {
            let next = (f + df, r + dr);
            if allowed(next.0, next.1) && seen.insert(next) {
                todo.push(next);
            }
        }
    }
    seen
}

#[test]
fn each_piece_may_stand_exactly_where_its_moves_can_take_it() {
    let generals = [pt("Rd1"), pt("Gd1"), pt("Bd1")];
    for kind in [Kind::General, Kind::Advisor, Kind::Elephant, Kind::Soldier] {
        let home = reachable_at_home(kind);
        for origin in Kingdom::ALL {
            for p in Point::all() {
                if generals.contains(&p) && kind != Kind::General {
                    continue;
                }
                let mut setup = Setup::empty(true);
                for (k, &g) in Kingdom::ALL.iter().zip(&generals) {
                    if !(kind == Kind::General && *k == origin) {
                        setup.board[g.index()] = Some(Piece::new(Kind::General, *k));
                    }
                }
                if setup.board[p.index()].is_some() {
                    continue;
                }
                setup.board[p.index()] = Some(Piece::new(kind, origin));
                let at_home = p.kingdom() == origin;
                let may_stand =
                    if at_home { home.contains(&(p.file() as i32, p.rank() as i32)) } else { kind == Kind::Soldier };
                let refused = matches!(
                    Position::from_setup(setup),
                    Err(PositionError::OutsidePalace { .. }
                        | PositionError::OutsideHalf { .. }
                        | PositionError::UnreachablePoint { .. })
                );
                assert_eq!(refused, !may_stand, "{origin}'s {} on {p}", kind.name());
            }
        }
    }
}

#[test]
fn position_errors_name_the_piece_and_the_point() {
    let mut setup = Setup::empty(false);
    for k in Kingdom::ALL {
        setup.board[Point::new(k, 3, 1).index()] = Some(Piece::new(Kind::General, k));
    }
    setup.board[pt("Re4").index()] = Some(Piece::new(Kind::Advisor, Kingdom::Shu));
    let error = Position::from_setup(setup).unwrap_err();
    assert_eq!(
        error,
        PositionError::OutsidePalace { piece: Piece::new(Kind::Advisor, Kingdom::Shu), point: pt("Re4") }
    );
    let words = error.to_string();
    assert!(words.contains("Shu advisor") && words.contains("Re4"), "{words}");
    assert_eq!(format!("{:?}", Piece::new(Kind::FlagBearer, Kingdom::Wei)), "Wei flag bearer");
    // A kingdom in play needs its general; a defeated one has none.
    let general_count = |text: &str| match Position::from_text(text) {
        Err(ParseError::Position(e @ PositionError::GeneralCount { .. })) => e,
        other => panic!("{text}: {other:?}"),
    };
    let without = general_count(&text::START.replacen("RNBAKABNR", "RNBA1ABNR", 1));
    assert_eq!(without, PositionError::GeneralCount { kingdom: Kingdom::Shu, count: 0, defeated: false });
    let defeated = general_count(&text::START.replacen(" RGB", " RRB", 1));
    assert_eq!(defeated, PositionError::GeneralCount { kingdom: Kingdom::Wu, count: 1, defeated: true });
    assert!(without.to_string().contains("in play"), "{without}");
    assert!(defeated.to_string().contains("defeated"), "{defeated}");
}

// ---------------------------------------------------------------------------
// Why a move is refused, and who gives check

#[test]
fn refusals_name_the_first_rule_a_move_breaks() {
    let start = Position::startpos(true);
    assert_eq!(start.explain_illegal(mv("Ra1-Ra2")), None);
    let reason = |pos: &Position, m: &str| pos.explain_illegal(mv(m)).map(|(r, _)| r);
    assert_eq!(reason(&start, "Re2-Re3"), Some(IllegalReason::NoPiece));
    assert_eq!(reason(&start, "Ga1-Ga2"), Some(IllegalReason::NotYourPiece));
    assert_eq!(reason(&start, "Ra1-Rb2"), Some(IllegalReason::CannotMoveThatWay));
    let (_, words) = start.explain_illegal(mv("Ga1-Ga2")).unwrap();
    assert!(words.contains("chariot") && words.contains("Ga1") && words.contains("Wu"), "{words}");
    let (_, words) = start.explain_illegal(mv("Re2-Re3")).unwrap();
    assert!(words.contains("Re2"), "{words}");
    // Shu's horse on Re2 shields Shu's general on Re1 from Wu's chariot on Re4.
    let pinned = position(&["Re1 K R", "Re2 N R", "Re4 R G", "Gd1 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(reason(&pinned, "Re2-Rc3"), Some(IllegalReason::LeavesGeneralAttacked));
    // Shu's chariot on Re3 stands between Shu's general on Re1 and Wu's on Ge2, on the
    // central line through the triangle.
    let between = position(&["Re1 K R", "Re3 R R", "Ge2 K G", "Bd1 K B"], Kingdom::Shu, "RGB").unwrap();
    assert_eq!(reason(&between, "Re3-Rd3"), Some(IllegalReason::GeneralsFace));
    assert_eq!(reason(&between, "Re3-Re4"), None);
    // One kingdom left: the game is over.
    let won = Position::from_text("1bP1K5/9/9/9/9 9/9/9/9/9 7rR1/8rR/9/9/9 R RRR F 0 2").unwrap();
    assert_eq!(reason(&won, "Rd1-Re1"), Some(IllegalReason::GameOver));
}

#[test]
fn a_check_is_given_by_a_piece_the_mover_controls() {
    // Shu's chariot on Ga1 attacks Wu's general on Ge1 along Wu's rank 1.
    let pos = position(&["Rd1 K R", "Ga1 R R", "Ge1 K G", "Bd1 K B"], Kingdom::Wu, "RGB").unwrap();
    assert!(pos.checks_a_rival(Kingdom::Shu));
    assert!(!pos.checks_a_rival(Kingdom::Wu));
    assert!(!pos.checks_a_rival(Kingdom::Wei));
    let start = Position::startpos(true);
    assert!(Kingdom::ALL.iter().all(|&k| !start.checks_a_rival(k)));
}

#[test]
fn after_a_draw_every_move_is_refused_as_game_over() {
    let cycle = ["Ra1-Ra2", "Ga1-Ga2", "Ba1-Ba2", "Ra2-Ra1", "Ga2-Ga1", "Ba2-Ba1"];
    let mut game = Game::new(Position::startpos(false));
    for m in cycle.iter().chain(&cycle[..5]) {
        game.play(mv(m)).unwrap();
    }
    assert_eq!(game.drawn(), None, "the start stood twice, the position before the last move twice");
    assert_eq!(game.explain_illegal_in_words(mv("Ba2-Ba1")), None);
    assert_eq!(game.explain_illegal_in_words(mv("Ba2-Bb3")).map(|(r, _)| r), Some(IllegalReason::CannotMoveThatWay));
    game.play(mv("Ba2-Ba1")).unwrap();
    let why = game.drawn().expect("the start stands for the third time");
    assert!(!why.is_empty());
    let (reason, words) = game.explain_illegal_in_words(mv("Ra1-Ra2")).unwrap();
    assert_eq!(reason, IllegalReason::GameOver);
    assert!(words.contains(&why), "{words}");
    // A win is an ending but no draw.
    let won = Position::from_text("1bP1K5/9/9/9/9 9/9/9/9/9 7rR1/8rR/9/9/9 R RRR F 0 2").unwrap();
    assert_eq!(Game::new(won).drawn(), None);
}

// ---------------------------------------------------------------------------
// Endings and defeats

#[test]
fn defeats_record_the_ply_the_kingdom_fell() {
    // Wei's horse steps off the line, and Shu's chariot on Ga1 takes Wu's general.
    let start =
        position(&["Rd1 K R", "Ga1 R R", "Gb1 N B", "Ge1 K G", "Gh2 R G", "Bd1 K B"], Kingdom::Wei, "RGB").unwrap();
    let r = adjudicate(&start, &[mv("Gb1-Gc3"), mv("Ga1-Ge1")], &[]).unwrap();
    assert_eq!(r.result, GameResult::Ongoing);
    let captured = Defeat { kingdom: Kingdom::Wu, taken_by: Kingdom::Shu, cause: DefeatCause::GeneralCaptured, ply: 2 };
    assert_eq!(r.defeats, vec![captured]);
    // Wu's general is boxed in: after Shu's first move Wu cannot move.
    let pieces = ["Re1 K R", "Ra1 R R", "Gd1 K G", "Ga2 R R", "Gd2 P B", "Ge1 P B", "Bf1 K B", "Gi5 P G"];
    let start = position(&pieces, Kingdom::Shu, "RGB").unwrap();
    let r = adjudicate(&start, &[mv("Ra1-Rb1")], &[Event { kind: EventKind::Resign(Kingdom::Wei), ply: 1 }]).unwrap();
    let boxed = Defeat { kingdom: Kingdom::Wu, taken_by: Kingdom::Shu, cause: DefeatCause::NoLegalMove, ply: 1 };
    assert_eq!(r.defeats, vec![boxed]);
    assert_eq!((r.result, r.by), (GameResult::Win(Kingdom::Shu), Some(Kingdom::Wei)));
}

#[test]
fn an_illegal_move_of_a_record_is_named_by_its_index() {
    let start = Position::startpos(false);
    let moves = [mv("Ra1-Ra2"), mv("Ga1-Gb2"), mv("Ba1-Ba2")];
    let error = adjudicate(&start, &moves, &[]).unwrap_err();
    let expected =
        AdjudicationError::IllegalMove { index: 1, mv: mv("Ga1-Gb2"), reason: IllegalReason::CannotMoveThatWay };
    assert_eq!(error, expected);
}

#[test]
fn terminations_have_distinct_names_and_the_published_ids() {
    let all = [
        Termination::LastGeneral,
        Termination::Repetition,
        Termination::QuietPlyLimit,
        Termination::Resignation,
        Termination::Timeout,
        Termination::Left,
    ];
    let ids: Vec<&str> = all.iter().map(|t| t.id()).collect();
    assert_eq!(ids, ["last-general", "repetition", "quiet-ply-limit", "resignation", "timeout", "left-the-table"]);
    let names: BTreeSet<&str> = all.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), all.len());
    assert!(names.iter().all(|n| !n.is_empty()));
}

// ---------------------------------------------------------------------------
// Text forms

#[test]
fn a_text_of_the_longest_length_is_read_and_one_byte_more_is_refused() {
    let start = text::START;
    let padding = MAX_LEN - start.len();
    let longest = start.replacen(' ', &" ".repeat(padding + 1), 1);
    assert_eq!(longest.len(), MAX_LEN);
    assert_eq!(Position::from_text(&longest).unwrap(), Position::startpos(true));
    let too_long = start.replacen(' ', &" ".repeat(padding + 2), 1);
    assert_eq!(Position::from_text(&too_long), Err(ParseError::Text(TextError::TooLong { len: MAX_LEN + 1 })));
}

#[test]
fn a_kingdom_prefix_takes_one_kind_letter() {
    let start = text::START_WITHOUT_FLAG_BEARERS;
    let bad = start.replacen("9", "gbN8", 1);
    assert!(
        matches!(
            Position::from_text(&bad),
            Err(ParseError::Text(TextError::DanglingPrefix { half: Kingdom::Shu, rank: 2 }))
        ),
        "{bad}"
    );
}

#[test]
fn errors_read_in_words() {
    let start = text::START;
    let texts = [
        String::new(),
        start.replacen("RNBAKABNR", "RNBAKABNX", 1),
        start.replacen(" R RGB", " X RGB", 1),
        start.replacen(" RGB", " RRB", 1),
    ];
    for bad in &texts {
        let error = Position::from_text(bad).unwrap_err();
        let inner = match &error {
            ParseError::Text(e) => e.to_string(),
            ParseError::Position(e) => e.to_string(),
        };
        assert!(!inner.is_empty(), "{error:?}");
        assert_eq!(error.to_string(), inner);
    }
    let unknown = Position::from_text(&start.replacen("RNBAKABNR", "RNBAKABNX", 1)).unwrap_err();
    assert!(unknown.to_string().contains("'X'"), "{unknown}");
    let pos = Position::startpos(false);
    assert_eq!(pos.read_move("Rh3xRe3"), Err(MoveError::NotACapture(mv("Rh3-Re3"))));
    assert_eq!(pos.read_move("Rh3XRe3"), Err(MoveError::NotACapture(mv("Rh3-Re3"))));
    assert!(pos.read_move("Rh3xRe3").unwrap_err().to_string().contains("Rh3-Re3"));
    assert!(pos.parse_move("Ra1-Rb2").unwrap_err().to_string().contains("Ra1-Rb2"));
    assert!(Move::parse("Rh3-Re33").unwrap_err().to_string().contains("not 8"));
}

#[test]
fn positions_and_moves_read_and_print_through_the_standard_traits() {
    let pos: Position = "startpos".parse().unwrap();
    assert_eq!(pos, Position::startpos(true));
    assert_eq!(pos.to_string(), text::START);
    assert_eq!(format!("{pos:?}"), text::START);
    assert!(pos.flag_bearers());
    assert!(!Position::startpos(false).flag_bearers());
    let m: Move = "Rh3xRe3".parse().unwrap();
    assert_eq!(m, Move::new(pt("Rh3"), pt("Re3")));
    assert_eq!(format!("{m:?}"), "Rh3-Re3");
}
