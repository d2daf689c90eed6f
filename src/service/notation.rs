//! NotationService over tonic: each RPC runs its function of [`crate::api::notation`]
//! on the request, a long one on the blocking pool.

use tonic::{Request, Response, Status};

use super::blocking::run_sized;
use crate::api::convert::ContentLimits;
use crate::api::notation::{convert_moves, export_record, import_record};
use crate::api::proto::{self, notation_service_server::NotationService};

/// The tonic service: each RPC runs its function on the request.
#[derive(Clone, Copy, Debug)]
pub struct Notations {
    /// The limits of request contents.
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
        let plies = req.start.as_ref().map_or(0, |p| p.moves.len()) + req.moves.len();
        run_sized(plies, "conversion", move || Ok(convert_moves(&req, limits)?)).await.map(Response::new)
    }

    async fn import_record(
        &self,
        request: Request<proto::ImportRecordRequest>,
    ) -> Result<Response<proto::ImportRecordResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        // How many plies a text holds is known once it is read: always on the pool.
        run_sized(usize::MAX, "import", move || Ok(import_record(&req, limits)?)).await.map(Response::new)
    }

    async fn export_record(
        &self,
        request: Request<proto::ExportRecordRequest>,
    ) -> Result<Response<proto::ExportRecordResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        let plies = req.position.as_ref().map_or(0, |p| p.moves.len());
        run_sized(plies, "export", move || Ok(export_record(&req, limits)?)).await.map(Response::new)
    }
}
