#!/usr/bin/env python3
"""The detection table of docs/fairplay.md from a population's audits.

    python3 benches/detection/table.py MODEL.json DIR [--chuhe target/release/chuhe]

DIR holds the audited games of each group (`chuhe fairplay screen`): honest.jsonl and
f0.1.jsonl, f0.25.jsonl, f0.5.jsonl, f1.jsonl. For each game count n in 3, 8, 20,
every player's games, in order, are cut into runs of n (a run is a player of its
own: the same player, other games) and each run is assessed once against the model
(`chuhe fairplay assess --audits`, family size 1); runs shorter than n are left out.
The table gives per share f and per n the runs, the share at REVIEW or above and at
STRONG or above, and the honest runs' combined z (mean, spread). Standard library
only (Python 3.9 or later).
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

GROUPS = [("0", "honest"), ("0.1", "f0.1"), ("0.25", "f0.25"), ("0.5", "f0.5"), ("1", "f1")]
COUNTS = [3, 8, 20]
RANK = {"CLEAR": 0, "REVIEW": 1, "STRONG": 2, "MARK": 3}


def runs(games, n):
    """The games with each side's player renamed to its run of n games."""
    seen = collections.Counter()
    total = collections.Counter(g[side] for g in games for side in ("red", "black"))
    out = []
    for g in games:
        g = dict(g)
        for side in ("red", "black"):
            name = g[side]
            k = seen[name]
            seen[name] += 1
            run = k // n
            full = (run + 1) * n <= total[name]
            g[side] = f"{name}@{run}" if full else f"{name}@short"
        out.append(g)
    return out


def wilson(k, n):
    """A 95 % Wilson interval of k successes in n."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("dir")
    parser.add_argument("--chuhe", default="target/release/chuhe")
    args = parser.parse_args()
    rows, by_level = {}, {}
    for n in COUNTS:
        games = []
        for share, name in GROUPS:
            with open(os.path.join(args.dir, name + ".jsonl")) as f:
                games += [json.loads(line) for line in f if line.strip()]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for g in runs(games, n):
                f.write(json.dumps(g) + "\n")
            path = f.name
        try:
            answer = subprocess.run(
                [args.chuhe, "fairplay", "assess", "--model", args.model, "--audits", path, "--json"],
                check=True, capture_output=True, text=True,
            ).stdout
        finally:
            os.unlink(path)
        for line in answer.splitlines():
            a = json.loads(line)
            player = a["player"]
            if player.endswith("@short"):
                continue
            prefix, level = player.split("-")[:2]
            share = "0" if prefix == "h" else prefix[1:]
            band = a["band"].removeprefix("FAIR_PLAY_BAND_")
            z = a.get("z", {}).get("combined", 0.0)
            rows.setdefault((share, n), []).append((band, z))
            by_level.setdefault((share, level, n), []).append(band)
    print("| f | games | players | REVIEW or above | STRONG or above | combined z mean (sd) |")
    print("|---|---|---|---|---|---|")
    for share, _ in GROUPS:
        for n in COUNTS:
            found = rows.get((share, n), [])
            counted = [(b, z) for b, z in found if b in RANK]
            k = len(counted)
            review = sum(RANK[b] >= 1 for b, _ in counted)
            strong = sum(RANK[b] >= 2 for b, _ in counted)
            zs = [z for _, z in counted]
            mean = sum(zs) / k if k else float("nan")
            sd = math.sqrt(sum((z - mean) ** 2 for z in zs) / (k - 1)) if k > 1 else float("nan")
            cell = lambda x: "%.1f %% (%d; 95 %%: %.1f-%.1f)" % ((100 * x / k if k else 0), x, *(100 * v for v in wilson(x, k)))
            short = len(found) - k
            note = f" ({short} too few positions)" if short else ""
            print(f"| {share} | {n} | {k}{note} | {cell(review)} | {cell(strong)} | {mean:.2f} ({sd:.2f}) |")

    print()
    levels = sorted({level for _, level, _ in by_level}, key=int)
    print("| f | games | " + " | ".join(f"{level}: REVIEW+ / STRONG+ (players)" for level in levels) + " |")
    print("|---|---|" + "---|" * len(levels))
    for share, _ in GROUPS:
        for n in COUNTS:
            cells = []
            for level in levels:
                bands = [b for b in by_level.get((share, level, n), []) if b in RANK]
                k = len(bands)
                review = sum(RANK[b] >= 1 for b in bands)
                strong = sum(RANK[b] >= 2 for b in bands)
                cells.append(f"{100 * review / k:.0f} % / {100 * strong / k:.0f} % ({k})" if k else "-")
            print(f"| {share} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
