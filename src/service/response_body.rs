//! A call's response body as it is sent: it records its call when it ends (see
//! [`Record`]) and gives the gRPC convention's codes in its trailers; a stream ends with
//! UNAVAILABLE when the server's grace period is over; and it hands HTTP/2 its bytes in
//! pieces, so that a response that waits for flow-control window holds its call's
//! bytes here, where they are freed when the connection gives the response up (see
//! [`super::write_watch`]), and not in HTTP/2's buffers.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderMap;
use http_body::Frame;
use tokio::sync::watch;
use tokio::time::Instant;
use tonic::Status;
use tonic::body::Body;

use super::grpc_headers::status_of;
use super::record::Record;
use super::write_watch::Waiting;

/// The most bytes handed to HTTP/2 at once: the most a response given up still holds
/// in HTTP/2's hands until its stream or connection goes (one HTTP/2 frame's worth).
pub const PIECE_BYTES: usize = 16 * 1024;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What ends the calls still running: set when the grace period is over.
#[derive(Clone)]
pub struct Cutoff {
    pub(super) tx: Arc<watch::Sender<bool>>,
    pub(super) cut: Arc<AtomicU64>,
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

    pub(super) fn status() -> Status {
        Status::unavailable("the server is shutting down and its grace period is over; retry")
    }
}

/// A response being sent, shared by its body and its connection's watch.
pub(super) struct Sending(Mutex<SendState>);

struct SendState {
    /// None once the response is over or given up.
    inner: Option<Body>,
    record: Option<Record>,
    /// What is left of the last data frame, handed over in pieces.
    rest: Bytes,
    /// The bytes of `rest` counted in `chuhe_response_bytes_waiting`.
    counted: usize,
    /// When the last piece was handed over, until HTTP/2 comes back for the next.
    handed_over: Option<Instant>,
    given_up: bool,
    ended: bool,
}

impl Sending {
    pub(super) fn new(inner: Body, record: Record) -> Sending {
        Sending(Mutex::new(SendState {
            inner: Some(inner),
            record: Some(record),
            rest: Bytes::new(),
            counted: 0,
            handed_over: None,
            given_up: false,
            ended: false,
        }))
    }

    fn state(&self) -> MutexGuard<'_, SendState> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl SendState {
    fn finish(&mut self, code: tonic::Code) {
        self.ended = true;
        self.inner = None;
        self.rest = Bytes::new();
        self.recount();
        if let Some(mut record) = self.record.take() {
            record.finish(code);
        }
    }

    fn piece(&mut self) -> Frame<Bytes> {
        let piece = self.rest.split_to(self.rest.len().min(PIECE_BYTES));
        self.recount();
        self.handed_over = Some(Instant::now());
        Frame::data(piece)
    }

    /// Brings `chuhe_response_bytes_waiting` to what `rest` holds (a response of one
    /// piece never touches it).
    fn recount(&mut self) {
        let held = self.rest.len();
        if held != self.counted {
            metrics::gauge!("chuhe_response_bytes_waiting").increment(held as f64 - self.counted as f64);
            self.counted = held;
        }
    }
}

impl Drop for SendState {
    fn drop(&mut self) {
        self.rest = Bytes::new();
        self.recount();
    }
}

impl Waiting for Sending {
    fn waiting_since(&self) -> Option<Instant> {
        let state = self.state();
        if state.ended || state.given_up { None } else { state.handed_over }
    }

    fn give_up(&self) {
        let mut state = self.state();
        if state.ended || state.given_up {
            return;
        }
        if let Some(record) = &state.record {
            metrics::counter!("chuhe_responses_write_timed_out_total", &record.m.labels).increment(1);
        }
        state.given_up = true;
        // The client sees its stream reset (CANCEL): the call ends as cancelled.
        state.finish(tonic::Code::Cancelled);
        state.ended = false;
    }
}

/// The response body of a call (see the module documentation).
pub(super) struct ObservedBody {
    pub(super) sending: Arc<Sending>,
    /// For a stream: resolves when the grace period is over.
    pub(super) cut: Option<BoxFuture<()>>,
    pub(super) cutoff: Cutoff,
}

/// The error that resets a given-up response's stream with CANCEL.
fn given_up() -> Status {
    Status::from_error(Box::new(h2::Error::from(h2::Reason::CANCEL)))
}

impl http_body::Body for ObservedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let mut state = this.sending.state();
        // HTTP/2 is back: what it was handed has found its window.
        state.handed_over = None;
        if state.given_up {
            state.given_up = false;
            state.ended = true;
            return Poll::Ready(Some(Err(given_up())));
        }
        if state.ended {
            return Poll::Ready(None);
        }
        if !state.rest.is_empty() {
            return Poll::Ready(Some(Ok(state.piece())));
        }
        let Some(inner) = state.inner.as_mut() else { return Poll::Ready(None) };
        match Pin::new(inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(mut frame))) => {
                if let Some(trailers) = frame.trailers_mut() {
                    let code = status_of(trailers).unwrap_or(tonic::Code::Unknown);
                    state.finish(code);
                    return Poll::Ready(Some(Ok(frame)));
                }
                match frame.into_data() {
                    Ok(data) => {
                        if let Some(record) = &state.record {
                            record.audit.bytes.written.fetch_add(data.len() as u64, Ordering::Relaxed);
                        }
                        state.rest = data;
                        Poll::Ready(Some(Ok(state.piece())))
                    }
                    Err(other) => Poll::Ready(Some(Ok(other))),
                }
            }
            Poll::Ready(Some(Err(status))) => {
                state.finish(status.code());
                Poll::Ready(Some(Err(status)))
            }
            Poll::Ready(None) => {
                // A gRPC response ends with its trailers; a body without them is no status.
                state.finish(tonic::Code::Unknown);
                Poll::Ready(None)
            }
            Poll::Pending => {
                if let Some(cut) = this.cut.as_mut()
                    && cut.as_mut().poll(cx).is_ready()
                {
                    this.cut = None;
                    this.cutoff.cut.fetch_add(1, Ordering::Relaxed);
                    state.finish(tonic::Code::Unavailable);
                    let mut trailers = HeaderMap::new();
                    Cutoff::status().add_header(&mut trailers).ok();
                    return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        let state = self.sending.state();
        !state.given_up
            && (state.ended || (state.rest.is_empty() && state.inner.as_ref().is_some_and(|b| b.is_end_stream())))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        let state = self.sending.state();
        match &state.inner {
            Some(inner) if state.rest.is_empty() => inner.size_hint(),
            _ => http_body::SizeHint::default(),
        }
    }
}
