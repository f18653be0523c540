#!/usr/bin/env bash
# SwiftCab's routes against OSRM's car profile on the shared extracts (issue 19, item 2): builds the release `cab`
# when missing, then runs scripts/osrm-peer.py (which makes its own venv with a Python >= 3.12 and PyPI
# osrm-bindings under .build/osrm-peer). Not part of `make test`: it needs PyPI once and prints figures.
#
# usage: [OSRM_PYTHON=python3.12] [OSRM_VENV=DIR] scripts/osrm-peer.sh [--pairs N] [--seed N] [--pairs-from DIR] [--list] [MAP ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cab=${CAB:-.build/release/cab}
[ -x "$cab" ] || { scripts/vendor-mirrors.sh; swift build -c release --product cab; }
echo "osrm-peer.sh: $(date -u +%H:%M:%S) UTC, $(uptime)"
exec python3 scripts/osrm-peer.py --cab "$cab" "$@"
