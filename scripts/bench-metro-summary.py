#!/usr/bin/env python3
"""Issue 19's item-1 goals from the rounds of `ROUNDS=K scripts/bench-metro.sh N` (SwiftCab and RoutingKit
alternating on the same graph): every round's figures, then the medians over the rounds and each goal judged on them.

usage: bench-metro-summary.py DIR   (DIR holds cab-R.out and peer-R.out, each with one JSON line, R = 1..K)
"""
import json
import pathlib
import statistics
import sys


def json_line(path):
    for line in path.read_text().splitlines():
        if line.startswith("{"):
            return json.loads(line)
    sys.exit(f"{path}: no JSON line (did the process fail?)")


def figure(x):
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = pathlib.Path(sys.argv[1])
    rounds = sorted(int(p.stem.split("-")[1]) for p in folder.glob("cab-*.out"))
    cab = [json_line(folder / f"cab-{r}.out") for r in rounds]
    peer = [json_line(folder / f"peer-{r}.out") for r in rounds]
    # (label, SwiftCab key, RoutingKit key or None, goal as text, met(ours, routingkit))
    rows = [
        ("preprocessing (s)", "preprocess_s", "preprocess_s", "<= RoutingKit's", lambda o, p: o <= p),
        ("p2p (us)", "p2p_median_us", "p2p_median_us", "<= 1/2 RoutingKit's", lambda o, p: o <= p / 2),
        ("p2p with geometry (us)", "p2p_geometry_median_us", "p2p_node_path_median_us", "< 30",
         lambda o, p: o < 30),
        ("many-to-one 20 (us)", "many_to_one_20_median_us", "many_to_one_20_median_us", "< 50", lambda o, p: o < 50),
        ("many-to-one 100 (us)", "many_to_one_100_median_us", "many_to_one_100_median_us", "< 200",
         lambda o, p: o < 200),
        ("peak RSS after preprocessing (MB)", "peak_rss_mb", "peak_rss_mb", "printed", None),
    ]
    print(f"\n== {len(rounds)} rounds, SwiftCab / RoutingKit per round, then the medians")
    for label, ours, theirs, goal, met in rows:
        o = [c[ours] for c in cab]
        p = [q[theirs] for q in peer]
        per_round = "   ".join(f"{figure(a)} / {figure(b)}" for a, b in zip(o, p))
        mo, mp = statistics.median(o), statistics.median(p)
        if met is None:
            verdict = f"goal {goal}"
        else:
            verdict = f"goal {goal}: {'met' if met(mo, mp) else 'NOT met'}"
            verdict += f" (met in {sum(met(a, b) for a, b in zip(o, p))} of {len(o)} rounds)"
        print(f"{label:36s} {per_round}")
        print(f"{'':36s} median {figure(mo)} / {figure(mp)}, {verdict}")


if __name__ == "__main__":
    main()
