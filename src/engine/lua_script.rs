//! A Lua script run by Redis as one command: sent by its SHA-1 (`EVALSHA`), and by its
//! text when Redis does not know it yet (a new or restarted Redis).

use redis::Value;
use redis::aio::ConnectionManager;

/// A script and its SHA-1, by which Redis knows it once loaded.
pub struct LuaScript {
    text: String,
    sha1: String,
}

impl LuaScript {
    /// The script of `text`.
    pub fn new(text: String) -> LuaScript {
        let digest = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, text.as_bytes());
        LuaScript { text, sha1: digest.as_ref().iter().map(|b| format!("{b:02x}")).collect() }
    }

    /// Runs it on `connection` with `keys` (`KEYS`) and `args` (`ARGV`).
    pub async fn run(
        &self,
        connection: &mut ConnectionManager,
        keys: &[&[u8]],
        args: &[&[u8]],
    ) -> redis::RedisResult<Value> {
        let call = |command: &str, first: &[u8]| {
            let mut cmd = redis::cmd(command);
            cmd.arg(first).arg(keys.len());
            for a in keys.iter().chain(args) {
                cmd.arg(*a);
            }
            cmd
        };
        match call("EVALSHA", self.sha1.as_bytes()).query_async::<Value>(connection).await {
            Err(e) if e.code() == Some("NOSCRIPT") => call("EVAL", self.text.as_bytes()).query_async(connection).await,
            other => other,
        }
    }
}
