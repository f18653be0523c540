#!/usr/bin/env python3
"""Sums the nodes' first-offer histograms that scripts/chaos-run.sh saved from /metrics (lines "node-N <sample>")
and prints, per series (the total, then each stage of dispatch_first_offer_stage_seconds), how many first offers
fell within each bound, all nodes together and node by node.

usage: scripts/first-offer-histograms.py FILE
"""
import re
import sys
from collections import defaultdict

SAMPLE = re.compile(r'^(node-\d+) (dispatch_first_offer(?:_stage)?_seconds)_bucket\{(.*)\} (\S+)$')


def main(path):
    # (series, node) -> {bound: cumulative count}
    counts = defaultdict(dict)
    for line in open(path):
        m = SAMPLE.match(line.strip())
        if not m:
            continue
        node, name, labels, value = m.groups()
        fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        series = fields.get('stage', 'total') if name.endswith('_stage_seconds') else 'total'
        le = fields['le']
        bound = float('inf') if le == '+Inf' else float(le)
        counts[(series, node)][bound] = float(value)
    series_names = sorted({s for s, _ in counts}, key=lambda s: (s != 'total', order(s)))
    for series in series_names:
        nodes = sorted(n for s, n in counts if s == series)
        bounds = sorted(set().union(*(counts[(series, n)].keys() for n in nodes)))
        total = {b: sum(counts[(series, n)].get(b, 0) for n in nodes) for b in bounds}
        n_all = total[float('inf')]
        if n_all == 0:
            continue
        cells = [f'<= {fmt(b)}: {int(total[b])} ({100 * total[b] / n_all:.0f} %)' for b in bounds if b != float('inf')]
        print(f'{series:>13}  {int(n_all)} first offers; ' + ', '.join(cells))
        for n in nodes:
            c = counts[(series, n)]
            over = c.get(float('inf'), 0) - c.get(0.1, 0)
            print(f'{"":>13}  {n}: {int(c.get(float("inf"), 0))}, over 100 ms {int(over)}')


def order(stage):
    known = ['commit', 'start_queue', 'heard', 'reads', 'search', 'offers_write']
    return known.index(stage) if stage in known else len(known)


def fmt(seconds):
    return f'{seconds * 1000:g} ms'


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
