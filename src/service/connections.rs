//! Accepting connections and keeping them in bounds: at most so many at once (the
//! others wait in the listen backlog), a first request within a time of connecting,
//! an idle connection closed after a while, HTTP/2 keepalive pings, and a maximum
//! age after which a connection is asked to go (HTTP/2 GOAWAY) so that clients spread
//! again over the servers there are, then cut after a grace period.
//!
//! A connection serves at most so many streams at once (`SETTINGS_MAX_CONCURRENT_STREAMS`),
//! so that one connection never takes more than its share of the server's places. A
//! response that waits longer than the write timeout for the client's flow-control
//! window is given up (see [`super::write_watch`]), and its connection asked to go.
//!
//! Every connection is served by its own task; on shutdown each is asked to go
//! (GOAWAY, then closed when its calls are done), and the tasks still running when the
//! grace period is over are dropped.

use std::convert::Infallible;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tonic::body::Body;
use tonic::transport::server::TcpConnectInfo;
use tower::{Service, ServiceExt};

use super::call::ClientName;
use super::connection::Connection;
use super::tls::TlsAcceptor;
use super::write_watch::Watches;

/// The limits of connections (see the module documentation).
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Time from connecting (and the TLS handshake) to the first request.
    pub first_request_timeout: Duration,
    /// Time a connection may stay without a call before it is closed (None: forever).
    pub idle_timeout: Option<Duration>,
    /// Interval of HTTP/2 pings on a quiet connection (None: no pings).
    pub keepalive_interval: Option<Duration>,
    /// Time an unanswered ping waits before the connection is closed.
    pub keepalive_timeout: Duration,
    /// Age at which a connection is asked to go, give or take a tenth (None: no limit).
    pub max_connection_age: Option<Duration>,
    /// Time the calls of a connection asked to go get before it is cut.
    pub max_connection_age_grace: Duration,
    /// Connections served at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// Streams one connection may have open at once (`SETTINGS_MAX_CONCURRENT_STREAMS`).
    pub max_concurrent_streams: u32,
    /// The longest a response (or the next message of a stream) may wait for the
    /// client's flow-control window before it is given up (None: for ever).
    pub write_timeout: Option<Duration>,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            first_request_timeout: Duration::from_secs(10),
            idle_timeout: Some(Duration::from_secs(300)),
            keepalive_interval: Some(Duration::from_secs(60)),
            keepalive_timeout: Duration::from_secs(20),
            max_connection_age: Some(Duration::from_secs(1800)),
            max_connection_age_grace: Duration::from_secs(30),
            max_connections: 4096,
            max_concurrent_streams: 64,
            write_timeout: Some(Duration::from_secs(10)),
        }
    }
}

/// The bytes HTTP/2 buffers per stream beyond what the client's window lets it send.
const SEND_BUFFER_BYTES: usize = 64 * 1024;

/// A TCP listener on `addr` whose backlog holds `backlog` connections not yet accepted
/// (the kernel may hold fewer: `net.core.somaxconn`).
pub fn bind(addr: SocketAddr, backlog: u32) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    // A restarted server binds its port again while the old connections wait out TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog)
}

/// How busy a connection is: calls under way, calls so far, and when the last one
/// ended. The middleware holds an [`ActiveCall`] for each call, from its request to the
/// end of its response.
#[derive(Debug)]
pub struct ConnectionActivity {
    opened: Instant,
    active: AtomicUsize,
    calls: AtomicU64,
    /// Milliseconds from `opened` to the end of the last call.
    last_end_ms: AtomicU64,
    /// Its responses, looked at for those that wait too long for window.
    pub responses: Watches,
}

impl ConnectionActivity {
    fn new() -> Arc<ConnectionActivity> {
        Arc::new(ConnectionActivity {
            opened: Instant::now(),
            active: AtomicUsize::new(0),
            calls: AtomicU64::new(0),
            last_end_ms: AtomicU64::new(0),
            responses: Watches::default(),
        })
    }

    /// Marks a call as under way until the returned guard is dropped.
    pub fn begin(self: &Arc<Self>) -> ActiveCall {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.active.fetch_add(1, Ordering::AcqRel);
        ActiveCall(self.clone())
    }

    /// When the connection counts as idle from, if it has no call under way.
    fn idle_since(&self) -> Option<Instant> {
        if self.active.load(Ordering::Acquire) > 0 {
            return None;
        }
        Some(self.opened + Duration::from_millis(self.last_end_ms.load(Ordering::Relaxed)))
    }
}

/// A call under way on a connection (see [`ConnectionActivity::begin`]).
#[derive(Debug)]
pub struct ActiveCall(Arc<ConnectionActivity>);

impl Drop for ActiveCall {
    fn drop(&mut self) {
        let ms = u64::try_from(self.0.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.0.last_end_ms.fetch_max(ms, Ordering::Relaxed);
        self.0.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why a connection ended (the `reason` label of `chuhe_connections_closed_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closed {
    /// The client closed it.
    Ended,
    /// An I/O or protocol error, an unanswered keepalive ping among them.
    Error,
    /// The TLS handshake failed or did not end before the first request timeout.
    Handshake,
    FirstRequestTimeout,
    /// Asked to go after the idle timeout.
    Idle,
    /// Asked to go at its maximum age (and cut if still open after the grace).
    MaxAge,
    /// Asked to go by the server's shutdown.
    Shutdown,
    /// Asked to go when one of its responses waited too long for window.
    WriteTimeout,
}

impl Closed {
    fn label(self) -> &'static str {
        match self {
            Closed::Ended => "ended",
            Closed::Error => "error",
            Closed::Handshake => "handshake",
            Closed::FirstRequestTimeout => "first_request_timeout",
            Closed::Idle => "idle_timeout",
            Closed::MaxAge => "max_age",
            Closed::Shutdown => "shutdown",
            Closed::WriteTimeout => "write_timeout",
        }
    }
}

/// The server's connections: accepted under the limits, each served on its own task.
pub struct Connections<S> {
    service: S,
    limits: ConnectionLimits,
    tls: Option<TlsAcceptor>,
    http2: hyper::server::conn::http2::Builder<TokioExecutor>,
    /// Set to ask every connection to go.
    closing: watch::Sender<bool>,
    tasks: JoinSet<()>,
    jitter: std::collections::hash_map::RandomState,
    next_id: u64,
}

impl<S> Connections<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    /// Connections to `service` under `limits`, over TLS when given.
    pub fn new(service: S, limits: ConnectionLimits, tls: Option<TlsAcceptor>) -> Connections<S> {
        let mut http2 = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
        http2.timer(TokioTimer::new()).keep_alive_interval(limits.keepalive_interval);
        http2.keep_alive_timeout(limits.keepalive_timeout);
        http2.max_concurrent_streams(limits.max_concurrent_streams.max(1));
        // What HTTP/2 buffers of one stream for the client: the response body keeps the
        // rest, where a response given up frees it.
        http2.max_send_buf_size(SEND_BUFFER_BYTES);
        Connections {
            service,
            limits,
            tls,
            http2,
            closing: watch::channel(false).0,
            tasks: JoinSet::new(),
            jitter: std::collections::hash_map::RandomState::new(),
            next_id: 0,
        }
    }

    /// Accepts connections until `stop` resolves; a connection over the limit waits in
    /// the backlog until one closes.
    pub async fn accept(&mut self, listener: TcpListener, stop: impl std::future::Future<Output = ()>) {
        let slots = Arc::new(Semaphore::new(self.limits.max_connections.max(1)));
        let mut stop = std::pin::pin!(stop);
        loop {
            let permit = tokio::select! {
                _ = &mut stop => return,
                Some(_) = self.tasks.join_next(), if !self.tasks.is_empty() => continue,
                permit = slots.clone().acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => return,
                },
            };
            let (stream, peer) = loop {
                tokio::select! {
                    _ = &mut stop => return,
                    Some(_) = self.tasks.join_next(), if !self.tasks.is_empty() => {}
                    accepted = listener.accept() => match accepted {
                        Ok(accepted) => break accepted,
                        Err(e) => {
                            // Out of descriptors, or a connection reset before it was
                            // accepted: wait a little rather than spin.
                            tracing::debug!("accept: {e}");
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                    },
                }
            };
            let _ = stream.set_nodelay(true);
            let info = TcpConnectInfo { local_addr: stream.local_addr().ok(), remote_addr: Some(peer) };
            let age = self.limits.max_connection_age.map(|age| self.jittered(age));
            let task = ConnectionTask {
                service: self.service.clone(),
                limits: self.limits.clone(),
                tls: self.tls.clone(),
                http2: self.http2.clone(),
                closing: self.closing.subscribe(),
                age,
                info,
            };
            self.tasks.spawn(async move {
                let _permit = permit;
                metrics::gauge!("chuhe_connections_open").increment(1);
                let closed = task.run(stream).await;
                metrics::gauge!("chuhe_connections_open").decrement(1);
                metrics::counter!("chuhe_connections_closed_total", "reason" => closed.label()).increment(1);
                tracing::debug!(peer = %peer, reason = closed.label(), "connection closed");
            });
        }
    }

    /// Asks every connection to go (GOAWAY) and waits until they have, for at most
    /// `grace`; returns how many were still open then.
    pub async fn close(&mut self, grace: Duration) -> usize {
        self.closing.send_replace(true);
        let deadline = Instant::now() + grace;
        while !self.tasks.is_empty() {
            match tokio::time::timeout_at(deadline, self.tasks.join_next()).await {
                Ok(_) => {}
                Err(_) => break,
            }
        }
        self.tasks.len()
    }

    /// Drops every connection still open.
    pub async fn abort(&mut self) {
        self.tasks.shutdown().await;
    }

    /// `age` give or take a tenth, so that the connections made at once do not all go at once.
    fn jittered(&mut self, age: Duration) -> Duration {
        self.next_id += 1;
        let mut h = self.jitter.build_hasher();
        h.write_u64(self.next_id);
        let per_mille = h.finish() % 201; // 0..=200
        age.mul_f64(0.9 + per_mille as f64 / 1000.0)
    }
}

/// One connection's settings.
struct ConnectionTask<S> {
    service: S,
    limits: ConnectionLimits,
    tls: Option<TlsAcceptor>,
    http2: hyper::server::conn::http2::Builder<TokioExecutor>,
    closing: watch::Receiver<bool>,
    age: Option<Duration>,
    info: TcpConnectInfo,
}

/// The common name of the subject of a client certificate (mutual TLS), if it has one.
fn client_name(der: &tokio_rustls::rustls::pki_types::CertificateDer<'_>) -> Option<ClientName> {
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    let name = cert.subject().iter_common_name().next()?.as_str().ok()?;
    Some(ClientName(name.into()))
}

impl<S> ConnectionTask<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    async fn run(self, stream: TcpStream) -> Closed {
        let activity = ConnectionActivity::new();
        let first_request_by = activity.opened + self.limits.first_request_timeout;
        match self.tls.clone() {
            None => self.serve(Connection::from(stream), activity, None).await,
            Some(tls) => match tokio::time::timeout_at(first_request_by, tls.accept(stream)).await {
                Ok(Ok(stream)) => {
                    let client = stream.get_ref().1.peer_certificates().and_then(|c| c.first()).and_then(client_name);
                    self.serve(stream, activity, client).await
                }
                Ok(Err(e)) => {
                    tracing::debug!("TLS handshake: {e}");
                    Closed::Handshake
                }
                Err(_) => Closed::Handshake,
            },
        }
    }

    async fn serve<IO>(mut self, io: IO, activity: Arc<ConnectionActivity>, client: Option<ClientName>) -> Closed
    where
        IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let info = self.info.clone();
        let tracked = activity.clone();
        let service = self.service.clone().map_request(move |req: Request<Incoming>| {
            let mut req = req.map(Body::new);
            req.extensions_mut().insert(info.clone());
            req.extensions_mut().insert(tracked.clone());
            if let Some(client) = &client {
                req.extensions_mut().insert(client.clone());
            }
            req
        });
        let conn = self.http2.serve_connection(TokioIo::new(io), TowerToHyperService::new(service));
        let mut conn = std::pin::pin!(conn);
        let opened = activity.opened;
        let first_request_by = opened + self.limits.first_request_timeout;
        let far = opened + Duration::from_secs(30 * 365 * 24 * 3600);
        let age_at = self.age.map_or(far, |age| opened + age);
        // Set once the connection was asked to go: the time it is cut, and why.
        let mut going: Option<(Instant, Closed)> = None;
        // Responses are looked at four times a write timeout: one is given up between
        // one and one and a quarter write timeouts after it began to wait.
        let look_every = self.limits.write_timeout.map(|t| (t / 4).max(Duration::from_millis(10)));
        let mut look_at = look_every.map_or(far, |every| opened + every);
        loop {
            let check_at = self.next_check(&activity, going.is_some()).unwrap_or(far);
            let cut_at = going.map_or(far, |(at, _)| at);
            tokio::select! {
                result = &mut conn => {
                    return match (result, going) {
                        (Ok(()), None) => Closed::Ended,
                        (Ok(()), Some((_, why))) => why,
                        (Err(e), _) => {
                            tracing::debug!("connection: {e}");
                            Closed::Error
                        }
                    };
                }
                _ = self.closing.wait_for(|closing| *closing), if going.is_none() => {
                    // Shutdown: the server drops the connection when its grace is over.
                    conn.as_mut().graceful_shutdown();
                    going = Some((far, Closed::Shutdown));
                }
                _ = tokio::time::sleep_until(age_at), if going.is_none() => {
                    conn.as_mut().graceful_shutdown();
                    going = Some((Instant::now() + self.limits.max_connection_age_grace, Closed::MaxAge));
                }
                _ = tokio::time::sleep_until(cut_at), if going.is_some() => {
                    return going.map_or(Closed::Ended, |(_, why)| why);
                }
                _ = tokio::time::sleep_until(look_at) => {
                    look_at = look_every.map_or(far, |every| Instant::now() + every);
                    let given_up = self.limits.write_timeout.map_or(0, |t| activity.responses.give_up_stalled(t));
                    if given_up > 0 {
                        tracing::debug!(responses = given_up, "responses given up: no window within the write timeout");
                        if going.is_none() {
                            conn.as_mut().graceful_shutdown();
                            going = Some((Instant::now() + self.limits.max_connection_age_grace, Closed::WriteTimeout));
                        }
                    }
                }
                _ = tokio::time::sleep_until(check_at) => {
                    if activity.calls.load(Ordering::Relaxed) == 0 && Instant::now() >= first_request_by {
                        // Nothing asked of it: nothing to wait for.
                        return Closed::FirstRequestTimeout;
                    }
                    if let (Some(idle), Some(since)) = (self.limits.idle_timeout, activity.idle_since())
                        && since + idle <= Instant::now()
                    {
                        conn.as_mut().graceful_shutdown();
                        going = Some((Instant::now() + self.limits.max_connection_age_grace, Closed::Idle));
                    }
                }
            }
        }
    }

    /// When to look again whether the connection has had its first request, or has
    /// been idle too long.
    fn next_check(&self, activity: &ConnectionActivity, going: bool) -> Option<Instant> {
        if going {
            return None;
        }
        if activity.calls.load(Ordering::Relaxed) == 0 {
            // Look first when an idle period is over if that comes sooner: a first call
            // may have come and gone by then.
            let first = activity.opened + self.limits.first_request_timeout;
            let probe = self.limits.idle_timeout.map(|idle| activity.opened + idle);
            return Some(match probe {
                Some(probe) if probe < first && probe > Instant::now() => probe,
                _ => first,
            });
        }
        let idle = self.limits.idle_timeout?;
        // Under way: look again an idle period from now at the earliest.
        Some(activity.idle_since().map_or_else(|| Instant::now() + idle, |since| since + idle))
    }
}
