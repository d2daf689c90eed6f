//! The server's side of a TCP connection, written so that HTTP/2 batches small responses.
//!
//! h2 copies a data frame into its write buffer (and so sends many responses in one
//! `write`) only below a threshold: 256 bytes when the socket takes vectored writes,
//! 1 KiB when it does not. Every larger frame ends the batch and costs a system call
//! of its own. A move list is 0.5-1 KiB, so the connection reports that it does not
//! write vectored, and h2 batches such responses like small ones. A larger frame then
//! comes as two writes (h2's buffer, then the frame); a small buffer of our own joins
//! them into one system call at h2's flush.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, BufWriter, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Room, in most cases, for what h2 has buffered plus one large frame (a larger write
/// goes straight to the socket).
const WRITE_BUFFER_BYTES: usize = 16 * 1024;

/// A TCP stream that h2 writes through its own buffer (see the module documentation).
pub struct Connection(BufWriter<TcpStream>);

impl From<TcpStream> for Connection {
    fn from(stream: TcpStream) -> Self {
        Connection(BufWriter::with_capacity(WRITE_BUFFER_BYTES, stream))
    }
}

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.0.get_ref().connect_info()
    }
}

impl AsyncRead for Connection {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}
