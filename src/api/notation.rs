//! NotationService: move conversion between notations, and PGN-style game records,
//! each RPC a plain function of its request (the CLI's `convert` calls the same). A
//! request's game is routed by its variant in [`super::game`], as in the other RPCs:
//! Three Kingdoms moves are converted in their one notation (point names); its records
//! are not served (UNIMPLEMENTED naming the field).

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request, required};
use super::variant::NotationCalls;
use super::{game, proto, three_kingdoms};
use crate::game::{BoardGame, Variant};
use crate::notation::record::{self, Comment, JanggiRecord, Record, RecordError};
use crate::notation::{Notation, fen};
use crate::rules::outcome::GameResult;
use crate::rules::xiangqi::handicap::{NamedStart, Preset};

/// ConvertMoves: a sequence of moves from one notation to another, each checked. A
/// Three Kingdoms game has one notation, its point names.
pub fn convert_moves(
    req: &proto::ConvertMovesRequest,
    limits: ContentLimits,
) -> Result<proto::ConvertMovesResponse, Error> {
    let start = required(req.start.as_ref(), "start")?;
    known_notation(req.from, "from")?;
    known_notation(req.to, "to")?;
    limits.check_plies(start.moves.len() + req.moves.len(), "moves")?;
    game::request_position(start, "start", limits)?.convert_moves(req)
}

/// ConvertMoves in a 9x10 game, the request's `start`.
fn convert_board_moves(
    req: &proto::ConvertMovesRequest,
    mut game: BoardGame,
) -> Result<proto::ConvertMovesResponse, Error> {
    let from = convert::notation(req.from, "from")?;
    let to = convert::notation(req.to, "to")?;
    convert::check_notation(game.variant(), from, "from")?;
    convert::check_notation(game.variant(), to, "to")?;
    let target = [(req.to, to)];
    let mut resp = proto::ConvertMovesResponse::default();
    for (i, text) in req.moves.iter().enumerate() {
        let field = || format!("moves[{i}]");
        let m = game.parse_move(text, from).map_err(|e| bad_request(field(), e.to_string()))?;
        if let Some(reason) = game.explain_illegal(m) {
            return Err(bad_request(field(), format!("{text:?} ({m}) is illegal: {}", game.describe_reason(reason))));
        }
        resp.moves.push(game.format_move(m, to));
        let mut detail = convert::describe_move(&game, m);
        detail.notations = convert::render(&game, m, &target);
        resp.details.push(detail);
        game.play_unchecked(m);
    }
    Ok(resp)
}

/// A notation field's value is one of the enum's (whether it applies to the request's
/// variant is checked with its game).
fn known_notation(value: i32, field: &str) -> Result<(), Error> {
    match proto::Notation::try_from(value) {
        Ok(_) => Ok(()),
        Err(_) => Err(bad_request(field, format!("unknown notation {value}"))),
    }
}

/// The variant a `Variant` tag names; an unknown one is INVALID_ARGUMENT naming `text`.
fn variant_tag(value: &str) -> Result<Variant, Error> {
    let v: String = value.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    match v.as_str() {
        "xiangqi" | "chinesechess" | "xq" | "象棋" | "中国象棋" => Ok(Variant::Xiangqi),
        "janggi" | "koreanchess" | "장기" | "將棋" => Ok(Variant::Janggi),
        "threekingdoms" | "threekingdomsxiangqi" => Ok(Variant::ThreeKingdoms),
        _ => Err(bad_request("text", format!("Variant tag: unknown variant {value:?}"))),
    }
}

/// ImportRecord: a game record's text read and replayed, every move checked.
pub fn import_record(
    req: &proto::ImportRecordRequest,
    limits: ContentLimits,
) -> Result<proto::ImportRecordResponse, Error> {
    known_notation(req.notation, "notation")?;
    let raw = record::split(&req.text).map_err(|e| bad_request("text", e.to_string()))?;
    let (variant, field) = match game::request_variant(req.variant, "variant")? {
        Some(variant) => (variant, "variant"),
        None => (raw.tag("Variant").map_or(Ok(Variant::Xiangqi), variant_tag)?, "text"),
    };
    if variant == Variant::ThreeKingdoms {
        return Err(three_kingdoms::no_records(field));
    }
    let notation = match proto::Notation::try_from(req.notation) {
        Ok(proto::Notation::Unspecified) => None,
        _ => Some(convert::notation(req.notation, "notation")?),
    };
    if let Some(n) = notation {
        convert::check_notation(variant, n, "notation")?;
    }
    limits.check_plies(raw.moves.len(), "text")?;
    let unreadable = |e: RecordError| bad_request("text", e.to_string());
    Ok(match variant {
        Variant::ThreeKingdoms => return Err(three_kingdoms::no_records(field)),
        Variant::Xiangqi => {
            let (rec, notation) = record::replay(raw, notation).map_err(unreadable)?;
            let (fen, (preset, handicap_moves)) = match rec.named_start {
                Some(start) => (String::new(), convert::proto_start(start)),
                None if rec.tag("FEN").is_some() => {
                    (fen::format(&rec.start.to_setup()), (proto::StartPreset::Unspecified, 0))
                }
                None => (String::new(), (proto::StartPreset::Unspecified, 0)),
            };
            let position = proto::Position { fen, preset: preset as i32, handicap_moves, ..Default::default() };
            imported(position, Variant::Xiangqi, &rec.tags, &rec.moves, &rec.comments, rec.result, notation)
        }
        Variant::Janggi => {
            let (rec, notation) = record::replay_janggi(raw, notation).map_err(unreadable)?;
            let mut position = proto::Position::default();
            if rec.tag("FEN").is_some() {
                position.fen = fen::format(&rec.start.to_setup());
            } else if let Some((cho, han)) = rec.named_start {
                position.red_setup = convert::proto_janggi_setup(cho) as i32;
                position.black_setup = convert::proto_janggi_setup(han) as i32;
            }
            imported(position, Variant::Janggi, &rec.tags, &rec.moves, &rec.comments, rec.result, notation)
        }
    })
}

/// The response of ImportRecord: the record's start `position` with its variant and
/// moves, and what else it states.
fn imported(
    mut position: proto::Position,
    variant: Variant,
    tags: &[(String, String)],
    moves: &[crate::rules::types::Move],
    comments: &[Comment],
    result: GameResult,
    notation: Notation,
) -> proto::ImportRecordResponse {
    let (result, winner) = match result {
        GameResult::Ongoing => (proto::GameResult::Ongoing, proto::Player::Unspecified),
        GameResult::Draw => (proto::GameResult::Draw, proto::Player::Unspecified),
        GameResult::Win(c) => (proto::GameResult::Win, proto::Player::from(c)),
    };
    position.variant = convert::proto_variant(variant) as i32;
    position.moves = moves.iter().map(|m| m.to_string()).collect();
    proto::ImportRecordResponse {
        position: Some(position),
        tags: tags.iter().map(|(name, value)| proto::RecordTag { name: name.clone(), value: value.clone() }).collect(),
        result: result as i32,
        winner: winner as i32,
        notation: convert::proto_notation(notation) as i32,
        comments: comments.iter().map(|c| proto::RecordComment { ply: c.ply as u32, text: c.text.clone() }).collect(),
    }
}

/// ExportRecord: a game as a record's text in the notation asked for.
pub fn export_record(
    req: &proto::ExportRecordRequest,
    limits: ContentLimits,
) -> Result<proto::ExportRecordResponse, Error> {
    let position = required(req.position.as_ref(), "position")?;
    known_notation(req.notation, "notation")?;
    game::request_position(position, "position", limits)?.export_record(req)
}

/// ExportRecord of a 9x10 game, the request's `position`.
fn export_board_record(
    req: &proto::ExportRecordRequest,
    game: BoardGame,
) -> Result<proto::ExportRecordResponse, Error> {
    let position = required(req.position.as_ref(), "position")?;
    let notation = convert::notation(req.notation, "notation")?;
    convert::check_notation(game.variant(), notation, "notation")?;
    let mut result = GameResult::Ongoing;
    for (i, tag) in req.tags.iter().enumerate() {
        let bad_name = tag.name.is_empty() || !tag.name.chars().all(|c| c.is_alphanumeric() || c == '_');
        if bad_name {
            return Err(bad_request(format!("tags[{i}].name"), "a tag name is letters, digits and '_'"));
        }
        if tag.value.contains(['\n', '\r']) {
            return Err(bad_request(format!("tags[{i}].value"), "a tag value is one line"));
        }
        if tag.name.eq_ignore_ascii_case("Result") {
            result = record::parse_result(&tag.value).ok_or_else(|| {
                bad_request(format!("tags[{i}].value"), format!("{:?} is not 1-0, 0-1, 1/2-1/2 or *", tag.value))
            })?;
        }
    }
    let plies = game.plies();
    let mut comments = Vec::with_capacity(req.comments.len());
    for (i, c) in req.comments.iter().enumerate() {
        if c.ply as usize > plies {
            return Err(bad_request(format!("comments[{i}].ply"), format!("ply {} is past the {plies} moves", c.ply)));
        }
        comments.push(Comment { ply: c.ply as usize, text: c.text.clone() });
    }
    let tags: Vec<(String, String)> = req.tags.iter().map(|t| (t.name.clone(), t.value.clone())).collect();
    let text = match &game {
        BoardGame::Xiangqi(game, _) => {
            // A record names its handicap start by its Preset tag.
            let start = convert::named_start(position, "position")?;
            let preset =
                (convert::uses_preset(position) && start != NamedStart::Preset(Preset::Standard)).then_some(start);
            let moves = game.plies().iter().map(|p| p.mv).collect();
            let rec = Record { tags, named_start: preset, start: game.start().clone(), moves, comments, result };
            record::export(&rec, notation)
        }
        BoardGame::Janggi(game, _) => {
            // A start of setups is written by its setup tags.
            let setups = if convert::uses_preset(position) {
                Some((
                    convert::janggi_setup(position.red_setup, "position.red_setup")?,
                    convert::janggi_setup(position.black_setup, "position.black_setup")?,
                ))
            } else {
                None
            };
            let moves = game.plies().iter().map(|p| p.mv).collect();
            let rec = JanggiRecord { tags, named_start: setups, start: game.start().clone(), moves, comments, result };
            record::export_janggi(&rec, notation)
        }
    };
    Ok(proto::ExportRecordResponse { text })
}

/// NotationService in a 9x10 game.
impl NotationCalls for BoardGame {
    fn convert_moves(self, req: &proto::ConvertMovesRequest) -> Result<proto::ConvertMovesResponse, Error> {
        convert_board_moves(req, self)
    }

    fn export_record(self, req: &proto::ExportRecordRequest) -> Result<proto::ExportRecordResponse, Error> {
        export_board_record(req, self)
    }
}
