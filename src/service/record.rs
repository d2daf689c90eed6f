//! The methods a server serves, and a call's record: the standard gRPC server metrics of its method, and its audit line
//! (target `chuhe::audit`, level INFO: its tenant, method, code, duration and the bytes
//! of its request and response bodies, never a key or a body), written once, when the
//! call ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use metrics::{Counter, Histogram};
use prost::Message;

use super::call::{CallPlace, CallTenant};
use super::connections::ActiveCall;
use super::grpc_headers::code_name;

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
    /// Whether it takes a stream of request messages.
    pub client_streaming: bool,
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
                    client_streaming: m.client_streaming.unwrap_or(false),
                });
            }
        }
    }
    methods
}

/// The bytes of a call's request and response bodies so far.
#[derive(Default)]
pub(super) struct BodyBytes {
    pub(super) read: AtomicU64,
    pub(super) written: AtomicU64,
}

/// What the middleware records for the calls of one method.
pub(super) struct MethodMetrics {
    pub(super) service: String,
    pub(super) method: String,
    /// `grpc_service`, `grpc_method` and `grpc_type`.
    pub(super) labels: [(&'static str, String); 3],
    pub(super) streaming: bool,
    /// Whether it takes a stream of request messages.
    pub(super) client_streaming: bool,
    /// Probes and reflection must answer under load, or a busy pod would be restarted.
    pub(super) exempt: bool,
    pub(super) started: Counter,
    pub(super) handled_ok: Counter,
    pub(super) handling_seconds: Histogram,
    pub(super) shed: Counter,
}

impl MethodMetrics {
    pub(super) fn new(m: &KnownMethod) -> MethodMetrics {
        let grpc_type = if m.server_streaming { "server_stream" } else { "unary" };
        let labels = [
            ("grpc_service", m.service.clone()),
            ("grpc_method", m.method.clone()),
            ("grpc_type", grpc_type.to_string()),
        ];
        MethodMetrics {
            exempt: m.service.starts_with("grpc.health.") || m.service.starts_with("grpc.reflection."),
            streaming: m.server_streaming,
            client_streaming: m.client_streaming,
            started: metrics::counter!("grpc_server_started_total", &labels),
            handled_ok: metrics::counter!("grpc_server_handled_total", &handled_labels(&labels, tonic::Code::Ok)),
            handling_seconds: metrics::histogram!("grpc_server_handling_seconds", &labels),
            shed: metrics::counter!("chuhe_requests_shed_total", &labels),
            service: m.service.clone(),
            method: m.method.clone(),
            labels,
        }
    }

    pub(super) fn handled(&self, code: tonic::Code) -> Counter {
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
pub(super) struct Record {
    pub(super) m: Arc<MethodMetrics>,
    pub(super) start: Instant,
    pub(super) done: bool,
    pub(super) place: CallPlace,
    /// Keeps the call's connection from counting as idle.
    pub(super) active: Option<ActiveCall>,
    /// For the audit line.
    pub(super) audit: Audit,
}

/// What a call's audit line says beside its method, code and duration.
pub(super) struct Audit {
    pub(super) request_id: u64,
    pub(super) peer: Option<std::net::SocketAddr>,
    pub(super) tenant: CallTenant,
    pub(super) bytes: Arc<BodyBytes>,
}

impl Record {
    pub(super) fn finish(&mut self, code: tonic::Code) {
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
            tenant = a.tenant.get().map(|t| &*t.0),
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
