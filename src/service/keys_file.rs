//! The API keys file (`--api-keys`), read again when it changes, as the TLS files are:
//! a key added is valid and a key removed refused from the next call on, without a
//! restart (as a Kubernetes Secret is updated in place). A file that does not read
//! leaves the keys in use as they are, and says why in an ERROR line.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use super::auth::ApiKeys;

/// The keys of a file as it was last read without error.
pub struct KeysFile {
    path: PathBuf,
    current: RwLock<Arc<ApiKeys>>,
    /// The file's text when it was last looked at, to see when it changes.
    text: Mutex<String>,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

impl KeysFile {
    /// Reads the file; an error says what is wrong with it.
    pub fn open(path: &Path) -> Result<KeysFile, String> {
        let text = read(path)?;
        let keys = ApiKeys::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(KeysFile { path: path.to_path_buf(), current: RwLock::new(Arc::new(keys)), text: Mutex::new(text) })
    }

    /// The keys in use.
    pub fn current(&self) -> Arc<ApiKeys> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Reads the file again if its text has changed since it was last looked at; says
    /// whether new keys are in use. Tenants whose entries are unchanged keep their
    /// quotas' state.
    pub fn reload_if_changed(&self) -> bool {
        let text = read(&self.path);
        let mut last = self.text.lock().unwrap_or_else(|e| e.into_inner());
        if text.as_deref().is_ok_and(|text| *text == *last) {
            return false;
        }
        let parsed = text.and_then(|text| {
            let keys = ApiKeys::parse_after(&text, &self.current());
            *last = text;
            keys.map_err(|e| format!("{}: {e}", self.path.display()))
        });
        match parsed {
            Ok(keys) => {
                tracing::info!(tenants = keys.len(), "API keys file changed: reloaded");
                metrics::counter!("chuhe_api_keys_reloads_total", "result" => "ok").increment(1);
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(keys);
                true
            }
            Err(e) => {
                // An unreadable file is tried again at every look, a bad text when it
                // changes again.
                tracing::error!("API keys file does not load ({e}); the previous keys stay in use");
                metrics::counter!("chuhe_api_keys_reloads_total", "result" => "error").increment(1);
                false
            }
        }
    }

    /// Looks at the file every `interval` until the returned task is aborted.
    pub fn watch(self: &Arc<Self>, interval: Duration) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        super::every(interval, move || {
            this.reload_if_changed();
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const ABD_SHA256: &str = "a52d159f262b2c6ddb724a61840befc36eb30c88877a4030b65cbe86298449c9";

    fn tenant_of(keys: &KeysFile, key: &[u8]) -> Option<String> {
        keys.current().tenant_of(key)
    }

    #[test]
    fn a_changed_file_is_read_again_and_a_broken_one_leaves_the_keys() {
        let path = std::env::temp_dir().join(format!("chuhe-keys-file-{}.json", std::process::id()));
        std::fs::write(&path, format!(r#"[{{"tenant": "a", "key_sha256": "{ABC_SHA256}"}}]"#)).unwrap();
        let keys = KeysFile::open(&path).unwrap();
        assert_eq!(tenant_of(&keys, b"abc").as_deref(), Some("a"));
        assert!(!keys.reload_if_changed(), "unchanged");

        std::fs::write(&path, format!(r#"[{{"tenant": "b", "key_sha256": "{ABD_SHA256}"}}]"#)).unwrap();
        assert!(keys.reload_if_changed());
        assert_eq!(tenant_of(&keys, b"abc"), None);
        assert_eq!(tenant_of(&keys, b"abd").as_deref(), Some("b"));

        for broken in ["[{", r#"[{"tenant": "c", "key_sha256": "abc"}]"#] {
            std::fs::write(&path, broken).unwrap();
            assert!(!keys.reload_if_changed(), "{broken}");
            assert_eq!(tenant_of(&keys, b"abd").as_deref(), Some("b"), "{broken}");
        }
        std::fs::remove_file(&path).unwrap();
        assert!(!keys.reload_if_changed(), "a missing file");
        assert_eq!(tenant_of(&keys, b"abd").as_deref(), Some("b"));
    }
}
