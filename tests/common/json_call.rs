//! A unary call named by its method and given its request in the canonical JSON
//! mapping, as ghz configs and grpcurl commands give them.

use chuhe::api::proto::{
    self, analysis_service_client::AnalysisServiceClient, notation_service_client::NotationServiceClient,
    rules_service_client::RulesServiceClient,
};
use serde_json::Value;
use tonic::transport::Channel;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

fn request<T: serde::de::DeserializeOwned>(method: &str, data: &Value) -> T {
    serde_json::from_value(data.clone()).unwrap_or_else(|e| panic!("{method}: request: {e}"))
}

fn response<T: serde::Serialize>(r: tonic::Response<T>) -> Value {
    serde_json::to_value(r.get_ref()).expect("responses serialize")
}

/// Calls `method` (`package.Service.Method` or `package.Service/Method`) with `data`
/// and returns the response in the JSON mapping. Panics for a method it does not know:
/// add it here.
pub async fn call(channel: &Channel, method: &str, data: &Value) -> Result<Value, tonic::Status> {
    let c = channel.clone();
    match method.replace('/', ".").as_str() {
        "grpc.health.v1.Health.Check" => {
            let service = data.get("service").and_then(Value::as_str).unwrap_or_default().to_string();
            let r = HealthClient::new(c).check(HealthCheckRequest { service }).await?;
            let status = tonic_health::pb::health_check_response::ServingStatus::try_from(r.get_ref().status)
                .map_or("UNKNOWN", |s| s.as_str_name());
            Ok(serde_json::json!({ "status": status }))
        }
        "chuhe.v1.RulesService.ListLegalMoves" => Ok(response(
            RulesServiceClient::new(c).list_legal_moves(request::<proto::ListLegalMovesRequest>(method, data)).await?,
        )),
        "chuhe.v1.RulesService.ValidateMove" => Ok(response(
            RulesServiceClient::new(c).validate_move(request::<proto::ValidateMoveRequest>(method, data)).await?,
        )),
        "chuhe.v1.RulesService.ValidateGame" => Ok(response(
            RulesServiceClient::new(c).validate_game(request::<proto::ValidateGameRequest>(method, data)).await?,
        )),
        "chuhe.v1.RulesService.Adjudicate" => Ok(response(
            RulesServiceClient::new(c).adjudicate(request::<proto::AdjudicateRequest>(method, data)).await?,
        )),
        "chuhe.v1.AnalysisService.Analyze" => {
            Ok(response(AnalysisServiceClient::new(c).analyze(request::<proto::AnalyzeRequest>(method, data)).await?))
        }
        "chuhe.v1.AnalysisService.AuditGame" => Ok(response(
            AnalysisServiceClient::new(c).audit_game(request::<proto::AuditGameRequest>(method, data)).await?,
        )),
        "chuhe.v1.AnalysisService.Hint" => {
            Ok(response(AnalysisServiceClient::new(c).hint(request::<proto::HintRequest>(method, data)).await?))
        }
        "chuhe.v1.NotationService.ConvertMoves" => Ok(response(
            NotationServiceClient::new(c).convert_moves(request::<proto::ConvertMovesRequest>(method, data)).await?,
        )),
        "chuhe.v1.AnalysisService.EvaluateDrawOffer" => Ok(response(
            AnalysisServiceClient::new(c)
                .evaluate_draw_offer(request::<proto::EvaluateDrawOfferRequest>(method, data))
                .await?,
        )),
        "chuhe.v1.NotationService.ImportRecord" => Ok(response(
            NotationServiceClient::new(c).import_record(request::<proto::ImportRecordRequest>(method, data)).await?,
        )),
        "chuhe.v1.NotationService.ExportRecord" => Ok(response(
            NotationServiceClient::new(c).export_record(request::<proto::ExportRecordRequest>(method, data)).await?,
        )),
        "chuhe.v1.AnalysisService.AnalyzeStream" => {
            let stream = AnalysisServiceClient::new(c)
                .analyze_stream(request::<proto::AnalyzeStreamRequest>(method, data))
                .await?;
            messages(stream.into_inner()).await
        }
        "chuhe.v1.AnalysisService.AuditGameStream" => {
            let stream = AnalysisServiceClient::new(c)
                .audit_game_stream(request::<proto::AuditGameStreamRequest>(method, data))
                .await?;
            messages(stream.into_inner()).await
        }
        other => panic!("no call for {other}; add one to tests/common/json_call.rs"),
    }
}

/// Every message of a server stream, in the JSON mapping, as an array.
async fn messages<T: serde::Serialize>(mut stream: tonic::Streaming<T>) -> Result<Value, tonic::Status> {
    let mut all = Vec::new();
    while let Some(message) = stream.message().await? {
        all.push(serde_json::to_value(&message).expect("responses serialize"));
    }
    Ok(Value::Array(all))
}

/// Whether `method` answers the same request the same way every time (no search, or a
/// search by a node budget on its own table), so that a page may show its answer as it is.
pub fn is_deterministic(method: &str, data: &Value) -> bool {
    let method = method.replace('/', ".");
    method.starts_with("chuhe.v1.RulesService.")
        || method.starts_with("chuhe.v1.NotationService.")
        || method.starts_with("grpc.health.v1.")
        || (method.starts_with("chuhe.v1.AnalysisService.AuditGame") && data.get("nodesPerPly").is_some())
}

/// Reads `answer` as the response message of `method` (for a stream, one message),
/// as a page shows it: an error names the field that is not the message's.
pub fn read_answer(method: &str, answer: &Value) -> Result<(), String> {
    fn read<T: serde::de::DeserializeOwned>(answer: &Value) -> Result<(), String> {
        serde_json::from_value::<T>(answer.clone()).map(drop).map_err(|e| e.to_string())
    }
    match method.replace('/', ".").as_str() {
        "grpc.health.v1.Health.Check" => Ok(()),
        "chuhe.v1.RulesService.ListLegalMoves" => read::<proto::ListLegalMovesResponse>(answer),
        "chuhe.v1.RulesService.ValidateMove" => read::<proto::ValidateMoveResponse>(answer),
        "chuhe.v1.RulesService.ValidateGame" => read::<proto::ValidateGameResponse>(answer),
        "chuhe.v1.RulesService.Adjudicate" => read::<proto::AdjudicateResponse>(answer),
        "chuhe.v1.AnalysisService.Analyze" => read::<proto::AnalyzeResponse>(answer),
        "chuhe.v1.AnalysisService.AnalyzeStream" => read::<proto::AnalyzeStreamResponse>(answer),
        "chuhe.v1.AnalysisService.Hint" => read::<proto::HintResponse>(answer),
        "chuhe.v1.AnalysisService.EvaluateDrawOffer" => read::<proto::EvaluateDrawOfferResponse>(answer),
        "chuhe.v1.AnalysisService.AuditGame" => read::<proto::AuditGameResponse>(answer),
        "chuhe.v1.AnalysisService.AuditGameStream" => read::<proto::AuditGameStreamResponse>(answer),
        "chuhe.v1.NotationService.ConvertMoves" => read::<proto::ConvertMovesResponse>(answer),
        "chuhe.v1.NotationService.ImportRecord" => read::<proto::ImportRecordResponse>(answer),
        "chuhe.v1.NotationService.ExportRecord" => read::<proto::ExportRecordResponse>(answer),
        other => panic!("no response type for {other}; add one to tests/common/json_call.rs"),
    }
}

/// Checks an answer of `method` to `data` against the rules library, as far as the
/// rules decide it: listed moves are the legal moves, a validated move or game is legal
/// exactly when the rules say so, an analysis's lines and a hint's move are legal and the
/// mover's, converted moves are the request's moves. Panics with `context`.
pub fn check_answer(method: &str, data: &Value, answer: &Value, context: &str) {
    use super::replay::{Replay, assert_analysis, assert_move_of_mover};
    let position = || -> proto::Position {
        serde_json::from_value(data["position"].clone()).unwrap_or_else(|e| panic!("{context}: position: {e}"))
    };
    match method.replace('/', ".").as_str() {
        "grpc.health.v1.Health.Check" => assert_eq!(answer["status"], "SERVING", "{context}"),
        "chuhe.v1.RulesService.ListLegalMoves" => {
            let r: proto::ListLegalMovesResponse = serde_json::from_value(answer.clone()).unwrap();
            let mut listed: Vec<String> = r.moves.iter().map(|m| m.iccs.clone()).collect();
            let mut legal = Replay::of(&position()).legal_moves();
            listed.sort();
            legal.sort();
            assert_eq!(listed, legal, "{context}: the listed moves are not the legal moves");
        }
        "chuhe.v1.RulesService.ValidateMove" => {
            let r: proto::ValidateMoveResponse = serde_json::from_value(answer.clone()).unwrap();
            let text = data["move"].as_str().unwrap_or_else(|| panic!("{context}: a move by its text"));
            let legal = Replay::of(&position()).play(text).is_ok();
            assert_eq!(r.legal, legal, "{context}: {text}");
            if legal {
                assert_move_of_mover(&position(), r.r#move.as_ref().unwrap(), context);
            }
        }
        "chuhe.v1.RulesService.ValidateGame" => {
            let r: proto::ValidateGameResponse = serde_json::from_value(answer.clone()).unwrap();
            let p = position();
            let mut start = p.clone();
            start.moves.clear();
            let mut replay = Replay::of(&start);
            let first_illegal = p.moves.iter().position(|m| replay.play(m).is_err());
            assert_eq!(r.legal, first_illegal.is_none(), "{context}: {r:?}");
            if let Some(i) = first_illegal {
                assert_eq!(r.first_illegal_index as usize, i, "{context}");
            } else {
                assert_eq!(r.plies as usize, p.moves.len(), "{context}");
            }
        }
        "chuhe.v1.RulesService.Adjudicate" => {
            let r: proto::AdjudicateResponse = serde_json::from_value(answer.clone()).unwrap();
            assert_ne!(r.result, proto::GameResult::Unspecified as i32, "{context}: {r:?}");
            assert!(!r.explanation.is_empty(), "{context}: {r:?}");
        }
        "chuhe.v1.AnalysisService.Analyze" => {
            let r: proto::AnalyzeResponse = serde_json::from_value(answer.clone()).unwrap();
            assert_analysis(&position(), &r.lines, &r.best_move, &r.ponder_move, context);
            let wanted = data["multipv"].as_u64().unwrap_or(1).max(1) as usize;
            assert_eq!(r.lines.len(), wanted, "{context}");
        }
        "chuhe.v1.AnalysisService.Hint" => {
            let r: proto::HintResponse = serde_json::from_value(answer.clone()).unwrap();
            assert_move_of_mover(&position(), r.r#move.as_ref().unwrap(), context);
        }
        "chuhe.v1.NotationService.ConvertMoves" => {
            let r: proto::ConvertMovesResponse = serde_json::from_value(answer.clone()).unwrap();
            let asked: Vec<String> = serde_json::from_value(data["moves"].clone()).unwrap();
            let iccs: Vec<String> = r.details.iter().map(|d| d.iccs.clone()).collect();
            assert_eq!(iccs, asked, "{context}: the details are not the request's moves");
            assert_eq!(r.moves.len(), asked.len(), "{context}");
            assert!(r.moves.iter().all(|m| !m.is_empty()), "{context}");
        }
        "chuhe.v1.AnalysisService.AuditGame" => {
            let r: proto::AuditGameResponse = serde_json::from_value(answer.clone()).unwrap();
            let game = position();
            let book = data["bookPlies"].as_u64().unwrap_or(0) as usize;
            // Every ply after the book is audited (both sides by default; else only the
            // players asked for), in order, each naming the game's own move, with lines
            // that are legal before it.
            let audited: Vec<usize> = r.plies.iter().map(|p| p.move_index as usize).collect();
            let players: Vec<String> = serde_json::from_value(data["players"].clone()).unwrap_or_default();
            if players.is_empty() {
                assert_eq!(audited, (book..game.moves.len()).collect::<Vec<_>>(), "{context}: the audited plies");
            } else {
                assert!(audited.windows(2).all(|w| w[0] < w[1]), "{context}: the audited plies in order");
                assert!(audited.iter().all(|&i| (book..game.moves.len()).contains(&i)), "{context}: {audited:?}");
                assert!(!audited.is_empty(), "{context}: no ply audited");
                for ply in &r.plies {
                    let mover = proto::Player::try_from(ply.mover).map_or("", |p| p.as_str_name());
                    assert!(players.iter().any(|p| p == mover), "{context}: ply {} of {mover}", ply.move_index);
                }
            }
            for ply in &r.plies {
                let i = ply.move_index as usize;
                assert_eq!(ply.played_move, game.moves[i], "{context}: ply {i}");
                let before = proto::Position { moves: game.moves[..i].to_vec(), ..game.clone() };
                // An audit names no ponder move: the first line's second move stands in.
                let second = ply.lines.first().and_then(|l| l.pv.get(1)).map_or("", String::as_str);
                assert_analysis(&before, &ply.lines, &ply.best_move, second, &format!("{context}, ply {i}"));
            }
            let summary = r.summary.unwrap_or_else(|| panic!("{context}: no summary"));
            let counted: u32 = summary.sides.iter().map(|s| s.plies_counted + s.plies_book).sum();
            assert!(counted as usize <= game.moves.len(), "{context}: {summary:?}");
        }
        "chuhe.v1.AnalysisService.EvaluateDrawOffer" => {
            let r: proto::EvaluateDrawOfferResponse = serde_json::from_value(answer.clone()).unwrap();
            use proto::DrawOfferReason as Reason;
            let accepting = matches!(Reason::try_from(r.reason), Ok(Reason::StandsWorse | Reason::LevelAndQuiet));
            assert_ne!(r.reason, Reason::Unspecified as i32, "{context}: {r:?}");
            assert_eq!(r.accept, accepting, "{context}: the answer does not follow its reason: {r:?}");
        }
        "chuhe.v1.NotationService.ImportRecord" => {
            let r: proto::ImportRecordResponse = serde_json::from_value(answer.clone()).unwrap();
            let game = r.position.unwrap_or_else(|| panic!("{context}: no position"));
            let mut start = game.clone();
            start.moves.clear();
            let mut replay = Replay::of(&start);
            for m in &game.moves {
                replay.play(m).unwrap_or_else(|e| panic!("{context}: imported move {m}: {e:?}"));
            }
        }
        "chuhe.v1.NotationService.ExportRecord" => {
            let r: proto::ExportRecordResponse = serde_json::from_value(answer.clone()).unwrap();
            let asked: proto::ExportRecordRequest = serde_json::from_value(data.clone()).unwrap();
            let position = asked.position.clone().unwrap_or_else(|| panic!("{context}: no position"));
            let again = chuhe::api::notation::import_record(
                &proto::ImportRecordRequest { text: r.text, variant: position.variant, notation: asked.notation },
                chuhe::api::convert::ContentLimits { max_game_plies: 10_000 },
            )
            .unwrap_or_else(|e| panic!("{context}: the exported record does not import: {e}"));
            assert_eq!(again.position.unwrap().moves, position.moves, "{context}: the record's moves");
        }
        "chuhe.v1.AnalysisService.AnalyzeStream" => {
            let all: Vec<proto::AnalyzeStreamResponse> = serde_json::from_value(answer.clone()).unwrap();
            let last = all.last().unwrap_or_else(|| panic!("{context}: no message"));
            assert!(last.is_final && all[..all.len() - 1].iter().all(|m| !m.is_final), "{context}");
            assert_analysis(&position(), &last.lines, &last.best_move, &last.ponder_move, context);
        }
        "chuhe.v1.AnalysisService.AuditGameStream" => {
            use proto::audit_game_stream_response::Message;
            let all: Vec<proto::AuditGameStreamResponse> = serde_json::from_value(answer.clone()).unwrap();
            let (last, plies) = all.split_last().unwrap_or_else(|| panic!("{context}: no message"));
            assert!(matches!(last.message, Some(Message::Summary(_))), "{context}: the summary comes last");
            let book = data["bookPlies"].as_u64().unwrap_or(0) as usize;
            let indexes: Vec<usize> = plies
                .iter()
                .map(|m| match &m.message {
                    Some(Message::Ply(p)) => p.move_index as usize,
                    other => panic!("{context}: a ply message, not {other:?}"),
                })
                .collect();
            assert_eq!(indexes, (book..position().moves.len()).collect::<Vec<_>>(), "{context}: the audited plies");
        }
        other => panic!("{context}: no check for {other}; add one to tests/common/json_call.rs"),
    }
}
