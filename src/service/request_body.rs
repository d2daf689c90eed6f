//! A call's request body as the server reads it: within the request body timeout from
//! the call's headers (a client that sends its headers and never ends its message
//! holds a place for no more than that), and framed as the gRPC protocol frames a
//! unary request: exactly one message, compressed only under a `grpc-encoding`.
//!
//! Each of these faults is the client's, so each is INVALID_ARGUMENT (the framework
//! would say INTERNAL, which is the server's own faults' code): no message at all, a
//! second message in a unary call, a compressed message without `grpc-encoding`. A
//! body that does not end in time is DEADLINE_EXCEEDED.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use tonic::Status;
use tonic::body::Body;

/// How a request body is checked.
#[derive(Clone, Copy, Debug)]
pub struct BodyRules {
    /// The longest time from the call's headers to the end of its body.
    pub timeout: Duration,
    /// Whether the method takes one message (not a client stream).
    pub unary: bool,
    /// Whether the request names a `grpc-encoding`, under which a message may be compressed.
    pub encoded: bool,
}

/// A request body read under [`BodyRules`] (see the module documentation).
pub struct CheckedBody {
    inner: Body,
    rules: BodyRules,
    deadline: Pin<Box<tokio::time::Sleep>>,
    frames: Framing,
    done: bool,
}

/// Where the reading of the gRPC frames stands: the 5-byte prefix of a message (a
/// compressed flag and a length), then its bytes.
#[derive(Default)]
struct Framing {
    messages: u32,
    prefix_read: usize,
    length: [u8; 4],
    message_left: u64,
}

impl CheckedBody {
    /// `inner` under `rules`, its timeout counted from now.
    pub fn new(inner: Body, rules: BodyRules) -> CheckedBody {
        let deadline = Box::pin(tokio::time::sleep(rules.timeout));
        CheckedBody { inner, rules, deadline, frames: Framing::default(), done: false }
    }

    fn check(&mut self, data: &[u8]) -> Result<(), Status> {
        let f = &mut self.frames;
        let mut i = 0;
        while i < data.len() {
            if f.message_left > 0 {
                let take = f.message_left.min((data.len() - i) as u64);
                f.message_left -= take;
                i += take as usize;
                continue;
            }
            let byte = data[i];
            i += 1;
            if f.prefix_read == 0 {
                f.messages += 1;
                if self.rules.unary && f.messages > 1 {
                    return Err(Status::invalid_argument(
                        "a unary call carries one request message; this one has more",
                    ));
                }
                if byte == 1 && !self.rules.encoded {
                    return Err(Status::invalid_argument(
                        "the request message is marked compressed but the call names no grpc-encoding",
                    ));
                }
            } else {
                f.length[f.prefix_read - 1] = byte;
            }
            f.prefix_read += 1;
            if f.prefix_read == 5 {
                f.prefix_read = 0;
                f.message_left = u64::from(u32::from_be_bytes(f.length));
            }
        }
        Ok(())
    }

    fn at_end(&self) -> Result<(), Status> {
        if self.rules.unary && self.frames.messages == 0 {
            return Err(Status::invalid_argument("the call carries no request message"));
        }
        Ok(())
    }

    fn fail(&mut self, status: Status) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        self.done = true;
        Poll::Ready(Some(Err(status)))
    }
}

impl http_body::Body for CheckedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if self.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref()
                    && let Err(status) = self.check(data)
                {
                    return self.fail(status);
                }
                if frame.is_trailers()
                    && let Err(status) = self.at_end()
                {
                    return self.fail(status);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(status))) => self.fail(status),
            Poll::Ready(None) => {
                self.done = true;
                match self.at_end() {
                    Ok(()) => Poll::Ready(None),
                    Err(status) => Poll::Ready(Some(Err(status))),
                }
            }
            Poll::Pending => {
                if self.deadline.as_mut().poll(cx).is_ready() {
                    metrics::counter!("chuhe_request_body_timeouts_total").increment(1);
                    let timeout = self.rules.timeout;
                    return self.fail(Status::deadline_exceeded(format!(
                        "the request message did not end within the request body timeout of {timeout:?}"
                    )));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        // The end is where the checks of the end run: a body that says it has ended
        // before it was read is read to see it.
        self.done
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn rules(unary: bool, encoded: bool) -> BodyRules {
        BodyRules { timeout: Duration::from_secs(5), unary, encoded }
    }

    async fn read(chunks: Vec<&'static [u8]>, rules: BodyRules) -> Result<usize, Status> {
        let stream =
            tokio_stream::iter(chunks.into_iter().map(|c| Ok::<_, Status>(Frame::data(Bytes::from_static(c)))));
        let inner = Body::new(http_body_util::StreamBody::new(stream));
        let mut body = CheckedBody::new(inner, rules);
        let mut bytes = 0;
        while let Some(frame) = body.frame().await {
            bytes += frame?.data_ref().map_or(0, |d| d.len());
        }
        Ok(bytes)
    }

    #[tokio::test]
    async fn one_message_passes_in_any_chunks() {
        assert_eq!(read(vec![b"\0\0\0", b"\0\x02a", b"b"], rules(true, false)).await.unwrap(), 7);
        assert_eq!(read(vec![b"\x01\0\0\0\x01z"], rules(true, true)).await.unwrap(), 6, "compressed under an encoding");
        assert_eq!(read(vec![b"\0\0\0\0\0"], rules(true, false)).await.unwrap(), 5, "an empty message is a message");
    }

    #[tokio::test]
    async fn protocol_faults_are_the_clients() {
        let two = read(vec![b"\0\0\0\0\x01a", b"\0\0\0\0\x01b"], rules(true, false)).await.unwrap_err();
        assert_eq!(two.code(), tonic::Code::InvalidArgument, "{two:?}");
        assert!(read(vec![b"\0\0\0\0\x01a\0\0\0\0\0"], rules(false, false)).await.is_ok(), "a client stream may");
        let none = read(vec![], rules(true, false)).await.unwrap_err();
        assert_eq!(
            (none.code(), none.message()),
            (tonic::Code::InvalidArgument, "the call carries no request message")
        );
        let compressed = read(vec![b"\x01\0\0\0\x01z"], rules(true, false)).await.unwrap_err();
        assert!(compressed.message().contains("grpc-encoding"), "{compressed:?}");
    }

    #[tokio::test]
    async fn a_body_that_does_not_end_times_out() {
        let (mut tx, inner) = {
            let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, Status>>(1);
            (tx, Body::new(http_body_util::StreamBody::new(tokio_stream::wrappers::ReceiverStream::new(rx))))
        };
        tx.send(Ok(Frame::data(Bytes::from_static(b"\0\0\0")))).await.unwrap();
        let mut body = CheckedBody::new(inner, BodyRules { timeout: Duration::from_millis(50), ..rules(true, false) });
        assert!(body.frame().await.unwrap().is_ok());
        let late = body.frame().await.unwrap().unwrap_err();
        assert_eq!(late.code(), tonic::Code::DeadlineExceeded, "{late:?}");
        let _ = &mut tx;
    }
}
