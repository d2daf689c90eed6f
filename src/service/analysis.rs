//! AnalysisService over tonic: each RPC runs its function of [`crate::api::analysis`]
//! with the client's deadline.

use std::sync::Arc;

use tokio_stream::StreamExt;
use tonic::{Request, Response, Status};

use super::call::Tenant;
use crate::api::analysis::Call;
use crate::api::convert::ContentLimits;
use crate::api::fairplay::Models;
use crate::api::proto::{self, analysis_service_server::AnalysisService};
use crate::api::{analysis, audit, fairplay};
use crate::engine::{Deadline, Engine};

/// AnalysisService: each RPC runs its API function on the engine.
pub struct Analysis {
    /// The engine every search runs on.
    pub engine: Arc<Engine>,
    /// The limits of request contents.
    pub limits: ContentLimits,
    /// The fair-play models AssessPlayer assesses with.
    pub models: Arc<Models>,
    /// Whether tenants share the stored searches.
    pub store_shared: bool,
}

impl Analysis {
    /// What a search call carries: its deadline, and its tenant's store (none when
    /// the server asks for no API keys, or tenants share the store).
    fn call<T>(&self, req: &Request<T>) -> Call {
        let tenant = req.extensions().get::<Tenant>().filter(|_| !self.store_shared);
        Call { deadline: client_timeout(req), store_scope: tenant.map(|t| t.0.clone()) }
    }
}

/// The call's deadline, from its arrival (set by the middleware), or from now with the
/// client's `grpc-timeout`.
fn client_timeout<T>(req: &Request<T>) -> Option<Deadline> {
    if let Some(d) = req.extensions().get::<Deadline>() {
        return Some(*d);
    }
    let timeout = super::grpc_headers::parse_grpc_timeout(req.metadata().get("grpc-timeout")?.to_str().ok()?)?;
    Some(Deadline::from_now(timeout))
}

/// The messages of AnalyzeStream as tonic sends them; dropping it stops the search.
pub type ProgressStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<proto::AnalyzeStreamResponse, Status>> + Send>>;

/// The messages of AssessPlayer as tonic sends them; dropping it stops the searches.
pub type AssessStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<proto::AssessPlayerResponse, Status>> + Send>>;

/// The messages of AuditGameStream as tonic sends them; dropping it stops the audit.
pub type AuditStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<proto::AuditGameStreamResponse, Status>> + Send>>;

#[tonic::async_trait]
impl AnalysisService for Analysis {
    async fn analyze(
        &self,
        request: Request<proto::AnalyzeRequest>,
    ) -> Result<Response<proto::AnalyzeResponse>, Status> {
        let call = self.call(&request);
        Ok(Response::new(analysis::analyze(&self.engine, request.get_ref(), self.limits, &call).await?))
    }

    type AnalyzeStreamStream = ProgressStream;

    async fn analyze_stream(
        &self,
        request: Request<proto::AnalyzeStreamRequest>,
    ) -> Result<Response<ProgressStream>, Status> {
        let call = self.call(&request);
        let stream = analysis::analyze_stream(&self.engine, request.get_ref(), self.limits, &call).await?;
        Ok(Response::new(Box::pin(stream.map(Ok))))
    }

    async fn hint(&self, request: Request<proto::HintRequest>) -> Result<Response<proto::HintResponse>, Status> {
        let call = self.call(&request);
        Ok(Response::new(analysis::hint(&self.engine, request.get_ref(), self.limits, &call).await?))
    }

    async fn evaluate_draw_offer(
        &self,
        request: Request<proto::EvaluateDrawOfferRequest>,
    ) -> Result<Response<proto::EvaluateDrawOfferResponse>, Status> {
        let call = self.call(&request);
        Ok(Response::new(analysis::evaluate_draw_offer(&self.engine, request.get_ref(), self.limits, &call).await?))
    }

    async fn audit_game(
        &self,
        request: Request<proto::AuditGameRequest>,
    ) -> Result<Response<proto::AuditGameResponse>, Status> {
        Ok(Response::new(audit::audit_game(&self.engine, request.get_ref(), self.limits).await?))
    }

    type AuditGameStreamStream = AuditStream;

    async fn audit_game_stream(
        &self,
        request: Request<proto::AuditGameStreamRequest>,
    ) -> Result<Response<AuditStream>, Status> {
        let stream = audit::audit_game_stream(&self.engine, request.get_ref(), self.limits).await?;
        Ok(Response::new(Box::pin(stream.map(Ok))))
    }

    type AssessPlayerStream = AssessStream;

    async fn assess_player(
        &self,
        request: Request<proto::AssessPlayerRequest>,
    ) -> Result<Response<AssessStream>, Status> {
        let stream = fairplay::assess_player(&self.engine, &self.models, request.get_ref(), self.limits).await?;
        Ok(Response::new(Box::pin(stream.map(Ok))))
    }
}
