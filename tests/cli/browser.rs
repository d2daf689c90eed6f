//! A real headless browser (Debian's `chromium`) driven over the DevTools protocol on a
//! pipe (`--remote-debugging-pipe`: commands on its fd 3, answers on its fd 4, each a
//! JSON message ended by a NUL): load a page at a viewport size, gather its console
//! errors, exceptions and failed loads, measure its width and take a screenshot.
//!
//! Every wait is bounded and generous (a busy 2-core machine starts a browser in
//! seconds, not minutes), and the browser is killed when the session is dropped.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// The longest wait for any one answer or event.
const STEP: Duration = Duration::from_secs(90);

/// What the browser saw of a page.
pub struct Visit {
    /// The screenshot of the whole page, PNG.
    pub png: Vec<u8>,
    /// Console errors, uncaught exceptions and the log's errors (a failed load), as
    /// text.
    pub errors: Vec<String>,
    /// The page's width in CSS pixels (wider than the viewport: it scrolls sideways).
    pub scroll_width: f64,
}

struct Browser {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    /// Events that came while waiting for an answer.
    events: Vec<Value>,
    _profile: tempdir::Dir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory of its own, removed when dropped.
mod tempdir {
    pub struct Dir(pub std::path::PathBuf);

    impl Dir {
        pub fn new(name: &str) -> Dir {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("chuhe-{name}-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).expect("a temporary directory");
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub use tempdir::Dir as TempDir;

impl Browser {
    fn start() -> Browser {
        let profile = tempdir::Dir::new("chromium-profile");
        // The shell hands the browser our pipes as its fds 3 and 4.
        let script = "exec chromium --headless --no-sandbox --disable-gpu --no-first-run \
             --no-default-browser-check --disable-extensions --disable-background-networking \
             --remote-debugging-pipe --user-data-dir=\"$1\" 3<&0 4>&1 0</dev/null 1>/dev/null 2>/dev/null";
        let mut child = Command::new("sh")
            .args(["-c", script, "sh"])
            .arg(&profile.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run chromium (Debian: apt-get install chromium)");
        let input = child.stdin.take().expect("the browser's command pipe");
        let output = child.stdout.take().expect("the browser's answer pipe");
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                if message.last() == Some(&0) {
                    message.pop();
                }
                if let Ok(value) = serde_json::from_slice::<Value>(&message)
                    && send.send(value).is_err()
                {
                    break;
                }
                message.clear();
            }
        });
        Browser { child, input, messages, next_id: 0, events: Vec::new(), _profile: profile }
    }

    fn next(&mut self, deadline: Instant, what: &str) -> Value {
        match self.messages.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("chromium gave no {what} within {STEP:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("chromium ended before its {what}"),
        }
    }

    /// Sends a command (to the page's session when given) and waits for its answer.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).expect("a command");
        bytes.push(0);
        self.input.write_all(&bytes).and_then(|()| self.input.flush()).expect("write to chromium");
        let deadline = Instant::now() + STEP;
        loop {
            let m = self.next(deadline, method);
            if m["id"].as_u64() == Some(id) {
                assert!(m.get("error").is_none(), "{method} failed: {}", m["error"]);
                return m["result"].clone();
            }
            self.events.push(m);
        }
    }

    /// Waits for the event `method`, keeping the events before it.
    fn wait_event(&mut self, method: &str) {
        if self.events.iter().any(|e| e["method"] == method) {
            return;
        }
        let deadline = Instant::now() + STEP;
        loop {
            let m = self.next(deadline, method);
            let found = m["method"] == method;
            self.events.push(m);
            if found {
                return;
            }
        }
    }
}

/// Loads `page` (a file) in a viewport `width` by `height` CSS pixels and reports what
/// the browser saw.
pub fn visit(page: &Path, width: u32, height: u32) -> Visit {
    let mut b = Browser::start();
    let target = b.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
    let attached = b.call(None, "Target.attachToTarget", json!({ "targetId": target["targetId"], "flatten": true }));
    let session = attached["sessionId"].as_str().expect("a session").to_string();
    let s = Some(session.as_str());
    for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
        b.call(s, domain, json!({}));
    }
    b.call(
        s,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600 }),
    );
    b.call(s, "Emulation.setScrollbarsHidden", json!({ "hidden": true }));
    let url = format!("file://{}", page.canonicalize().expect("the page's path").display());
    b.events.clear();
    b.call(s, "Page.navigate", json!({ "url": url }));
    b.wait_event("Page.loadEventFired");
    let width = b.call(
        s,
        "Runtime.evaluate",
        json!({ "expression": "document.documentElement.scrollWidth", "returnByValue": true }),
    );
    let shot = b.call(s, "Page.captureScreenshot", json!({ "format": "png", "captureBeyondViewport": true }));
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().expect("a screenshot"))
        .expect("a base64 screenshot");
    let errors = b.events.iter().filter_map(error_text).collect();
    Visit { png, errors, scroll_width: width["result"]["value"].as_f64().unwrap_or(f64::NAN) }
}

/// The text of an event that reports an error: a console error, an uncaught exception,
/// or an error of the browser's log (a resource that failed to load, a refused one).
fn error_text(event: &Value) -> Option<String> {
    let p = &event["params"];
    match event["method"].as_str()? {
        "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
            Some(format!("console.{}: {}", p["type"], p["args"]))
        }
        "Runtime.exceptionThrown" => Some(format!("exception: {}", p["exceptionDetails"])),
        "Log.entryAdded" if p["entry"]["level"] == "error" => Some(format!("log: {}", p["entry"])),
        _ => None,
    }
}

/// The decoded screenshot: its size, and the share of pixels that are not the page's
/// white background and the number of distinct colours.
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub inked: f64,
    pub colours: usize,
}

/// Decodes a PNG screenshot.
pub fn picture(png: &[u8]) -> Picture {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a PNG's size")];
    let frame = reader.next_frame(&mut pixels).expect("the PNG's pixels");
    let channels = frame.color_type.samples();
    assert!(frame.bit_depth == png::BitDepth::Eight && channels >= 3, "an 8-bit RGB(A) screenshot");
    let mut colours = std::collections::HashSet::new();
    let mut inked = 0usize;
    let pixels = &pixels[..frame.buffer_size()];
    for px in pixels.chunks(channels) {
        let rgb = [px[0], px[1], px[2]];
        if rgb != [255, 255, 255] {
            inked += 1;
        }
        colours.insert(rgb);
    }
    let count = (frame.width as usize * frame.height as usize).max(1);
    Picture { width: frame.width, height: frame.height, inked: inked as f64 / count as f64, colours: colours.len() }
}
