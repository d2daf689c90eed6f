//! `chuhe datagen` and `chuhe train`: self-play data to a net the engine loads.

use std::process::Command;

fn chuhe(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().unwrap()
}

/// A small `chuhe datagen` run (six short games) into `out`, with `more` arguments.
fn datagen(out: &std::path::Path, more: &[&str]) -> std::process::Output {
    let small =
        ["--games", "6", "--nodes", "300", "--threads", "2", "--max-plies", "80", "--opening-max-score", "30000"];
    let args: Vec<&str> =
        ["datagen", "--out", out.to_str().unwrap()].into_iter().chain(small).chain(more.iter().copied()).collect();
    chuhe(&args)
}

#[test]
fn datagen_and_train_make_a_net_the_engine_loads() {
    let dir = std::env::temp_dir().join(format!("chuhe-cli-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.bin");
    let net = dir.join("net.nnue");
    let (data_s, net_s) = (data.to_str().unwrap(), net.to_str().unwrap());
    let out = datagen(&data, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("games 6"), "{text}");
    let len = std::fs::metadata(&data).unwrap().len();
    assert!(len > 0 && len % 52 == 0, "{len}");
    let out = chuhe(&[
        "train",
        data_s,
        "--out",
        net_s,
        "--hidden",
        "16",
        "--buckets",
        "2",
        "--epochs",
        "2",
        "--validation",
        "2",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("epoch 2: training loss") && text.contains("quantised against float"), "{text}");
    let loaded = chuhe::search::nnue::Network::from_file(&net, chuhe::search::nnue::NetVariant::Xiangqi);
    assert!(loaded.is_ok(), "{:?}", loaded.err().map(|e| e.to_string()));
    // Each training position is trained on twice (as itself and in the mirror) unless
    // --no-mirror; the held-out ones stay as they are.
    let unmirrored = dir.join("unmirrored.nnue");
    let small = ["--hidden", "16", "--buckets", "2", "--epochs", "1", "--validation", "2"];
    let out =
        chuhe(&[&["train", data_s, "--no-mirror", "--out", unmirrored.to_str().unwrap()][..], &small[..]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let split = |text: &str| -> (usize, usize) {
        let line = text.lines().find(|l| l.contains(" training positions, ")).expect("the split line");
        let numbers: Vec<usize> = line.split(' ').filter_map(|w| w.parse().ok()).collect();
        (numbers[0], numbers[1])
    };
    let (plain, held_out) = split(&String::from_utf8_lossy(&out.stdout));
    assert!(plain > 0);
    assert_eq!(split(&text), (2 * plain, held_out), "{text}");
    // The next generation plays with that net: the same games' openings, other moves
    // and scores. A net of another variant is refused, naming the file.
    let next = dir.join("next.bin");
    let generation = |eval_file: &str, variant: &str| datagen(&next, &["--variant", variant, "--eval-file", eval_file]);
    let out = generation(net_s, "xiangqi");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("playing with nnue-"));
    let (first, second) = (std::fs::read(&data).unwrap(), std::fs::read(&next).unwrap());
    assert!(
        !second.is_empty() && second.len() % 52 == 0 && first != second,
        "{} and {} bytes",
        first.len(),
        second.len()
    );
    std::fs::remove_file(&next).unwrap();
    let out = generation(net_s, "janggi");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(net_s), "{}", String::from_utf8_lossy(&out.stderr));
    // Janggi data is no Xiangqi net's.
    let out = chuhe(&["train", data_s, "--out", net_s, "--variant", "janggi"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("another variant"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `chuhe args`, killing it if it has not ended within a generous deadline (a
/// command that hangs fails the test rather than holding it up).
fn chuhe_ended(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chuhe {args:?} did not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn devices_are_refused_as_data_naming_the_file() {
    for (args, file) in [
        (&["datagen", "--out", "/dev/full", "--games", "1", "--nodes", "100"][..], "/dev/full"),
        (&["train", "/dev/zero", "--out", "/tmp/never-written.nnue"][..], "/dev/zero"),
    ] {
        let out = chuhe_ended(args);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {said}");
        assert!(said.contains(&format!("{file}: not a regular file")), "{args:?}: {said}");
        assert!(!said.contains("panicked") && !said.contains("backtrace"), "{args:?}: {said}");
    }
}
