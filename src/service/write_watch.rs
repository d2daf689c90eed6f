//! Responses waiting for flow-control window. A response body hands HTTP/2 a frame and
//! is polled again once HTTP/2 has window to send it; a client that never reads (its
//! `SETTINGS_INITIAL_WINDOW_SIZE` 0, say) leaves the response waiting for ever, its
//! call's place and its bytes held. Each connection keeps a [`Watches`] of its
//! responses and looks at them now and then: one that has waited longer than the write
//! timeout is given up (its call ended, its place and bytes freed).

use std::sync::{Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

/// A response that may wait for window.
pub trait Waiting: Send + Sync {
    /// Since when it has waited for window to send what it handed over, if it waits.
    fn waiting_since(&self) -> Option<Instant>;
    /// Ends its call, frees its place and the bytes it holds; HTTP/2 resets its
    /// stream when it next polls it.
    fn give_up(&self);
}

/// The responses of a connection (see the module documentation).
#[derive(Default)]
pub struct Watches(Mutex<Vec<Weak<dyn Waiting>>>);

impl std::fmt::Debug for Watches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let watched = self.0.lock().map_or(0, |list| list.len());
        f.debug_struct("Watches").field("watched", &watched).finish()
    }
}

impl Watches {
    /// Watches `response` for as long as it lives.
    pub fn watch(&self, response: Weak<dyn Waiting>) {
        let Ok(mut list) = self.0.lock() else { return };
        if list.len() == list.capacity() {
            // Forget the responses that are over before the list grows: it stays within
            // twice the responses alive.
            list.retain(|r| r.strong_count() > 0);
        }
        list.push(response);
    }

    /// Gives up every response that has waited longer than `timeout`, and says how many.
    pub fn give_up_stalled(&self, timeout: Duration) -> usize {
        let stalled: Vec<_> = {
            let Ok(mut list) = self.0.lock() else { return 0 };
            list.retain(|r| r.strong_count() > 0);
            let now = Instant::now();
            list.iter()
                .filter_map(Weak::upgrade)
                .filter(|r| r.waiting_since().is_some_and(|since| now.duration_since(since) >= timeout))
                .collect()
        };
        for response in &stalled {
            response.give_up();
        }
        stalled.len()
    }
}
