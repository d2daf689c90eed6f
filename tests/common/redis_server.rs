//! A real `redis-server` on a free loopback port, for the evaluation store's and the
//! job queue's tests: it keeps nothing on disk (or, started with [`Redis::start_durable`],
//! an append-only file that a restart reads back) and is killed when dropped. `.ci/run` installs the Debian
//! package `redis-server` when it is missing (by hand: `apt-get install redis-server`).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running (or stopped, to be started again on the same port) Redis.
pub struct Redis {
    pub addr: SocketAddr,
    child: Option<Child>,
    /// The directory of its append-only file, if it keeps one.
    durable: Option<std::path::PathBuf>,
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

impl Redis {
    /// Starts Redis on a free port and waits until it answers.
    pub fn start() -> Redis {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut redis = Redis { addr, child: None, durable: None };
        redis.resume();
        redis
    }

    /// Starts Redis with `appendonly yes` in `dir`, so that a restart after a kill
    /// finds what it held.
    pub fn start_durable(dir: &std::path::Path) -> Redis {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut redis = Redis { addr, child: None, durable: Some(dir.to_owned()) };
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

    /// Starts it again on the same port (empty, unless it keeps an append-only file),
    /// and waits until it answers.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "Redis is running");
        let mut command = Command::new("redis-server");
        command.args(["--bind", "127.0.0.1", "--port", &self.addr.port().to_string()]).args([
            "--save",
            "",
            "--protected-mode",
            "no",
        ]);
        match &self.durable {
            Some(dir) => command.args(["--appendonly", "yes", "--dir"]).arg(dir),
            None => command.args(["--appendonly", "no"]),
        };
        let child = command
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

    /// Pauses it (SIGSTOP): connections stay open and nothing answers, as a Redis
    /// stuck on a slow disk or a long command. Dropping it ends it all the same.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused Redis go on (SIGCONT).
    pub fn unpause(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("Redis is running");
        let status = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill runs");
        assert!(status.success(), "kill {signal}");
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
