//! Requests answered before their bodies were read (refused for a key, a quota or the
//! concurrency limit). Dropping such a body resets its HTTP/2 stream, and the client's
//! DATA frames that arrive after the reset count against the connection's budget of
//! resets (h2's defence against reset floods): a client refused a thousand times on
//! one connection would then lose the connection (GOAWAY ENHANCE_YOUR_CALM) and every
//! call on it, instead of reading its RESOURCE_EXHAUSTED and retrying. So the body is
//! read to its end, off the call's path and without being decoded, and the stream ends
//! as the client ends it.

use std::time::Duration;

use http_body_util::BodyExt;
use tonic::body::Body;

/// The most bytes read from an unread body; a longer one is dropped (its stream reset).
const MAX_BYTES: usize = 64 * 1024;
/// The longest wait for the rest of an unread body.
const MAX_WAIT: Duration = Duration::from_secs(1);

/// Reads `body` to its end in a task of its own, at most [`MAX_BYTES`] and
/// [`MAX_WAIT`], and drops what it reads.
pub fn discard(mut body: Body) {
    if http_body::Body::is_end_stream(&body) {
        return;
    }
    tokio::spawn(async move {
        let read = async {
            let mut bytes = 0;
            while let Some(Ok(frame)) = body.frame().await {
                bytes += frame.data_ref().map_or(0, |d| d.len());
                if bytes > MAX_BYTES {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(MAX_WAIT, read).await;
    });
}
