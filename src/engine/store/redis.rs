//! The store in a Redis (or Valkey) that every replica shares: a `GET` that leaves a
//! value above the bound where it is (a script), and `SET` with `PX` (the time to live), through one multiplexed connection that reconnects by
//! itself (the `redis` crate's connection manager).

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, IntoConnectionInfo};

use super::{Backend, StoreError, StoreFuture};
use crate::engine::lua_script::LuaScript;

/// The shared store (see the module documentation).
pub struct RedisStore {
    connection: ConnectionManager,
    bounded_get: LuaScript,
}

impl RedisStore {
    /// Connects lazily (on the first call, so a Redis that is down at start does not
    /// stop the server) to `url` (`redis://` or `rediss://` for TLS, `[user:password@]`
    /// and `/DB` as Redis URLs have them), with `password` instead of the URL's when
    /// given. Each command, and each connection attempt, gives up after `timeout`.
    /// Must be called within a Tokio runtime.
    pub fn connect(url: &str, password: Option<&str>, timeout: Duration) -> Result<RedisStore, StoreError> {
        let bad = |e: redis::RedisError| StoreError::Config(format!("--analysis-cache: {e}"));
        let mut info = url.into_connection_info().map_err(bad)?;
        if let Some(password) = password {
            let settings = info.redis_settings().clone().set_password(password);
            info = info.set_redis_settings(settings);
        }
        if url.starts_with("rediss://") {
            // The project's one TLS backend; the crate takes the process's default.
            let _ = tokio_rustls::rustls::crypto::ring::default_provider().install_default();
        }
        let client = Client::open(info).map_err(bad)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            // A reconnection gives up soon and is tried again on the next call, so a
            // Redis that is back is used again within a call or two.
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(200));
        let connection = ConnectionManager::new_lazy_with_config(client, config).map_err(bad)?;
        Ok(RedisStore { connection, bounded_get: LuaScript::new(BOUNDED_GET.to_owned()) })
    }
}

fn failed(e: redis::RedisError) -> StoreError {
    if e.is_timeout() {
        StoreError::Timeout
    } else if e.code() == Some("OOM") {
        StoreError::Full
    } else if e.kind() == redis::ErrorKind::AuthenticationFailed || matches!(e.code(), Some("WRONGPASS" | "NOAUTH")) {
        StoreError::Auth(e.to_string())
    } else {
        StoreError::Unreachable(e.to_string())
    }
}

/// A value no longer than `ARGV[1]` bytes, or the length of a longer one, so that a
/// huge value never crosses the network.
const BOUNDED_GET: &str = r"
local len = redis.call('STRLEN', KEYS[1])
if len > tonumber(ARGV[1]) then return len end
return redis.call('GET', KEYS[1])
";

impl Backend for RedisStore {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn remote(&self) -> bool {
        true
    }

    fn get<'a>(&'a self, key: &'a str, max_bytes: usize) -> StoreFuture<'a, Option<Vec<u8>>> {
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let max = max_bytes.to_string();
            let value =
                self.bounded_get.run(&mut connection, &[key.as_bytes()], &[max.as_bytes()]).await.map_err(failed)?;
            match value {
                redis::Value::Nil => Ok(None),
                redis::Value::BulkString(bytes) => Ok(Some(bytes)),
                redis::Value::Int(len) => Err(StoreError::Oversized(len.max(0) as u64)),
                other => Err(StoreError::Unreachable(format!("an unexpected answer to a lookup: {other:?}"))),
            }
        })
    }

    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        let mut connection = self.connection.clone();
        let ttl_ms = ttl.as_millis().clamp(1, u64::MAX as u128) as u64;
        Box::pin(async move {
            let () = redis::cmd("SET")
                .arg(key)
                .arg(value)
                .arg("PX")
                .arg(ttl_ms)
                .query_async(&mut connection)
                .await
                .map_err(failed)?;
            Ok(())
        })
    }
}
