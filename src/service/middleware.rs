//! One tower layer in front of every gRPC service: admission under a global concurrency
//! limit (load shedding with RESOURCE_EXHAUSTED), the request deadline (the smaller of
//! the client's `grpc-timeout` and the server's limit, DEADLINE_EXCEEDED when it
//! passes), a tracing span with a request id, and the standard gRPC server metrics
//! (`grpc_server_started_total`, `grpc_server_handled_total`,
//! `grpc_server_handling_seconds`) labelled as the common Go interceptors label them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{Request, Response};
use metrics::{Counter, Histogram};
use tokio::sync::Semaphore;
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};
use tracing::Instrument;

#[derive(Clone)]
pub struct GrpcLayer {
    permits: Arc<Semaphore>,
    timeout: Duration,
    next_id: Arc<AtomicU64>,
    methods: Arc<RwLock<HashMap<Box<str>, Arc<MethodMetrics>>>>,
}

/// Most request paths whose metric handles are kept; the paths of other requests (a
/// client making up method names) are looked up in the recorder each time.
const MAX_CACHED_METHODS: usize = 1024;

impl GrpcLayer {
    pub fn new(max_concurrency: usize, timeout: Duration) -> GrpcLayer {
        GrpcLayer {
            permits: Arc::new(Semaphore::new(max_concurrency.max(1))),
            timeout,
            next_id: Arc::default(),
            methods: Arc::default(),
        }
    }

    /// The names and metric handles of a request path, registered with the recorder on
    /// the path's first request and kept for the next ones.
    fn method(&self, path: &str) -> Arc<MethodMetrics> {
        if let Some(m) = self.methods.read().ok().and_then(|cache| cache.get(path).cloned()) {
            return m;
        }
        let m = Arc::new(MethodMetrics::new(path));
        if let Ok(mut cache) = self.methods.write()
            && cache.len() < MAX_CACHED_METHODS
        {
            cache.insert(path.into(), m.clone());
        }
        m
    }
}

/// What the middleware records for the calls of one method.
struct MethodMetrics {
    service: String,
    method: String,
    /// `grpc_service`, `grpc_method` and `grpc_type`.
    labels: [(&'static str, String); 3],
    /// Probes and reflection must answer under load, or a busy pod would be restarted.
    exempt: bool,
    started: Counter,
    handled_ok: Counter,
    handling_seconds: Histogram,
}

impl MethodMetrics {
    fn new(path: &str) -> MethodMetrics {
        let (service, method) = split_path(path);
        let labels = [
            ("grpc_service", service.clone()),
            ("grpc_method", method.clone()),
            ("grpc_type", grpc_type(&method).into()),
        ];
        MethodMetrics {
            exempt: service.starts_with("grpc.health.") || service.starts_with("grpc.reflection."),
            started: metrics::counter!("grpc_server_started_total", &labels),
            handled_ok: metrics::counter!("grpc_server_handled_total", &handled_labels(&labels, tonic::Code::Ok)),
            handling_seconds: metrics::histogram!("grpc_server_handling_seconds", &labels),
            service,
            method,
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

impl<S> Layer<S> for GrpcLayer {
    type Service = GrpcMiddleware<S>;
    fn layer(&self, inner: S) -> GrpcMiddleware<S> {
        GrpcMiddleware { inner, layer: self.clone() }
    }
}

#[derive(Clone)]
pub struct GrpcMiddleware<S> {
    inner: S,
    layer: GrpcLayer,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> Service<Request<B>> for GrpcMiddleware<S>
where
    S: Service<Request<B>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let m = self.layer.method(req.uri().path());
        m.started.increment(1);
        let id = self.layer.next_id.fetch_add(1, Ordering::Relaxed);
        let span = tracing::info_span!("grpc", request_id = id, service = %m.service, method = %m.method);
        let deadline = client_timeout(&req).map_or(self.layer.timeout, |t| t.min(self.layer.timeout));
        let start = Instant::now();
        let permit = if m.exempt { None } else { Some(self.layer.permits.clone().try_acquire_owned()) };
        // The inner service was polled ready for this call; use it and keep a fresh clone.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(
            async move {
                let response = match permit {
                    Some(Err(_)) => {
                        tracing::debug!("shed: at the concurrency limit");
                        Ok(Status::resource_exhausted("the server is at its concurrency limit; retry later")
                            .into_http())
                    }
                    Some(Ok(_)) | None => match tokio::time::timeout(deadline, inner.call(req)).await {
                        Ok(result) => result,
                        Err(_) => {
                            metrics::counter!("chuhe_requests_timed_out_total", &m.labels).increment(1);
                            Ok(Status::deadline_exceeded(format!("deadline of {deadline:?} exceeded")).into_http())
                        }
                    },
                };
                let code = match &response {
                    Ok(r) => response_code(r),
                    Err(_) => tonic::Code::Unknown,
                };
                let elapsed = start.elapsed().as_secs_f64();
                m.handled(code).increment(1);
                m.handling_seconds.record(elapsed);
                tracing::debug!(code = code_name(code), seconds = elapsed, "handled");
                response
            }
            .instrument(span),
        )
    }
}

/// `/pkg.Service/Method` -> (`pkg.Service`, `Method`).
fn split_path(path: &str) -> (String, String) {
    let mut parts = path.trim_start_matches('/').splitn(2, '/');
    let service = parts.next().unwrap_or_default().to_string();
    let method = parts.next().unwrap_or_default().to_string();
    (service, method)
}

fn grpc_type(method: &str) -> &'static str {
    match method {
        "AnalyzeStream" | "Watch" | "ServerReflectionInfo" => "server_stream",
        _ => "unary",
    }
}

/// The `grpc-timeout` header of a request.
fn client_timeout<B>(req: &Request<B>) -> Option<Duration> {
    parse_grpc_timeout(req.headers().get("grpc-timeout")?.to_str().ok()?)
}

/// A `grpc-timeout` value: `<digits><unit>`, unit H M S m u n.
pub fn parse_grpc_timeout(v: &str) -> Option<Duration> {
    let (digits, unit) = v.split_at(v.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// The status of a response: trailers-only responses (errors) carry `grpc-status` in the
/// headers; otherwise the call succeeded as far as headers tell.
fn response_code(r: &Response<Body>) -> tonic::Code {
    r.headers()
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.parse::<i32>().ok())
        .map_or(tonic::Code::Ok, tonic::Code::from_i32)
}

/// Code names as the Go interceptors write them (`OK`, `InvalidArgument`, ...).
fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "Canceled",
        Unknown => "Unknown",
        InvalidArgument => "InvalidArgument",
        DeadlineExceeded => "DeadlineExceeded",
        NotFound => "NotFound",
        AlreadyExists => "AlreadyExists",
        PermissionDenied => "PermissionDenied",
        ResourceExhausted => "ResourceExhausted",
        FailedPrecondition => "FailedPrecondition",
        Aborted => "Aborted",
        OutOfRange => "OutOfRange",
        Unimplemented => "Unimplemented",
        Internal => "Internal",
        Unavailable => "Unavailable",
        DataLoss => "DataLoss",
        Unauthenticated => "Unauthenticated",
    }
}
