#!/usr/bin/env bash
# Three `cab serve` nodes on one PostgreSQL and one Redis (Redis started here on a Unix socket, no persistence), then
# `cab simulate --url A,B,C` spreading N drivers over them at one fix per 20 s, with a dispatcher's fleet stream
# on every node timed (issue 17's figures).
# usage: scripts/cluster-simulate.sh N SECONDS, with PGHOST_DIR (default /tmp/pgb) the socket folder of a running
# PostgreSQL whose `postgres` role may create databases, and DATA (default /tmp/monaco) an imported data directory;
# CONNECTIONS=N uploads over N keep-alive connections per node instead of one URLSession request each;
# NODE_CONFIG=FILE is every node's configuration file (`cab serve --config`); LEAN=1 runs `cab simulate --lean`
# (THREADS posting threads per node, default 4) instead: drivers as a few numbers each, for 100,000 and more.
set -euo pipefail
cd "$(dirname "$0")/.."
CAB=${CAB:-.build/release/cab}
N=${1:-10000}
DUR=${2:-60}
PGHOST_DIR=${PGHOST_DIR:-/tmp/pgb}
DATA=${DATA:-/tmp/monaco}
B=$(ls -d /usr/lib/postgresql/*/bin)
rm -rf /tmp/rs && mkdir -p /tmp/rs
redis-server --port 0 --unixsocket /tmp/rs/redis.sock --save "" --appendonly no --daemonize yes --pidfile /tmp/rs/redis.pid --logfile /tmp/rs/redis.log
sleep 0.5
db=sim_$RANDOM
runuser -u postgres -- $B/createdb -h $PGHOST_DIR -U postgres $db
PG="host=$PGHOST_DIR user=postgres dbname=$db"
pids=()
for i in 1 2 3; do
  rm -rf /tmp/node$i && mkdir /tmp/node$i && cp "$DATA"/{map.json,roads.graph,roads.ch,places.sqlite,basemap.sqlite} /tmp/node$i/
  $CAB serve --data /tmp/node$i --port 1909$i --postgres "$PG" --redis unix:///tmp/rs/redis.sock --node-id node-$i --max-per-address 0 ${NODE_CONFIG:+--config $NODE_CONFIG} > /tmp/node$i.out 2> /tmp/node$i.log &
  pids+=($!)
done
sleep 4
# A dispatcher's fleet stream on every node times each fix from the phone to the map (the stream delay).
desk=$($CAB admin create-dispatcher --postgres "$PG" "Simulation desk")
redis-cli -s /tmp/rs/redis.sock info memory | grep used_memory_human
$CAB simulate --data "$DATA" --url http://127.0.0.1:19091,http://127.0.0.1:19092,http://127.0.0.1:19093 --drivers "$N" --rate 20 --duration "$DUR" --dispatcher-token "$desk" ${LEAN:+--lean --threads ${THREADS:-4}} ${CONNECTIONS:+--connections $CONNECTIONS} | grep -v "^driver "
redis-cli -s /tmp/rs/redis.sock info memory | grep used_memory_human
redis-cli -s /tmp/rs/redis.sock info cpu | grep used_cpu
kill ${pids[@]}; wait || true
kill $(cat /tmp/rs/redis.pid) || true
