//! Answers of the analysis RPCs checked against the rules library: every line is
//! replayed move by move from the request's position, and a move's player is the side
//! to move there.
#![allow(dead_code)]

use chuhe::api::proto::{self, Player, Variant};
use chuhe::notation::fen;
use chuhe::rules::types::{Color, Move};
use chuhe::rules::{janggi, three_kingdoms, xiangqi};

/// The request's position (start and moves, no handicap preset), in its variant.
pub enum Replay {
    Xiangqi(xiangqi::Position),
    Janggi(janggi::Position),
    ThreeKingdoms(three_kingdoms::Position),
}

fn start_text(p: &proto::Position) -> &str {
    if p.fen.trim().is_empty() { "startpos" } else { p.fen.as_str() }
}

impl Replay {
    /// The position after the request's moves (all legal, or the test is wrong).
    pub fn of(p: &proto::Position) -> Replay {
        let mut r = match Variant::try_from(p.variant).expect("a variant") {
            Variant::Xiangqi => Replay::Xiangqi(fen::xiangqi(start_text(p)).expect("a Xiangqi position")),
            Variant::Janggi => Replay::Janggi(fen::janggi(start_text(p)).expect("a Janggi position")),
            Variant::ThreeKingdoms => {
                let text = start_text(p);
                Replay::ThreeKingdoms(if text == "startpos" {
                    three_kingdoms::Position::startpos(true)
                } else {
                    three_kingdoms::Position::from_text(text).expect("a Three Kingdoms position")
                })
            }
            Variant::Unspecified => panic!("no variant"),
        };
        for m in &p.moves {
            r.play(m).unwrap_or_else(|e| panic!("the request's move {m}: {e}"));
        }
        r
    }

    /// Plays a move given as the API writes it (ICCS, or a point-name move).
    pub fn play(&mut self, text: &str) -> Result<(), String> {
        match self {
            Replay::Xiangqi(pos) => {
                let m = Move::parse_iccs(text).ok_or_else(|| format!("{text:?} is not ICCS"))?;
                pos.play(m).map(|_| ()).map_err(|_| format!("{text} is illegal"))
            }
            Replay::Janggi(pos) => {
                let m = Move::parse_iccs(text).ok_or_else(|| format!("{text:?} is not ICCS"))?;
                pos.play(m).map(|_| ()).map_err(|_| format!("{text} is illegal"))
            }
            Replay::ThreeKingdoms(pos) => {
                let m = pos.parse_move(text).map_err(|e| format!("{text}: {e}"))?;
                pos.play(m).map(|_| ()).map_err(|_| format!("{text} is illegal"))
            }
        }
    }

    /// The legal moves, as the API writes them.
    pub fn legal_moves(&self) -> Vec<String> {
        match self {
            Replay::Xiangqi(pos) => {
                let mut list = chuhe::rules::types::MoveList::new();
                pos.legal_moves(&mut list);
                list.iter().map(|m| m.to_string()).collect()
            }
            Replay::Janggi(pos) => {
                let mut list = chuhe::rules::types::MoveList::new();
                pos.legal_moves(&mut list);
                list.iter().map(|m| m.to_string()).collect()
            }
            Replay::ThreeKingdoms(pos) => {
                let mut list = three_kingdoms::MoveList::new();
                pos.legal_moves(&mut list);
                list.iter().map(|&m| pos.move_text(m)).collect()
            }
        }
    }

    /// The player to move.
    pub fn mover(&self) -> Player {
        let color = |c: Color| if c == Color::Red { Player::Red } else { Player::Black };
        match self {
            Replay::Xiangqi(pos) => color(pos.turn()),
            Replay::Janggi(pos) => color(pos.turn()),
            Replay::ThreeKingdoms(pos) => match pos.side_to_move() {
                three_kingdoms::Kingdom::Shu => Player::Shu,
                three_kingdoms::Kingdom::Wu => Player::Wu,
                three_kingdoms::Kingdom::Wei => Player::Wei,
            },
        }
    }
}

/// The line is legal from the request's position.
pub fn assert_legal_line(p: &proto::Position, line: &[String], context: &str) {
    let mut r = Replay::of(p);
    for (i, m) in line.iter().enumerate() {
        r.play(m).unwrap_or_else(|e| panic!("{context}: move {i} of {line:?}: {e}"));
    }
}

/// The lines of an Analyze (or stream) answer: at least one, each legal and non-empty,
/// first moves distinct, the best move first on the first line, the ponder move second.
pub fn assert_analysis(
    p: &proto::Position,
    lines: &[proto::PrincipalVariation],
    best: &str,
    ponder: &str,
    context: &str,
) {
    assert!(!lines.is_empty(), "{context}: no line");
    for (i, l) in lines.iter().enumerate() {
        assert!(!l.pv.is_empty(), "{context}: line {} is empty", i + 1);
        assert_eq!(l.multipv as usize, i + 1, "{context}: lines in order");
        assert!(l.score.is_some(), "{context}: line {} has no score", i + 1);
        assert_legal_line(p, &l.pv, &format!("{context}, line {}", i + 1));
    }
    let firsts: std::collections::HashSet<&String> = lines.iter().map(|l| &l.pv[0]).collect();
    assert_eq!(firsts.len(), lines.len(), "{context}: lines share a first move");
    assert_eq!(best, lines[0].pv[0], "{context}: the best move opens the first line");
    assert_eq!(ponder, lines[0].pv.get(1).map_or("", String::as_str), "{context}: the ponder move");
}

/// A move of an answer (Hint, ValidateMove) is legal and played by the side to move.
pub fn assert_move_of_mover(p: &proto::Position, m: &proto::Move, context: &str) {
    let r = Replay::of(p);
    assert_eq!(m.player, r.mover() as i32, "{context}: {m:?} is not the mover's");
    let text = if m.iccs.is_empty() {
        m.notations.first().map(|n| n.text.clone()).unwrap_or_default()
    } else {
        m.iccs.clone()
    };
    assert_legal_line(p, &[text], context);
}
