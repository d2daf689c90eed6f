//! API keys: a tower layer that asks every call but the health checks for
//! `authorization: Bearer <key>`, finds the key's tenant by the SHA-256 hash of the
//! key (the server keeps no keys, only their hashes, compared in constant time), and
//! holds the tenant to its quotas: calls at once, calls per second, searches at once
//! and search milliseconds per minute. A call without a valid key is UNAUTHENTICATED;
//! one over its tenant's quota RESOURCE_EXHAUSTED with a `google.rpc.QuotaFailure`
//! (the quota) and a `google.rpc.RetryInfo` (when to try again).
//!
//! With mutual TLS, a call without a key may be named by its client certificate: the
//! tenant whose `client_cn` is the common name of the certificate's subject (the
//! certificate was already checked against `--tls-client-ca` in the handshake).
//!
//! The file (`--api-keys`) is JSON, one object per tenant:
//!
//! ```json
//! [
//!   { "tenant": "acme", "key_sha256": "<64 hex digits>", "max_concurrent_calls": 8, "calls_per_second": 50,
//!     "max_concurrent_searches": 2, "search_ms_per_minute": 60000 },
//!   { "tenant": "tools", "key_sha256": "<64 hex digits>", "client_cn": "tools.example.com" }
//! ]
//! ```
//!
//! (`printf %s "$KEY" | sha256sum` gives the hash.) Quotas left out are not applied.
//! Searches are the calls of `chuhe.v1.AnalysisService`; a search's milliseconds are
//! its call's, from its arrival to the end of its response, charged when it ends (a
//! tenant with any time left may start one; one that went over waits longer).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{Request, Response};
use http_body::Frame;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;
use tonic::body::Body;
use tonic_types::{ErrorDetails, StatusExt};
use tower::{Layer, Service};

pub use super::keys_file::KeysFile;

/// The tenant of a call, in its request's extensions once its key is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant(pub Arc<str>);

/// The common name of the subject of a connection's client certificate (mutual TLS),
/// in the extensions of each of its requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientName(pub Arc<str>);

/// The path prefix of the calls that run searches.
const SEARCHES: &str = "/chuhe.v1.AnalysisService/";

#[derive(Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Entry {
    tenant: String,
    #[serde(default)]
    key_sha256: Option<String>,
    #[serde(default)]
    client_cn: Option<String>,
    #[serde(default)]
    max_concurrent_calls: Option<usize>,
    #[serde(default)]
    calls_per_second: Option<f64>,
    #[serde(default)]
    max_concurrent_searches: Option<usize>,
    #[serde(default)]
    search_ms_per_minute: Option<u64>,
}

struct TenantKey {
    /// The entry of the file it was made from: a reloaded file whose entry is the same
    /// keeps the tenant's quotas as they stand (calls running, tokens spent).
    entry: Entry,
    tenant: Tenant,
    hash: Option<[u8; 32]>,
    client_cn: Option<String>,
    at_once: Option<Arc<Semaphore>>,
    rate: Option<Mutex<Bucket>>,
    searches: Option<Arc<Semaphore>>,
    search_time: Option<Arc<Mutex<Bucket>>>,
}

/// A token bucket: `per_second` tokens a second, up to `capacity`. Tokens may go below
/// zero when more is charged than there was (a search that ran longer than was left).
struct Bucket {
    per_second: f64,
    capacity: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket.
    fn new(per_second: f64, capacity: f64) -> Bucket {
        Bucket { per_second, capacity, tokens: capacity, last: Instant::now() }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.per_second).min(self.capacity);
        self.last = now;
    }

    /// Takes one token, or says how long until there is one.
    fn take(&mut self) -> Result<(), Duration> {
        self.refill();
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(self.until(1.0))
        }
    }

    /// Whether any token is left, or how long until one is.
    fn any_left(&mut self) -> Result<(), Duration> {
        self.refill();
        if self.tokens > 0.0 { Ok(()) } else { Err(self.until(1.0)) }
    }

    fn charge(&mut self, tokens: f64) {
        self.refill();
        self.tokens -= tokens;
    }

    /// The time until the bucket holds `tokens`.
    fn until(&self, tokens: f64) -> Duration {
        Duration::from_secs_f64(((tokens - self.tokens) / self.per_second).clamp(0.0, 3600.0))
    }
}

/// The tenants and the hashes of their keys.
pub struct ApiKeys {
    keys: Vec<Arc<TenantKey>>,
}

impl ApiKeys {
    /// Reads the tenants of the text of a keys file.
    pub fn parse(text: &str) -> Result<ApiKeys, String> {
        ApiKeys::parse_after(text, &ApiKeys { keys: Vec::new() })
    }

    /// Reads the tenants of the text of a keys file that replaces `previous`: a tenant
    /// whose entry has not changed keeps its quotas' state.
    pub fn parse_after(text: &str, previous: &ApiKeys) -> Result<ApiKeys, String> {
        let entries: Vec<Entry> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut keys: Vec<Arc<TenantKey>> = Vec::with_capacity(entries.len());
        for (i, e) in entries.into_iter().enumerate() {
            let name = &e.tenant;
            if name.is_empty() {
                return Err(format!("entry {i}: no tenant name"));
            }
            let hash = match &e.key_sha256 {
                None => None,
                Some(h) => {
                    Some(hex32(h).ok_or_else(|| format!("entry {i} ({name}): key_sha256 is not 64 hex digits"))?)
                }
            };
            if hash.is_none() && e.client_cn.is_none() {
                return Err(format!("entry {i} ({name}): give key_sha256, client_cn or both"));
            }
            if hash.is_some() && keys.iter().any(|k| k.hash == hash) {
                return Err(format!("entry {i} ({name}): the same key as another tenant"));
            }
            if e.client_cn.is_some() && keys.iter().any(|k| k.client_cn == e.client_cn) {
                return Err(format!("entry {i} ({name}): the same client_cn as another tenant"));
            }
            if let Some(rate) = e.calls_per_second
                && !(rate.is_finite() && rate > 0.0)
            {
                return Err(format!("entry {i} ({name}): calls_per_second must be above 0"));
            }
            if e.search_ms_per_minute == Some(0) {
                return Err(format!("entry {i} ({name}): search_ms_per_minute must be above 0"));
            }
            if let Some(same) = previous.keys.iter().find(|k| k.entry == e) {
                keys.push(same.clone());
                continue;
            }
            keys.push(Arc::new(TenantKey {
                tenant: Tenant(e.tenant.as_str().into()),
                hash,
                client_cn: e.client_cn.clone(),
                at_once: e.max_concurrent_calls.map(|n| Arc::new(Semaphore::new(n))),
                rate: e.calls_per_second.map(|per_second| Mutex::new(Bucket::new(per_second, per_second.max(1.0)))),
                searches: e.max_concurrent_searches.map(|n| Arc::new(Semaphore::new(n))),
                search_time: e.search_ms_per_minute.map(|ms| {
                    let ms = ms as f64;
                    Arc::new(Mutex::new(Bucket::new(ms / 60.0, ms)))
                }),
                entry: e,
            }));
        }
        Ok(ApiKeys { keys })
    }

    /// How many tenants there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no tenants (every call is then refused).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The tenant of `key`: every stored hash is compared, each in constant time.
    fn find(&self, key: &[u8]) -> Option<&Arc<TenantKey>> {
        let digest = ring::digest::digest(&ring::digest::SHA256, key);
        let mut found = None;
        for k in &self.keys {
            let same: bool = k.hash.is_some_and(|hash| hash.ct_eq(digest.as_ref()).into());
            if same {
                found = Some(k);
            }
        }
        found
    }

    /// The name of the tenant of `key`.
    #[cfg(test)]
    pub(super) fn tenant_of(&self, key: &[u8]) -> Option<String> {
        self.find(key).map(|k| k.tenant.0.to_string())
    }

    /// The tenant named by a client certificate's common name.
    fn find_client(&self, name: &str) -> Option<&Arc<TenantKey>> {
        self.keys.iter().find(|k| k.client_cn.as_deref() == Some(name))
    }
}

fn hex32(text: &str) -> Option<[u8; 32]> {
    let text = text.trim().as_bytes();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in text.chunks(2).enumerate() {
        let digit = |b: u8| (b as char).to_digit(16);
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

/// The key of `authorization: Bearer <key>`.
fn bearer<B>(req: &Request<B>) -> Option<&[u8]> {
    let value = req.headers().get(http::header::AUTHORIZATION)?.as_bytes();
    let scheme = value.get(..7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then(|| value[7..].trim_ascii())
}

/// The API key layer; without keys it lets every call through.
#[derive(Clone, Default)]
pub struct AuthLayer {
    keys: Option<Arc<KeysFile>>,
    open_reflection: bool,
}

impl AuthLayer {
    /// Asks for the keys of `keys` as they were last read (none: every call passes);
    /// `open_reflection`: the reflection services answer without a key.
    pub fn new(keys: Option<Arc<KeysFile>>, open_reflection: bool) -> AuthLayer {
        AuthLayer { keys, open_reflection }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;
    fn layer(&self, inner: S) -> Auth<S> {
        Auth { inner, keys: self.keys.clone(), open_reflection: self.open_reflection }
    }
}

/// The service of [`AuthLayer`].
#[derive(Clone)]
pub struct Auth<S> {
    inner: S,
    keys: Option<Arc<KeysFile>>,
    open_reflection: bool,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

fn refused(reason: &'static str, status: Status) -> Response<Body> {
    metrics::counter!("chuhe_api_key_refusals_total", "reason" => reason).increment(1);
    status.into_http()
}

/// RESOURCE_EXHAUSTED for a tenant over `quota`, with the quota that failed and when
/// to try again.
fn over_quota(tenant: &str, quota: &str, what: &str, retry: Duration) -> Status {
    let mut details = ErrorDetails::new();
    details.add_quota_failure_violation(format!("tenant:{tenant}"), format!("{quota}: {what}"));
    details.set_retry_info(Some(retry));
    let message = format!("tenant {tenant} is over its {quota}; retry in {} ms", retry.as_millis().max(1));
    Status::with_error_details(tonic::Code::ResourceExhausted, message, details)
}

/// How long a tenant at its calls or searches at once is asked to wait: no time is
/// known, so a short one.
const RETRY_AT_ONCE: Duration = Duration::from_millis(250);

impl<S> Service<Request<Body>> for Auth<S>
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

    fn call(&mut self, mut req: Request<Body>) -> Self::Future {
        // The inner service was polled ready for this call; use it and keep a fresh clone.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let Some(keys) = self.keys.as_ref().map(|file| file.current()) else { return Box::pin(inner.call(req)) };
        let path = req.uri().path();
        // Probes have no keys; reflection may be opened by flag.
        if path.starts_with("/grpc.health.v1.Health/")
            || (self.open_reflection && path.starts_with("/grpc.reflection."))
        {
            return Box::pin(inner.call(req));
        }
        let search = path.starts_with(SEARCHES);
        let found = match bearer(&req) {
            Some(key) => keys.find(key).ok_or("invalid"),
            None => req.extensions().get::<ClientName>().and_then(|c| keys.find_client(&c.0)).ok_or("missing"),
        };
        let tenant = match found {
            Ok(tenant) => tenant.clone(),
            Err(reason) => {
                let status = match reason {
                    "invalid" => Status::unauthenticated("the API key is not valid"),
                    _ => Status::unauthenticated("an API key is required: authorization: Bearer <key>"),
                };
                super::unread::discard(req.into_body());
                return Box::pin(std::future::ready(Ok(refused(reason, status))));
            }
        };
        match admit(&tenant, search) {
            Ok(held) => {
                let name = &tenant.tenant.0;
                metrics::counter!("chuhe_tenant_calls_total", "tenant" => name.to_string()).increment(1);
                req.extensions_mut().insert(tenant.tenant.clone());
                if let Some(slot) = req.extensions().get::<super::middleware::CallTenant>() {
                    slot.set(tenant.tenant.clone());
                }
                let call = inner.call(req);
                Box::pin(async move {
                    let response = call.await?;
                    // The tenant's call runs until its response (a stream) ends.
                    Ok(if held.is_empty() { response } else { response.map(|body| Body::new(held.around(body))) })
                })
            }
            Err((reason, quota, status)) => {
                let name = tenant.tenant.0.to_string();
                metrics::counter!("chuhe_tenant_refusals_total", "tenant" => name, "quota" => quota).increment(1);
                super::unread::discard(req.into_body());
                Box::pin(std::future::ready(Ok(refused(reason, status))))
            }
        }
    }
}

/// What a tenant's admitted call holds until its response ends.
struct Held {
    permits: Vec<OwnedSemaphorePermit>,
    /// The tenant's search time, charged with the call's time when it ends.
    search_time: Option<(Arc<Mutex<Bucket>>, Instant)>,
}

impl Held {
    fn is_empty(&self) -> bool {
        self.permits.is_empty() && self.search_time.is_none()
    }

    fn around(self, inner: Body) -> HoldingBody {
        HoldingBody { inner, _held: self }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some((bucket, started)) = self.search_time.take()
            && let Ok(mut bucket) = bucket.lock()
        {
            bucket.charge(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
}

/// Holds `tenant` to its quotas for one call (`search`: a call that runs a search), or
/// the refusal's reason and quota (metric labels) and status.
fn admit(tenant: &TenantKey, search: bool) -> Result<Held, (&'static str, &'static str, Status)> {
    let name = &tenant.tenant.0;
    if let Some(rate) = &tenant.rate
        && let Err(retry) = rate.lock().map_or(Ok(()), |mut bucket| bucket.take())
    {
        let quota = "calls_per_second";
        return Err(("rate", quota, over_quota(name, quota, "no call left this second", retry)));
    }
    let mut held = Held { permits: Vec::new(), search_time: None };
    if let Some(at_once) = &tenant.at_once {
        let permit = at_once.clone().try_acquire_owned().map_err(|_| {
            let quota = "max_concurrent_calls";
            ("concurrency", quota, over_quota(name, quota, "all its calls at once are running", RETRY_AT_ONCE))
        })?;
        held.permits.push(permit);
    }
    if !search {
        return Ok(held);
    }
    if let Some(time) = &tenant.search_time {
        if let Err(retry) = time.lock().map_or(Ok(()), |mut bucket| bucket.any_left()) {
            let what = "no search time left this minute";
            let quota = "search_ms_per_minute";
            return Err(("search_time", quota, over_quota(name, quota, what, retry)));
        }
        held.search_time = Some((time.clone(), Instant::now()));
    }
    if let Some(searches) = &tenant.searches {
        let permit = searches.clone().try_acquire_owned().map_err(|_| {
            let what = "all its searches at once are running";
            let quota = "max_concurrent_searches";
            ("searches", quota, over_quota(name, quota, what, RETRY_AT_ONCE))
        })?;
        held.permits.push(permit);
    }
    Ok(held)
}

/// A response body that holds what its tenant's call took until it is dropped.
struct HoldingBody {
    inner: Body,
    _held: Held,
}

impl http_body::Body for HoldingBody {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn keys_are_found_by_their_hash() {
        let keys = ApiKeys::parse(&format!(r#"[{{"tenant": "acme", "key_sha256": "{ABC_SHA256}"}}]"#)).unwrap();
        assert_eq!(keys.find(b"abc").map(|k| &*k.tenant.0), Some("acme"));
        assert!(keys.find_client("acme").is_none());
        assert!(keys.find(b"abd").is_none());
        assert!(keys.find(b"").is_none());
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let short = ApiKeys::parse(r#"[{"tenant": "acme", "key_sha256": "ba78"}]"#).err().unwrap();
        assert!(short.contains("64 hex digits"), "{short}");
        let twice = format!(
            r#"[{{"tenant": "a", "key_sha256": "{ABC_SHA256}"}}, {{"tenant": "b", "key_sha256": "{ABC_SHA256}"}}]"#
        );
        assert!(ApiKeys::parse(&twice).err().unwrap().contains("same key"));
        assert!(ApiKeys::parse(r#"[{"tenant": "a", "key": "abc"}]"#).is_err());
    }

    #[test]
    fn a_reloaded_tenant_keeps_its_quotas_state_unless_its_entry_changed() {
        let file = |rate: u32| {
            format!(
                r#"[{{"tenant": "a", "key_sha256": "{ABC_SHA256}", "calls_per_second": 1}},
                    {{"tenant": "b", "client_cn": "b.example", "calls_per_second": {rate}}}]"#
            )
        };
        let first = ApiKeys::parse(&file(1)).unwrap();
        let again = ApiKeys::parse_after(&file(2), &first).unwrap();
        assert!(Arc::ptr_eq(&first.keys[0], &again.keys[0]), "a is unchanged: its bucket stays");
        assert!(!Arc::ptr_eq(&first.keys[1], &again.keys[1]), "b's quota changed");
        assert_eq!(again.keys[1].rate.as_ref().map(|r| r.lock().unwrap().per_second), Some(2.0));
    }

    #[test]
    fn a_bearer_key_is_read_from_its_header() {
        let req = |v: &str| Request::builder().header("authorization", v).body(()).unwrap();
        assert_eq!(bearer(&req("Bearer abc")), Some(&b"abc"[..]));
        assert_eq!(bearer(&req("bearer  abc ")), Some(&b"abc"[..]));
        assert_eq!(bearer(&req("Basic abc")), None);
        assert_eq!(bearer(&Request::new(())), None);
    }

    #[test]
    fn the_bucket_refills_at_its_rate() {
        let mut bucket = Bucket::new(2.0, 2.0);
        assert!(bucket.take().is_ok() && bucket.take().is_ok());
        let retry = bucket.take().unwrap_err();
        assert!(retry > Duration::from_millis(400) && retry <= Duration::from_millis(500), "{retry:?}");
        bucket.last -= Duration::from_millis(600);
        assert!(bucket.take().is_ok());
    }

    #[test]
    fn search_time_may_be_overspent_and_is_then_waited_for() {
        // 60 s a minute: a millisecond a millisecond.
        let mut time = Bucket::new(1_000.0, 60_000.0);
        assert!(time.any_left().is_ok());
        time.charge(61_000.0);
        let retry = time.any_left().unwrap_err();
        assert!(retry > Duration::from_millis(900) && retry <= Duration::from_millis(1_001), "{retry:?}");
        time.last -= Duration::from_millis(1_100);
        assert!(time.any_left().is_ok());
    }
}
