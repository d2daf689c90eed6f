//! What `deploy/` holds agrees with the code: the image build of `deploy/Dockerfile`
//! (its first stage compiles the dependencies against the empty sources
//! `deploy/stub-targets.sh` writes, and its build context is cut down to what the stages
//! copy by `deploy/Dockerfile.dockerignore`), and the Grafana dashboard's queries.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
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
    let dockerfile = common::repo_text("deploy/Dockerfile");
    let ignore = common::repo_text("deploy/Dockerfile.dockerignore");
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

/// Every metric a query of the dashboard names, as written there.
fn dashboard_metrics() -> BTreeSet<String> {
    fn exprs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("expr", Value::String(e)) => out.push(e.clone()),
                        _ => exprs(value, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| exprs(i, out)),
            _ => {}
        }
    }
    let dashboard: Value =
        serde_json::from_str(&common::repo_text("deploy/grafana/chuhe-dashboard.json")).expect("dashboard is JSON");
    let mut queries = Vec::new();
    exprs(&dashboard, &mut queries);
    assert!(queries.len() >= 10, "the dashboard's queries were found: {queries:?}");
    queries
        .iter()
        .flat_map(|q| q.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|word| ["grpc_server_", "chuhe_", "process_"].iter().any(|p| word.starts_with(p)))
        .map(str::to_string)
        .collect()
}

/// After the calls each panel is about (rules, adjudication, search), the server
/// exports every metric the dashboard asks for, under that name.
#[tokio::test]
async fn the_dashboard_asks_only_for_metrics_the_server_exports() {
    chuhe::telemetry::metrics_handle();
    let server = common::server::start_small().await;
    let channel = server.channel().await;
    for config in ["list_legal_moves", "adjudicate", "analyze"] {
        let config: Value = serde_json::from_str(&common::repo_text(&format!("deploy/ghz/{config}.json"))).unwrap();
        let method = config["call"].as_str().unwrap();
        common::json_call::call(&channel, method, &config["data"]).await.unwrap_or_else(|s| panic!("{method}: {s:?}"));
    }
    let text = chuhe::telemetry::render_metrics();
    let families: BTreeSet<(&str, &str)> =
        text.lines().filter_map(|l| l.strip_prefix("# TYPE ")).filter_map(|l| l.split_once(' ')).collect();
    let exported = |name: &str| families.iter().any(|&(n, _)| n == name);
    let histogram = |name: &str| families.contains(&(name, "histogram"));
    let wanted = dashboard_metrics();
    for metric in ["grpc_server_handled_total", "grpc_server_handling_seconds_bucket", "chuhe_search_nodes_total"] {
        assert!(wanted.contains(metric), "the dashboard's metrics were read: {wanted:?}");
    }
    for name in &wanted {
        let series_of_histogram =
            ["_bucket", "_sum", "_count"].iter().any(|suffix| name.strip_suffix(suffix).is_some_and(histogram));
        assert!(
            exported(name) || series_of_histogram,
            "the dashboard asks for {name}, which the server does not export"
        );
    }
    server.shutdown().await;
}

/// The items of the YAML block list under `key:` (found at any depth, first match), each
/// as its `name: value` pairs, read line by line (enough for the manifests here).
fn block_items(text: &str, key: &str) -> Vec<Vec<(String, String)>> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim() == format!("{key}:")).unwrap_or_else(|| panic!("no {key}:"));
    let indent = |l: &str| l.len() - l.trim_start().len();
    let outer = indent(lines[start]);
    let mut items: Vec<Vec<(String, String)>> = Vec::new();
    for line in &lines[start + 1..] {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        // The block ends at a line as far out as its key (a list may start there).
        if indent(line) < outer || (indent(line) == outer && !line.trim_start().starts_with("- ")) {
            break;
        }
        let mut entry = line.trim();
        if let Some(rest) = entry.strip_prefix("- ") {
            items.push(Vec::new());
            entry = rest;
        }
        if let (Some(item), Some((k, v))) = (items.last_mut(), entry.split_once(':')) {
            item.push((k.trim().to_string(), v.trim().trim_matches('"').to_string()));
        }
    }
    items
}

fn field<'a>(item: &'a [(String, String)], name: &str) -> Option<&'a str> {
    item.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The documents of a multi-document YAML file.
fn documents(text: &str) -> Vec<String> {
    text.split("\n---\n").map(str::to_string).collect()
}

#[test]
fn the_kustomization_applies_every_manifest() {
    let kustomization = common::repo_text("deploy/k8s/kustomization.yaml");
    let listed: BTreeSet<String> = kustomization
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter(|l| l.ends_with(".yaml"))
        .map(str::to_string)
        .collect();
    let files: BTreeSet<String> = std::fs::read_dir(repo().join("deploy/k8s"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".yaml") && f != "kustomization.yaml")
        .collect();
    assert_eq!(listed, files);
    for file in ["secret.yaml", "networkpolicy.yaml"] {
        assert!(files.contains(file), "{file}");
    }
}

/// The Deployment's settings are flags of `chuhe serve`, and each file it names is a key
/// of a Secret it mounts at that file's directory.
#[test]
fn the_deployment_reads_its_keys_and_certificates_from_mounted_secrets() {
    let deployment = common::repo_text("deploy/k8s/deployment.yaml");
    let serve = common::repo_text("src/cli/serve.rs");
    let env = block_items(&deployment, "env");
    assert!(env.len() >= 10, "{env:?}");
    for item in &env {
        let name = field(item, "name").expect("an env entry has a name");
        assert!(serve.contains(&format!("env = \"{name}\"")), "{name} is no setting of chuhe serve");
    }
    let secrets: Vec<(String, Vec<String>)> = documents(&common::repo_text("deploy/k8s/secret.yaml"))
        .iter()
        .filter(|d| d.contains("kind: Secret"))
        .map(|d| {
            let name = d.lines().find_map(|l| l.trim().strip_prefix("name: ")).expect("a name").to_string();
            let data_at = d.find("stringData:").expect("stringData");
            let keys = d[data_at..]
                .lines()
                .skip(1)
                .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && !l.trim_start().starts_with('#'))
                .filter_map(|l| l.trim().split_once(':').map(|(k, _)| k.to_string()))
                .collect();
            (name, keys)
        })
        .collect();
    assert_eq!(secrets.len(), 2, "{secrets:?}");
    let mounts = block_items(&deployment, "volumeMounts");
    let volumes = block_items(&deployment, "volumes");
    let mut files_read = 0;
    for name in ["CHUHE_TLS_CERT", "CHUHE_TLS_KEY", "CHUHE_TLS_CLIENT_CA", "CHUHE_API_KEYS"] {
        let item = env.iter().find(|i| field(i, "name") == Some(name)).unwrap_or_else(|| panic!("{name} is set"));
        let path = Path::new(field(item, "value").expect("a path"));
        let (dir, file) = (path.parent().unwrap().to_str().unwrap(), path.file_name().unwrap().to_str().unwrap());
        let mount = mounts.iter().find(|m| field(m, "mountPath") == Some(dir)).unwrap_or_else(|| panic!("{dir}"));
        assert_eq!(field(mount, "readOnly"), Some("true"));
        let volume = field(mount, "name").unwrap();
        let secret_name = volumes
            .iter()
            .find(|v| field(v, "name") == Some(volume))
            .and_then(|v| field(v, "secretName"))
            .unwrap_or_else(|| panic!("volume {volume} is a Secret"));
        let (_, keys) = secrets.iter().find(|(n, _)| n == secret_name).unwrap_or_else(|| panic!("{secret_name}"));
        assert!(keys.iter().any(|k| k == file), "{name}: {file} is not a key of {secret_name} ({keys:?})");
        files_read += 1;
    }
    assert_eq!(files_read, 4);
}

/// The NetworkPolicy selects the Deployment's pods and opens exactly their ports.
#[test]
fn the_network_policy_opens_the_servers_ports_only() {
    let deployment = common::repo_text("deploy/k8s/deployment.yaml");
    let policy = common::repo_text("deploy/k8s/networkpolicy.yaml");
    let container_ports: BTreeSet<String> = block_items(&deployment, "ports")
        .iter()
        .filter_map(|p| field(p, "containerPort").map(str::to_string))
        .collect();
    let opened: BTreeSet<String> = policy
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- port: ").or_else(|| l.trim().strip_prefix("port: ")))
        .map(str::to_string)
        .collect();
    assert_eq!(container_ports, opened);
    let labels = |text: &str| -> BTreeSet<String> {
        let at = text.find("matchLabels:").expect("matchLabels");
        text[at..].lines().skip(1).take(2).map(|l| l.trim().to_string()).collect()
    };
    assert_eq!(labels(&policy), labels(&deployment));
    assert!(policy.contains("- Egress") && policy.contains("egress: []"), "no egress");
    assert!(policy.contains("kubernetes.io/metadata.name: monitoring"), "metrics only for Prometheus");
}
