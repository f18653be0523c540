#!/usr/bin/env bash
# Installs the Debian packages SwiftCab needs, only those missing. Safe to run again.
set -euo pipefail
packages=(
  libmicrohttpd-dev libsqlite3-dev zlib1g-dev libqrencode-dev libssl-dev libpq-dev libhiredis-dev pkg-config
  libjs-leaflet
)
if [[ ${1:-} == --test ]]; then
  packages+=(zbar-tools osmium-tool wrk redis-server postgresql chromium chromium-driver python3-venv)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
