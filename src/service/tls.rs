//! TLS (rustls): the server's certificate chain and key from PEM files, and, given a
//! client CA, client certificates required and checked against it (mutual TLS). The
//! files are read again when they change, so that a renewed certificate is served
//! without a restart; a renewal that does not load leaves the current one in place.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use tokio::net::TcpStream;
use tokio_rustls::rustls::{self, RootCertStore, pki_types};
use tokio_rustls::server::TlsStream;

/// Where the server's TLS settings are read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// Certificate chain (PEM), the server's first.
    pub cert: PathBuf,
    /// Private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// CA certificates (PEM) that client certificates must chain to; none: no client
    /// certificates asked.
    pub client_ca: Option<PathBuf>,
}

impl TlsFiles {
    fn paths(&self) -> impl Iterator<Item = &Path> {
        [Some(self.cert.as_path()), Some(self.key.as_path()), self.client_ca.as_deref()].into_iter().flatten()
    }

    /// The modification time and length of each file, to see when one changes.
    fn stamps(&self) -> Vec<Option<Stamp>> {
        self.paths().map(|p| std::fs::metadata(p).ok().and_then(|m| Some((m.modified().ok()?, m.len())))).collect()
    }
}

/// Accepts TLS connections with the settings of the files as they were last read.
#[derive(Clone)]
pub struct TlsAcceptor {
    files: Arc<TlsFiles>,
    current: Arc<RwLock<tokio_rustls::TlsAcceptor>>,
    stamps: Arc<Mutex<Vec<Option<Stamp>>>>,
}

/// When a file was last changed, and its length: what tells a renewed file.
type Stamp = (SystemTime, u64);

impl TlsAcceptor {
    /// Reads the files; an error says which one is wrong.
    pub fn new(files: TlsFiles) -> Result<TlsAcceptor, String> {
        let stamps = files.stamps();
        let config = server_config(&files)?;
        Ok(TlsAcceptor {
            files: Arc::new(files),
            current: Arc::new(RwLock::new(tokio_rustls::TlsAcceptor::from(Arc::new(config)))),
            stamps: Arc::new(Mutex::new(stamps)),
        })
    }

    /// The TLS handshake of a new connection.
    pub async fn accept(&self, stream: TcpStream) -> io::Result<TlsStream<TcpStream>> {
        let acceptor = self.current.read().map_err(|_| io::Error::other("TLS settings poisoned"))?.clone();
        acceptor.accept(stream).await
    }

    /// Reads the files again if one has changed since they were last read; says
    /// whether new settings are in use.
    pub fn reload_if_changed(&self) -> bool {
        let stamps = self.files.stamps();
        let Ok(mut last) = self.stamps.lock() else { return false };
        if *last == stamps {
            return false;
        }
        *last = stamps;
        match server_config(&self.files) {
            Ok(config) => {
                if let Ok(mut current) = self.current.write() {
                    *current = tokio_rustls::TlsAcceptor::from(Arc::new(config));
                }
                tracing::info!("TLS certificate files changed: reloaded");
                metrics::counter!("chuhe_tls_reloads_total", "result" => "ok").increment(1);
                true
            }
            Err(e) => {
                // Perhaps caught between the writes of the certificate and the key: the
                // next change is tried again.
                tracing::warn!("TLS certificate files changed but do not load ({e}); serving the previous ones");
                metrics::counter!("chuhe_tls_reloads_total", "result" => "error").increment(1);
                false
            }
        }
    }

    /// Looks at the files every `interval` until the returned task is aborted.
    pub fn watch(&self, interval: Duration) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        super::every(interval, move || {
            this.reload_if_changed();
        })
    }
}

fn server_config(files: &TlsFiles) -> Result<rustls::ServerConfig, String> {
    use pki_types::pem::PemObject;
    let read = |path: &Path| std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    let certs = pki_types::CertificateDer::pem_slice_iter(&read(&files.cert)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", files.cert.display()))?;
    if certs.is_empty() {
        return Err(format!("{}: no certificate", files.cert.display()));
    }
    let key = pki_types::PrivateKeyDer::from_pem_slice(&read(&files.key)?)
        .map_err(|e| format!("{}: {e}", files.key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for cert in pki_types::CertificateDer::pem_slice_iter(&read(ca)?) {
                let cert = cert.map_err(|e| format!("{}: {e}", ca.display()))?;
                roots.add(cert).map_err(|e| format!("{}: {e}", ca.display()))?;
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| format!("{}: {e}", ca.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .map_err(|e| format!("{} and {}: {e}", files.cert.display(), files.key.display()))?;
    // gRPC is HTTP/2 only.
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}
