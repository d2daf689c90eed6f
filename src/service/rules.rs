//! RulesService over tonic: each RPC runs its function of [`crate::api::rules`] on the
//! request; ListLegalMoves sends the bytes that function writes.

use std::convert::Infallible;

use tonic::codegen::{Body, BoxFuture, Context, Poll, Service, StdError, http};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};

use super::blocking::run_sized;
use super::codec::EncodedCodec;
use crate::api::convert::ContentLimits;
use crate::api::proto::{
    self,
    rules_service_server::{RulesService, RulesServiceServer},
};
use crate::api::rules::{adjudicate, list_legal_moves, list_legal_moves_encoded, validate_game, validate_move};
use crate::api::wire::Encoded;

/// The tonic service: each RPC runs its function on the request. The server mounts it
/// inside [`RulesServer`], which answers ListLegalMoves with the written bytes instead.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The limits of request contents.
    pub limits: ContentLimits,
}

#[tonic::async_trait]
impl RulesService for Rules {
    async fn list_legal_moves(
        &self,
        request: Request<proto::ListLegalMovesRequest>,
    ) -> Result<Response<proto::ListLegalMovesResponse>, Status> {
        Ok(Response::new(list_legal_moves(request.get_ref(), self.limits)?))
    }

    async fn validate_move(
        &self,
        request: Request<proto::ValidateMoveRequest>,
    ) -> Result<Response<proto::ValidateMoveResponse>, Status> {
        Ok(Response::new(validate_move(request.get_ref(), self.limits)?))
    }

    async fn validate_game(
        &self,
        request: Request<proto::ValidateGameRequest>,
    ) -> Result<Response<proto::ValidateGameResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        let plies = req.position.as_ref().map_or(0, |p| p.moves.len());
        run_sized(plies, "validation", move || Ok(validate_game(&req, limits)?)).await.map(Response::new)
    }

    async fn adjudicate(
        &self,
        request: Request<proto::AdjudicateRequest>,
    ) -> Result<Response<proto::AdjudicateResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        let plies = req.position.as_ref().map_or(0, |p| p.moves.len());
        run_sized(plies, "adjudication", move || Ok(adjudicate(&req, limits)?)).await.map(Response::new)
    }
}

/// RulesService as the server runs it: the generated service, except that
/// ListLegalMoves sends the bytes [`list_legal_moves_encoded`] writes.
#[derive(Clone)]
pub struct RulesServer {
    generated: RulesServiceServer<Rules>,
    limits: ContentLimits,
    max_message_bytes: usize,
}

impl RulesServer {
    /// The server with these limits of request contents and message size.
    pub fn new(limits: ContentLimits, max_message_bytes: usize) -> RulesServer {
        let generated = RulesServiceServer::new(Rules { limits })
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        RulesServer { generated, limits, max_message_bytes }
    }
}

impl NamedService for RulesServer {
    const NAME: &'static str = <RulesServiceServer<Rules> as NamedService>::NAME;
}

const LIST_LEGAL_MOVES_PATH: &str = "/chuhe.v1.RulesService/ListLegalMoves";

impl<B> Service<http::Request<B>> for RulesServer
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if request.uri().path() != LIST_LEGAL_MOVES_PATH {
            return self.generated.call(request);
        }
        let (limits, max) = (self.limits, self.max_message_bytes);
        Box::pin(async move {
            let mut grpc = Grpc::new(EncodedCodec::<proto::ListLegalMovesRequest>::default())
                .apply_max_message_size_config(Some(max), Some(max));
            Ok(grpc.unary(ListLegalMoves { limits }, request).await)
        })
    }
}

/// ListLegalMoves answered with its response's bytes.
struct ListLegalMoves {
    limits: ContentLimits,
}

impl UnaryService<proto::ListLegalMovesRequest> for ListLegalMoves {
    type Response = Encoded;
    type Future = std::future::Ready<Result<Response<Encoded>, Status>>;

    fn call(&mut self, request: Request<proto::ListLegalMovesRequest>) -> Self::Future {
        std::future::ready(
            list_legal_moves_encoded(request.get_ref(), self.limits).map(Response::new).map_err(Status::from),
        )
    }
}
