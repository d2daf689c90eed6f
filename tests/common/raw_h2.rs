//! A raw HTTP/2 client for the server's slow-client defences: gRPC calls whose
//! responses are never read (a window of 0) or whose request bodies never end, from a
//! chosen loopback address.

use std::net::{IpAddr, SocketAddr};

use bytes::Bytes;
use h2::client::{self, SendRequest};
use prost::Message;
use tokio::net::TcpSocket;

/// An HTTP/2 connection from `from` (any 127.0.0.0/8 address) to `server`; its
/// streams' receive windows are `window` bytes.
pub async fn connect(from: IpAddr, server: SocketAddr, window: u32) -> SendRequest<Bytes> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    let tcp = socket.connect(server).await.expect("connect");
    let (send, connection) = client::Builder::new()
        .initial_window_size(window)
        .max_concurrent_reset_streams(1024)
        .handshake::<_, Bytes>(tcp)
        .await
        .expect("HTTP/2 handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    send
}

/// The request headers of a gRPC call of `path`.
pub fn grpc_request(path: &str) -> http::Request<()> {
    http::Request::builder()
        .method("POST")
        .uri(format!("http://localhost{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap()
}

/// `message` in its gRPC frame: not compressed, its length, its bytes.
pub fn framed(message: &impl Message) -> Bytes {
    let body = message.encode_to_vec();
    let mut framed = Vec::with_capacity(5 + body.len());
    framed.push(0);
    framed.extend_from_slice(&(body.len() as u32).to_be_bytes());
    framed.extend_from_slice(&body);
    framed.into()
}

/// The `grpc-status` of headers or trailers, if they carry one.
pub fn grpc_status(headers: &http::HeaderMap) -> Option<i32> {
    headers.get("grpc-status")?.to_str().ok()?.parse().ok()
}
