//! Why a Three Kingdoms move is illegal, in the reasons the 9x10 variants use, and
//! whether a move checks a rival.

use super::outcome::{Game, GameResult};
use super::{Kingdom, Move, MoveList, Position};
use crate::rules::illegal::IllegalReason;

impl Position {
    /// `None` when `m` is legal, otherwise the first rule it breaks and the reason in
    /// words, naming the points and the kingdoms.
    pub fn explain_illegal(&self, m: Move) -> Option<(IllegalReason, String)> {
        if self.winner().is_some() {
            return Some((IllegalReason::GameOver, "the game is over: one kingdom is left".to_string()));
        }
        let side = self.side_to_move();
        let Some(piece) = self.piece_at(m.from()) else {
            return Some((IllegalReason::NoPiece, format!("no piece on {}", m.from())));
        };
        let owner = self.controller_of(piece);
        if owner != side {
            let detail = format!("the {} on {} is {owner}'s, and {side} is to move", piece.kind().name(), m.from());
            return Some((IllegalReason::NotYourPiece, detail));
        }
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        if list.contains(m) {
            return None;
        }
        let mut pseudo = MoveList::new();
        self.pseudo_legal_moves(&mut pseudo);
        if !pseudo.contains(m) {
            let detail = format!("the {} on {} cannot move to {}", piece.kind().name(), m.from(), m.to());
            return Some((IllegalReason::CannotMoveThatWay, detail));
        }
        // The piece can go there, but the move exposes the general: facing or attacked?
        Some(if self.faces_a_general_after(m) {
            (IllegalReason::GeneralsFace, format!("{m} would leave {side}'s general facing a rival general"))
        } else {
            (IllegalReason::LeavesGeneralAttacked, format!("{m} would leave {side}'s general attacked"))
        })
    }

    /// Does `mover` attack (or face) a rival general with a piece it controls? Asked
    /// after `mover`'s move, this is whether the move gave check.
    pub fn checks_a_rival(&self, mover: Kingdom) -> bool {
        self.kingdoms_in_play().filter(|&k| k != mover).any(|k| {
            self.attackers_of_general(k)
                .iter()
                .any(|&p| self.piece_at(p).is_some_and(|q| self.controller_of(q) == mover))
        })
    }
}

impl Game {
    /// How the record has drawn the game, if it has.
    pub fn drawn(&self) -> Option<String> {
        match self.ending() {
            Some((GameResult::Draw, _, explanation)) => Some(explanation),
            _ => None,
        }
    }

    /// [`Position::explain_illegal`] after the record, the reason with its words: after
    /// a draw no move is legal.
    pub fn explain_illegal_in_words(&self, m: Move) -> Option<(IllegalReason, String)> {
        match self.drawn() {
            Some(why) => Some((IllegalReason::GameOver, format!("the game is drawn: {why}"))),
            None => self.position().explain_illegal(m),
        }
    }
}
