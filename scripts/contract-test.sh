#!/usr/bin/env bash
# The contract test (issue 15): schemathesis (PyPI, in .build/schemathesis-venv) against a live `cab serve` on the
# Monaco extract, generating requests from the served /openapi.json: no 5xx, every status, content type and body
# as documented, schema-violating requests refused. Runs as anonymous, a rider, a driver and a dispatcher.
# `positive_data_acceptance` is left out: points far from a road are refused (422) though any lat/lon is
# schema-valid. Sign-out (`DELETE /v1/me`) is left out: it would revoke the role's token mid-run. Bounded:
# CONTRACT_EXAMPLES examples per operation (default 15), 300 s per role at most (a loaded machine took over 150 s for the driver role, whose streams stay open).
set -euo pipefail
cd "$(dirname "$0")/.."
examples="${CONTRACT_EXAMPLES:-5}"
venv=.build/schemathesis-venv
if [ ! -x "$venv/bin/schemathesis" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'schemathesis>=4,<5'
fi
data=.build/contract-data
map=../shared/data/monaco.osm.pbf
# Imported again whenever the binary is newer than the import (as `make import` does): an import from an older
# build may hold an index format this build refuses.
if [ ! -f "$data/map.json" ] || [ .build/debug/cab -nt "$data/map.json" ]; then
    rm -rf "$data"
    .build/debug/cab import "$map" --data "$data" --quiet
fi
rm -f "$data"/cab.sqlite*
log=.build/contract-serve.log
.build/debug/cab serve --data "$data" --port 0 --public Public >.build/contract-serve.out 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening .build/contract-serve.out 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^listening on //p' .build/contract-serve.out)
[ -n "$base" ] || { echo "contract-test: cab serve did not start; see $log" >&2; exit 1; }
account() {  # POST a new account, print its token
    python3 - "$base/v1/$1" "$2" <<'PY'
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(request, timeout=10))["token"])
PY
}
rider=$(account riders '{"name":"Contract Rider"}')
driver=$(account drivers '{"name":"Contract Driver","vehicle":"car","plate":"C-1"}')
dispatcher=$(.build/debug/cab admin create-dispatcher --data "$data" "Contract Desk" 2>/dev/null)
status=0
for role in anonymous rider driver dispatcher; do
    auth=()
    case $role in
        rider) auth=(-H "Authorization: Bearer $rider") ;;
        driver) auth=(-H "Authorization: Bearer $driver") ;;
        dispatcher) auth=(-H "Authorization: Bearer $dispatcher") ;;
    esac
    out=.build/contract-$role.log
    set +e
    timeout 300 "$venv/bin/schemathesis" run "$base/openapi.json" "${auth[@]}" --max-examples "$examples" \
        --exclude-name "DELETE /v1/me" --checks all --exclude-checks positive_data_acceptance --seed 15 --no-color >"$out" 2>&1
    code=$?
    set -e
    # No summary when the run was cut off (timeout's exit 124): said, not a silent exit of this script.
    summary=$(grep -E 'generated' "$out" | tail -1 | sed 's/^ *//' || true)
    if [ $code -ne 0 ]; then
        echo "contract ($role): FAILED (exit $code): $summary; see $out"
        status=1
    else
        echo "contract ($role): $summary"
    fi
done
exit $status
