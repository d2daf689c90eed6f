//! A real `redis-server` on a free loopback port, for the evaluation store's tests: it
//! keeps nothing on disk and is killed when dropped. `.ci/run` installs the Debian
//! package `redis-server` when it is missing (by hand: `apt-get install redis-server`).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running (or stopped, to be started again on the same port) Redis.
pub struct Redis {
    pub addr: SocketAddr,
    child: Option<Child>,
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

impl Redis {
    /// Starts Redis on a free port and waits until it answers.
    pub fn start() -> Redis {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut redis = Redis { addr, child: None };
        redis.resume();
        redis
    }

    /// Its URL, with database `db`.
    pub fn url(&self, db: u8) -> String {
        format!("redis://{}/{db}", self.addr)
    }

    /// Kills it and waits until it has gone; what it held is lost.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port (empty), and waits until it answers.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "Redis is running");
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.addr.port().to_string()])
            .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server runs (apt-get install redis-server)");
        self.child = Some(child);
        let started = Instant::now();
        while TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "Redis did not start on {}", self.addr);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A connection of its own, to look at or spoil what the servers stored.
    pub async fn client(&self) -> redis::aio::MultiplexedConnection {
        let client = redis::Client::open(self.url(0)).unwrap();
        client.get_multiplexed_async_connection().await.expect("Redis answers")
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}
