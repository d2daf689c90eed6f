//! JobService over gRPC with real parts: the real server on an ephemeral port, its
//! queue on a real `redis-server` of the test's own, its own workers (`serve
//! --worker`), called with the generated tonic client. Results equal the same calls
//! made directly; tenants see their own jobs only; bad submissions are named; the
//! bound is kept; JobService's health follows its queue.

use std::time::{Duration, Instant};

use chuhe::api::proto::{self, job_service_client::JobServiceClient, job_work::Work};
use chuhe::engine::queue::RedisQueueConfig;
use chuhe::service::server::{JobsConfig, ServerConfig};
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient};

use super::api_keys::{keys_file, sha256_hex};
use super::fairplay;
use crate::common::redis_server::Redis;
use crate::common::server::{Running, small_engine, start};
use crate::common::{bad_field, with_key};

/// The longest any condition is waited for.
const DEADLINE: Duration = Duration::from_secs(120);

fn jobs_config(redis: &Redis, workers: usize, max_open: u64) -> JobsConfig {
    JobsConfig {
        queue: RedisQueueConfig { max_open, ..RedisQueueConfig::new(&redis.url(0)) },
        workers,
        worker_name: format!("test-{}", std::process::id()),
    }
}

async fn client(running: &Running) -> JobServiceClient<Channel> {
    JobServiceClient::new(running.channel().await)
}

/// An audit of the first moves of a real game, at a small node budget.
fn audit(plies: usize) -> proto::AuditGameRequest {
    proto::AuditGameRequest {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            fen: "startpos".into(),
            moves: ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "c6c5", "h0h6", "h7i7"][..plies]
                .iter()
                .map(|m| m.to_string())
                .collect(),
            ..Default::default()
        }),
        nodes_per_ply: 1500,
        ..Default::default()
    }
}

fn submission(platform_id: &str, work: Work) -> proto::JobSubmission {
    proto::JobSubmission { platform_id: platform_id.into(), work: Some(proto::JobWork { work: Some(work) }) }
}

fn batch(jobs: Vec<proto::JobSubmission>, key: &str) -> tonic::Request<proto::SubmitJobsRequest> {
    with_key(proto::SubmitJobsRequest { jobs }, key)
}

/// Watches `names` to their end: the last message of each job.
async fn watch_to_the_end(jobs: &mut JobServiceClient<Channel>, names: &[String], key: &str) -> Vec<proto::Job> {
    let request = proto::WatchJobsRequest { names: names.to_vec(), without_results: false };
    let mut stream = jobs.watch_jobs(with_key(request, key)).await.unwrap().into_inner();
    let mut last: Vec<Option<proto::Job>> = vec![None; names.len()];
    let started = Instant::now();
    while let Some(job) = tokio::time::timeout(DEADLINE, stream.message()).await.expect("a change in time").unwrap() {
        assert!(started.elapsed() < DEADLINE);
        let i = names.iter().position(|n| *n == job.name).expect("a watched job");
        if let Some(before) = &last[i] {
            assert!(job.state != before.state || job.deliveries != before.deliveries, "a message per change");
        }
        last[i] = Some(job);
    }
    let last: Vec<proto::Job> = last.into_iter().map(|j| j.expect("each job seen")).collect();
    assert!(last.iter().all(|j| j.done), "the watch ends once every job has: {last:?}");
    last
}

fn two_tenants() -> std::path::PathBuf {
    keys_file(
        "jobs",
        &format!(
            r#"[{{"tenant": "acme", "key_sha256": "{}"}}, {{"tenant": "rival", "key_sha256": "{}"}}]"#,
            sha256_hex("acme-key"),
            sha256_hex("rival-key")
        ),
    )
}

#[tokio::test]
async fn jobs_are_done_by_the_servers_worker_as_the_calls_would_and_seen_by_their_tenant_only() {
    let redis = Redis::start();
    let keys = two_tenants();
    let running = start(ServerConfig {
        engine: small_engine(),
        api_keys: Some(keys.clone()),
        jobs: Some(jobs_config(&redis, 1, 1000)),
        ..ServerConfig::default()
    })
    .await;
    let mut jobs = client(&running).await;
    let analyses = proto::AnalyzePositions {
        requests: ["startpos", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b"]
            .iter()
            .map(|fen| proto::AnalyzeRequest {
                position: Some(proto::Position {
                    variant: proto::Variant::Xiangqi as i32,
                    fen: fen.to_string(),
                    ..Default::default()
                }),
                limits: Some(proto::SearchLimits { depth: 3, ..Default::default() }),
                ..Default::default()
            })
            .collect(),
    };
    let submitted = jobs
        .submit_jobs(batch(
            vec![
                submission("game-1", Work::Audit(audit(10))),
                submission("game-1-again", Work::Audit(audit(10))),
                submission("positions", Work::Analyze(analyses.clone())),
                submission("", Work::Audit(audit(6))),
            ],
            "acme-key",
        ))
        .await
        .unwrap()
        .into_inner()
        .jobs;
    assert_eq!(submitted.len(), 4);
    assert!(submitted[0].created && !submitted[1].created, "the same work twice is one job: {submitted:?}");
    assert_eq!(submitted[0].name, submitted[1].name);
    assert!(submitted[2].created && submitted[3].created);
    assert!(submitted.iter().all(|s| s.name.starts_with("jobs/") && s.name.len() == 5 + 32));
    let names: Vec<String> = [0, 2, 3].iter().map(|&i| submitted[i].name.clone()).collect();

    let ended = watch_to_the_end(&mut jobs, &names, "acme-key").await;
    assert!(ended.iter().all(|j| j.state == proto::JobState::Done as i32), "{ended:?}");
    assert_eq!(ended[0].platform_id, "game-1", "the first submission's id is kept");
    assert_eq!((ended[0].kind.as_str(), ended[1].kind.as_str()), ("audit", "analyze"));
    // An audit at a node budget is deterministic: the job's result is the call's.
    let mut analysis = running.analysis().await;
    for (job, plies) in [(&ended[0], 10), (&ended[2], 6)] {
        let direct = analysis.audit_game(with_key(audit(plies), "acme-key")).await.unwrap().into_inner();
        let Some(proto::job_result::Result::Audit(got)) = job.result.clone().and_then(|r| r.result) else {
            panic!("an audit's result: {job:?}")
        };
        assert_eq!(got, direct);
    }
    let Some(proto::job_result::Result::Analyze(got)) = ended[1].result.clone().and_then(|r| r.result) else {
        panic!("an analysis' result: {:?}", ended[1])
    };
    assert_eq!(got.responses.len(), 2);
    for response in &got.responses {
        assert!(!response.best_move.is_empty() && response.depth >= 3, "{response:?}");
    }

    // Submitted again once done: the job there, with its result.
    let again =
        jobs.submit_jobs(batch(vec![submission("x", Work::Audit(audit(10)))], "acme-key")).await.unwrap().into_inner();
    assert_eq!(again.jobs[0].state, proto::JobState::Done as i32);
    assert!(!again.jobs[0].created);
    let got = jobs.get_job(with_key(proto::GetJobRequest { name: names[0].clone() }, "acme-key")).await.unwrap();
    assert_eq!(got.into_inner(), ended[0]);

    // Another tenant neither sees nor cancels it, and the same work is its own job.
    let get = jobs.get_job(with_key(proto::GetJobRequest { name: names[0].clone() }, "rival-key")).await;
    assert_eq!(get.unwrap_err().code(), Code::NotFound);
    let cancel = jobs.cancel_job(with_key(proto::CancelJobRequest { name: names[0].clone() }, "rival-key")).await;
    assert_eq!(cancel.unwrap_err().code(), Code::NotFound);
    let watch = jobs
        .watch_jobs(with_key(
            proto::WatchJobsRequest { names: vec![names[0].clone()], ..Default::default() },
            "rival-key",
        ))
        .await;
    assert_eq!(watch.err().map(|s| s.code()), Some(Code::NotFound));
    let theirs =
        jobs.submit_jobs(batch(vec![submission("r", Work::Audit(audit(10)))], "rival-key")).await.unwrap().into_inner();
    assert!(theirs.jobs[0].created && theirs.jobs[0].name != names[0]);
    // Cancelled before a worker ends it (or, if it was quicker, answered as it ended).
    let cancelled = jobs
        .cancel_job(with_key(proto::CancelJobRequest { name: theirs.jobs[0].name.clone() }, "rival-key"))
        .await
        .unwrap()
        .into_inner();
    assert!(cancelled.done, "{cancelled:?}");
    running.shutdown().await;
    std::fs::remove_file(keys).unwrap();
}

#[tokio::test]
async fn an_assessment_job_is_the_calls_own_assessment() {
    let redis = Redis::start();
    let model = fairplay::model_file("job", &fairplay::model(25.0));
    let running = start(ServerConfig {
        engine: small_engine(),
        fairplay_models: vec![model.clone()],
        jobs: Some(jobs_config(&redis, 1, 1000)),
        ..ServerConfig::default()
    })
    .await;
    let mut jobs = client(&running).await;
    let submitted = jobs
        .submit_jobs(tonic::Request::new(proto::SubmitJobsRequest {
            jobs: vec![submission("player", Work::Assess(fairplay::request("")))],
        }))
        .await
        .unwrap()
        .into_inner();
    let names = vec![submitted.jobs[0].name.clone()];
    let request = proto::WatchJobsRequest { names: names.clone(), without_results: false };
    let mut stream = jobs.watch_jobs(request).await.unwrap().into_inner();
    let mut last = None;
    while let Some(job) = tokio::time::timeout(DEADLINE, stream.message()).await.expect("in time").unwrap() {
        last = Some(job);
    }
    let job = last.expect("a message");
    let Some(proto::job_result::Result::Assess(got)) = job.result.and_then(|r| r.result) else {
        panic!("an assessment's result: {}", job.error)
    };
    let (_, direct) = fairplay::call(&running, fairplay::request("")).await;
    assert_eq!(got.assessments, direct);
    assert_eq!(direct.len(), 2);
    running.shutdown().await;
    std::fs::remove_file(model).unwrap();
}

#[tokio::test]
async fn bad_submissions_are_refused_whole_naming_the_field() {
    let redis = Redis::start();
    let running =
        start(ServerConfig { engine: small_engine(), jobs: Some(jobs_config(&redis, 0, 1000)), ..Default::default() })
            .await;
    let mut jobs = client(&running).await;
    let no_position = proto::AuditGameRequest { position: None, ..audit(2) };
    let three_kingdoms =
        proto::AssessPlayerRequest { variant: proto::Variant::ThreeKingdoms as i32, ..fairplay::request("") };
    let cases: Vec<(Vec<proto::JobSubmission>, &str)> = vec![
        (
            vec![submission("", Work::Audit(audit(2))), submission("", Work::Audit(no_position))],
            "jobs[1].work.audit.position",
        ),
        (vec![submission("", Work::Analyze(proto::AnalyzePositions::default()))], "jobs[0].work.analyze.requests"),
        (vec![submission(&"p".repeat(129), Work::Audit(audit(2)))], "jobs[0].platform_id"),
        (vec![submission("", Work::Assess(three_kingdoms))], "jobs[0].work.assess.variant"),
        (vec![proto::JobSubmission { platform_id: String::new(), work: None }], "jobs[0].work"),
        (vec![], "jobs"),
    ];
    for (batch, field) in cases {
        let status = jobs.submit_jobs(proto::SubmitJobsRequest { jobs: batch }).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{field}: {status:?}");
        assert_eq!(bad_field(&status), field);
    }
    // Refused whole: the good job before the bad one was not queued.
    let mut queue = redis.client().await;
    let open: u64 = redis::cmd("XLEN")
        .arg(format!("{}work", chuhe::engine::queue::KEY_PREFIX))
        .query_async(&mut queue)
        .await
        .unwrap_or(0);
    assert_eq!(open, 0);
    // No model for an assessment here: a precondition, not a bad field.
    let status = jobs
        .submit_jobs(proto::SubmitJobsRequest { jobs: vec![submission("", Work::Assess(fairplay::request("")))] })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    let status = jobs.get_job(proto::GetJobRequest { name: "jobs/xyz".into() }).await.unwrap_err();
    assert_eq!((status.code(), bad_field(&status)), (Code::InvalidArgument, "name".to_string()));
    let status = jobs.get_job(proto::GetJobRequest { name: format!("jobs/{}", "0".repeat(32)) }).await.unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    running.shutdown().await;

    // A server without a queue says so.
    let bare = start(ServerConfig { engine: small_engine(), ..Default::default() }).await;
    let status = client(&bare).await.get_job(proto::GetJobRequest { name: "jobs/x".into() }).await.unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    bare.shutdown().await;
}

#[tokio::test]
async fn the_queue_at_its_bound_refuses_the_next_job_and_keeps_the_others() {
    let redis = Redis::start();
    let running =
        start(ServerConfig { engine: small_engine(), jobs: Some(jobs_config(&redis, 0, 2)), ..Default::default() })
            .await;
    let mut jobs = client(&running).await;
    let two = jobs
        .submit_jobs(proto::SubmitJobsRequest {
            jobs: vec![submission("a", Work::Audit(audit(2))), submission("b", Work::Audit(audit(4)))],
        })
        .await
        .unwrap()
        .into_inner();
    let status = jobs
        .submit_jobs(proto::SubmitJobsRequest { jobs: vec![submission("c", Work::Audit(audit(6)))] })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("bound of 2"), "{status:?}");
    for job in &two.jobs {
        let got = jobs.get_job(proto::GetJobRequest { name: job.name.clone() }).await.unwrap().into_inner();
        assert_eq!(got.state, proto::JobState::Queued as i32);
    }
    // The same job again is no new job, so it is not refused.
    let again = jobs.submit_jobs(proto::SubmitJobsRequest { jobs: vec![submission("a", Work::Audit(audit(2)))] }).await;
    assert!(!again.unwrap().into_inner().jobs[0].created);
    running.shutdown().await;
}

#[tokio::test]
async fn a_watch_of_jobs_that_do_not_end_ends_at_the_calls_deadline() {
    let redis = Redis::start();
    // No worker: the jobs stay queued. Every call may take 1.5 s.
    let config = ServerConfig {
        engine: small_engine(),
        jobs: Some(jobs_config(&redis, 0, 10)),
        request_timeout: Duration::from_millis(1500),
        ..Default::default()
    };
    let running = start(config).await;
    let mut jobs = client(&running).await;
    let submitted = jobs
        .submit_jobs(proto::SubmitJobsRequest { jobs: vec![submission("a", Work::Audit(audit(2)))] })
        .await
        .unwrap()
        .into_inner();
    let names = vec![submitted.jobs[0].name.clone()];
    let request = proto::WatchJobsRequest { names, without_results: true };
    let mut stream = jobs.watch_jobs(request).await.unwrap().into_inner();
    let first = stream.message().await.unwrap().expect("the job as it stands");
    assert_eq!(first.state, proto::JobState::Queued as i32);
    let end = tokio::time::timeout(DEADLINE, stream.message()).await.expect("the watch ends").unwrap_err();
    assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
    assert!(end.message().contains("watch again"), "{end:?}");
    running.shutdown().await;
}

async fn job_service_status(health: &mut HealthClient<Channel>, service: &str) -> i32 {
    let request = HealthCheckRequest { service: service.into() };
    health.check(request).await.map(|r| r.into_inner().status).unwrap_or(-1)
}

async fn wait_for_status(health: &mut HealthClient<Channel>, want: ServingStatus) {
    let started = Instant::now();
    while job_service_status(health, "chuhe.v1.JobService").await != want as i32 {
        assert!(started.elapsed() < DEADLINE, "JobService never {want:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn job_service_health_follows_its_queue() {
    let mut redis = Redis::start();
    let running =
        start(ServerConfig { engine: small_engine(), jobs: Some(jobs_config(&redis, 0, 10)), ..Default::default() })
            .await;
    let mut health = HealthClient::new(running.channel().await);
    wait_for_status(&mut health, ServingStatus::Serving).await;
    redis.stop();
    wait_for_status(&mut health, ServingStatus::NotServing).await;
    // The rest of the server does not depend on the queue.
    assert_eq!(job_service_status(&mut health, "").await, ServingStatus::Serving as i32);
    let status = client(&running)
        .await
        .submit_jobs(proto::SubmitJobsRequest { jobs: vec![submission("", Work::Audit(audit(2)))] })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    redis.resume();
    wait_for_status(&mut health, ServingStatus::Serving).await;
    running.shutdown().await;
}
