//! The server: RulesService and NotationService behind the admission/metrics layer,
//! health, reflection, connections under limits, and a shutdown in steps.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tonic::service::Routes;

use super::analysis::Analysis;
use super::auth::{AuthLayer, KeysFile};
use super::connections::{ConnectionLimits, Connections};
use super::jobs::Jobs;
use super::middleware::{CallLimits, Cutoff, GrpcLayer, methods_of};
use super::notation::Notations;
use super::rules::RulesServer;
use super::tls::{TlsAcceptor, TlsFiles};
use crate::api::convert::ContentLimits;
use crate::api::fairplay::Models;
use crate::api::proto::job_service_server::JobServiceServer;
use crate::api::proto::{
    self, analysis_service_server::AnalysisServiceServer, notation_service_server::NotationServiceServer,
};
use crate::api::worker::{WorkerSettings, export_queue_metrics, work};
use crate::engine::queue::{JobQueue, RedisQueue, RedisQueueConfig};
use crate::engine::store::{AnalysisStore, StoreConfig};
use crate::engine::{Engine, EngineConfig};

/// The exit status of `chuhe serve` when the grace period ended calls still running.
pub const EXIT_CALLS_CUT: u8 = 3;

/// Everything an operator can set.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Calls served at once; more are shed with RESOURCE_EXHAUSTED.
    pub max_concurrency: usize,
    /// The places one client address may hold when no tenant is known (a call without an
    /// API key or a client certificate); none: no share.
    pub address_share: Option<usize>,
    /// The longest a call may run (a smaller `grpc-timeout` wins).
    pub request_timeout: Duration,
    /// The longest time from a call's headers to the end of its request message.
    pub request_body_timeout: Duration,
    /// The largest request or response message.
    pub max_message_bytes: usize,
    /// The most moves a position or game record may carry.
    pub max_game_plies: usize,
    /// After the shutdown signal: time the server answers NOT_SERVING and still serves
    /// and accepts, so that balancers and clients stop sending before it stops
    /// accepting. The library's default is none; `chuhe serve` waits 5 s.
    pub drain_delay: Duration,
    /// Time in-flight calls get to finish once the server stops accepting.
    pub grace_period: Duration,
    /// The limits of connections.
    pub connections: ConnectionLimits,
    /// TLS (and client certificates) from these files; none: plaintext.
    pub tls: Option<TlsFiles>,
    /// How often the TLS files are looked at for a renewal.
    pub tls_reload_interval: Duration,
    /// Tenants and the hashes of their API keys (see [`super::auth`]); none: no keys asked.
    pub api_keys: Option<PathBuf>,
    /// How often the API keys file is looked at for a change.
    pub api_keys_reload_interval: Duration,
    /// The longest a refusal over a tenant's quota is held back before it is answered
    /// (see [`super::quota`]); zero answers every refusal at once.
    pub longest_refusal_hold: Duration,
    /// Whether the reflection services are served, and to whom.
    pub reflection: Reflection,
    /// The search engine's size and limits.
    pub engine: EngineConfig,
    /// Where finished searches are kept to answer the same question again. The
    /// library's default is none; `chuhe serve` keeps them in its memory.
    pub analysis_cache: StoreConfig,
    /// The fair-play model files AssessPlayer assesses with (one per variant).
    pub fairplay_models: Vec<PathBuf>,
    /// How often the model files are looked at for a change.
    pub fairplay_reload_interval: Duration,
    /// The job queue JobService submits to, and the workers beside the calls; none:
    /// JobService answers FAILED_PRECONDITION.
    pub jobs: Option<JobsConfig>,
}

/// The server's job queue, and how many jobs it does itself.
#[derive(Clone, Debug)]
pub struct JobsConfig {
    /// The queue.
    pub queue: RedisQueueConfig,
    /// Jobs done at once by the server beside its calls (`serve --worker`), each on a
    /// thread of its own: 0, the server only submits and reads.
    pub workers: usize,
    /// The workers' consumer names start with it (then `-1`, `-2`...).
    pub worker_name: String,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_concurrency: 256,
            address_share: Some(128),
            request_timeout: Duration::from_secs(30),
            request_body_timeout: Duration::from_secs(10),
            max_message_bytes: 4 * 1024 * 1024,
            max_game_plies: 10_000,
            drain_delay: Duration::ZERO,
            grace_period: Duration::from_secs(10),
            connections: ConnectionLimits::default(),
            tls: None,
            tls_reload_interval: Duration::from_secs(10),
            api_keys: None,
            api_keys_reload_interval: Duration::from_secs(10),
            longest_refusal_hold: Duration::from_millis(250),
            reflection: Reflection::default(),
            engine: EngineConfig::default(),
            analysis_cache: StoreConfig::off(),
            fairplay_models: Vec::new(),
            fairplay_reload_interval: Duration::from_secs(10),
            jobs: None,
        }
    }
}

/// Whether the reflection services (`grpc.reflection.v1` and `v1alpha`, which list the
/// API to tools such as grpcurl) are served, and to whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reflection {
    /// Served; when API keys are required, only to calls with a key.
    #[default]
    Keyed,
    /// Served to every caller, with or without a key.
    Open,
    /// Not served (UNIMPLEMENTED).
    Off,
}

/// The name of the runtime's threads, which answer calls (search threads are
/// `search-<i>`).
pub const CALL_THREAD_NAME: &str = "calls";

/// The runtime of a server: tokio's multi-thread runtime (`threads` workers; none: one
/// per core), its threads named [`CALL_THREAD_NAME`].
pub fn runtime(threads: Option<usize>) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all().thread_name(CALL_THREAD_NAME);
    if let Some(n) = threads {
        builder.worker_threads(n);
    }
    builder.build()
}

/// How a server ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// Calls still running when the grace period was over, ended with UNAVAILABLE.
    pub calls_cut: u64,
    /// Connections still open then, and dropped.
    pub connections_cut: usize,
}

/// Serves on a bound listener until `shutdown` resolves; then answers NOT_SERVING,
/// keeps serving for the drain delay, stops accepting, asks every connection to go and
/// lets in-flight calls finish within the grace period. Calls still running then end
/// with UNAVAILABLE (a stream gets it as its last message), and are counted in the
/// result.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<Served, Box<dyn std::error::Error + Send + Sync>> {
    let limits = ContentLimits { max_game_plies: config.max_game_plies };
    let rules = RulesServer::new(limits, config.max_message_bytes);
    let notations = NotationServiceServer::new(Notations { limits })
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);

    let store = AnalysisStore::open(&config.analysis_cache)?;
    let engine = Engine::with_store(config.engine.clone(), store);
    let models = Arc::new(Models::open(&config.fairplay_models)?);
    let models_reload = (!config.fairplay_models.is_empty()).then(|| {
        let models = models.clone();
        super::every(config.fairplay_reload_interval, move || {
            models.reload_if_changed();
        })
    });
    let queue: Option<Arc<dyn JobQueue>> = match &config.jobs {
        Some(jobs) => Some(Arc::new(RedisQueue::connect(jobs.queue.clone())?)),
        None => None,
    };
    let job_service = JobServiceServer::new(Jobs {
        queue: queue.clone(),
        limits,
        evaluation: config.engine.evaluation.clone(),
        models: models.clone(),
    })
    .max_decoding_message_size(config.max_message_bytes)
    .max_encoding_message_size(config.max_message_bytes);
    let (workers_stop, workers_stopped) = tokio::sync::watch::channel(false);
    let mut workers = tokio::task::JoinSet::new();
    if let (Some(queue), Some(jobs)) = (&queue, &config.jobs) {
        for i in 1..=jobs.workers {
            let settings = WorkerSettings {
                name: format!("{}-{i}", jobs.worker_name),
                lease: jobs.queue.lease,
                limits,
                models: models.clone(),
            };
            workers.spawn(work(engine.clone(), queue.clone(), settings, workers_stopped.clone()));
        }
    }
    let analysis = AnalysisServiceServer::new(Analysis {
        engine,
        limits,
        models,
        store_shared: config.analysis_cache.shared_across_tenants,
    })
    .max_decoding_message_size(config.max_message_bytes)
    .max_encoding_message_size(config.max_message_bytes);

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<RulesServer>().await;
    health.set_serving::<AnalysisServiceServer<Analysis>>().await;
    health.set_serving::<NotationServiceServer<Notations>>().await;
    health.set_not_serving::<JobServiceServer<Jobs>>().await;
    health.set_service_status("", tonic_health::ServingStatus::Serving).await;
    // JobService is SERVING while its queue answers; the server as a whole does not
    // depend on it.
    let queue_health = queue.clone().map(|queue| {
        let (up, mut seen) = tokio::sync::watch::channel(false);
        let (health, stopped) = (health.clone(), workers_stopped.clone());
        tokio::spawn(async move {
            tokio::spawn(export_queue_metrics(queue, up, stopped));
            while seen.changed().await.is_ok() {
                let up = *seen.borrow_and_update();
                match up {
                    true => health.set_serving::<JobServiceServer<Jobs>>().await,
                    false => health.set_not_serving::<JobServiceServer<Jobs>>().await,
                }
            }
        })
    });

    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            // google.rpc error details, so that tools can decode BadRequest.
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
    };
    // v1 for current tools (grpcurl), v1alpha for older clients.
    let (reflection_v1, reflection_v1alpha) = (reflection().build_v1()?, reflection().build_v1alpha()?);

    let methods = [
        proto::FILE_DESCRIPTOR_SET,
        tonic_health::pb::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
    ]
    .into_iter()
    .flat_map(methods_of);
    let api_keys = config.api_keys.as_deref().map(KeysFile::open).transpose()?.map(std::sync::Arc::new);
    if let Some(keys) = &api_keys {
        tracing::info!(tenants = keys.current().len(), "API keys required (health checks excepted)");
    }
    let keys_reload = api_keys.as_ref().map(|keys| keys.watch(config.api_keys_reload_interval));
    let cutoff = Cutoff::default();
    let call_limits = CallLimits {
        max_concurrency: config.max_concurrency,
        address_share: config.address_share,
        request_timeout: config.request_timeout,
        request_body_timeout: config.request_body_timeout,
    };
    let mut routes = Routes::new(health_service);
    if config.reflection != Reflection::Off {
        routes = routes.add_service(reflection_v1).add_service(reflection_v1alpha);
    }
    let routes = routes.add_service(rules).add_service(analysis).add_service(notations).add_service(job_service);
    let service = tower::ServiceBuilder::new()
        .layer(GrpcLayer::new(&call_limits, methods, cutoff.clone()))
        .layer(AuthLayer::new(api_keys, config.reflection == Reflection::Open, config.longest_refusal_hold))
        .service(routes);

    let tls = config.tls.clone().map(TlsAcceptor::new).transpose()?;
    let reload = tls.as_ref().map(|tls| tls.watch(config.tls_reload_interval));
    let mut connections = Connections::new(service, config.connections.clone(), tls);
    let (drain, grace) = (config.drain_delay, config.grace_period);
    let stop_accepting = async move {
        shutdown.await;
        tracing::info!(drain = ?drain, "shutting down: NOT_SERVING, still accepting for the drain delay");
        health.set_not_serving::<RulesServer>().await;
        health.set_not_serving::<AnalysisServiceServer<Analysis>>().await;
        health.set_not_serving::<NotationServiceServer<Notations>>().await;
        health.set_not_serving::<JobServiceServer<Jobs>>().await;
        health.set_service_status("", tonic_health::ServingStatus::NotServing).await;
        // The jobs under way are handed back to the queue, their parts kept.
        let _ = workers_stop.send(true);
        tokio::time::sleep(drain).await;
    };
    connections.accept(listener, stop_accepting).await;
    for reload in [reload, keys_reload, models_reload, queue_health].into_iter().flatten() {
        reload.abort();
    }
    // A worker hands its job back within one ply's or one position's search.
    let _ = tokio::time::timeout(grace, async { while workers.join_next().await.is_some() {} }).await;
    // The listener is closed: new clients are refused instead of waiting.
    tracing::info!(grace = ?grace, "no longer accepting; finishing in-flight calls");
    let mut served = Served::default();
    if connections.close(grace).await > 0 {
        // Running calls end with UNAVAILABLE; give the connections a moment to send it.
        cutoff.cut();
        served.connections_cut = connections.close(Duration::from_secs(1)).await;
        connections.abort().await;
        served.calls_cut = cutoff.calls_cut();
        tracing::warn!(
            calls = served.calls_cut,
            connections = served.connections_cut,
            "grace period of {grace:?} over: calls cut off"
        );
    }
    Ok(served)
}
