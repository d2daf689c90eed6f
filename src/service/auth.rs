//! API keys: a tower layer that asks every call but the health checks for
//! `authorization: Bearer <key>`, finds the key's tenant by the SHA-256 hash of the
//! key (the server keeps no keys, only their hashes, compared in constant time), and
//! holds the tenant to its quotas: calls at once and calls per second. A call without
//! a valid key is UNAUTHENTICATED; one over its tenant's quota RESOURCE_EXHAUSTED.
//!
//! The file (`--api-keys`) is JSON, one object per tenant:
//!
//! ```json
//! [
//!   { "tenant": "acme", "key_sha256": "<64 hex digits>", "max_concurrent_calls": 8, "calls_per_second": 50 },
//!   { "tenant": "tools", "key_sha256": "<64 hex digits>" }
//! ]
//! ```
//!
//! (`printf %s "$KEY" | sha256sum` gives the hash.) Quotas left out are not applied.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use http::{Request, Response};
use http_body::Frame;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

/// The tenant of a call, in its request's extensions once its key is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant(pub Arc<str>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    tenant: String,
    key_sha256: String,
    #[serde(default)]
    max_concurrent_calls: Option<usize>,
    #[serde(default)]
    calls_per_second: Option<f64>,
}

struct TenantKey {
    tenant: Tenant,
    hash: [u8; 32],
    at_once: Option<Arc<Semaphore>>,
    rate: Option<Mutex<Bucket>>,
}

/// A token bucket: `per_second` tokens a second, at most a second's worth (and at least one).
struct Bucket {
    per_second: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        let capacity = self.per_second.max(1.0);
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.per_second).min(capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The tenants and the hashes of their keys.
pub struct ApiKeys {
    keys: Vec<TenantKey>,
}

impl ApiKeys {
    pub fn from_file(path: &Path) -> Result<ApiKeys, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        ApiKeys::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<ApiKeys, String> {
        let entries: Vec<Entry> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut keys: Vec<TenantKey> = Vec::with_capacity(entries.len());
        for (i, e) in entries.into_iter().enumerate() {
            let hash = hex32(&e.key_sha256)
                .ok_or_else(|| format!("entry {i} ({}): key_sha256 is not 64 hex digits", e.tenant))?;
            if e.tenant.is_empty() {
                return Err(format!("entry {i}: no tenant name"));
            }
            if keys.iter().any(|k| k.hash == hash) {
                return Err(format!("entry {i} ({}): the same key as another tenant", e.tenant));
            }
            if let Some(rate) = e.calls_per_second
                && !(rate.is_finite() && rate > 0.0)
            {
                return Err(format!("entry {i} ({}): calls_per_second must be above 0", e.tenant));
            }
            keys.push(TenantKey {
                tenant: Tenant(e.tenant.into()),
                hash,
                at_once: e.max_concurrent_calls.map(|n| Arc::new(Semaphore::new(n))),
                rate: e.calls_per_second.map(|per_second| {
                    Mutex::new(Bucket { per_second, tokens: per_second.max(1.0), last: Instant::now() })
                }),
            });
        }
        Ok(ApiKeys { keys })
    }

    /// How many tenants there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The tenant of `key`: every stored hash is compared, each in constant time.
    fn find(&self, key: &[u8]) -> Option<&TenantKey> {
        let digest = ring::digest::digest(&ring::digest::SHA256, key);
        let mut found = None;
        for k in &self.keys {
            let same: bool = k.hash.ct_eq(digest.as_ref()).into();
            if same {
                found = Some(k);
            }
        }
        found
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
    keys: Option<Arc<ApiKeys>>,
}

impl AuthLayer {
    pub fn new(keys: Option<ApiKeys>) -> AuthLayer {
        AuthLayer { keys: keys.map(Arc::new) }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;
    fn layer(&self, inner: S) -> Auth<S> {
        Auth { inner, keys: self.keys.clone() }
    }
}

#[derive(Clone)]
pub struct Auth<S> {
    inner: S,
    keys: Option<Arc<ApiKeys>>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

fn refused(reason: &'static str, status: Status) -> Response<Body> {
    metrics::counter!("chuhe_api_key_refusals_total", "reason" => reason).increment(1);
    status.into_http()
}

impl<S, B> Service<Request<B>> for Auth<S>
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

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        // The inner service was polled ready for this call; use it and keep a fresh clone.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let Some(keys) = &self.keys else { return Box::pin(inner.call(req)) };
        // Probes have no keys.
        if req.uri().path().starts_with("/grpc.health.v1.Health/") {
            return Box::pin(inner.call(req));
        }
        let Some(key) = bearer(&req) else {
            let status = Status::unauthenticated("an API key is required: authorization: Bearer <key>");
            return Box::pin(std::future::ready(Ok(refused("missing", status))));
        };
        let Some(tenant) = keys.find(key) else {
            let status = Status::unauthenticated("the API key is not valid");
            return Box::pin(std::future::ready(Ok(refused("invalid", status))));
        };
        let name = &tenant.tenant.0;
        if let Some(rate) = &tenant.rate
            && !rate.lock().is_ok_and(|mut bucket| bucket.take())
        {
            let status = Status::resource_exhausted(format!("tenant {name} is over its calls per second; retry later"));
            return Box::pin(std::future::ready(Ok(refused("rate", status))));
        }
        let permit = match &tenant.at_once {
            None => None,
            Some(at_once) => match at_once.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    let status =
                        Status::resource_exhausted(format!("tenant {name} is at its calls at once; retry later"));
                    return Box::pin(std::future::ready(Ok(refused("concurrency", status))));
                }
            },
        };
        metrics::counter!("chuhe_tenant_calls_total", "tenant" => name.to_string()).increment(1);
        req.extensions_mut().insert(tenant.tenant.clone());
        let call = inner.call(req);
        Box::pin(async move {
            let response = call.await?;
            Ok(match permit {
                None => response,
                // The tenant's call runs until its response (a stream) ends.
                Some(permit) => response.map(|body| Body::new(HoldingBody { inner: body, _permit: permit })),
            })
        })
    }
}

/// A response body that holds its tenant's permit until it is dropped.
struct HoldingBody {
    inner: Body,
    _permit: OwnedSemaphorePermit,
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
    fn a_bearer_key_is_read_from_its_header() {
        let req = |v: &str| Request::builder().header("authorization", v).body(()).unwrap();
        assert_eq!(bearer(&req("Bearer abc")), Some(&b"abc"[..]));
        assert_eq!(bearer(&req("bearer  abc ")), Some(&b"abc"[..]));
        assert_eq!(bearer(&req("Basic abc")), None);
        assert_eq!(bearer(&Request::new(())), None);
    }

    #[test]
    fn the_bucket_refills_at_its_rate() {
        let mut bucket = Bucket { per_second: 2.0, tokens: 2.0, last: Instant::now() };
        assert!(bucket.take() && bucket.take());
        assert!(!bucket.take());
        bucket.last -= std::time::Duration::from_millis(600);
        assert!(bucket.take());
    }
}
