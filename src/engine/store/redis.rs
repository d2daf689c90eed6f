//! The store in a Redis (or Valkey) that every replica shares: `GET`, and `SET` with
//! `PX` (the time to live), through one multiplexed connection that reconnects by
//! itself (the `redis` crate's connection manager).

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, IntoConnectionInfo};

use super::{Backend, StoreError, StoreFuture};

/// The shared store (see the module documentation).
pub struct RedisStore {
    connection: ConnectionManager,
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
        Ok(RedisStore { connection })
    }
}

fn failed(e: redis::RedisError) -> StoreError {
    if e.is_timeout() {
        StoreError::Timeout
    } else if e.code() == Some("OOM") {
        StoreError::Full
    } else {
        StoreError::Unreachable(e.to_string())
    }
}

impl Backend for RedisStore {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let value: Option<Vec<u8>> =
                redis::cmd("GET").arg(key).query_async(&mut connection).await.map_err(failed)?;
            Ok(value)
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
