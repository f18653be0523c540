#!/usr/bin/env bash
# Issue 18's chaos run (docs/dispatch-ownership.md): three `cab serve` nodes on one PostgreSQL and one Redis, both
# started here on Unix sockets in a temporary folder; `cab simulate --chaos` plays TRIPS dispatches with DRIVERS
# drivers who accept, decline and ignore offers on any node, while this script SIGKILLs a node every ~20 s (and
# starts it again), SIGSTOPs another for 20 s every ~45 s, restarts Redis once and PostgreSQL once, and runs the
# third node with its wall clock 30 s ahead (CAB_CLOCK_SKEW_MS). At the end `cab check-dispatch` reads the database: the
# invariants, then how late the timeouts fired and how long takeovers took, against the faults in faults.tsv.
#
# usage: scripts/chaos-run.sh [TRIPS] [DRIVERS]   (defaults 10000 and 60)
#   DATA=DIR      an imported data directory (default data/cab, what `make run` imports)
#   CAB=PATH      the binary (default .build/release/cab; `make release` builds it)
#   RIDERS=N      riders booking at once (default 24)
#   CALM=S        seconds of load without faults first, for the steady booking-to-first-offer figure (default 30)
#   SKEW_SECONDS=S how far node 3's clock runs ahead (default 30; 0: every node on the true clock)
#   PG_OPTIONS=".." PostgreSQL server settings (default "-c deadlock_timeout=100ms": what cab expects, so that a
#                 deadlock left holds its writes 100 ms, not the default 1 s; docs/dispatch-ownership.md, "PostgreSQL
#                 settings")
# Exit status: check-dispatch's (0 when every invariant holds).
set -euo pipefail
cd "$(dirname "$0")/.."
CAB=${CAB:-.build/release/cab}
TRIPS=${1:-10000}
DRIVERS=${2:-60}
RIDERS=${RIDERS:-24}
DATA=${DATA:-data/cab}
CALM=${CALM:-30}
DISPATCH_SECONDS=30
PG_OPTIONS=${PG_OPTIONS--c deadlock_timeout=100ms}
[ -x "$CAB" ] || { echo "chaos-run: no $CAB (run: make release, or set CAB=)" >&2; exit 64; }
[ -f "$DATA/roads.graph" ] || { echo "chaos-run: $DATA holds no imported map (run: make run once, or set DATA=)" >&2; exit 64; }
command -v redis-server >/dev/null || { echo "chaos-run: needs redis-server (scripts/install-deps.sh --test)" >&2; exit 69; }
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PGBIN/initdb" ] || { echo "chaos-run: needs PostgreSQL's server (scripts/install-deps.sh --test)" >&2; exit 69; }
# The skewed clock: node 3's wall clock runs SKEW_SECONDS ahead (`CAB_CLOCK_SKEW_MS`, read where the application
# reads the wall clock: `Instant.now()`), as on a machine whose clock is set wrong; its monotonic clock and timers
# stay true. (libfaketime, used before, moved CLOCK_MONOTONIC too, and with FAKETIME_DONT_FAKE_MONOTONIC it still
# shifted the absolute timerfd deadlines libdispatch arms, so the node's timers fired at once in a loop: 57 % of
# a core, which slowed every process on a 2-core machine.)
SKEW_SECONDS=${SKEW_SECONDS:-30}
SKEW=(env "CAB_CLOCK_SKEW_MS=$((SKEW_SECONDS * 1000))")
sig() { kill "-$1" $(pgrep -P "$2" 2>/dev/null) "$2" 2>/dev/null; }

W=$(mktemp -d /tmp/cab-chaos.XXXXXX)
chmod 755 "$W"
log() { echo "[$(date +%T)] $*" | tee -a "$W/faults.log"; }
# Each fault as `kind node start_ms end_ms` for `cab check-dispatch --faults` (timers' lateness, takeovers).
ms() { date +%s%3N; }
fault() { printf '%s\t%s\t%s\t%s\n' "$@" >> "$W/faults.tsv"; }
: > "$W/faults.tsv"
# PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir "$W/pg" && { [ "$(id -u)" != 0 ] || chown postgres "$W/pg"; }
as_pg "$PGBIN/initdb" -D "$W/pg/data" -A trust -U cab >/dev/null
start_pg() { as_pg "$PGBIN/pg_ctl" -D "$W/pg/data" -w -l "$W/pg/log" -o "-k $W/pg -c listen_addresses='' -c max_connections=200 ${PG_OPTIONS:-}" start >/dev/null; }
start_pg
PG="host=$W/pg user=cab dbname=postgres"
start_redis() { redis-server --port 0 --unixsocket "$W/redis.sock" --save "" --appendonly no --daemonize yes \
  --pidfile "$W/redis.pid" --logfile "$W/redis.log"; }
start_redis
echo '{"dispatch": {"offer_seconds": 5, "batch_size": 2}, "trip": {"dispatch_seconds": '$DISPATCH_SECONDS'}}' > "$W/cab.json"
declare -a PIDS
start_node() {
  local i=$1 clock=()
  [ "$i" = 3 ] && clock=("${SKEW[@]}")
  ${clock[@]+"${clock[@]}"} "$CAB" serve --data "$W/node$i" --port "1929$i" --postgres "$PG" --redis "unix://$W/redis.sock" \
    --node-id "node-$i" --max-per-address 0 --config "$W/cab.json" >> "$W/node$i.log" 2>&1 &
  PIDS[$i]=$!
}
for i in 1 2 3; do
  mkdir "$W/node$i" && cp "$DATA"/{map.json,roads.graph,roads.ch,places.sqlite,basemap.sqlite} "$W/node$i/" 2>/dev/null || true
  start_node "$i"
done
cleanup() {
  for i in 1 2 3; do sig CONT "${PIDS[$i]}" || true; sig TERM "${PIDS[$i]}" || true; done
  wait 2>/dev/null || true
  [ -f "$W/redis.pid" ] && kill "$(cat "$W/redis.pid")" 2>/dev/null || true
  as_pg "$PGBIN/pg_ctl" -D "$W/pg/data" -m fast stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
for i in 1 2 3; do
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:1929$i/healthz" >/dev/null && break; sleep 0.2; done
done
# The shards spread over the three nodes (21, 21 and 22) before the load starts: a cold start hands shards from
# the first node to the others, and the calm period's first offers would time that hand-over, not dispatch.
for _ in $(seq 150); do
  spread=$(for i in 1 2 3; do curl -sf "http://127.0.0.1:1929$i/healthz" | python3 -c \
    'import json,sys; print(len(json.load(sys.stdin)["dispatch"]["shards"]))' 2>/dev/null || echo 0; done | sort -n | tr '\n' ' ')
  [ "$spread" = "21 21 22 " ] && break
  sleep 0.2
done
log "three nodes up, shards ${spread:-unknown} (node 3 ${SKEW[*]:-on the true clock}); $TRIPS trips, $DRIVERS drivers, $RIDERS riders; files in $W"

"$CAB" simulate --chaos --url http://127.0.0.1:19291,http://127.0.0.1:19292,http://127.0.0.1:19293 --data "$DATA" \
  --trips "$TRIPS" --drivers "$DRIVERS" --riders "$RIDERS" --dispatch-seconds "$DISPATCH_SECONDS" --calm-seconds "$CALM" > "$W/chaos.out" 2>&1 &
LOAD=$!
t=0; kills=0; pauses=0; stops=0; redis_restarted=0; pg_restarted=0
while kill -0 "$LOAD" 2>/dev/null; do
  sleep 1; t=$((t + 1))
  # A node that exited by itself (started while PostgreSQL was restarting) is started again.
  for i in 1 2 3; do
    if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then wait "${PIDS[$i]}" 2>/dev/null || true; start_node "$i"; log "node-$i had exited: started again"; fi
  done
  # Each node's own booking-to-first-offer histogram at the end of the calm (the server's part of the figure).
  if [ "$t" = "$CALM" ]; then
    for i in 1 2 3; do
      curl -sf "http://127.0.0.1:1929$i/metrics" | grep '^dispatch_first_offer' | sed "s/^/node-$i /" || true
    done > "$W/first-offer-calm.txt"
    grep -H 'slow first offer' "$W"/node?.log > "$W/slow-first-offers-calm.txt" 2>/dev/null || true
  fi
  [ "$t" -le "$CALM" ] && continue
  f=$((t - CALM))
  if [ $((f % 20)) = 0 ]; then
    i=$(( (f / 20) % 3 + 1 ))
    if kill -0 "${PIDS[$i]}" 2>/dev/null; then
      killed=$(ms); sig CONT "${PIDS[$i]}" || true; sig 9 "${PIDS[$i]}" || true; wait "${PIDS[$i]}" 2>/dev/null || true
      fault kill "node-$i" "$killed" "$killed"
      kills=$((kills + 1)); log "SIGKILL node-$i"
      (sleep 3; true) && start_node "$i" && log "node-$i started again"
    fi
  fi
  if [ $((f % 45)) = 10 ]; then
    i=$(( (f / 45 + 1) % 3 + 1 ))
    paused=$(ms)
    sig STOP "${PIDS[$i]}" && { pauses=$((pauses + 1)); log "SIGSTOP node-$i for 20 s"; }
    ( sleep 20; sig CONT "${PIDS[$i]}" && echo "[$(date +%T)] SIGCONT node-$i" >> "$W/faults.log"
      fault pause "node-$i" "$paused" "$(ms)" ) &
  fi
  # A deploy: every 120 s (from 90 s in) a node not paused is stopped with SIGTERM, which hands its shards over
  # (rule 10 in docs/dispatch-ownership.md), and started again 3 s later.
  if [ $((f % 120)) = 90 ]; then
    i=$(( (f / 120) % 3 + 1 ))
    if kill -0 "${PIDS[$i]}" 2>/dev/null && [ "$(ps -o stat= -p "${PIDS[$i]}" | cut -c1)" != T ]; then
      stopping=$(ms); sig TERM "${PIDS[$i]}" || true; wait "${PIDS[$i]}" 2>/dev/null || true; stopped=$(ms)
      fault stop "node-$i" "$stopping" "$stopped"
      stops=$((stops + 1)); log "SIGTERM node-$i (stopped in $((stopped - stopping)) ms)"
      (sleep 3; true) && start_node "$i" && log "node-$i started again"
    fi
  fi
  if [ "$f" = 60 ] && [ "$redis_restarted" = 0 ]; then
    away=$(ms); kill "$(cat "$W/redis.pid")"; sleep 2; start_redis; redis_restarted=1; log "Redis restarted (2 s away)"
    fault redis - "$away" "$(ms)"
  fi
  if [ "$f" = 120 ] && [ "$pg_restarted" = 0 ]; then
    away=$(ms); as_pg "$PGBIN/pg_ctl" -D "$W/pg/data" -m fast -w stop >/dev/null; sleep 2; start_pg; pg_restarted=1
    fault postgres - "$away" "$(ms)"; log "PostgreSQL restarted (about 3 s away)"
  fi
done
wait "$LOAD" && load_status=0 || load_status=$?
for i in 1 2 3; do sig CONT "${PIDS[$i]}" || true; done
sleep 15  # the last deadlines come due and are swept
echo "--- the load ($t s; $kills kills, $pauses pauses, $stops stops, Redis restarted $redis_restarted, PostgreSQL restarted $pg_restarted)"
cat "$W/chaos.out"
if [ -s "$W/first-offer-calm.txt" ]; then
  echo "--- the nodes' booking-to-first-offer histograms after the calm $CALM s (from a booking's creation to its offers going out; then each step on the node that took it)"
  python3 scripts/first-offer-histograms.py "$W/first-offer-calm.txt"
  echo "--- first offers over 100 ms in the calm, with the steps the dispatching node timed (its log)"
  head -40 "$W/slow-first-offers-calm.txt"
fi
echo "--- cab check-dispatch"
"$CAB" check-dispatch --postgres "$PG" --faults "$W/faults.tsv" --dispatch-seconds "$DISPATCH_SECONDS" && status=0 || status=$?
[ "$load_status" = 0 ] || { echo "chaos-run: the load exited $load_status" >&2; status=1; }
exit "$status"
