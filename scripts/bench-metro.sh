#!/usr/bin/env bash
# Metro-size routing figures (issue 19): synthetic cities from ../shared/tools/synth_city.py (converted with
# osmium), `cab bench route` (release, one query thread) and RoutingKit's contraction hierarchy
# (scripts/routingkit-peer.py, PyPI ch-router in a virtual environment of its own) on the same graph, one
# after the other in the same run. Cities and the venv go under METRO_DIR (default .build/metro; never into the
# repository). BASELINE_CAB="older/cab ..." also runs those binaries' bench on the same city in the same run, right
# before this one (a same-run before/after).
#
# usage: [CAB_FLAGS=--json] [METRO_DIR=/tmp/metro] [BASELINE_CAB=FILE] scripts/bench-metro.sh [N ...]
# (default: 330 700 1000; N=700 is ~485k junctions, 1000 ~1M; --json adds the same-run baselines: searched climbs,
# shortcuts split into halves)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(330 700 1000)
out=${METRO_DIR:-.build/metro}
venv=$out/peer-venv
mkdir -p "$out"
if ! "$venv/bin/python" -c "import ch_router, numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q ch-router numpy
fi
cab=${CAB:-.build/release/cab}
[ -x "$cab" ] || { scripts/vendor-mirrors.sh; swift build -c release --product cab; }
for n in "${sizes[@]}"; do
  pbf="$out/city$n.osm.pbf"
  if [ ! -f "$pbf" ]; then
    python3 ../shared/tools/synth_city.py "$n" "$out/city$n.osm"
    osmium cat "$out/city$n.osm" -o "$pbf" --overwrite
    rm "$out/city$n.osm"
  fi
  for baseline in ${BASELINE_CAB:-}; do
    echo "== N=$n: baseline $baseline bench route ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
    /usr/bin/time -f "(whole process: %e s wall, peak RSS %M KB)" \
      "$baseline" bench route --map "$pbf" --pairs 3000 ${CAB_FLAGS:-} --dijkstra-pairs 30 --http-requests 300
  done
  echo "== N=$n: cab bench route ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
  /usr/bin/time -f "(whole process: %e s wall, peak RSS %M KB)" \
    "$cab" bench route --map "$pbf" --export-edges "$out/edges$n.bin" --pairs 3000 ${CAB_FLAGS:-} \
    --dijkstra-pairs 30 --http-requests 300
  echo "== N=$n: RoutingKit peer ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
  /usr/bin/time -f "(whole process: %e s wall, peak RSS %M KB)" \
    "$venv/bin/python" scripts/routingkit-peer.py "$out/edges$n.bin" 10000
done
