//! What the RPCs ask of a request's game, one trait per service, implemented by each
//! variant's API code (the 9x10 games' beside each RPC in [`super::rules`],
//! [`super::notation`] and [`super::analysis`]; Three Kingdoms' in
//! [`super::three_kingdoms`]), and by [`AnyGame`], which hands each call to its
//! variant's game: the one place the RPCs meet a game's arms.

use std::sync::Arc;

use super::convert::ContentLimits;
use super::error::Error;
use super::proto;
use super::searching::{Call, ProgressStream};
use super::wire::Encoded;
use crate::engine::Engine;
use crate::game::AnyGame;

/// Calls the same code on the game of any variant.
macro_rules! each {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            AnyGame::Board($g) => $body,
            AnyGame::ThreeKingdoms($g) => $body,
        }
    };
}

/// RulesService in a game of one variant: the request's game (for the record calls,
/// its start, no move played), checked, and the request's other fields.
pub trait RulesCalls: Sized {
    /// ListLegalMoves, as the response's bytes.
    fn list_legal_moves(&self, req: &proto::ListLegalMovesRequest) -> Result<Encoded, Error>;
    /// ValidateMove.
    fn validate_move(self, req: &proto::ValidateMoveRequest) -> Result<proto::ValidateMoveResponse, Error>;
    /// ValidateGame of the record `position`, from this game at its start.
    fn validate_game(
        self,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::ValidateGameResponse, Error>;
    /// Adjudicate of the record `position`, from this game at its start.
    fn adjudicate(
        self,
        req: &proto::AdjudicateRequest,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::AdjudicateResponse, Error>;
}

/// NotationService in a game of one variant (no rule set named).
pub trait NotationCalls: Sized {
    /// ConvertMoves from this game, the request's `start`.
    fn convert_moves(self, req: &proto::ConvertMovesRequest) -> Result<proto::ConvertMovesResponse, Error>;
    /// ExportRecord of this game, the request's `position`.
    fn export_record(self, req: &proto::ExportRecordRequest) -> Result<proto::ExportRecordResponse, Error>;
}

/// AnalysisService in a game of one variant, under the request's rule set.
pub trait AnalysisCalls: Sized {
    /// Analyze on the calling thread: `on_depth` sees each finished depth as
    /// AnalyzeStream would send it.
    fn analyze_here(
        self,
        engine: &Engine,
        r: &proto::AnalyzeRequest,
        on_depth: &mut dyn FnMut(&proto::AnalyzeStreamResponse),
    ) -> Result<proto::AnalyzeResponse, Error>;
    /// Analyze on a search thread.
    fn analyze(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> impl Future<Output = Result<proto::AnalyzeResponse, Error>> + Send;
    /// AnalyzeStream (asking what Analyze asks).
    fn analyze_stream(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> impl Future<Output = Result<ProgressStream, Error>> + Send;
    /// Hint.
    fn hint(
        self,
        engine: &Arc<Engine>,
        r: &proto::HintRequest,
        call: &Call,
    ) -> impl Future<Output = Result<proto::HintResponse, Error>> + Send;
    /// EvaluateDrawOffer.
    fn evaluate_draw_offer(
        self,
        engine: &Arc<Engine>,
        r: &proto::EvaluateDrawOfferRequest,
        call: &Call,
    ) -> impl Future<Output = Result<proto::EvaluateDrawOfferResponse, Error>> + Send;
}

impl RulesCalls for AnyGame {
    fn list_legal_moves(&self, req: &proto::ListLegalMovesRequest) -> Result<Encoded, Error> {
        each!(self, g => g.list_legal_moves(req))
    }

    fn validate_move(self, req: &proto::ValidateMoveRequest) -> Result<proto::ValidateMoveResponse, Error> {
        each!(self, g => g.validate_move(req))
    }

    fn validate_game(
        self,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::ValidateGameResponse, Error> {
        each!(self, g => g.validate_game(position, limits))
    }

    fn adjudicate(
        self,
        req: &proto::AdjudicateRequest,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::AdjudicateResponse, Error> {
        each!(self, g => g.adjudicate(req, position, limits))
    }
}

impl NotationCalls for AnyGame {
    fn convert_moves(self, req: &proto::ConvertMovesRequest) -> Result<proto::ConvertMovesResponse, Error> {
        each!(self, g => g.convert_moves(req))
    }

    fn export_record(self, req: &proto::ExportRecordRequest) -> Result<proto::ExportRecordResponse, Error> {
        each!(self, g => g.export_record(req))
    }
}

impl AnalysisCalls for AnyGame {
    fn analyze_here(
        self,
        engine: &Engine,
        r: &proto::AnalyzeRequest,
        on_depth: &mut dyn FnMut(&proto::AnalyzeStreamResponse),
    ) -> Result<proto::AnalyzeResponse, Error> {
        each!(self, g => g.analyze_here(engine, r, on_depth))
    }

    async fn analyze(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> Result<proto::AnalyzeResponse, Error> {
        each!(self, g => g.analyze(engine, r, call).await)
    }

    async fn analyze_stream(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> Result<ProgressStream, Error> {
        each!(self, g => g.analyze_stream(engine, r, call).await)
    }

    async fn hint(
        self,
        engine: &Arc<Engine>,
        r: &proto::HintRequest,
        call: &Call,
    ) -> Result<proto::HintResponse, Error> {
        each!(self, g => g.hint(engine, r, call).await)
    }

    async fn evaluate_draw_offer(
        self,
        engine: &Arc<Engine>,
        r: &proto::EvaluateDrawOfferRequest,
        call: &Call,
    ) -> Result<proto::EvaluateDrawOfferResponse, Error> {
        each!(self, g => g.evaluate_draw_offer(engine, r, call).await)
    }
}
