//! The image build of `deploy/Dockerfile`: its first stage compiles the dependencies
//! against the empty sources `deploy/stub-targets.sh` writes, and its build context is
//! cut down to what the stages copy by `deploy/Dockerfile.dockerignore`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A fresh directory holding what the Dockerfile copies before it runs the stub script.
fn stub_build_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chuhe-deploy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        std::fs::copy(repo().join(file), dir.join(file)).unwrap();
    }
    dir
}

/// The source file of every library, binary, bench and example target of the manifest
/// in `dir`, relative to it, as `cargo metadata` names them.
fn target_sources(dir: &Path) -> Vec<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let root = dir.canonicalize().unwrap();
    let mut sources: Vec<PathBuf> = meta["packages"][0]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| ["lib", "bin", "bench", "example"].contains(&t["kind"][0].as_str().unwrap_or_default()))
        .map(|t| PathBuf::from(t["src_path"].as_str().unwrap()).strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    sources.sort();
    sources
}

#[test]
fn stub_targets_write_a_source_for_every_target_the_build_compiles() {
    let dir = stub_build_dir("stubs");
    let status =
        Command::new("sh").arg(repo().join("deploy/stub-targets.sh")).current_dir(&dir).status().expect("sh runs");
    assert!(status.success());

    let sources = target_sources(repo());
    assert!(sources.len() >= 5, "the library, the binary and the benches: {sources:?}");
    assert_eq!(target_sources(&dir), sources);
    for source in &sources {
        let stub = std::fs::read_to_string(dir.join(source)).unwrap_or_else(|e| panic!("stub {source:?}: {e}"));
        assert!(stub.len() <= "fn main() {}\n".len(), "{source:?} is a stub, not the source");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The sources of the Dockerfile's `COPY` lines that read the build context.
fn context_copies(dockerfile: &str) -> Vec<String> {
    let mut sources = Vec::new();
    for line in dockerfile.lines().map(str::trim) {
        let Some(args) = line.strip_prefix("COPY ") else { continue };
        let words: Vec<&str> = args.split_whitespace().collect();
        if words.iter().any(|w| w.starts_with("--from")) {
            continue;
        }
        let (_, srcs) = words.split_last().expect("COPY has a destination");
        sources.extend(srcs.iter().map(|s| s.trim_end_matches('/').to_string()));
    }
    sources
}

#[test]
fn the_build_context_holds_exactly_what_the_image_copies() {
    let dockerfile = read("deploy/Dockerfile");
    let ignore = read("deploy/Dockerfile.dockerignore");
    let rules: Vec<&str> = ignore.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert_eq!(rules.first(), Some(&"*"), "the ignore file admits by name, after excluding everything");
    let mut admitted: Vec<String> = rules[1..]
        .iter()
        .map(|r| r.strip_prefix('!').unwrap_or_else(|| panic!("{r}: only exceptions follow '*'")))
        .map(|r| r.trim_end_matches('/').to_string())
        .collect();
    let mut copied = context_copies(&dockerfile);
    assert!(copied.len() >= 4, "the Dockerfile's COPY lines were read: {copied:?}");
    admitted.sort();
    copied.sort();
    assert_eq!(admitted, copied, "deploy/Dockerfile.dockerignore admits what deploy/Dockerfile copies");
    for path in &copied {
        assert!(repo().join(path).exists(), "{path} exists");
    }
}
