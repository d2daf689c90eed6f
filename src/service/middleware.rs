//! One tower layer in front of every gRPC service: admission under a global concurrency
//! limit (load shedding with RESOURCE_EXHAUSTED), the request deadline (the smaller of
//! the client's `grpc-timeout` and the server's limit, DEADLINE_EXCEEDED when it
//! passes), a tracing span with a request id, the standard gRPC server metrics
//! (`grpc_server_started_total`, `grpc_server_handled_total`,
//! `grpc_server_handling_seconds`) labelled as the common Go interceptors label them,
//! the codes of the gRPC convention for what the framework rejects, and the end of the
//! calls still running when the server's grace period is over.
//!
//! A call is counted as handled when its response ends: with the status of its trailers
//! (a message refused for its size after the headers is not OK), or CANCELLED when the
//! client goes away first. Its handling time runs to that end, so that a stream's time
//! is the stream's, not its headers'.
//!
//! Each call also writes one audit line when it ends (target `chuhe::audit`, level
//! INFO): its tenant, method, code, duration and the bytes of its request and response
//! bodies, never a key or a body.
//!
//! Only the methods the server serves have series of their own; every other path is
//! counted under `grpc_service="unknown"`, `grpc_method="unknown"`, so that no client
//! can create a series by making up names.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{Request, Response};
use http_body_util::BodyExt;
use tokio::sync::Semaphore;
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};
use tracing::Instrument;

use super::address_share::AddressShares;
use super::call::{CallPlace, CallTenant, ClientName, Place};
use super::connections::ConnectionActivity;
use super::grpc_headers::{client_timeout, status_of};
use super::record::{Audit, BodyBytes, MethodMetrics, Record};
use super::request_body::{BodyRules, CheckedBody};
use super::response_body::{ObservedBody, Sending};
use super::write_watch::Waiting;
use crate::engine::Deadline;

pub use super::record::{KnownMethod, UNKNOWN, methods_of};
pub use super::response_body::Cutoff;

/// The limits of every call.
#[derive(Clone, Debug)]
pub struct CallLimits {
    /// Calls served at once; more are shed with RESOURCE_EXHAUSTED.
    pub max_concurrency: usize,
    /// The places one client address may hold when no tenant is known (a call without
    /// an API key or a client certificate); none: no share.
    pub address_share: Option<usize>,
    /// The longest a call may run (a smaller `grpc-timeout` wins).
    pub request_timeout: Duration,
    /// The longest time from a call's headers to the end of its request message.
    pub request_body_timeout: Duration,
}

/// The layer in front of every gRPC service (see the module documentation).
#[derive(Clone)]
pub struct GrpcLayer {
    permits: Arc<Semaphore>,
    shares: Option<Arc<AddressShares>>,
    timeout: Duration,
    body_timeout: Duration,
    next_id: Arc<AtomicU64>,
    methods: Arc<HashMap<Box<str>, Arc<MethodMetrics>>>,
    unknown: Arc<MethodMetrics>,
    cutoff: Cutoff,
}

impl GrpcLayer {
    /// The layer for a server of `methods` (see [`methods_of`]).
    pub fn new(limits: &CallLimits, methods: impl IntoIterator<Item = KnownMethod>, cutoff: Cutoff) -> GrpcLayer {
        let methods = methods
            .into_iter()
            .map(|m| {
                let path: Box<str> = format!("/{}/{}", m.service, m.method).into();
                (path, Arc::new(MethodMetrics::new(&m)))
            })
            .collect();
        let unknown = KnownMethod {
            service: UNKNOWN.into(),
            method: UNKNOWN.into(),
            server_streaming: false,
            client_streaming: false,
        };
        GrpcLayer {
            permits: Arc::new(Semaphore::new(limits.max_concurrency.max(1))),
            // A share of every place is no share.
            shares: limits
                .address_share
                .filter(|&share| share < limits.max_concurrency)
                .map(|share| Arc::new(AddressShares::new(share))),
            timeout: limits.request_timeout,
            body_timeout: limits.request_body_timeout,
            next_id: Arc::default(),
            methods: Arc::new(methods),
            unknown: Arc::new(MethodMetrics::new(&unknown)),
            cutoff,
        }
    }

    /// The metric handles of a request path; one set for every unknown path.
    fn method(&self, path: &str) -> Arc<MethodMetrics> {
        self.methods.get(path).unwrap_or(&self.unknown).clone()
    }
}

impl<S> Layer<S> for GrpcLayer {
    type Service = GrpcMiddleware<S>;
    fn layer(&self, inner: S) -> GrpcMiddleware<S> {
        GrpcMiddleware { inner, layer: self.clone() }
    }
}

/// The service of [`GrpcLayer`].
#[derive(Clone)]
pub struct GrpcMiddleware<S> {
    inner: S,
    layer: GrpcLayer,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> Service<Request<Body>> for GrpcMiddleware<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let arrived = Instant::now();
        let m = self.layer.method(req.uri().path());
        let unknown = Arc::ptr_eq(&m, &self.layer.unknown);
        m.started.increment(1);
        let id = self.layer.next_id.fetch_add(1, Ordering::Relaxed);
        let span = tracing::info_span!("grpc", request_id = id, service = %m.service, method = %m.method);
        let deadline = client_timeout(&req).map_or(self.layer.timeout, |t| t.min(self.layer.timeout));
        let bytes = Arc::new(BodyBytes::default());
        let tenant = CallTenant::default();
        let peer = req.extensions().get::<tonic::transport::server::TcpConnectInfo>().and_then(|i| i.remote_addr);
        let read = bytes.clone();
        let body_rules = BodyRules {
            timeout: self.layer.body_timeout,
            unary: !m.client_streaming,
            encoded: req.headers().contains_key("grpc-encoding"),
        };
        // A client stream (reflection) may send for as long as it lasts.
        let checked = !unknown && !m.client_streaming;
        // Calls that name no tenant are held to their address's share.
        let anonymous =
            !req.headers().contains_key(http::header::AUTHORIZATION) && req.extensions().get::<ClientName>().is_none();
        let mut req = req.map(|body| {
            let counted = Body::new(body.map_frame(move |frame| {
                if let Some(data) = frame.data_ref() {
                    read.read.fetch_add(data.len() as u64, Ordering::Relaxed);
                }
                frame
            }));
            if checked { Body::new(CheckedBody::new(counted, body_rules)) } else { counted }
        });
        // Searches end before it, counted from here: time in queues is the call's time.
        req.extensions_mut().insert(Deadline { arrived, timeout: deadline });
        req.extensions_mut().insert(tenant.clone());
        let (exempt, permits) = (m.exempt, self.layer.permits.clone());
        let shares = self.layer.shares.clone().filter(|_| anonymous);
        let connection = req.extensions().get::<Arc<ConnectionActivity>>().cloned();
        let active = connection.as_ref().map(ConnectionActivity::begin);
        let audit = Audit { request_id: id, peer, tenant, bytes };
        let mut record = Record { m, start: arrived, done: false, place: CallPlace::default(), active, audit };
        let cutoff = self.layer.cutoff.clone();
        // The inner service was polled ready for this call; use it and keep a fresh clone.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(
            async move {
                // Taken when the call first runs, not when the connection hands it over:
                // a burst read off one connection (refused by its tenant's quota on its
                // first poll, most of it) then never holds the permits of other calls.
                let admitted = if exempt || unknown { Ok(None) } else { admit(&permits, shares.as_deref(), peer) };
                let response = match admitted {
                    // Answered here, its body read off the call's path (see `unread`).
                    _ if unknown => {
                        super::unread::discard(req.into_body());
                        Status::unimplemented("no such service or method").into_http()
                    }
                    Err(refusal) => {
                        super::unread::discard(req.into_body());
                        tracing::debug!("shed: {refusal}");
                        record.m.shed.increment(1);
                        Status::resource_exhausted(refusal).into_http()
                    }
                    Ok(place) => {
                        if let Some(place) = place {
                            record.place.hold(place);
                        }
                        req.extensions_mut().insert(record.place.clone());
                        let mut cut = cutoff.tx.subscribe();
                        // The call first: most answer on their first poll, and then wait for nothing.
                        tokio::select! {
                            biased;
                            result = tokio::time::timeout(deadline, inner.call(req)) => match result {
                                Ok(Ok(response)) => response,
                                Ok(Err(e)) => {
                                    record.finish(tonic::Code::Unknown);
                                    return Err(e);
                                }
                                Err(_) => {
                                    metrics::counter!("chuhe_requests_timed_out_total", &record.m.labels).increment(1);
                                    Status::deadline_exceeded(format!("deadline of {deadline:?} exceeded")).into_http()
                                }
                            },
                            _ = cut.wait_for(|cut| *cut) => {
                                cutoff.cut.fetch_add(1, Ordering::Relaxed);
                                Cutoff::status().into_http()
                            }
                        }
                    }
                };
                let (mut parts, body) = response.into_parts();
                if let Some(code) = status_of(&mut parts.headers) {
                    // Trailers-only: the call is over.
                    record.finish(code);
                    return Ok(Response::from_parts(parts, body));
                }
                let cut = record.m.streaming.then(|| {
                    let mut rx = cutoff.tx.subscribe();
                    Box::pin(async move {
                        let _ = rx.wait_for(|cut| *cut).await;
                    }) as BoxFuture<()>
                });
                let sending = Arc::new(Sending::new(body, record));
                if let Some(connection) = &connection {
                    connection.responses.watch(Arc::downgrade(&sending) as std::sync::Weak<dyn Waiting>);
                }
                Ok(Response::from_parts(parts, Body::new(ObservedBody { sending, cut, cutoff })))
            }
            .instrument(span),
        )
    }
}

/// A call's place: one of the server's, and one of its client address's when it is
/// held to a share; or why there is none.
fn admit(
    permits: &Arc<Semaphore>,
    shares: Option<&AddressShares>,
    peer: Option<SocketAddr>,
) -> Result<Option<Place>, String> {
    let Ok(permit) = permits.clone().try_acquire_owned() else {
        return Err("the server is at its concurrency limit; retry later".into());
    };
    let (Some(shares), Some(peer)) = (shares, peer) else { return Ok(Some((permit, None))) };
    match shares.take(peer.ip()) {
        Some(share) => Ok(Some((permit, Some(share)))),
        None => Err(format!(
            "this client address holds its share of the server's places ({}) already; retry later",
            shares.share()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_methods_come_from_its_descriptors() {
        let methods = methods_of(crate::api::proto::FILE_DESCRIPTOR_SET);
        let stream = methods.iter().find(|m| m.method == "AnalyzeStream").expect("AnalyzeStream");
        assert_eq!(stream.service, "chuhe.v1.AnalysisService");
        assert!(stream.server_streaming);
        assert!(methods.iter().any(|m| m.method == "ListLegalMoves" && !m.server_streaming));
        assert!(methods_of(b"\xff not a descriptor").is_empty());
    }
}
