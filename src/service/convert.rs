//! Proto <-> domain conversions for the 9x10 games.
//!
//! The variant of a request is dispatched in one place: [`AnyGame`] (a Xiangqi or a
//! Janggi game) and [`AnyRuleSet`]; the RPCs call their methods and never match on the
//! variant themselves.

use tonic::Status;

use super::errors::{bad_request, unimplemented};
use super::proto;
use super::wire::{LENGTH_DELIMITED, VARINT, Writer};
use crate::notation::{self, Notation, fen};
use crate::rules::board::{self, Bitboard, Board};
use crate::rules::history::Game;
use crate::rules::janggi::{self, Setup4};
use crate::rules::types::{Color, Move, MoveList, Piece, PieceKind, Square};
use crate::rules::xiangqi::IllegalReason;
use crate::rules::xiangqi::adjudicate::{RuleSet, Warning};
use crate::rules::xiangqi::handicap::{self, NamedStart, Preset};
use crate::rules::{Status as BoardStatus, outcome};

/// Server-side limits that apply to request contents.
#[derive(Clone, Copy, Debug)]
pub struct ContentLimits {
    /// Most moves a position or game record may carry.
    pub max_game_plies: usize,
}

/// A variant the rules and analysis services play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Xiangqi,
    Janggi,
}

impl Variant {
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Xiangqi => "Xiangqi",
            Variant::Janggi => "Janggi",
        }
    }

    pub const fn to_proto(self) -> proto::Variant {
        match self {
            Variant::Xiangqi => proto::Variant::Xiangqi,
            Variant::Janggi => proto::Variant::Janggi,
        }
    }
}

/// Reads the variant field: unknown or unspecified is INVALID_ARGUMENT; variants
/// announced but not served yet are UNIMPLEMENTED.
/// The field name is formatted only for an error: the usual call passes `format_args!`.
pub fn variant(value: i32, field: impl std::fmt::Display) -> Result<Variant, Status> {
    match proto::Variant::try_from(value) {
        Err(_) => Err(bad_request(field.to_string(), format!("unknown variant {value}"))),
        Ok(proto::Variant::Unspecified) => Err(bad_request(field.to_string(), "variant must be set")),
        Ok(proto::Variant::Xiangqi) => Ok(Variant::Xiangqi),
        Ok(proto::Variant::Janggi) => Ok(Variant::Janggi),
        Ok(v) => Err(unimplemented(format!("variant {} is not served yet", v.as_str_name()))),
    }
}

/// A Janggi side setup of the API; unspecified is the usual horse-elephant-elephant-horse.
pub fn janggi_setup(value: i32, field: &str) -> Result<Setup4, Status> {
    use proto::JanggiSetup as P;
    Ok(match P::try_from(value) {
        Ok(P::Unspecified | P::HorseElephantElephantHorse) => Setup4::HorseElephantElephantHorse,
        Ok(P::HorseElephantHorseElephant) => Setup4::HorseElephantHorseElephant,
        Ok(P::ElephantHorseElephantHorse) => Setup4::ElephantHorseElephantHorse,
        Ok(P::ElephantHorseHorseElephant) => Setup4::ElephantHorseHorseElephant,
        Err(_) => return Err(bad_request(field, format!("unknown Janggi setup {value}"))),
    })
}

pub fn proto_janggi_setup(s: Setup4) -> proto::JanggiSetup {
    use proto::JanggiSetup as P;
    match s {
        Setup4::HorseElephantElephantHorse => P::HorseElephantElephantHorse,
        Setup4::HorseElephantHorseElephant => P::HorseElephantHorseElephant,
        Setup4::ElephantHorseElephantHorse => P::ElephantHorseElephantHorse,
        Setup4::ElephantHorseHorseElephant => P::ElephantHorseHorseElephant,
    }
}

/// A start preset of the API.
pub fn preset(value: i32, field: impl std::fmt::Display) -> Result<Preset, Status> {
    use proto::StartPreset as P;
    Ok(match P::try_from(value) {
        Ok(P::Unspecified | P::Standard) => Preset::Standard,
        Ok(P::TwoMoves) => Preset::TwoMoves,
        Ok(P::ThreeMoves) => Preset::ThreeMoves,
        Ok(P::FourMoves) => Preset::FourMoves,
        Ok(P::OneHorse) => Preset::OneHorse,
        Ok(P::HorseAndMove) => Preset::HorseAndMove,
        Ok(P::TwoHorses) => Preset::TwoHorses,
        Ok(P::OneChariot) => Preset::OneChariot,
        Ok(P::NinePieces) => Preset::NinePieces,
        Err(_) => return Err(bad_request(field.to_string(), format!("unknown preset {value}"))),
    })
}

pub fn proto_preset(p: Preset) -> proto::StartPreset {
    use proto::StartPreset as P;
    match p {
        Preset::Standard => P::Standard,
        Preset::TwoMoves => P::TwoMoves,
        Preset::ThreeMoves => P::ThreeMoves,
        Preset::FourMoves => P::FourMoves,
        Preset::OneHorse => P::OneHorse,
        Preset::HorseAndMove => P::HorseAndMove,
        Preset::TwoHorses => P::TwoHorses,
        Preset::OneChariot => P::OneChariot,
        Preset::NinePieces => P::NinePieces,
    }
}

/// Does the request start from its preset (its FEN is empty or `startpos`)?
pub fn uses_preset(p: &proto::Position) -> bool {
    let text = p.fen.trim();
    text.is_empty() || text == "startpos"
}

/// The Xiangqi game of a request before any move: the FEN's position, or the named
/// start with its handicap rules when the FEN is empty or `startpos`.
fn new_xiangqi_game(p: &proto::Position, field: &str) -> Result<Game, Status> {
    let start = named_start(p, field)?;
    if uses_preset(p) {
        return Ok(Game::with_handicap(start.position(), start.handicap()));
    }
    let start = fen::xiangqi(&p.fen).map_err(|e| bad_request(format!("{field}.fen"), e.to_string()))?;
    Ok(Game::new(start))
}

/// The request's "N moves" odds (0 when not asked for), checked: at most
/// [`handicap::MAX_MOVES`], from the standard start (no FEN, no other preset), Xiangqi
/// only (the caller checks the variant).
/// The handicap start a Xiangqi request names by `preset` or `handicap_moves` (checked
/// as `handicap_moves` says); it applies when the FEN is empty or `startpos`.
pub fn named_start(p: &proto::Position, field: &str) -> Result<NamedStart, Status> {
    let preset = preset(p.preset, format_args!("{field}.preset"))?;
    Ok(match handicap_moves(p, field)? {
        0 | 1 => NamedStart::Preset(preset),
        // Within MAX_MOVES, checked above.
        n => NamedStart::moves(n).unwrap_or(NamedStart::Preset(preset)),
    })
}

/// The API's `preset` and `handicap_moves` for a named start.
pub fn proto_start(start: NamedStart) -> (proto::StartPreset, u32) {
    match start {
        NamedStart::Preset(p) => (proto_preset(p), 0),
        NamedStart::Moves(n) => (proto::StartPreset::Unspecified, n),
    }
}

fn handicap_moves(p: &proto::Position, field: &str) -> Result<u32, Status> {
    let n = p.handicap_moves;
    if n == 0 {
        return Ok(0);
    }
    let bad = |message: String| Err(bad_request(format!("{field}.handicap_moves"), message));
    if n > handicap::MAX_MOVES {
        return bad(format!("{n} handicap moves exceed the limit of {}", handicap::MAX_MOVES));
    }
    if !uses_preset(p) {
        return bad("handicap moves start from the standard position: leave fen empty or \"startpos\"".into());
    }
    match proto::StartPreset::try_from(p.preset) {
        Ok(proto::StartPreset::Unspecified | proto::StartPreset::Standard) => Ok(n),
        _ => bad("handicap moves go with START_PRESET_STANDARD (or none), not with another preset".into()),
    }
}

/// Parses the record's moves (ICCS) without playing them.
pub fn parse_moves(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<Vec<Move>, Status> {
    if p.moves.len() > limits.max_game_plies {
        return Err(bad_request(
            format!("{field}.moves"),
            format!("{} moves exceed the limit of {}", p.moves.len(), limits.max_game_plies),
        ));
    }
    p.moves
        .iter()
        .enumerate()
        .map(|(i, text)| {
            Move::parse_iccs(text)
                .ok_or_else(|| bad_request(format!("{field}.moves[{i}]"), format!("{text:?} is not an ICCS move")))
        })
        .collect()
}

/// The Janggi game of a request before any move: the FEN's position, or the start with
/// the two sides' setups when the FEN is empty or `startpos`.
fn new_janggi_game(p: &proto::Position, field: &str) -> Result<janggi::Game, Status> {
    if uses_preset(p) {
        match proto::StartPreset::try_from(p.preset) {
            Ok(proto::StartPreset::Unspecified | proto::StartPreset::Standard) => {}
            _ => return Err(bad_request(format!("{field}.preset"), "Janggi has no handicap presets")),
        }
        if p.handicap_moves != 0 {
            return Err(bad_request(format!("{field}.handicap_moves"), "Janggi has no handicap moves"));
        }
        let red = janggi_setup(p.red_setup, &format!("{field}.red_setup"))?;
        let black = janggi_setup(p.black_setup, &format!("{field}.black_setup"))?;
        return Ok(janggi::Game::new(janggi::start_position(red, black)));
    }
    let start = fen::janggi(&p.fen).map_err(|e| bad_request(format!("{field}.fen"), e.to_string()))?;
    Ok(janggi::Game::new(start))
}

/// A game of any served variant: the one place where the service dispatches on it.
#[derive(Clone, Debug)]
pub enum AnyGame {
    Xiangqi(Game),
    Janggi(janggi::Game),
}

/// Calls the same code on the game of either variant.
macro_rules! each {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            AnyGame::Xiangqi($g) => $body,
            AnyGame::Janggi($g) => $body,
        }
    };
}

impl AnyGame {
    /// The game of a request before any move.
    pub fn start(p: &proto::Position, field: &str) -> Result<AnyGame, Status> {
        Ok(match variant(p.variant, format_args!("{field}.variant"))? {
            Variant::Xiangqi => AnyGame::Xiangqi(new_xiangqi_game(p, field)?),
            Variant::Janggi => AnyGame::Janggi(new_janggi_game(p, field)?),
        })
    }

    /// Start position plus moves, every move checked; an illegal one is
    /// INVALID_ARGUMENT naming its index and reason.
    pub fn from_request(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<AnyGame, Status> {
        let mut game = AnyGame::start(p, field)?;
        let moves = parse_moves(p, field, limits)?;
        for (i, m) in moves.into_iter().enumerate() {
            if let Some(reason) = game.explain_illegal(m) {
                let detail = format!("{m} is illegal: {}", game.describe_reason(reason));
                return Err(bad_request(format!("{field}.moves[{i}]"), detail));
            }
            game.play_unchecked(m);
        }
        Ok(game)
    }

    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Xiangqi(_) => Variant::Xiangqi,
            AnyGame::Janggi(_) => Variant::Janggi,
        }
    }

    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        each!(self, g => g.explain_illegal(m))
    }

    /// The reason in words, in the variant's terms.
    pub fn describe_reason(&self, r: IllegalReason) -> &'static str {
        match (self, r) {
            (AnyGame::Janggi(_), IllegalReason::GameOver) => "the game is over: two passes in a row ended it",
            (AnyGame::Janggi(_), IllegalReason::PassNotAllowed) => "a side in check may not pass",
            _ => r.describe(),
        }
    }

    pub fn play_unchecked(&mut self, m: Move) {
        each!(self, g => { g.play_unchecked(m); })
    }

    pub fn legal_moves(&self, list: &mut MoveList) {
        each!(self, g => g.legal_moves(list))
    }

    pub fn plies(&self) -> usize {
        each!(self, g => g.plies().len())
    }

    pub fn board(&self) -> &Board {
        each!(self, g => g.position().board())
    }

    pub fn turn(&self) -> Color {
        each!(self, g => g.position().turn())
    }

    pub fn in_check(&self) -> bool {
        each!(self, g => g.position().in_check())
    }

    /// Does the side to move have a capture?
    pub fn has_captures(&self) -> bool {
        let mut list = MoveList::new();
        each!(self, g => g.position().legal_captures(&mut list));
        !list.is_empty()
    }

    /// FEN of the current position.
    pub fn fen(&self) -> String {
        each!(self, g => fen::format(&g.position().to_setup()))
    }

    /// The status of the current position.
    pub fn status(&self) -> proto::PositionStatus {
        self.describe_status(each!(self, g => g.position().status()))
    }

    /// [`AnyGame::status`] when the legal moves are already known.
    pub fn status_given(&self, legal_moves: &[Move]) -> proto::PositionStatus {
        self.describe_status(each!(self, g => g.position().status_given(!legal_moves.is_empty())))
    }

    fn describe_status(&self, status: BoardStatus) -> proto::PositionStatus {
        let bikjang = matches!(self, AnyGame::Janggi(g) if g.position().bikjang());
        each!(self, g => {
            let pos = g.position();
            position_status(status, pos.in_check(), pos.checkers(), pos.turn(), self.fen(), bikjang)
        })
    }

    /// What the API says of each of the legal `moves`, in order (one scratch copy of
    /// the position for all the check tests).
    pub fn move_facts(&self, moves: &[Move], mut each: impl FnMut(MoveFacts)) {
        each!(self, g => {
            let pos = g.position();
            let mut scratch = pos.clone();
            let zone = pos.check_zone();
            for &m in moves {
                let gives_check = board::touches(m, zone) && {
                    let undo = scratch.play_unchecked(m);
                    let in_check = scratch.in_check();
                    scratch.undo(m, undo);
                    in_check
                };
                let (mover, captured) =
                    if m.is_pass() { (None, None) } else { (pos.board().piece_at(m.from()), pos.board().piece_at(m.to())) };
                each(MoveFacts { m, mover, captured, gives_check });
            }
        })
    }

    /// Legal moves described for the API.
    pub fn describe_moves(&self, moves: &[Move]) -> Vec<proto::Move> {
        let mut described = Vec::with_capacity(moves.len());
        let turn = player(self.turn()) as i32;
        self.move_facts(moves, |facts| described.push(facts.describe(turn)));
        described
    }

    /// A legal move described for the API.
    pub fn describe_move(&self, m: Move) -> proto::Move {
        // One move in, one description out; the default is never reached.
        self.describe_moves(&[m]).pop().unwrap_or_default()
    }

    /// The game after the legal move `m`.
    pub fn after(&self, m: Move) -> AnyGame {
        let mut next = self.clone();
        next.play_unchecked(m);
        next
    }

    /// Reads a move written in `notation`: `Ok(Err(..))` when the text reads but names
    /// no move of this position (with the reason and detail), `Err` when it does not read
    /// or the notation does not apply to the variant.
    pub fn resolve_move(
        &self,
        text: &str,
        n: Notation,
    ) -> Result<Result<Move, (proto::IllegalMoveReason, String)>, Status> {
        use crate::notation::NotationErrorKind;
        self.check_notation(n, "notation")?;
        match each!(self, g => notation::resolve_move(g.position(), text, n)) {
            Ok(m) => Ok(Ok(m)),
            Err(e) if e.is_syntax() => Err(bad_request("move", e.to_string())),
            Err(e) => {
                let reason = match e.kind {
                    NotationErrorKind::Ambiguous { .. } | NotationErrorKind::TandemFiles { .. } => {
                        proto::IllegalMoveReason::Ambiguous
                    }
                    NotationErrorKind::CannotMove { .. } => proto::IllegalMoveReason::CannotMoveThatWay,
                    _ => proto::IllegalMoveReason::NoPiece,
                };
                Ok(Err((reason, e.to_string())))
            }
        }
    }

    /// Reads a legal move of the current position written in `n` (see
    /// [`AnyGame::check_notation`]).
    pub fn parse_move(&self, text: &str, n: Notation) -> Result<Move, notation::NotationError> {
        each!(self, g => notation::parse_move(g.position(), text, n))
    }

    /// Writes a legal move of the current position in `n`.
    pub fn format_move(&self, m: Move, n: Notation) -> String {
        each!(self, g => notation::format_move(g.position(), m, n))
    }

    /// Checks that the variant's moves are written in the notation of the request's
    /// field (see [`check_notation`]).
    pub fn check_notation(&self, n: Notation, field: &str) -> Result<(), Status> {
        check_notation(self.variant(), n, field)
    }

    /// Checks that the variant can render the requested notations.
    pub fn check_notations(&self, notations: &[(i32, Notation)], field: &str) -> Result<(), Status> {
        for (i, &(_, n)) in notations.iter().enumerate() {
            self.check_notation(n, &format!("{field}[{i}]"))?;
        }
        Ok(())
    }

    /// A legal move in each requested notation (see [`AnyGame::check_notations`]).
    pub fn render(&self, m: Move, notations: &[(i32, Notation)]) -> Vec<proto::NotationText> {
        each!(self, g => render(g.position(), m, notations))
    }

    /// What the legal move `m` would make of a repetition under `rules`.
    pub fn warning(&self, m: Move, rules: AnyRuleSet) -> proto::MoveWarning {
        match (self, rules) {
            (AnyGame::Xiangqi(g), AnyRuleSet::Xiangqi(r)) => {
                warning(crate::rules::xiangqi::adjudicate::move_warning(g, m, r))
            }
            (AnyGame::Janggi(g), AnyRuleSet::Janggi(r)) => {
                let mut next = g.clone();
                next.play_unchecked(m);
                let mover = g.position().turn();
                match janggi::adjudicate::judge_position(&next, r) {
                    Some(ruling) if ruling.cycle.is_some() => match ruling.result {
                        outcome::GameResult::Draw => proto::MoveWarning::RepetitionDraw,
                        outcome::GameResult::Win(w) if w != mover => proto::MoveWarning::ForbiddenCycle,
                        _ => proto::MoveWarning::Unspecified,
                    },
                    _ => proto::MoveWarning::Unspecified,
                }
            }
            _ => proto::MoveWarning::Unspecified,
        }
    }
}

/// A rule set of any served variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyRuleSet {
    Xiangqi(RuleSet),
    Janggi(janggi::adjudicate::RuleSet),
}

impl AnyRuleSet {
    pub const fn name(self) -> &'static str {
        match self {
            AnyRuleSet::Xiangqi(r) => r.name(),
            AnyRuleSet::Janggi(r) => r.name(),
        }
    }

    /// The rule set a request for `variant` gets when it names none.
    pub fn default_for(variant: Variant) -> AnyRuleSet {
        match variant {
            Variant::Xiangqi => AnyRuleSet::Xiangqi(RuleSet::default()),
            Variant::Janggi => AnyRuleSet::Janggi(janggi::adjudicate::RuleSet::default()),
        }
    }

    pub fn to_proto(self) -> proto::RuleSet {
        use janggi::adjudicate::RuleSet as J;
        match self {
            AnyRuleSet::Xiangqi(RuleSet::SimplifiedV1) => proto::RuleSet::SimplifiedV1,
            AnyRuleSet::Xiangqi(RuleSet::AsianV1) => proto::RuleSet::AsianV1,
            AnyRuleSet::Xiangqi(RuleSet::TournamentV1) => proto::RuleSet::TournamentV1,
            AnyRuleSet::Janggi(J::CasualV1) => proto::RuleSet::JanggiCasualV1,
            AnyRuleSet::Janggi(J::TournamentV1) => proto::RuleSet::JanggiTournamentV1,
        }
    }
}

pub fn player(c: Color) -> proto::Player {
    match c {
        Color::Red => proto::Player::Red,
        Color::Black => proto::Player::Black,
    }
}

pub fn piece_kind(k: PieceKind) -> proto::PieceKind {
    match k {
        PieceKind::General => proto::PieceKind::General,
        PieceKind::Advisor => proto::PieceKind::Advisor,
        PieceKind::Elephant => proto::PieceKind::Elephant,
        PieceKind::Horse => proto::PieceKind::Horse,
        PieceKind::Chariot => proto::PieceKind::Chariot,
        PieceKind::Cannon => proto::PieceKind::Cannon,
        PieceKind::Pawn => proto::PieceKind::Soldier,
    }
}

/// A point of the 9x10 board: file and rank name it, `name` stays empty.
pub fn point(sq: Square) -> proto::Point {
    proto::Point { file: sq.file() as u32, rank: sq.rank() as u32, name: String::new() }
}

/// Reads a structured point of the 9x10 board.
pub fn square(p: &proto::Point, field: &str) -> Result<Square, Status> {
    if p.file >= 9 || p.rank >= 10 {
        return Err(bad_request(field, format!("point ({}, {}) is off the 9x10 board", p.file, p.rank)));
    }
    Ok(Square::new(p.file as u8, p.rank as u8))
}

/// Clears `player` in the moves of a list: they are all the side to move's, which the
/// list's status names once. (It keeps the start position's list under 1 KiB, the
/// size up to which HTTP/2 sends many responses in one write.)
pub fn clear_mover(moves: &mut [proto::Move]) {
    for m in moves {
        m.player = proto::Player::Unspecified as i32;
    }
}

/// The ICCS text of a move, as bytes: file letter and rank digit of each point, or
/// `pass` (without the formatting machinery of `to_string`).
fn iccs_bytes(m: Move) -> [u8; 4] {
    if m.is_pass() {
        return *b"pass";
    }
    let (from, to) = (m.from(), m.to());
    [b'a' + from.file(), b'0' + from.rank(), b'a' + to.file(), b'0' + to.rank()]
}

/// What the API says of one legal move: the pieces it moves and takes, and whether it
/// checks. [`MoveFacts::describe`] makes it a message; the move list writes it as bytes.
#[derive(Clone, Copy, Debug)]
pub struct MoveFacts {
    pub m: Move,
    pub mover: Option<Piece>,
    pub captured: Option<Piece>,
    pub gives_check: bool,
}

impl MoveFacts {
    /// The move as a message, made by `player` (a `proto::Player` value; unspecified
    /// leaves it unset).
    pub fn describe(&self, player_value: i32) -> proto::Move {
        let m = self.m;
        proto::Move {
            iccs: iccs_bytes(m).iter().map(|&b| char::from(b)).collect(),
            from: (!m.is_pass()).then(|| point(m.from())),
            to: (!m.is_pass()).then(|| point(m.to())),
            piece: self.mover.map_or(proto::PieceKind::Unspecified, |p| piece_kind(p.kind())) as i32,
            captured: self.captured.map_or(proto::PieceKind::Unspecified, |p| piece_kind(p.kind())) as i32,
            captured_owner: self.captured.map_or(proto::Player::Unspecified, |p| player(p.color())) as i32,
            player: player_value,
            gives_check: self.gives_check,
            is_pass: m.is_pass(),
            notations: Vec::new(),
            warning: proto::MoveWarning::Unspecified as i32,
        }
    }

    /// The fields of [`MoveFacts::describe`] with `player` unset, as protobuf bytes
    /// (fields 1 to 9 of `chuhe.v1.Move`). Every number here is below 128, a one-byte
    /// varint, and a point's body takes at most 4 bytes, so the fields are written on
    /// the stack at fixed sizes; the move list copies them out whole.
    #[inline]
    pub fn encode(&self) -> MoveFields {
        let m = self.m;
        let mut out = MoveFields { bytes: [0; MoveFields::MAX], len: 0 };
        out.pair(1 << 3 | LENGTH_DELIMITED, 4);
        out.bytes[2..6].copy_from_slice(&iccs_bytes(m));
        out.len = 6;
        if !m.is_pass() {
            for (field, sq) in [(2, m.from()), (3, m.to())] {
                let (file, rank) = (sq.file(), sq.rank());
                out.pair(field << 3 | LENGTH_DELIMITED, 2 * u8::from(file != 0) + 2 * u8::from(rank != 0));
                out.varint_field(1, file);
                out.varint_field(2, rank);
            }
        }
        let kind = |p: Option<Piece>| p.map_or(0, |p| piece_kind(p.kind()) as u8);
        out.varint_field(4, kind(self.mover));
        out.varint_field(5, kind(self.captured));
        out.varint_field(6, self.captured.map_or(0, |p| player(p.color()) as u8));
        out.varint_field(8, u8::from(self.gives_check));
        out.varint_field(9, u8::from(m.is_pass()));
        out
    }
}

/// The bytes [`MoveFacts::encode`] writes.
pub struct MoveFields {
    bytes: [u8; MoveFields::MAX],
    len: usize,
}

impl MoveFields {
    /// ICCS 6, two points 6 each, then five one-byte fields of 2.
    const MAX: usize = 28;

    /// Appends the fields to a response being written.
    #[inline]
    pub fn write_to(&self, w: &mut Writer) {
        w.raw(&self.bytes, self.len);
    }

    #[inline]
    fn pair(&mut self, a: u8, b: u8) {
        self.bytes[self.len] = a;
        self.bytes[self.len + 1] = b;
        self.len += 2;
    }

    /// A varint field (wire type 0) of a value below 128, left out at 0 as proto3 does.
    #[inline]
    fn varint_field(&mut self, field: u8, v: u8) {
        debug_assert!(v < 0x80 && field < 16);
        if v != 0 {
            self.pair(field << 3 | VARINT, v);
        }
    }
}

fn position_status(
    status: BoardStatus,
    in_check: bool,
    checkers: Bitboard,
    turn: Color,
    fen: String,
    bikjang: bool,
) -> proto::PositionStatus {
    let s = match status {
        BoardStatus::Ongoing => proto::GameStatus::Ongoing,
        BoardStatus::Checkmate => proto::GameStatus::Checkmate,
        BoardStatus::Stalemate => proto::GameStatus::Stalemate,
        BoardStatus::Ended => proto::GameStatus::Ended,
    };
    proto::PositionStatus {
        status: s as i32,
        in_check,
        checkers: crate::rules::board::squares(checkers).map(point).collect(),
        side_to_move: player(turn) as i32,
        fen,
        eliminated: Vec::new(),
        bikjang,
    }
}

pub fn illegal_reason(r: IllegalReason) -> proto::IllegalMoveReason {
    use proto::IllegalMoveReason as P;
    match r {
        IllegalReason::GameOver => P::GameOver,
        IllegalReason::PassNotAllowed => P::PassNotAllowed,
        IllegalReason::NoPiece => P::NoPiece,
        IllegalReason::NotYourPiece => P::NotYourPiece,
        IllegalReason::CapturesOwnPiece => P::CapturesOwnPiece,
        IllegalReason::CannotMoveThatWay => P::CannotMoveThatWay,
        IllegalReason::PathBlocked => P::PathBlocked,
        IllegalReason::CannonNeedsOneScreen => P::CannonNeedsOneScreen,
        IllegalReason::LeavesGeneralAttacked => P::LeavesGeneralAttacked,
        IllegalReason::GeneralsFace => P::GeneralsFace,
        IllegalReason::HandicapCrossesRiver
        | IllegalReason::HandicapOwnRiverBank
        | IllegalReason::HandicapExtraMoveChecks
        | IllegalReason::HandicapProtectedPiece => P::HandicapRestriction,
    }
}

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

/// The notations a request asks moves to be rendered in: each requested value with
/// its notation.
pub fn notations(values: &[i32], field: &str) -> Result<Vec<(i32, Notation)>, Status> {
    values.iter().enumerate().map(|(i, &v)| Ok((v, notation(v, &format!("{field}[{i}]"))?))).collect()
}

/// A legal move of `pos` in each requested notation.
pub fn render(pos: &impl notation::MovePosition, m: Move, notations: &[(i32, Notation)]) -> Vec<proto::NotationText> {
    notations
        .iter()
        .map(|&(value, n)| proto::NotationText { notation: value, text: notation::format_move(pos, m, n) })
        .collect()
}

/// The rule set of a request for a game of `variant`: unspecified means the variant's
/// default; an unknown value, or a rule set of another variant, is refused.
pub fn rule_set(value: i32, field: &str, variant: Variant) -> Result<AnyRuleSet, Status> {
    Ok(optional_rule_set(value, field, variant)?.unwrap_or_else(|| AnyRuleSet::default_for(variant)))
}

/// The rule set of a request where it may be left unspecified (`None`), as for the move
/// warnings of ListLegalMoves and ValidateMove.
pub fn optional_rule_set(value: i32, field: &str, variant: Variant) -> Result<Option<AnyRuleSet>, Status> {
    use janggi::adjudicate::RuleSet as J;
    let rules = match proto::RuleSet::try_from(value) {
        Err(_) => return Err(bad_request(field, format!("unknown rule set {value}"))),
        Ok(proto::RuleSet::Unspecified) => return Ok(None),
        Ok(proto::RuleSet::SimplifiedV1) => AnyRuleSet::Xiangqi(RuleSet::SimplifiedV1),
        Ok(proto::RuleSet::AsianV1) => AnyRuleSet::Xiangqi(RuleSet::AsianV1),
        Ok(proto::RuleSet::TournamentV1) => AnyRuleSet::Xiangqi(RuleSet::TournamentV1),
        Ok(proto::RuleSet::JanggiCasualV1) => AnyRuleSet::Janggi(J::CasualV1),
        Ok(proto::RuleSet::JanggiTournamentV1) => AnyRuleSet::Janggi(J::TournamentV1),
        Ok(other) => return Err(unimplemented(format!("rule set {} is not served yet", other.as_str_name()))),
    };
    match (rules, variant) {
        (AnyRuleSet::Xiangqi(_), Variant::Xiangqi) | (AnyRuleSet::Janggi(_), Variant::Janggi) => Ok(Some(rules)),
        _ => Err(bad_request(field, format!("rule set {} is not a {} rule set", rules.name(), variant.name()))),
    }
}

pub fn warning(w: Option<Warning>) -> proto::MoveWarning {
    match w {
        None => proto::MoveWarning::Unspecified,
        Some(Warning::RepetitionDraw) => proto::MoveWarning::RepetitionDraw,
        Some(Warning::ForbiddenCycle) => proto::MoveWarning::ForbiddenCycle,
    }
}

pub fn chase_step(c: &outcome::ChaseStep) -> proto::ChaseStep {
    proto::ChaseStep {
        ply: c.ply as u32,
        chaser: Some(point(c.chaser)),
        chaser_kind: piece_kind(c.chaser_kind) as i32,
        chased: Some(point(c.chased)),
        chased_kind: piece_kind(c.chased_kind) as i32,
    }
}

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
