#!/usr/bin/env bash
# Points SwiftPM at the bare package mirrors in ../shared/vendor, on machines that have them (they cannot reach
# GitHub). Elsewhere it does nothing and SwiftPM fetches from GitHub as usual. Safe to run again.
#
# The mirrors are read-only and lack the empty `refs/` folder git needs to call them repositories, so each is
# copied once into .build/vendor-mirrors (gitignored) and SwiftPM clones from the copy. The mirror list lives in
# .swiftpm/configuration/mirrors.json, also gitignored.
set -euo pipefail
cd "$(dirname "$0")/.."
# Where the mirrors are: $CAB_VENDOR_DIR, else a `shared/vendor` beside this checkout or one level up (a clean CI
# checkout may sit one folder deeper), else this project's machines' fixed place.
vendor=""
for candidate in ${CAB_VENDOR_DIR:+"$CAB_VENDOR_DIR"} ../shared/vendor ../../shared/vendor /work/shared/vendor; do
  if [[ -d $candidate ]]; then vendor=$(cd "$candidate" && pwd); break; fi
done
[[ -n $vendor ]] || exit 0
copies=$PWD/.build/vendor-mirrors
mkdir -p "$copies"
declare -A upstream=(
  [swift-argument-parser]=https://github.com/apple/swift-argument-parser.git
  [swift-log]=https://github.com/apple/swift-log.git
  [swift-metrics]=https://github.com/apple/swift-metrics.git
  [swift-prometheus]=https://github.com/swift-server/swift-prometheus.git
  [swift-atomics]=https://github.com/apple/swift-atomics.git
)
for name in "${!upstream[@]}"; do
  [[ -d $vendor/$name.git ]] || continue
  copy=$copies/$name.git
  if [[ ! -d $copy ]]; then
    cp -r "$vendor/$name.git" "$copy.tmp"
    chmod -R u+w "$copy.tmp"
    mkdir -p "$copy.tmp/refs/heads" "$copy.tmp/refs/tags"
    mv "$copy.tmp" "$copy"
  fi
  current=$(swift package config get-mirror --original "${upstream[$name]}" 2>/dev/null || true)
  if [[ $current != "file://$copy" ]]; then
    swift package config set-mirror --original "${upstream[$name]}" --mirror "file://$copy"
  fi
done
