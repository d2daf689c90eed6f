//! A request's position as a game of the variant layer: its variant, start (FEN,
//! preset, handicap, Janggi setups) and moves, each checked, within the server's limits.

use crate::api::error::{Error, bad_request, unimplemented};
use crate::api::proto;
use crate::game::{BoardGame, Variant};
use crate::notation::fen;
use crate::rules::janggi::{self, Setup4};
use crate::rules::types::Move;
use crate::rules::xiangqi::Game;
use crate::rules::xiangqi::handicap::{self, NamedStart, Preset};

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
/// INVALID_ARGUMENT. The RPCs that serve Three Kingdoms (or answer it themselves, as
/// the record calls do) route it in `api::game` before they get here; the others
/// (audits) do not serve it: UNIMPLEMENTED.
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

/// The API's Janggi side setup for a setup.
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

/// The API's start preset for a preset.
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
pub fn start_game(p: &proto::Position, field: &str) -> Result<BoardGame, Status> {
    Ok(match variant(p.variant, format_args!("{field}.variant"))? {
        Variant::Janggi => BoardGame::Janggi(new_janggi_game(p, field)?, None),
        _ => BoardGame::Xiangqi(new_xiangqi_game(p, field)?, None),
    })
}

/// Start position plus moves, every move checked; an illegal one is INVALID_ARGUMENT
/// naming its index and reason.
pub fn game_from_request(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<BoardGame, Status> {
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
