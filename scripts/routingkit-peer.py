#!/usr/bin/env python3
"""RoutingKit's contraction hierarchy on exactly SwiftCab's road graph: the peer of `cab bench route`.

usage: routingkit-peer.py EDGES.bin [PAIRS] [--json]

EDGES.bin is written by `cab bench route --map FILE --export-edges EDGES.bin`: little-endian u32 node count,
u32 edge count, then the tails, heads and durations in milliseconds (u32 each) of SwiftCab's graph edges.
Prints RoutingKit's preprocessing time (`ContractionHierarchy.build`, one thread), the process's peak RSS after it,
and the median of PAIRS random node-to-node distance queries (Python call overhead included: the five binding
calls per query), plus 20 and 100 queries in a row as its many-to-one. Installed by `scripts/bench-metro.sh`
into a virtual environment of its own (PyPI `ch-router`, which bundles RoutingKit).
"""
import json
import random
import resource
import struct
import sys
import time

import numpy as np
from ch_router import INF_WEIGHT, CHQuery, ContractionHierarchy


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    pairs = int(args[1]) if len(args) > 1 else 10_000
    with open(args[0], "rb") as f:
        n, m = struct.unpack("<II", f.read(8))
        arrays = np.frombuffer(f.read(12 * m), dtype="<u4").reshape(3, m)
    tail, head, weight = (np.ascontiguousarray(a, dtype=np.uint32) for a in arrays)
    start = time.perf_counter()
    ch = ContractionHierarchy.build(n, tail, head, weight)
    build_s = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rnd = random.Random(1)
    # Nodes with an outgoing edge and an incoming one (SwiftCab picks nodes of the largest strongly connected
    # component; unreachable pairs are dropped from the median here).
    nodes = sorted(set(tail.tolist()) & set(head.tolist()))
    q = CHQuery(ch)
    clock = time.perf_counter_ns
    samples = []
    for _ in range(pairs):
        s, t = nodes[rnd.randrange(len(nodes))], nodes[rnd.randrange(len(nodes))]
        t0 = clock()
        d = q.reset().add_source(s).add_target(t).run().get_distance()
        t1 = clock()
        if d != INF_WEIGHT:
            samples.append((t1 - t0) / 1000)
    samples.sort()

    def many(k, rounds=200):
        times = []
        for _ in range(rounds):
            group = [nodes[rnd.randrange(len(nodes))] for _ in range(k + 1)]
            t0 = clock()
            for s in group[:k]:
                q.reset().add_source(s).add_target(group[k]).run().get_distance()
            times.append((clock() - t0) / 1000)
        times.sort()
        return times[len(times) // 2]

    geometry = []
    for _ in range(min(pairs, 2000)):
        s, t = nodes[rnd.randrange(len(nodes))], nodes[rnd.randrange(len(nodes))]
        t0 = clock()
        q.reset().add_source(s).add_target(t).run()
        path = q.get_node_path()
        t1 = clock()
        if path:
            geometry.append((t1 - t0) / 1000)
    geometry.sort()
    result = {
        "peer": "RoutingKit CH (PyPI ch-router)",
        "nodes": n,
        "edges": m,
        "preprocess_s": round(build_s, 3),
        "peak_rss_mb": round(peak_mb, 1),
        "p2p_median_us": round(samples[len(samples) // 2], 2),
        "p2p_node_path_median_us": round(geometry[len(geometry) // 2], 2),
        "many_to_one_20_median_us": round(many(20), 1),
        "many_to_one_100_median_us": round(many(100), 1),
        "pairs": len(samples),
    }
    if "--json" in sys.argv:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:28s}{v}")


if __name__ == "__main__":
    main()
