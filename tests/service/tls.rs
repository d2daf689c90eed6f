//! TLS and mutual TLS, with certificates made here: a real TLS handshake from a tonic
//! client to the server on an ephemeral port of 127.0.0.1, and a renewed certificate
//! served without a restart.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chuhe::service::server::ServerConfig;
use chuhe::service::tls::TlsFiles;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

use crate::common;
use common::server::{small_engine, start};

/// A CA, and certificates it signs.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        Ca { issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap() }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A certificate for `names` (the first its subject's common name) and its key, in PEM.
    fn sign(&self, names: &[&str]) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        params.distinguished_name.push(DnType::CommonName, names[0]);
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chuhe-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    // Written beside and renamed, as a certificate manager does: never half a file.
    let part = dir.join(format!("{name}.part"));
    std::fs::write(&part, text).unwrap();
    std::fs::rename(&part, &path).unwrap();
    path
}

fn config(files: TlsFiles) -> ServerConfig {
    ServerConfig {
        tls: Some(files),
        tls_reload_interval: Duration::from_millis(50),
        engine: small_engine(),
        ..ServerConfig::default()
    }
}

/// A channel over TLS trusting `ca`, with a client certificate.
async fn mutual_channel(addr: std::net::SocketAddr, ca: &str, (cert, key): (&str, &str)) -> Channel {
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca))
        .domain_name("localhost")
        .identity(Identity::from_pem(cert, key));
    let endpoint = Channel::from_shared(format!("https://{addr}")).unwrap().tls_config(tls).unwrap();
    endpoint.connect_timeout(Duration::from_secs(2)).connect().await.expect("connect")
}

/// A health check over TLS trusting `ca`, with a client certificate if given.
async fn check(addr: std::net::SocketAddr, ca: &str, identity: Option<(&str, &str)>) -> Result<i32, String> {
    let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)).domain_name("localhost");
    if let Some((cert, key)) = identity {
        tls = tls.identity(Identity::from_pem(cert, key));
    }
    let endpoint = Channel::from_shared(format!("https://{addr}"))
        .unwrap()
        .tls_config(tls)
        .map_err(|e| e.to_string())?
        .connect_timeout(Duration::from_secs(2));
    let channel = endpoint.connect().await.map_err(|e| format!("connect: {e:?}"))?;
    let answer =
        tokio::time::timeout(Duration::from_secs(2), HealthClient::new(channel).check(HealthCheckRequest::default()))
            .await
            .map_err(|_| "no answer".to_string())?;
    answer.map(|r| r.into_inner().status).map_err(|s| format!("{s:?}"))
}

#[tokio::test]
async fn tls_serves_clients_that_trust_its_ca_and_a_renewed_certificate_without_restart() {
    let dir = dir("renew");
    let (old_ca, new_ca) = (Ca::new("old CA"), Ca::new("new CA"));
    let (cert, key) = old_ca.sign(&["localhost"]);
    let files = TlsFiles { cert: write(&dir, "tls.crt", &cert), key: write(&dir, "tls.key", &key), client_ca: None };
    let server = start(config(files)).await;
    assert_eq!(check(server.addr, &old_ca.pem(), None).await, Ok(1), "SERVING over TLS");
    assert!(check(server.addr, &new_ca.pem(), None).await.is_err(), "a CA that did not sign it");
    // Plaintext is refused.
    let plain = Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect_lazy();
    let plain =
        tokio::time::timeout(Duration::from_secs(2), HealthClient::new(plain).check(HealthCheckRequest::default()))
            .await;
    assert!(!matches!(plain, Ok(Ok(_))), "answered in plaintext");

    // Renewed by a new CA: served once the files are read again.
    let (cert, key) = new_ca.sign(&["localhost"]);
    write(&dir, "tls.key", &key);
    write(&dir, "tls.crt", &cert);
    let started = Instant::now();
    while check(server.addr, &new_ca.pem(), None).await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(10), "the renewed certificate was not served");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(check(server.addr, &old_ca.pem(), None).await.is_err(), "the old certificate is still served");
    server.shutdown().await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn mutual_tls_asks_for_a_client_certificate_of_its_ca() {
    let dir = dir("mutual");
    let (server_ca, client_ca, stranger) = (Ca::new("server CA"), Ca::new("client CA"), Ca::new("stranger"));
    let (cert, key) = server_ca.sign(&["localhost"]);
    let files = TlsFiles {
        cert: write(&dir, "tls.crt", &cert),
        key: write(&dir, "tls.key", &key),
        client_ca: Some(write(&dir, "clients.crt", &client_ca.pem())),
    };
    let server = start(config(files)).await;
    let (client_cert, client_key) = client_ca.sign(&["tenant-a"]);
    let (other_cert, other_key) = stranger.sign(&["tenant-b"]);
    let ca = server_ca.pem();
    assert_eq!(check(server.addr, &ca, Some((&client_cert, &client_key))).await, Ok(1));
    assert!(check(server.addr, &ca, None).await.is_err(), "served without a client certificate");
    assert!(
        check(server.addr, &ca, Some((&other_cert, &other_key))).await.is_err(),
        "served a client certificate of another CA"
    );
    server.shutdown().await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn unreadable_tls_files_stop_the_server_from_starting() {
    let dir = dir("bad");
    let files = TlsFiles {
        cert: write(&dir, "tls.crt", "not a certificate"),
        key: write(&dir, "tls.key", "not a key"),
        client_ca: None,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let result = chuhe::service::server::serve(config(files), listener, std::future::pending()).await;
    let err = result.expect_err("served with unreadable TLS files");
    assert!(err.to_string().contains("tls.crt"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn with_mutual_tls_a_client_certificate_names_its_tenant() {
    use chuhe::api::proto;
    use chuhe::api::proto::rules_service_client::RulesServiceClient;
    let dir = dir("tenant");
    let (server_ca, client_ca) = (Ca::new("server CA"), Ca::new("client CA"));
    let (cert, key) = server_ca.sign(&["localhost"]);
    let files = TlsFiles {
        cert: write(&dir, "tls.crt", &cert),
        key: write(&dir, "tls.key", &key),
        client_ca: Some(write(&dir, "clients.crt", &client_ca.pem())),
    };
    let keys = write(&dir, "keys.json", r#"[{"tenant": "acme", "client_cn": "acme-client", "calls_per_second": 1}]"#);
    let server = start(ServerConfig { api_keys: Some(keys), ..config(files) }).await;
    let list = || proto::ListLegalMovesRequest {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            fen: "startpos".into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let ca = server_ca.pem();
    let (acme_cert, acme_key) = client_ca.sign(&["acme-client"]);
    let mut acme = RulesServiceClient::new(mutual_channel(server.addr, &ca, (&acme_cert, &acme_key)).await);
    let listed = acme.list_legal_moves(list()).await.expect("the certificate names a tenant");
    assert_eq!(listed.into_inner().moves.len(), 44);
    // The tenant's quota holds: one call a second.
    let over = acme.list_legal_moves(list()).await.unwrap_err();
    assert_eq!(over.code(), tonic::Code::ResourceExhausted, "{over:?}");
    // A certificate of the same CA that names no tenant is not enough.
    let (other_cert, other_key) = client_ca.sign(&["someone-else"]);
    let mut other = RulesServiceClient::new(mutual_channel(server.addr, &ca, (&other_cert, &other_key)).await);
    let refused = other.list_legal_moves(list()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{refused:?}");
    server.shutdown().await;
    std::fs::remove_dir_all(&dir).unwrap();
}
