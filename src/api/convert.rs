//! Proto <-> domain conversions for the 9x10 games: a request's position becomes an
//! [`AnyGame`] of the variant layer, its enums the domain's, and the domain's answers
//! messages. The variant is dispatched by [`AnyGame`] and [`RuleSet`]; the RPCs never
//! match on it themselves.

use super::error::{Error, bad_request, unimplemented};
use super::proto;
use super::wire::{LENGTH_DELIMITED, VARINT, Writer};
use crate::game::{AnyGame, MoveFacts, RuleSet, Variant};
use crate::notation::{Notation, fen};
use crate::rules::illegal::IllegalReason;
use crate::rules::janggi::{self, Setup4};
use crate::rules::types::{Color, Move, Piece, PieceKind, Square};
use crate::rules::xiangqi::Game;
use crate::rules::xiangqi::adjudicate::Warning;
use crate::rules::xiangqi::handicap::{self, NamedStart, Preset};
use crate::rules::{Status as BoardStatus, outcome};

type Status = Error;

/// Server-side limits that apply to request contents.
#[derive(Clone, Copy, Debug)]
pub struct ContentLimits {
    /// Most moves a position or game record may carry.
    pub max_game_plies: usize,
}

impl ContentLimits {
    /// Checks that `plies` moves, in the request's `field`, are within the limit.
    pub fn check_plies(self, plies: usize, field: impl std::fmt::Display) -> Result<(), Error> {
        if plies > self.max_game_plies {
            return Err(bad_request(
                field.to_string(),
                format!("{plies} moves exceed the limit of {}", self.max_game_plies),
            ));
        }
        Ok(())
    }
}

/// The API's variant enum for a variant.
pub const fn proto_variant(v: Variant) -> proto::Variant {
    match v {
        Variant::Xiangqi => proto::Variant::Xiangqi,
        Variant::Janggi => proto::Variant::Janggi,
        Variant::ThreeKingdoms => proto::Variant::ThreeKingdoms,
    }
}

/// Reads the variant field of a 9x10 game: unknown or unspecified is
/// INVALID_ARGUMENT. The RPCs that serve Three Kingdoms answer it in
/// [`super::three_kingdoms`] before they get here; the others (notations and records)
/// do not serve it: UNIMPLEMENTED.
/// The field name is formatted only for an error: the usual call passes `format_args!`.
pub fn variant(value: i32, field: impl std::fmt::Display) -> Result<Variant, Status> {
    match proto::Variant::try_from(value) {
        Err(_) => Err(bad_request(field.to_string(), format!("unknown variant {value}"))),
        Ok(proto::Variant::Unspecified) => Err(bad_request(field.to_string(), "variant must be set")),
        Ok(proto::Variant::Xiangqi) => Ok(Variant::Xiangqi),
        Ok(proto::Variant::Janggi) => Ok(Variant::Janggi),
        Ok(proto::Variant::ThreeKingdoms) => {
            Err(unimplemented("Three Kingdoms moves are written only as point names; this call is not served for it"))
        }
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
    limits.check_plies(p.moves.len(), format_args!("{field}.moves"))?;
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

/// The game of a request before any move.
pub fn start_game(p: &proto::Position, field: &str) -> Result<AnyGame, Status> {
    Ok(match variant(p.variant, format_args!("{field}.variant"))? {
        Variant::Janggi => AnyGame::Janggi(new_janggi_game(p, field)?),
        _ => AnyGame::Xiangqi(new_xiangqi_game(p, field)?),
    })
}

/// Start position plus moves, every move checked; an illegal one is INVALID_ARGUMENT
/// naming its index and reason.
pub fn game_from_request(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<AnyGame, Status> {
    let mut game = start_game(p, field)?;
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

/// The status of the game's current position.
pub fn game_status(game: &AnyGame) -> proto::PositionStatus {
    describe_status(game, game.status())
}

/// [`game_status`] when the legal moves are already known.
pub fn game_status_given(game: &AnyGame, legal_moves: &[Move]) -> proto::PositionStatus {
    describe_status(game, game.status_given(!legal_moves.is_empty()))
}

fn describe_status(game: &AnyGame, status: BoardStatus) -> proto::PositionStatus {
    let s = match status {
        BoardStatus::Ongoing => proto::GameStatus::Ongoing,
        BoardStatus::Checkmate => proto::GameStatus::Checkmate,
        BoardStatus::Stalemate => proto::GameStatus::Stalemate,
        BoardStatus::Ended => proto::GameStatus::Ended,
    };
    proto::PositionStatus {
        status: s as i32,
        in_check: game.in_check(),
        checkers: crate::rules::board::squares(game.checkers()).map(proto::Point::from).collect(),
        side_to_move: proto::Player::from(game.turn()) as i32,
        fen: game.fen(),
        eliminated: Vec::new(),
        bikjang: game.bikjang(),
    }
}

/// Legal moves described for the API.
pub fn describe_moves(game: &AnyGame, moves: &[Move]) -> Vec<proto::Move> {
    let mut described = Vec::with_capacity(moves.len());
    let turn = proto::Player::from(game.turn()) as i32;
    game.move_facts(moves, |facts| described.push(describe_facts(&facts, turn)));
    described
}

/// A legal move described for the API.
pub fn describe_move(game: &AnyGame, m: Move) -> proto::Move {
    // One move in, one description out; the default is never reached.
    describe_moves(game, &[m]).pop().unwrap_or_default()
}

/// Reads a move written in `notation`: `Ok(Err(..))` when the text reads but names no
/// move of this position (with the reason and detail), `Err` when it does not read or
/// the notation does not apply to the variant.
pub fn resolve_move(
    game: &AnyGame,
    text: &str,
    n: Notation,
) -> Result<Result<Move, (proto::IllegalMoveReason, String)>, Status> {
    use crate::notation::NotationErrorKind;
    check_notation(game.variant(), n, "notation")?;
    match game.resolve_move(text, n) {
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

/// Checks that the game's variant can render the requested notations.
pub fn check_notations(game: &AnyGame, notations: &[(i32, Notation)], field: &str) -> Result<(), Status> {
    for (i, &(_, n)) in notations.iter().enumerate() {
        check_notation(game.variant(), n, &format!("{field}[{i}]"))?;
    }
    Ok(())
}

/// A legal move in each requested notation (see [`check_notations`]).
pub fn render(game: &AnyGame, m: Move, notations: &[(i32, Notation)]) -> Vec<proto::NotationText> {
    notations.iter().map(|&(value, n)| proto::NotationText { notation: value, text: game.format_move(m, n) }).collect()
}

/// What the legal move `m` would make of a repetition under `rules`.
pub fn move_warning(game: &AnyGame, m: Move, rules: RuleSet) -> proto::MoveWarning {
    warning(game.warning(m, rules))
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

impl From<Color> for proto::Player {
    fn from(c: Color) -> proto::Player {
        match c {
            Color::Red => proto::Player::Red,
            Color::Black => proto::Player::Black,
        }
    }
}

impl From<PieceKind> for proto::PieceKind {
    fn from(k: PieceKind) -> proto::PieceKind {
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
}

/// A point of the 9x10 board: file and rank name it, `name` stays empty.
impl From<Square> for proto::Point {
    fn from(sq: Square) -> proto::Point {
        proto::Point { file: sq.file() as u32, rank: sq.rank() as u32, name: String::new() }
    }
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

/// A legal move as a message, made by `player` (a `proto::Player` value; unspecified
/// leaves it unset).
pub fn describe_facts(facts: &MoveFacts, player_value: i32) -> proto::Move {
    let m = facts.m;
    proto::Move {
        iccs: iccs_bytes(m).iter().map(|&b| char::from(b)).collect(),
        from: (!m.is_pass()).then(|| proto::Point::from(m.from())),
        to: (!m.is_pass()).then(|| proto::Point::from(m.to())),
        piece: facts.mover.map_or(proto::PieceKind::Unspecified, |p| proto::PieceKind::from(p.kind())) as i32,
        captured: facts.captured.map_or(proto::PieceKind::Unspecified, |p| proto::PieceKind::from(p.kind())) as i32,
        captured_owner: facts.captured.map_or(proto::Player::Unspecified, |p| proto::Player::from(p.color())) as i32,
        player: player_value,
        gives_check: facts.gives_check,
        is_pass: m.is_pass(),
        notations: Vec::new(),
        warning: proto::MoveWarning::Unspecified as i32,
    }
}

/// The fields of [`describe_facts`] with `player` unset, as protobuf bytes (fields 1
/// to 9 of `chuhe.v1.Move`). Every number here is below 128, a one-byte varint, and a
/// point's body takes at most 4 bytes, so the fields are written on the stack at fixed
/// sizes; the move list copies them out whole.
#[inline]
pub fn encode_facts(facts: &MoveFacts) -> MoveFields {
    let m = facts.m;
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
    let kind = |p: Option<Piece>| p.map_or(0, |p| proto::PieceKind::from(p.kind()) as u8);
    out.varint_field(4, kind(facts.mover));
    out.varint_field(5, kind(facts.captured));
    out.varint_field(6, facts.captured.map_or(0, |p| proto::Player::from(p.color()) as u8));
    out.varint_field(8, u8::from(facts.gives_check));
    out.varint_field(9, u8::from(m.is_pass()));
    out
}

/// The bytes [`encode_facts`] writes.
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

/// The rule set of a request for a game of `variant`: unspecified means the variant's
/// default; an unknown value, or a rule set of another variant, is refused.
pub fn rule_set(value: i32, field: &str, variant: Variant) -> Result<RuleSet, Status> {
    Ok(optional_rule_set(value, field, variant)?.unwrap_or_else(|| RuleSet::default_for(variant)))
}

/// The rule set of a request where it may be left unspecified (`None`), as for the move
/// warnings of ListLegalMoves and ValidateMove.
pub fn optional_rule_set(value: i32, field: &str, variant: Variant) -> Result<Option<RuleSet>, Status> {
    match proto::RuleSet::try_from(value) {
        Err(_) => Err(bad_request(field, format!("unknown rule set {value}"))),
        Ok(proto::RuleSet::Unspecified) => Ok(None),
        Ok(named) => match rule_set_of(named) {
            Some(rules) => rules.for_variant(variant).map(Some).map_err(|e| bad_request(field, e.to_string())),
            None => Err(unimplemented(format!("rule set {} is not served yet", named.as_str_name()))),
        },
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
        chaser: Some(proto::Point::from(c.chaser)),
        chaser_kind: proto::PieceKind::from(c.chaser_kind) as i32,
        chased: Some(proto::Point::from(c.chased)),
        chased_kind: proto::PieceKind::from(c.chased_kind) as i32,
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
