#!/usr/bin/env bash
# Metro-size routing figures (issue 19): synthetic cities from ../shared/tools/synth_city.py (converted with
# osmium), `cab bench route` (release, one query thread) and RoutingKit's contraction hierarchy
# (scripts/routingkit-peer.py, PyPI ch-router in a virtual environment of its own) on the same graph, one
# after the other in the same run. Cities and the venv go under METRO_DIR (default .build/metro; never into the
# repository). BASELINE_CAB="older/cab ..." also runs those binaries' bench on the same city in the same run, right
# before this one (a same-run before/after).
#
# ROUNDS=K (K > 1) runs SwiftCab and RoutingKit K times each, alternating, on the same graph, and then prints each
# goal of issue 19's item 1 with the medians over the rounds (scripts/bench-metro-summary.py): on a box whose speed
# swings by 15 % between processes, one process each decides a comparison of near-equal times by chance.
#
# usage: [CAB_FLAGS=--json] [METRO_DIR=/tmp/metro] [BASELINE_CAB=FILE] [ROUNDS=K] scripts/bench-metro.sh [--startup]
#        [N ...]
# (default: 330 700 1000; N=700 is ~485k junctions, 1000 ~1M; --json adds the same-run baselines: searched climbs,
# shortcuts split into halves)
#
# --startup measures import and start-up instead of routing (issue 19, item 3): for each binary (the baselines,
# then this one) `cab import city.osm.pbf --data DIR` with its wall time and peak RSS, then `cab serve --data DIR
# --port 0` started SERVE_STARTS times (default 3), each timed until it prints `listening` and its VmRSS,
# RssFile and RssAnon read from /proc/PID/status at that moment; then it is stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
startup=0
if [ "${1:-}" = --startup ]; then
  startup=1
  shift
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(330 700 1000)
out=${METRO_DIR:-.build/metro}
venv=$out/peer-venv
mkdir -p "$out"
if [ $startup = 0 ] && ! "$venv/bin/python" -c "import ch_router, numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q ch-router numpy
fi
# Imports $2 with binary $1 into $3, then starts `serve` on it SERVE_STARTS times.
measure_startup() {
  local binary=$1 pbf=$2 data=$3
  rm -rf "$data"
  echo "== $binary import $(basename "$pbf") ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
  /usr/bin/time -f "import: %e s wall, peak RSS %M KB" "$binary" import "$pbf" --data "$data" --quiet 2>&1 |
    grep -v '^{' || true
  for run in $(seq "${SERVE_STARTS:-3}"); do
    local log=$data/serve-$run.out
    local begin end pid
    begin=$(date +%s.%N)
    "$binary" serve --data "$data" --port 0 >"$log" 2>"$data/serve-$run.err" &
    pid=$!
    until grep -q listening "$log" 2>/dev/null; do
      kill -0 $pid 2>/dev/null || { echo "serve exited: $(tail -3 "$data/serve-$run.err")"; break; }
      sleep 0.005
    done
    end=$(date +%s.%N)
    local rss
    rss=$(grep -E '^(VmRSS|RssAnon|RssFile)' /proc/$pid/status 2>/dev/null | tr -s ' \t' ' ' | tr '\n' ' ')
    echo "serve start $run: listening after $(echo "$end - $begin" | bc) s; $rss"
    grep -o '"message":"map loaded".*' "$data/serve-$run.err" || true
    kill $pid
    wait $pid 2>/dev/null || true
  done
}

cab=${CAB:-.build/release/cab}
[ -x "$cab" ] || { scripts/vendor-mirrors.sh; swift build -c release --product cab; }
for n in "${sizes[@]}"; do
  pbf="$out/city$n.osm.pbf"
  if [ ! -f "$pbf" ]; then
    python3 ../shared/tools/synth_city.py "$n" "$out/city$n.osm"
    osmium cat "$out/city$n.osm" -o "$pbf" --overwrite
    rm "$out/city$n.osm"
  fi
  if [ $startup = 1 ]; then
    for binary in ${BASELINE_CAB:-} "$cab"; do
      measure_startup "$binary" "$pbf" "$out/data$n-$(basename "$binary")"
    done
    continue
  fi
  for baseline in ${BASELINE_CAB:-}; do
    echo "== N=$n: baseline $baseline bench route ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
    /usr/bin/time -f "(whole process: %e s wall, peak RSS %M KB)" \
      "$baseline" bench route --map "$pbf" --pairs 3000 ${CAB_FLAGS:-} --dijkstra-pairs 30 --http-requests 300
  done
  # ROUNDS > 1: SwiftCab and RoutingKit alternate that many times (both print JSON), then the medians per goal.
  rounds=${ROUNDS:-1}
  flags=${CAB_FLAGS:-}
  peer_flags=""
  if [ "$rounds" -gt 1 ]; then
    flags="$flags --json"
    peer_flags="--json"
  fi
  log=$out/rounds$n
  rm -rf "$log"
  mkdir -p "$log"
  for round in $(seq "$rounds"); do
    label="N=$n"
    [ "$rounds" -gt 1 ] && label="N=$n, round $round of $rounds"
    export=()
    [ "$round" = 1 ] && export=(--export-edges "$out/edges$n.bin")
    echo "== $label: cab bench route ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
    /usr/bin/time -f "(whole process: %e s wall, peak RSS %M KB)" \
      "$cab" bench route --map "$pbf" "${export[@]}" --pairs 3000 $flags --dijkstra-pairs 30 --http-requests 300 |
      tee "$log/cab-$round.out"
    echo "== $label: RoutingKit peer ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
    /usr/bin/time -f "(whole process: %e s wall, peak RSS %M KB)" \
      "$venv/bin/python" scripts/routingkit-peer.py "$out/edges$n.bin" 10000 $peer_flags | tee "$log/peer-$round.out"
  done
  if [ "$rounds" -gt 1 ]; then python3 scripts/bench-metro-summary.py "$log"; fi
done
