//! NotationService: move conversion between notations, and PGN-style game records.
//! Each RPC is a plain function of its request (the CLI's `convert` calls the same).

use tonic::{Request, Response, Status};

use super::convert::{self, ContentLimits};
use super::errors::{bad_request, unimplemented};
use super::proto::{self, notation_service_server::NotationService};
use crate::notation::record::{self, Comment, Record};
use crate::notation::{fen, format_move, parse_move};
use crate::rules::outcome::GameResult;
use crate::rules::xiangqi::handicap::{Handicap, Preset};

pub fn convert_moves(
    req: &proto::ConvertMovesRequest,
    limits: ContentLimits,
) -> Result<proto::ConvertMovesResponse, Status> {
    let start = req.start.as_ref().ok_or_else(|| bad_request("start", "start is required"))?;
    let from = convert::notation(req.from, "from")?;
    let to = convert::notation(req.to, "to")?;
    if start.moves.len() + req.moves.len() > limits.max_game_plies {
        return Err(bad_request(
            "moves",
            format!("{} moves exceed the limit of {}", start.moves.len() + req.moves.len(), limits.max_game_plies),
        ));
    }
    let mut game = convert::game(start, "start", limits)?;
    let target = [(req.to, to)];
    let mut resp = proto::ConvertMovesResponse::default();
    for (i, text) in req.moves.iter().enumerate() {
        let field = || format!("moves[{i}]");
        let pos = game.position();
        let m = parse_move(pos, text, from).map_err(|e| bad_request(field(), e.to_string()))?;
        if let Some(reason) = game.explain_illegal(m) {
            return Err(bad_request(field(), format!("{text:?} ({m}) is illegal: {}", reason.describe())));
        }
        resp.moves.push(format_move(pos, m, to));
        let mut detail = convert::describe_move(pos, m);
        detail.notations = convert::render(pos, m, &target);
        resp.details.push(detail);
        game.play_unchecked(m);
    }
    Ok(resp)
}

/// Is a `Variant` tag Xiangqi? `Err` for the variants not served here or unknown.
fn check_variant_tag(value: &str) -> Result<(), Status> {
    let v: String = value.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    match v.as_str() {
        "xiangqi" | "chinesechess" | "xq" | "象棋" | "中国象棋" => Ok(()),
        "janggi" | "koreanchess" | "threekingdoms" | "threekingdomsxiangqi" => {
            Err(unimplemented(format!("records of variant {value:?} are not served yet")))
        }
        _ => Err(bad_request("text", format!("Variant tag: unknown variant {value:?}"))),
    }
}

pub fn import_record(
    req: &proto::ImportRecordRequest,
    limits: ContentLimits,
) -> Result<proto::ImportRecordResponse, Status> {
    let from_tag = match proto::Variant::try_from(req.variant) {
        Ok(proto::Variant::Unspecified) => true,
        Ok(_) => {
            convert::require_xiangqi(req.variant, "variant")?;
            false
        }
        Err(_) => return Err(bad_request("variant", format!("unknown variant {}", req.variant))),
    };
    let notation = match proto::Notation::try_from(req.notation) {
        Ok(proto::Notation::Unspecified) => None,
        _ => Some(convert::notation(req.notation, "notation")?),
    };
    let raw = record::split(&req.text).map_err(|e| bad_request("text", e.to_string()))?;
    if from_tag && let Some(v) = raw.tag("Variant") {
        check_variant_tag(v)?;
    }
    if raw.moves.len() > limits.max_game_plies {
        return Err(bad_request(
            "text",
            format!("{} moves exceed the limit of {}", raw.moves.len(), limits.max_game_plies),
        ));
    }
    let (rec, notation) = record::replay(raw, notation).map_err(|e| bad_request("text", e.to_string()))?;
    let (result, winner) = match rec.result {
        GameResult::Ongoing => (proto::GameResult::Ongoing, proto::Player::Unspecified),
        GameResult::Draw => (proto::GameResult::Draw, proto::Player::Unspecified),
        GameResult::Win(c) => (proto::GameResult::Win, convert::player(c)),
    };
    let (fen, preset) = match rec.named_start {
        Some(p) => (String::new(), convert::proto_preset(p)),
        None if rec.tag("FEN").is_some() => (fen::format(&rec.start.to_setup()), proto::StartPreset::Unspecified),
        None => (String::new(), proto::StartPreset::Unspecified),
    };
    Ok(proto::ImportRecordResponse {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            fen,
            moves: rec.moves.iter().map(|m| m.to_string()).collect(),
            preset: preset as i32,
            ..Default::default()
        }),
        tags: rec
            .tags
            .iter()
            .map(|(name, value)| proto::RecordTag { name: name.clone(), value: value.clone() })
            .collect(),
        result: result as i32,
        winner: winner as i32,
        notation: convert::proto_notation(notation) as i32,
        comments: rec
            .comments
            .iter()
            .map(|c| proto::RecordComment { ply: c.ply as u32, text: c.text.clone() })
            .collect(),
    })
}

pub fn export_record(
    req: &proto::ExportRecordRequest,
    limits: ContentLimits,
) -> Result<proto::ExportRecordResponse, Status> {
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let notation = convert::notation(req.notation, "notation")?;
    let game = convert::game(position, "position", limits)?;
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
    let plies = game.plies().len();
    let mut comments = Vec::with_capacity(req.comments.len());
    for (i, c) in req.comments.iter().enumerate() {
        if c.ply as usize > plies {
            return Err(bad_request(format!("comments[{i}].ply"), format!("ply {} is past the {plies} moves", c.ply)));
        }
        comments.push(Comment { ply: c.ply as usize, text: c.text.clone() });
    }
    let preset = match convert::handicap_moves(position, "position")? {
        _ if !convert::uses_preset(position) => None,
        0 | 1 => Some(convert::preset(position.preset, "position.preset")?).filter(|p| *p != Preset::Standard),
        // A record names its handicap by its Preset tag.
        n => Some(Preset::ALL.into_iter().find(|p| p.handicap() == Handicap::moves(n)).ok_or_else(|| {
            bad_request("position.handicap_moves", format!("a record names no handicap of {n} moves (at most four)"))
        })?),
    };
    let rec = Record {
        tags: req.tags.iter().map(|t| (t.name.clone(), t.value.clone())).collect(),
        named_start: preset,
        start: game.start().clone(),
        moves: game.plies().iter().map(|p| p.mv).collect(),
        comments,
        result,
    };
    Ok(proto::ExportRecordResponse { text: record::export(&rec, notation) })
}

/// The tonic service: each RPC runs its function on the request.
#[derive(Clone, Copy, Debug)]
pub struct Notations {
    pub limits: ContentLimits,
}

#[tonic::async_trait]
impl NotationService for Notations {
    async fn convert_moves(
        &self,
        request: Request<proto::ConvertMovesRequest>,
    ) -> Result<Response<proto::ConvertMovesResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        tokio::task::spawn_blocking(move || convert_moves(&req, limits))
            .await
            .map_err(|e| Status::internal(format!("conversion task failed: {e}")))?
            .map(Response::new)
    }

    async fn import_record(
        &self,
        request: Request<proto::ImportRecordRequest>,
    ) -> Result<Response<proto::ImportRecordResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        tokio::task::spawn_blocking(move || import_record(&req, limits))
            .await
            .map_err(|e| Status::internal(format!("import task failed: {e}")))?
            .map(Response::new)
    }

    async fn export_record(
        &self,
        request: Request<proto::ExportRecordRequest>,
    ) -> Result<Response<proto::ExportRecordResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        tokio::task::spawn_blocking(move || export_record(&req, limits))
            .await
            .map_err(|e| Status::internal(format!("export task failed: {e}")))?
            .map(Response::new)
    }
}
