//! API keys: a tower layer that asks every call but the health checks for
//! `authorization: Bearer <key>`, finds the key's tenant by the SHA-256 hash of the
//! key (the server keeps no keys, only their hashes, compared in constant time), and
//! holds the tenant to its quotas: calls at once, calls per second, searches at once
//! and search milliseconds per minute ([`crate::service::quota`]). A call without a valid key
//! is UNAUTHENTICATED; one over its tenant's quota RESOURCE_EXHAUSTED with a
//! `google.rpc.QuotaFailure` (the quota) and a `google.rpc.RetryInfo` (when to try
//! again), held back for as long as it would have waited in line for the quota.
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
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::{Request, Response};
use serde::Deserialize;
use subtle::ConstantTimeEq;
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

use super::call::{CallPlace, CallTenant, ClientName, Tenant};
use super::quota::Quotas;

pub use super::keys_file::KeysFile;

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
    quotas: Quotas,
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
                quotas: Quotas::new(
                    e.max_concurrent_calls,
                    e.calls_per_second,
                    e.max_concurrent_searches,
                    e.search_ms_per_minute,
                ),
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
    longest_hold: Duration,
}

impl AuthLayer {
    /// Asks for the keys of `keys` as they were last read (none: every call passes);
    /// `open_reflection`: the reflection services answer without a key;
    /// `longest_hold`: the longest a refusal over a quota is held back (see
    /// [`super::quota`]; zero: refusals are answered at once).
    pub fn new(keys: Option<Arc<KeysFile>>, open_reflection: bool, longest_hold: Duration) -> AuthLayer {
        AuthLayer { keys, open_reflection, longest_hold }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;
    fn layer(&self, inner: S) -> Auth<S> {
        Auth { inner, keys: self.keys.clone(), open_reflection: self.open_reflection, longest_hold: self.longest_hold }
    }
}

/// The service of [`AuthLayer`].
#[derive(Clone)]
pub struct Auth<S> {
    inner: S,
    keys: Option<Arc<KeysFile>>,
    open_reflection: bool,
    longest_hold: Duration,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

fn refused(reason: &'static str, status: Status) -> Response<Body> {
    metrics::counter!("chuhe_api_key_refusals_total", "reason" => reason).increment(1);
    status.into_http()
}

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
        match tenant.quotas.admit(search) {
            Ok(held) => {
                let name = &tenant.tenant.0;
                metrics::counter!("chuhe_tenant_calls_total", "tenant" => name.to_string()).increment(1);
                req.extensions_mut().insert(tenant.tenant.clone());
                if let Some(slot) = req.extensions().get::<CallTenant>() {
                    slot.set(tenant.tenant.clone());
                }
                let call = inner.call(req);
                Box::pin(async move {
                    let response = call.await?;
                    // The tenant's call runs until its response (a stream) ends.
                    Ok(if held.is_empty() { response } else { response.map(|body| Body::new(held.around(body))) })
                })
            }
            Err(refusal) => {
                let name = tenant.tenant.0.clone();
                let tenant_label = name.to_string();
                metrics::counter!("chuhe_tenant_refusals_total", "tenant" => tenant_label.clone(), "quota" => refusal.quota)
                    .increment(1);
                let timeout = super::grpc_headers::client_timeout(&req);
                let place = req.extensions().get::<CallPlace>().cloned();
                super::unread::discard(req.into_body());
                let Some((hold, slot)) = tenant.quotas.hold(&refusal, self.longest_hold, timeout) else {
                    return Box::pin(std::future::ready(Ok(refused(
                        refusal.reason,
                        refusal.status(&name, Duration::ZERO),
                    ))));
                };
                // A held refusal takes no place from the calls the server serves at once.
                if let Some(place) = place {
                    place.give_up();
                }
                metrics::counter!("chuhe_tenant_refusals_held_total", "tenant" => tenant_label).increment(1);
                Box::pin(async move {
                    tokio::time::sleep(hold).await;
                    drop(slot);
                    Ok(refused(refusal.reason, refusal.status(&name, hold)))
                })
            }
        }
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
        assert_eq!(again.keys[1].quotas.rate.as_ref().map(|r| r.lock().unwrap().per_second), Some(2.0));
    }

    #[test]
    fn a_bearer_key_is_read_from_its_header() {
        let req = |v: &str| Request::builder().header("authorization", v).body(()).unwrap();
        assert_eq!(bearer(&req("Bearer abc")), Some(&b"abc"[..]));
        assert_eq!(bearer(&req("bearer  abc ")), Some(&b"abc"[..]));
        assert_eq!(bearer(&req("Basic abc")), None);
        assert_eq!(bearer(&Request::new(())), None);
    }
}
