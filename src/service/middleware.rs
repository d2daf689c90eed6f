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
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{HeaderMap, Request, Response};
use http_body::Frame;
use http_body_util::BodyExt;
use metrics::{Counter, Histogram};
use prost::Message;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};
use tracing::Instrument;

use super::auth::Tenant;
use super::connections::{ActiveCall, ConnectionActivity};
use super::grpc_headers::{client_timeout, code_name, status_of};
use crate::engine::Deadline;

/// Where the API key layer (inside this one) names a call's tenant, for its audit line.
#[derive(Clone, Default)]
pub struct CallTenant(Arc<OnceLock<Tenant>>);

impl CallTenant {
    /// Names the call's tenant (the first name given stays).
    pub fn set(&self, tenant: Tenant) {
        let _ = self.0.set(tenant);
    }
}

/// A call's place among the calls the server serves at once, which a layer inside this
/// one may give up early: a refusal held back over a tenant's quota waits without one.
#[derive(Clone, Default)]
pub struct CallPlace(Arc<Mutex<Option<OwnedSemaphorePermit>>>);

impl CallPlace {
    /// Gives the call's place to another call.
    pub fn give_up(&self) {
        if let Ok(mut place) = self.0.lock() {
            place.take();
        }
    }
}

/// The bytes of a call's request and response bodies so far.
#[derive(Default)]
struct BodyBytes {
    read: AtomicU64,
    written: AtomicU64,
}

/// The label value of every path the server does not serve.
pub const UNKNOWN: &str = "unknown";

/// A method the server serves: `package.Service` and `Method`, and whether it streams
/// its responses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownMethod {
    /// `package.Service`.
    pub service: String,
    /// The method's name.
    pub method: String,
    /// Whether it streams its responses.
    pub server_streaming: bool,
}

/// The methods of the services of an encoded `FileDescriptorSet`.
pub fn methods_of(file_descriptor_set: &[u8]) -> Vec<KnownMethod> {
    let Ok(set) = prost_types::FileDescriptorSet::decode(file_descriptor_set) else { return Vec::new() };
    let mut methods = Vec::new();
    for file in set.file {
        let package = file.package.unwrap_or_default();
        for service in file.service {
            let name = service.name.unwrap_or_default();
            let service_name = if package.is_empty() { name } else { format!("{package}.{name}") };
            for m in service.method {
                methods.push(KnownMethod {
                    service: service_name.clone(),
                    method: m.name.unwrap_or_default(),
                    server_streaming: m.server_streaming.unwrap_or(false),
                });
            }
        }
    }
    methods
}

/// What ends the calls still running: set when the grace period is over.
#[derive(Clone)]
pub struct Cutoff {
    tx: Arc<watch::Sender<bool>>,
    cut: Arc<AtomicU64>,
}

impl Default for Cutoff {
    fn default() -> Self {
        Cutoff { tx: Arc::new(watch::channel(false).0), cut: Arc::default() }
    }
}

impl Cutoff {
    /// Ends every running call with UNAVAILABLE (a stream gets it as its final status).
    pub fn cut(&self) {
        self.tx.send_replace(true);
    }

    /// How many calls were ended by `cut`.
    pub fn calls_cut(&self) -> u64 {
        self.cut.load(Ordering::Relaxed)
    }

    fn status() -> Status {
        Status::unavailable("the server is shutting down and its grace period is over; retry")
    }
}

/// The layer in front of every gRPC service (see the module documentation).
#[derive(Clone)]
pub struct GrpcLayer {
    permits: Arc<Semaphore>,
    timeout: Duration,
    next_id: Arc<AtomicU64>,
    methods: Arc<HashMap<Box<str>, Arc<MethodMetrics>>>,
    unknown: Arc<MethodMetrics>,
    cutoff: Cutoff,
}

impl GrpcLayer {
    /// The layer for a server of `methods` (see [`methods_of`]).
    pub fn new(
        max_concurrency: usize,
        timeout: Duration,
        methods: impl IntoIterator<Item = KnownMethod>,
        cutoff: Cutoff,
    ) -> GrpcLayer {
        let methods = methods
            .into_iter()
            .map(|m| {
                let path: Box<str> = format!("/{}/{}", m.service, m.method).into();
                (path, Arc::new(MethodMetrics::new(&m)))
            })
            .collect();
        let unknown = KnownMethod { service: UNKNOWN.into(), method: UNKNOWN.into(), server_streaming: false };
        GrpcLayer {
            permits: Arc::new(Semaphore::new(max_concurrency.max(1))),
            timeout,
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

/// What the middleware records for the calls of one method.
struct MethodMetrics {
    service: String,
    method: String,
    /// `grpc_service`, `grpc_method` and `grpc_type`.
    labels: [(&'static str, String); 3],
    streaming: bool,
    /// Probes and reflection must answer under load, or a busy pod would be restarted.
    exempt: bool,
    started: Counter,
    handled_ok: Counter,
    handling_seconds: Histogram,
    shed: Counter,
}

impl MethodMetrics {
    fn new(m: &KnownMethod) -> MethodMetrics {
        let grpc_type = if m.server_streaming { "server_stream" } else { "unary" };
        let labels = [
            ("grpc_service", m.service.clone()),
            ("grpc_method", m.method.clone()),
            ("grpc_type", grpc_type.to_string()),
        ];
        MethodMetrics {
            exempt: m.service.starts_with("grpc.health.") || m.service.starts_with("grpc.reflection."),
            streaming: m.server_streaming,
            started: metrics::counter!("grpc_server_started_total", &labels),
            handled_ok: metrics::counter!("grpc_server_handled_total", &handled_labels(&labels, tonic::Code::Ok)),
            handling_seconds: metrics::histogram!("grpc_server_handling_seconds", &labels),
            shed: metrics::counter!("chuhe_requests_shed_total", &labels),
            service: m.service.clone(),
            method: m.method.clone(),
            labels,
        }
    }

    fn handled(&self, code: tonic::Code) -> Counter {
        match code {
            tonic::Code::Ok => self.handled_ok.clone(),
            _ => metrics::counter!("grpc_server_handled_total", &handled_labels(&self.labels, code)),
        }
    }
}

fn handled_labels(labels: &[(&'static str, String); 3], code: tonic::Code) -> Vec<(&'static str, String)> {
    let mut handled = labels.to_vec();
    handled.push(("grpc_code", code_name(code).into()));
    handled
}

/// One call's record: counted as handled once, when its response ends, or as CANCELLED
/// when it is dropped before (the client went away). Holds the call's admission permit.
struct Record {
    m: Arc<MethodMetrics>,
    start: Instant,
    done: bool,
    place: CallPlace,
    /// Keeps the call's connection from counting as idle.
    active: Option<ActiveCall>,
    /// For the audit line.
    audit: Audit,
}

/// What a call's audit line says beside its method, code and duration.
struct Audit {
    request_id: u64,
    peer: Option<std::net::SocketAddr>,
    tenant: CallTenant,
    bytes: Arc<BodyBytes>,
}

impl Record {
    fn finish(&mut self, code: tonic::Code) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        self.place.give_up();
        self.active = None;
        let elapsed = self.start.elapsed();
        self.m.handled(code).increment(1);
        self.m.handling_seconds.record(elapsed.as_secs_f64());
        let a = &self.audit;
        tracing::info!(
            target: "chuhe::audit",
            request_id = a.request_id,
            peer = a.peer.map(tracing::field::display),
            tenant = a.tenant.0.get().map(|t| &*t.0),
            service = %self.m.service,
            method = %self.m.method,
            code = code_name(code),
            duration_ms = elapsed.as_secs_f64() * 1000.0,
            bytes_in = a.bytes.read.load(Ordering::Relaxed),
            bytes_out = a.bytes.written.load(Ordering::Relaxed),
            "call"
        );
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        self.finish(tonic::Code::Cancelled);
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
        let mut req = req.map(|body| {
            Body::new(body.map_frame(move |frame| {
                if let Some(data) = frame.data_ref() {
                    read.read.fetch_add(data.len() as u64, Ordering::Relaxed);
                }
                frame
            }))
        });
        // Searches end before it, counted from here: time in queues is the call's time.
        req.extensions_mut().insert(Deadline { arrived, timeout: deadline });
        req.extensions_mut().insert(tenant.clone());
        let (exempt, permits) = (m.exempt, self.layer.permits.clone());
        let active = req.extensions().get::<Arc<ConnectionActivity>>().map(ConnectionActivity::begin);
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
                let admitted = if exempt || unknown { Ok(None) } else { permits.try_acquire_owned().map(Some) };
                let response = match admitted {
                    // Answered here, its body read off the call's path (see `unread`).
                    _ if unknown => {
                        super::unread::discard(req.into_body());
                        Status::unimplemented("no such service or method").into_http()
                    }
                    Err(_) => {
                        super::unread::discard(req.into_body());
                        tracing::debug!("shed: at the concurrency limit");
                        record.m.shed.increment(1);
                        Status::resource_exhausted("the server is at its concurrency limit; retry later").into_http()
                    }
                    Ok(permit) => {
                        if let Ok(mut place) = record.place.0.lock() {
                            *place = permit;
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
                let body = ObservedBody { inner: body, record: Some(record), cut, cutoff, ended: false };
                Ok(Response::from_parts(parts, Body::new(body)))
            }
            .instrument(span),
        )
    }
}

/// A response body that records its call when it ends (see [`Record`]), gives the gRPC
/// convention's codes in its trailers, and, for a stream, ends with UNAVAILABLE when
/// the grace period is over.
struct ObservedBody {
    inner: Body,
    record: Option<Record>,
    cut: Option<BoxFuture<()>>,
    cutoff: Cutoff,
    ended: bool,
}

impl http_body::Body for ObservedBody {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match polled {
            Poll::Ready(Some(Ok(mut frame))) => {
                if let (Some(data), Some(record)) = (frame.data_ref(), &self.record) {
                    record.audit.bytes.written.fetch_add(data.len() as u64, Ordering::Relaxed);
                }
                if let Some(trailers) = frame.trailers_mut() {
                    let code = status_of(trailers).unwrap_or(tonic::Code::Unknown);
                    self.finish(code);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(status))) => {
                self.finish(status.code());
                Poll::Ready(Some(Err(status)))
            }
            Poll::Ready(None) => {
                // A gRPC response ends with its trailers; a body without them is no status.
                self.finish(tonic::Code::Unknown);
                Poll::Ready(None)
            }
            Poll::Pending => {
                if let Some(cut) = self.cut.as_mut()
                    && cut.as_mut().poll(cx).is_ready()
                {
                    self.cutoff.cut.fetch_add(1, Ordering::Relaxed);
                    self.finish(tonic::Code::Unavailable);
                    let mut trailers = HeaderMap::new();
                    Cutoff::status().add_header(&mut trailers).ok();
                    return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl ObservedBody {
    fn finish(&mut self, code: tonic::Code) {
        self.ended = true;
        self.cut = None;
        if let Some(mut record) = self.record.take() {
            record.finish(code);
        }
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
