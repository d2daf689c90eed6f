//! gRPC load generator in the manner of ghz: many concurrent unary calls over a few
//! HTTP/2 connections, a fixed number of calls per RPC after a warm-up, then
//! throughput and latency quantiles per call.
//!
//! ```sh
//! cargo bench --bench load                       # server in-process on 127.0.0.1:0
//! cargo bench --bench load -- --addr 127.0.0.1:50051 --concurrency 100 --requests 50000
//! ```
//!
//! By default the server runs in this process on its own multi-thread tokio runtime,
//! with the default `ServerConfig` and the Prometheus recorder installed as
//! `chuhe serve` does; the clients run on a second runtime. Both share the machine's
//! cores, as ghz and the server do on one host. The health check is the baseline: the
//! closer `ListLegalMoves` and `ValidateMove` come to its rate, the less the rules
//! cost next to gRPC itself. The calls take turns, a tenth of their requests at a time
//! (`--rounds`), so that a change in the machine's load during the run weighs on each
//! of them alike instead of on whichever ran at the time.
//!
//! Each call's line gives the rate, latency quantiles, errors and, on Linux, the CPU
//! time per call of the server's threads and of the rest of the process (the clients).
//! After the ratio lines comes each handler's cost on one thread without the network,
//! with the cost of encoding its response and of decoding it.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chuhe::api::proto::{self, rules_service_client::RulesServiceClient};
use chuhe::api::wire::Encoded;
use chuhe::engine::SearchPriority;
use chuhe::service::server::{CALL_THREAD_NAME, ServerConfig, serve};
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// The allocator of `chuhe serve`, for the server and the clients alike.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MIDDLEGAME: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

/// A legal 40-ply game that is still going on (the record of deploy/ghz/validate_game.json).
const GAME: &str = "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 c3c4 g6g5 h0h6 h7i7 h6g6 i7i8 b0c2 d9e8 c2d4 i8g8 \
                    g6f6 g7h5 a0a1 a9b9 a1f1 b7b3 f6f7 b3d3 f1f3 h5g3 e2e6 c7e6 d4e6 b9b2 \
                    f3g3 g8g6 g3g5 g6g2 g5g2 h9h0 e6g7 b2b0 g2h2 b0c0";

const USAGE: &str = "\
usage: cargo bench --bench load [-- OPTIONS]

  --addr HOST:PORT    load a running server instead of one started in-process
  --concurrency N     request loops running at once (default 50)
  --connections M     HTTP/2 connections the loops are spread over (default 4)
  --requests N        measured calls per RPC (default 20000)
  --warmup N          calls per RPC before measuring (default 1000)
  --rounds R          the calls take turns, N/R requests each at a time (default 10)
  --only A,B          run only the calls whose names contain one of these words
                      (health, list, startpos, middlegame, validatemove, ...)
  --server-threads N  worker threads of the in-process server (default: one per core)
  --client-threads N  worker threads of the client runtime (default: one per core)
  --target-ratio R    exit with status 1 when ListLegalMoves/Health rps is below R
  --no-breakdown      skip the single-thread cost of each handler, encoding and decoding
  --searches N        measure each call alone and beside N searches (AnalyzeStream of
                      the start, 10 minutes each), the two taking turns by rounds, and
                      print the p99 ratio (default 0: alone only)
  --search-workers N  search threads of the in-process server (default: one per core)
  --search-nice N     nice value its search threads add (default: chuhe serve's)
  --search-idle       its search threads under SCHED_IDLE";

struct Options {
    addr: Option<String>,
    concurrency: usize,
    connections: usize,
    requests: usize,
    warmup: usize,
    rounds: usize,
    only: Vec<String>,
    server_threads: Option<usize>,
    client_threads: Option<usize>,
    target_ratio: Option<f64>,
    breakdown: bool,
    searches: usize,
    search_workers: Option<usize>,
    search_priority: SearchPriority,
    /// Run outside `cargo bench` (as a test): a few calls each, to check that every call works.
    quick: bool,
}

impl Options {
    fn parse() -> Result<Options, String> {
        let mut o = Options {
            addr: None,
            concurrency: 50,
            connections: 4,
            requests: 20_000,
            warmup: 1_000,
            rounds: 10,
            only: Vec::new(),
            server_threads: None,
            client_threads: None,
            target_ratio: None,
            breakdown: true,
            searches: 0,
            search_workers: None,
            search_priority: SearchPriority::SERVER,
            quick: false,
        };
        let (mut bench, mut sized) = (false, false);
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = || inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{name} needs a value"));
            let number = |v: String| v.parse::<usize>().map_err(|_| format!("{name}: {v:?} is not a number"));
            match name.as_str() {
                // `cargo bench` passes --bench to every bench binary; `cargo test
                // --benches` runs it without, or with --test: then a quick check.
                "--bench" => bench = true,
                "--test" => {}
                "-h" | "--help" => return Err(String::new()),
                "--addr" => o.addr = Some(value()?),
                "--concurrency" | "-c" => o.concurrency = number(value()?)?,
                "--connections" => o.connections = number(value()?)?,
                "--requests" | "-n" | "--total" => (o.requests, sized) = (number(value()?)?, true),
                "--warmup" => (o.warmup, sized) = (number(value()?)?, true),
                "--rounds" => o.rounds = number(value()?)?,
                "--only" => o.only = value()?.split(',').map(|s| s.trim().to_lowercase()).collect(),
                "--server-threads" => o.server_threads = Some(number(value()?)?),
                "--client-threads" => o.client_threads = Some(number(value()?)?),
                "--target-ratio" => {
                    let v = value()?;
                    o.target_ratio = Some(v.parse().map_err(|_| format!("--target-ratio: {v:?} is not a number"))?);
                }
                "--no-breakdown" => o.breakdown = false,
                "--searches" => o.searches = number(value()?)?,
                "--search-workers" => o.search_workers = Some(number(value()?)?),
                "--search-nice" => o.search_priority.nice = number(value()?)? as i32,
                "--search-idle" => o.search_priority.idle = true,
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if !bench && !sized {
            (o.requests, o.warmup, o.breakdown) = (500, 50, false);
            o.quick = true;
        }
        if o.concurrency == 0 || o.connections == 0 || o.requests == 0 || o.rounds == 0 {
            return Err("--concurrency, --connections, --requests and --rounds must be at least 1".into());
        }
        Ok(o)
    }
}

/// One measured call: its name in the report and the request it sends every time.
#[derive(Clone)]
enum Call {
    Health,
    ListLegalMoves(proto::ListLegalMovesRequest),
    ValidateMove(proto::ValidateMoveRequest),
    ValidateGame(proto::ValidateGameRequest),
    Adjudicate(proto::AdjudicateRequest),
}

struct Clients {
    health: HealthClient<Channel>,
    rules: RulesServiceClient<Channel>,
}

impl Clients {
    fn new(channel: Channel) -> Clients {
        Clients { health: HealthClient::new(channel.clone()), rules: RulesServiceClient::new(channel) }
    }
}

impl Call {
    async fn invoke(&self, c: &mut Clients) -> Result<(), tonic::Status> {
        match self {
            Call::Health => c.health.check(HealthCheckRequest { service: String::new() }).await.map(drop),
            Call::ListLegalMoves(r) => c.rules.list_legal_moves(r.clone()).await.map(drop),
            Call::ValidateMove(r) => c.rules.validate_move(r.clone()).await.map(drop),
            Call::ValidateGame(r) => c.rules.validate_game(r.clone()).await.map(drop),
            Call::Adjudicate(r) => c.rules.adjudicate(r.clone()).await.map(drop),
        }
    }

    /// One call whose answer is checked, so that a wrong request fails loudly instead
    /// of being measured.
    async fn check(&self, c: &mut Clients) -> Result<String, String> {
        let fail = |s: tonic::Status| format!("{:?}: {}", s.code(), s.message());
        Ok(match self {
            Call::Health => {
                let r = c.health.check(HealthCheckRequest { service: String::new() }).await.map_err(fail)?;
                format!("status {}", r.into_inner().status)
            }
            Call::ListLegalMoves(req) => {
                let r = c.rules.list_legal_moves(req.clone()).await.map_err(fail)?.into_inner();
                if r.moves.is_empty() {
                    return Err("no legal moves".into());
                }
                format!("{} moves", r.moves.len())
            }
            Call::ValidateMove(req) => {
                let r = c.rules.validate_move(req.clone()).await.map_err(fail)?.into_inner();
                if !r.legal {
                    return Err(format!("move judged illegal: {}", r.detail));
                }
                "legal".into()
            }
            Call::ValidateGame(req) => {
                let r = c.rules.validate_game(req.clone()).await.map_err(fail)?.into_inner();
                if !r.legal {
                    return Err(format!("record judged illegal: {}", r.detail));
                }
                format!("{} plies legal", r.plies)
            }
            Call::Adjudicate(req) => {
                let r = c.rules.adjudicate(req.clone()).await.map_err(fail)?.into_inner();
                format!("{} at ply {}", r.rule, r.decided_at_ply)
            }
        })
    }
}

fn position(fen: &str, moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: fen.to_string(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

fn calls() -> Vec<(&'static str, Call)> {
    let list = |fen| proto::ListLegalMovesRequest { position: Some(position(fen, "")), ..Default::default() };
    vec![
        ("Health/Check", Call::Health),
        ("ListLegalMoves startpos", Call::ListLegalMoves(list("startpos"))),
        ("ListLegalMoves middlegame", Call::ListLegalMoves(list(MIDDLEGAME))),
        (
            "ValidateMove",
            Call::ValidateMove(proto::ValidateMoveRequest {
                position: Some(position("startpos", "")),
                r#move: "h2e2".into(),
                ..Default::default()
            }),
        ),
        (
            "ValidateGame 40 plies",
            Call::ValidateGame(proto::ValidateGameRequest { position: Some(position("startpos", GAME)) }),
        ),
        (
            "Adjudicate 40 plies",
            Call::Adjudicate(proto::AdjudicateRequest {
                position: Some(position("startpos", GAME)),
                rule_set: proto::RuleSet::SimplifiedV1 as i32,
                events: Vec::new(),
            }),
        ),
    ]
}

/// What one run of a call measured.
#[derive(Default)]
struct Outcome {
    requests: usize,
    elapsed: Duration,
    /// Latency of every call (sorted once all rounds are in).
    latencies: Vec<Duration>,
    errors: usize,
    first_error: Option<tonic::Status>,
}

impl Outcome {
    /// Takes in the calls of another run of the same call.
    fn add(&mut self, other: Outcome) {
        self.requests += other.requests;
        self.elapsed += other.elapsed;
        self.latencies.extend(other.latencies);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn rps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn quantile(&self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.latencies.len() as f64 * q).ceil() as usize).clamp(1, self.latencies.len()) - 1;
        self.latencies[i]
    }
}

/// Searches kept running while calls are measured beside them: one AnalyzeStream of the
/// start each, for as long as the server lets a search run, read as it comes. Dropping
/// them cancels the searches.
struct Searches(Vec<tokio::task::JoinHandle<()>>);

impl Searches {
    async fn start(channel: &Channel, n: usize) -> Result<Searches, tonic::Status> {
        let mut running = Searches(Vec::with_capacity(n));
        for _ in 0..n {
            let mut client = proto::analysis_service_client::AnalysisServiceClient::new(channel.clone());
            let request = proto::AnalyzeStreamRequest {
                position: Some(position("startpos", "")),
                limits: Some(proto::SearchLimits { movetime_ms: 600_000, ..Default::default() }),
                cache: proto::AnalysisCachePolicy::Fresh as i32,
                ..Default::default()
            };
            let mut stream = client.analyze_stream(request).await?.into_inner();
            // Running once its first depth is in.
            stream.message().await?;
            running.0.push(tokio::spawn(async move { while let Ok(Some(_)) = stream.message().await {} }));
        }
        Ok(running)
    }
}

impl Drop for Searches {
    fn drop(&mut self) {
        for search in &self.0 {
            search.abort();
        }
    }
}

/// Sends `total` calls from `concurrency` loops spread round-robin over the channels.
async fn run(call: &Call, clients: &[Channel], concurrency: usize, total: usize) -> Outcome {
    let issued = Arc::new(AtomicUsize::new(0));
    let call = Arc::new(call.clone());
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..concurrency {
        let mut c = Clients::new(clients[i % clients.len()].clone());
        let (issued, call) = (issued.clone(), call.clone());
        tasks.spawn(async move {
            let mut latencies = Vec::with_capacity(total / concurrency + 1);
            let (mut errors, mut first_error) = (0, None);
            while issued.fetch_add(1, Ordering::Relaxed) < total {
                let t = Instant::now();
                let result = call.invoke(&mut c).await;
                latencies.push(t.elapsed());
                if let Err(status) = result {
                    errors += 1;
                    first_error.get_or_insert(status);
                }
            }
            (latencies, errors, first_error)
        });
    }
    let mut outcome = Outcome::default();
    while let Some(joined) = tasks.join_next().await {
        let (latencies, errors, first_error) = joined.expect("request loop panicked");
        outcome.latencies.extend(latencies);
        outcome.errors += errors;
        if outcome.first_error.is_none() {
            outcome.first_error = first_error;
        }
    }
    outcome.elapsed = start.elapsed();
    outcome.requests = outcome.latencies.len();
    outcome
}

/// Single-thread cost of one call without the network: the handler (the function the
/// RPC runs), encoding its response (ListLegalMoves writes its bytes in the handler),
/// and decoding that as the client does.
fn breakdown(selected: &[(&str, Call)]) {
    use chuhe::api::convert::ContentLimits;
    use chuhe::api::rules;
    let limits = ContentLimits { max_game_plies: ServerConfig::default().max_game_plies };
    let width = selected.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    println!("per call on one thread, without the network:");
    for (name, call) in selected {
        let costs = match call {
            Call::Health => continue,
            Call::ListLegalMoves(r) => written_costs(|| rules::list_legal_moves_encoded(r, limits)),
            Call::ValidateMove(r) => costs(|| rules::validate_move(r, limits)),
            Call::ValidateGame(r) => costs(|| rules::validate_game(r, limits)),
            Call::Adjudicate(r) => costs(|| rules::adjudicate(r, limits)),
        };
        match costs {
            Some(c) => println!(
                "{name:<width$}  handler={}  encode={}  decode={}  response={} bytes",
                us(c.handler),
                us(c.encode),
                us(c.decode),
                c.bytes
            ),
            None => println!("{name:<width$}  handler failed"),
        }
    }
}

struct Costs {
    handler: Duration,
    encode: Duration,
    decode: Duration,
    bytes: usize,
}

fn costs<R: prost::Message + Default>(handler: impl Fn() -> Result<R, chuhe::api::Error>) -> Option<Costs> {
    let response = handler().ok()?;
    let handler = time_per_call(|| drop(std::hint::black_box(handler())));
    let mut buf = Vec::with_capacity(response.encoded_len());
    let encode = time_per_call(|| {
        buf.clear();
        response.encode(&mut buf).expect("encode");
        std::hint::black_box(&buf);
    });
    let decode = time_per_call(|| drop(std::hint::black_box(R::decode(buf.as_slice()).expect("decode"))));
    Some(Costs { handler, encode, decode, bytes: buf.len() })
}

/// [`costs`] of a handler that writes its response's bytes itself (the server sends
/// them as they are): its time includes the encoding.
fn written_costs(handler: impl Fn() -> Result<Encoded, chuhe::api::Error>) -> Option<Costs> {
    let response = handler().ok()?;
    let handler = time_per_call(|| drop(std::hint::black_box(handler())));
    let decode = time_per_call(|| {
        drop(std::hint::black_box(response.decode::<proto::ListLegalMovesResponse>().expect("decode")))
    });
    Some(Costs { handler, encode: Duration::ZERO, decode, bytes: response.0.len() })
}

/// Mean time of `f` over as many calls as fit in about 200 ms, after a warm-up.
fn time_per_call(mut f: impl FnMut()) -> Duration {
    for _ in 0..100 {
        f();
    }
    let start = Instant::now();
    let mut calls = 0u32;
    while start.elapsed() < Duration::from_millis(200) {
        for _ in 0..64 {
            f();
        }
        calls += 64;
    }
    start.elapsed() / calls
}

fn us(d: Duration) -> String {
    format!("{:.2}µs", d.as_secs_f64() * 1e6)
}

/// On-CPU time of this process's threads (from /proc, Linux only), split into those
/// of the in-process server's runtime and all others (the clients, and the search
/// threads beside them with `--searches`).
fn cpu_split() -> Option<(Duration, Duration)> {
    let (mut server, mut other) = (0u64, 0u64);
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let dir = entry.ok()?.path();
        let Ok(stat) = std::fs::read_to_string(dir.join("schedstat")) else { continue };
        let Some(ns) = stat.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()) else { continue };
        if std::fs::read_to_string(dir.join("comm")).is_ok_and(|c| c.trim_end() == CALL_THREAD_NAME) {
            server += ns;
        } else {
            other += ns;
        }
    }
    Some((Duration::from_nanos(server), Duration::from_nanos(other)))
}

fn ms(d: Duration) -> String {
    format!("{:.3}ms", d.as_secs_f64() * 1e3)
}

/// The server on its own runtime and thread; dropping the sender stops it.
struct InProcess {
    addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InProcess {
    fn start(options: &Options) -> Result<InProcess, String> {
        // As `chuhe serve` does: the metrics recorder is part of the cost of a call.
        chuhe::telemetry::metrics_handle();
        let runtime =
            chuhe::service::server::runtime(options.server_threads).map_err(|e| format!("server runtime: {e}"))?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .map_err(|e| format!("cannot bind 127.0.0.1:0: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let mut config = ServerConfig { grace_period: Duration::from_secs(1), ..ServerConfig::default() };
        config.engine.search_priority = options.search_priority;
        if let Some(workers) = options.search_workers {
            config.engine.workers = workers;
        }
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                if let Err(e) = serve(config, listener, async move {
                    let _ = stopped.await;
                })
                .await
                {
                    eprintln!("server error: {e}");
                }
            });
        });
        Ok(InProcess { addr, stop: Some(stop), thread: Some(thread) })
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn main() -> ExitCode {
    let options = match Options::parse() {
        Ok(o) => o,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}\n");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = match &options.addr {
        Some(_) => None,
        None => match InProcess::start(&options) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let target = match (&options.addr, &server) {
        (Some(a), _) if a.contains("://") => a.clone(),
        (Some(a), _) => format!("http://{a}"),
        (None, Some(s)) => format!("http://{}", s.addr),
        (None, None) => unreachable!(),
    };

    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all().thread_name("client");
    if let Some(n) = options.client_threads {
        builder.worker_threads(n);
    }
    let runtime = builder.build().expect("client runtime");
    let code = runtime.block_on(load(&options, &target, server.is_some()));
    drop(runtime);
    drop(server);
    code
}

async fn load(options: &Options, target: &str, in_process: bool) -> ExitCode {
    let endpoint = match Endpoint::from_shared(target.to_string()) {
        Ok(e) => e.tcp_nodelay(true).connect_timeout(Duration::from_secs(5)),
        Err(e) => {
            eprintln!("error: bad address {target:?}: {e}");
            return ExitCode::from(2);
        }
    };
    // Each connect() opens its own HTTP/2 connection.
    let mut channels = Vec::new();
    for _ in 0..options.connections {
        match endpoint.connect().await {
            Ok(c) => channels.push(c),
            Err(e) => {
                eprintln!("error: cannot connect to {target}: {e}");
                return ExitCode::from(2);
            }
        }
    }

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "load: {target}{}  concurrency={}  connections={}  requests={} per call (after {} warm-up)  cores={cores}",
        if in_process { " (in-process, default ServerConfig)" } else { "" },
        options.concurrency,
        options.connections,
        options.requests,
        options.warmup,
    );
    if options.quick {
        println!("quick check (run by a test harness): `cargo bench --bench load` runs the full load");
    }

    let selected: Vec<_> = calls()
        .into_iter()
        .filter(|(name, _)| {
            let key = name.to_lowercase().replace(['/', ' '], "");
            options.only.is_empty() || options.only.iter().any(|w| key.contains(&w.replace(['/', ' '], "")))
        })
        .collect();
    if selected.is_empty() {
        eprintln!("error: --only matches no call");
        return ExitCode::from(2);
    }

    let width = selected.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let mut measured = Vec::new();
    let mut failed = false;
    for (name, call) in &selected {
        let mut probe = Clients::new(channels[0].clone());
        match call.check(&mut probe).await {
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {name} does not answer as expected: {e}");
                failed = true;
                continue;
            }
        }
        if options.warmup > 0 {
            run(call, &channels, options.concurrency, options.warmup).await;
        }
        measured.push((*name, call, Outcome::default(), Some((Duration::ZERO, Duration::ZERO)), Outcome::default()));
    }
    // The calls take turns, a share of their requests at a time, so that a change in
    // the machine's load over the run weighs on all of them alike; with --searches,
    // each share is measured alone and then beside the searches.
    let rounds = options.rounds.min(options.requests);
    for round in 0..rounds {
        let share = options.requests / rounds + usize::from(round < options.requests % rounds);
        for (name, call, total, cpu_total, beside) in &mut measured {
            let before = cpu_split();
            let o = run(call, &channels, options.concurrency, share).await;
            // CPU: the server's threads and this process's others (the clients).
            let cpu =
                before.zip(cpu_split()).map(|((s0, c0), (s1, c1))| (s1.saturating_sub(s0), c1.saturating_sub(c0)));
            *cpu_total = cpu_total.zip(cpu).map(|((s, c), (ds, dc))| (s + ds, c + dc));
            total.add(o);
            if options.searches > 0 {
                let searches = match Searches::start(&channels[0], options.searches).await {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("error: {name}: the searches beside it were refused: {e:?}");
                        return ExitCode::from(1);
                    }
                };
                beside.add(run(call, &channels, options.concurrency, share).await);
                drop(searches);
                // Let the server see the searches cancelled before the next share alone.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    if options.searches > 0 {
        println!("beside {} searches:", options.searches);
        let width = measured.iter().map(|m| m.0.len()).max().unwrap_or(0);
        for (name, _, alone, _, beside) in &mut measured {
            beside.latencies.sort_unstable();
            let mut sorted = alone.latencies.clone();
            sorted.sort_unstable();
            let alone_sorted = Outcome { latencies: sorted, ..Outcome::default() };
            println!(
                "{name:<width$}  p50={} p99={} (alone p50={} p99={})  p99 ratio {:.2}  errors={}",
                ms(beside.quantile(0.50)),
                ms(beside.quantile(0.99)),
                ms(alone_sorted.quantile(0.50)),
                ms(alone_sorted.quantile(0.99)),
                beside.quantile(0.99).as_secs_f64() / alone_sorted.quantile(0.99).as_secs_f64().max(1e-9),
                beside.errors,
            );
        }
    }
    let mut results: Vec<(&str, Outcome, Option<Duration>)> = Vec::new();
    for (name, _, mut o, cpu, _) in measured {
        o.latencies.sort_unstable();
        let per_call = |d: Duration| d / o.requests.max(1) as u32;
        let cpu = cpu.map(|(s, c)| (per_call(s), per_call(c)));
        let server_cpu = cpu.filter(|_| in_process).map(|(s, _)| s);
        let cpu_text = match (cpu, in_process) {
            (Some((s, c)), true) => format!("  cpu/call: server={} client={}", us(s), us(c)),
            (Some((_, c)), false) => format!("  cpu/call: client={}", us(c)),
            (None, _) => String::new(),
        };
        println!(
            "{name:<width$}  requests={}  rps={:.0}  p50={} p90={} p99={}  errors={}{cpu_text}",
            o.requests,
            o.rps(),
            ms(o.quantile(0.50)),
            ms(o.quantile(0.90)),
            ms(o.quantile(0.99)),
            o.errors,
        );
        if let Some(e) = &o.first_error {
            println!("{:width$}  first error: {:?}: {}", "", e.code(), e.message());
            failed = true;
        }
        results.push((name, o, server_cpu));
    }

    let mut below_target = false;
    let target = options.target_ratio.unwrap_or(0.9);
    if let Some((_, health, health_cpu)) = results.iter().find(|(n, _, _)| n.starts_with("Health")) {
        let compared = |n: &str| n.starts_with("ListLegalMoves") || n.starts_with("ValidateMove");
        for (name, o, cpu) in results.iter().filter(|(n, _, _)| compared(n)) {
            let ratio = o.rps() / health.rps();
            let server = match (health_cpu, cpu) {
                (Some(h), Some(c)) if !c.is_zero() => {
                    format!("  (server CPU per call: Health/{name} = {:.2})", h.as_secs_f64() / c.as_secs_f64())
                }
                _ => String::new(),
            };
            println!("ratio {name} rps / Health rps = {ratio:.2}  (target >= {target:.2}){server}");
            if name.starts_with("ListLegalMoves") && options.target_ratio.is_some_and(|t| ratio < t) {
                below_target = true;
            }
        }
    }
    if options.breakdown {
        println!();
        breakdown(&selected);
    }
    if failed {
        ExitCode::from(1)
    } else if below_target {
        eprintln!("ListLegalMoves is below the target ratio");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
