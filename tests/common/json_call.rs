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
        other => panic!("no call for {other}; add one to tests/common/json_call.rs"),
    }
}
