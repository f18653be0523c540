#!/usr/bin/env python3
"""SwiftCab's routes against OSRM's car profile on the same PBF (issue 19, item 2).

For each map: osrm-extract + osrm-contract with OSRM's own car.lua (PyPI `osrm-bindings`, in a virtual
environment of this script's own), then `cab bench turns --pairs-out` writes SwiftCab's routes between seeded
random junction pairs (junctions a private car reaches too: OSRM's car has no answer on a bus-and-taxi street),
and OSRM routes the same coordinates. Prints, per map, two lines:

  cab          the cab's route (the profile `cab serve` routes with, taxi and psv rights included): the share of
               pairs whose distances agree within 5 %, that share counting `taxi rights` as agreeing, and a class
               for every disagreement;
  private car  the same pairs routed by SwiftCab without a cab's rights, against OSRM's car: the same vehicle on
               both sides, the comparison of the two engines.

Classes:

  unroutable       one side finds no route (the other side's largest component differs)
  taxi rights      SwiftCab's route for a private car (no taxi=*/psv=* rights) agrees with OSRM's car
  snapping         OSRM put a point more than 15 m from where it was asked (a road SwiftCab routes, OSRM not)
  short pair       both routes under 600 m and less than 60 m apart (snapping offsets and turn costs dominate)
  cost model       OSRM can drive SwiftCab's route (routed through points along it, each held to its segment's
                   heading within 30 degrees and 10 m, the result within 3 % of its length)
                   but ranks its own faster: speeds, turn penalties, traffic signals differ, the roads do not
  road rules       OSRM cannot follow SwiftCab's route: SwiftCab drives something OSRM does not (access, oneway,
                   a turn restriction read differently); every such pair is listed for a closer look

It needs Python >= 3.12 for the osrm-bindings wheel (cp312-abi3, manylinux_2_28): $OSRM_PYTHON, python3.13,
python3.12 on PATH, or a pyenv version under ~/.pyenv. Nothing is written into the repository: the venv and
OSRM's files go under --work (default .build/osrm-peer; OSRM_VENV=DIR reuses a venv that has osrm-bindings);
the maps are linked there, not copied.

usage: scripts/osrm-peer.py [--cab .build/release/cab] [--pairs 1000] [--seed 19] [--work DIR] [--pairs-from DIR]
                            [--list] [MAP.osm.pbf ...]
"""

import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MAPS = [
    os.path.join(ROOT, "..", "shared", "data", name)
    for name in ("helsinki.osm.pbf", "baltimore.osm.pbf", "monaco.osm.pbf", "liechtenstein-latest.osm.pbf")
]


def version_of(python):
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
            capture_output=True, text=True, timeout=20, check=True).stdout.split()
        return int(out[0]), int(out[1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def find_python():
    candidates = [os.environ.get("OSRM_PYTHON"), sys.executable, shutil.which("python3.13"), shutil.which("python3.12")]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")), reverse=True)
    for python in candidates:
        if python and (version_of(python) or (0, 0)) >= (3, 12):
            return python
    sys.exit("osrm-peer: needs Python >= 3.12 for PyPI osrm-bindings (a cp312-abi3 manylinux_2_28 wheel); "
             "set OSRM_PYTHON=/path/to/python3.12 (none found on PATH or under ~/.pyenv/versions)")


def ensure_venv(work):
    venv = os.environ.get("OSRM_VENV") or os.path.join(work, "venv")
    python = os.path.join(venv, "bin", "python")
    usable = os.path.exists(python) and subprocess.run([python, "-c", "import osrm"], capture_output=True).returncode == 0
    if not usable:
        base = find_python()
        subprocess.run([base, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "osrm-bindings"], check=True)
    package = subprocess.run([python, "-c", "import osrm, os; print(os.path.dirname(osrm.__file__))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    return python, package


def prepare(pbf, work, package):
    name = os.path.basename(pbf).split(".")[0]
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    link = os.path.join(folder, name + ".osm.pbf")
    if not os.path.exists(link):
        os.symlink(os.path.abspath(pbf), link)
    base = os.path.join(folder, name + ".osrm")
    if not os.path.exists(base + ".hsgr"):
        profile = os.path.join(package, "share", "profiles", "car.lua")
        for step in (["osrm-extract", "-p", profile, link], ["osrm-contract", base]):
            with open(os.path.join(folder, step[0] + ".log"), "w") as log:
                subprocess.run([os.path.join(package, "bin", step[0])] + step[1:], stdout=log, stderr=log,
                               check=True, cwd=folder)
    return name, base


def decode_polyline(text, precision=5):
    points, index, lat, lon, factor = [], 0, 0, 0, 10 ** precision
    while index < len(text):
        for axis in range(2):
            shift, result = 0, 0
            while True:
                byte = ord(text[index]) - 63
                index += 1
                result |= (byte & 0x1F) << shift
                shift += 5
                if byte < 0x20:
                    break
            delta = ~(result >> 1) if result & 1 else result >> 1
            if axis == 0:
                lat += delta
            else:
                lon += delta
        points.append((lat / factor, lon / factor))
    return points


def heading(p, q):
    """The initial bearing from p to q (latitude, longitude) in whole degrees clockwise from north, 0...359."""
    la1, la2, dlo = math.radians(p[0]), math.radians(q[0]), math.radians(q[1] - p[1])
    y = math.sin(dlo) * math.cos(la2)
    x = math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(dlo)
    return int(round(math.degrees(math.atan2(y, x)))) % 360


def compare(osrm_base, pairs_file):
    """Runs inside the venv: OSRM routes for every pair, with the class of each disagreement."""
    import osrm

    engine = osrm.OSRM(storage_config=osrm_base, algorithm="CH", use_shared_memory=False)

    def route(coordinates, bearings=None):
        extra = {}
        if bearings:
            # Each via point only on a road heading its segment's way (within 30 degrees) and within 10 m: without,
            # a via point snapped onto a parallel carriageway or bus lane and OSRM looped to reach it.
            extra = {"bearings": [osrm.Bearing((b, 30)) if b is not None else None for b in bearings],
                     "radiuses": [10.0 if b is not None else None for b in bearings]}
        try:
            answer = engine.Route(osrm.RouteParameters(coordinates=coordinates, overview="false", **extra))
        except RuntimeError:
            return None
        if answer["code"] != "Ok":
            return None
        first = answer["routes"][0]
        snaps = [float(w["distance"]) for w in answer["waypoints"]]
        return float(first["distance"]), float(first["duration"]), snaps

    def classify(ours, polyline, theirs, car_m=None):
        """The class of SwiftCab's route (`ours` metres, `polyline`) against OSRM's answer `theirs`."""
        if ours is None or theirs is None:
            return "unroutable" if (ours is None) != (theirs is None) else "both unroutable", None
        osrm_m, _, snaps = theirs
        if abs(ours - osrm_m) <= 0.05 * max(osrm_m, 1):
            return "agree", None
        if car_m and abs(car_m - osrm_m) <= 0.05 * osrm_m:
            return "taxi rights", None
        if max(snaps) > 15:
            return "snapping", None
        if max(ours, osrm_m) < 600 and abs(ours - osrm_m) < 60:
            return "short pair", None
        # Through the middles of SwiftCab's segments (a via point on a junction could snap to any road there), up
        # to 60: with a dozen, a short stretch where the routes part (a 286 m stair-street in Monaco) often had no
        # point on it and OSRM drove its own way between the points.
        line_points = decode_polyline(polyline)
        middles = [((p[0] + q[0]) / 2, (p[1] + q[1]) / 2, heading(p, q))
                   for p, q in zip(line_points, line_points[1:]) if abs(p[0] - q[0]) + abs(p[1] - q[1]) > 2e-4]
        step = max(1, len(middles) // 60)
        sampled = [line_points[0] + (None,)] + middles[::step] + [line_points[-1] + (None,)]
        along = route([(p[1], p[0]) for p in sampled], bearings=[p[2] for p in sampled])
        if along and abs(along[0] - ours) <= 0.03 * ours:
            return "cost model", along
        return "road rules", along

    rows = []
    with open(pairs_file) as lines:
        for line in lines:
            pair = json.loads(line)
            a, b = pair["from"], pair["to"]
            ours = pair.get("distance_m")
            theirs = route([(a[1], a[0]), (b[1], b[0])])
            row = {"from": a, "to": b, "cab_m": ours, "cab_s": pair.get("duration_s"),
                   "car_m": pair.get("car_distance_m")}
            if theirs:
                row["osrm_m"], row["osrm_s"], snaps = theirs
                row["osrm_snap_m"] = max(snaps)
            row["class"], along = classify(ours, pair.get("polyline"), theirs, pair.get("car_distance_m"))
            if along:
                row["osrm_along_ours_m"], row["osrm_along_ours_s"] = along[0], along[1]
            # The private car (no taxi or psv rights) against OSRM's car: the same vehicle on both sides.
            row["car_class"], along = classify(pair.get("car_distance_m"), pair.get("car_polyline"), theirs)
            if along:
                row["osrm_along_car_m"] = along[0]
            rows.append(row)
    json.dump(rows, sys.stdout)


def tally(rows, key):
    """The rows both sides could route (by `key`'s class), how many of them agree, the count of each other class,
    and those counts as text, most first."""
    counted = [r for r in rows if r[key] != "both unroutable"]
    classes = {}
    for r in counted:
        if r[key] != "agree":
            classes[r[key]] = classes.get(r[key], 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(classes.items(), key=lambda kv: -kv[1])) or "none"
    return counted, len(counted) - sum(classes.values()), classes, summary


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--inside":
        compare(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("maps", nargs="*", default=DEFAULT_MAPS)
    parser.add_argument("--cab", default=os.path.join(ROOT, ".build", "release", "cab"))
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--work", default=os.path.join(ROOT, ".build", "osrm-peer"))
    parser.add_argument("--list", action="store_true", help="list every road-rules disagreement")
    parser.add_argument("--pairs-from", metavar="DIR",
                        help="route the pairs of DIR/NAME/pairs.jsonl (another run's --work) instead of drawing them")
    args = parser.parse_args()
    if not os.access(args.cab, os.X_OK):
        sys.exit(f"osrm-peer: no cab binary at {args.cab}; build it: swift build -c release --product cab")
    os.makedirs(args.work, exist_ok=True)
    python, package = ensure_venv(args.work)
    load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
    print(f"osrm-peer: OSRM car.lua from {package}, {args.pairs} pairs per map, seed {args.seed}, load {load}")
    failed = False
    for pbf in args.maps:
        name, base = prepare(pbf, args.work, package)
        pairs_file = os.path.join(args.work, name, "pairs.jsonl")
        given = ["--pairs-from", os.path.join(args.pairs_from, name, "pairs.jsonl")] if args.pairs_from else []
        bench = subprocess.run([args.cab, "bench", "turns", "--map", pbf, "--pairs", str(args.pairs), "--seed",
                                str(args.seed), "--pairs-out", pairs_file] + given, capture_output=True, text=True)
        if bench.returncode != 0:
            sys.exit(f"osrm-peer: cab bench turns failed on {pbf} (exit {bench.returncode}):\n{bench.stderr}")
        print(bench.stdout.rstrip())
        out = subprocess.run([python, os.path.abspath(__file__), "--inside", base, pairs_file],
                             capture_output=True, text=True, check=True).stdout
        rows = json.loads(out)
        with open(os.path.join(args.work, name, "comparison.json"), "w") as saved:
            json.dump(rows, saved, indent=1)
        counted, agree, classes, summary = tally(rows, "class")
        share = 100.0 * agree / max(1, len(counted))
        with_rights = 100.0 * (agree + classes.get("taxi rights", 0)) / max(1, len(counted))
        verdict = "ok" if with_rights >= 95 else "BELOW 95 %"
        print(f"{name}: cab {agree}/{len(counted)} pairs within 5 % = {share:.1f} %, {with_rights:.1f} % counting "
              f"taxi rights ({verdict}); disagreements: {summary}")
        failed |= with_rights < 95
        cars, car_agree, _, car_summary = tally(rows, "car_class")
        car_share = 100.0 * car_agree / max(1, len(cars))
        print(f"{name}: private car {car_agree}/{len(cars)} = {car_share:.1f} % "
              f"({'ok' if car_share >= 95 else 'BELOW 95 %'}); disagreements: {car_summary}")
        failed |= car_share < 95
        for r in counted:
            if r["class"] == "road rules" and (args.list or classes["road rules"] <= 10):
                print(f"  road rules: {r['from']} -> {r['to']}: cab {r['cab_m']:.0f} m, OSRM {r['osrm_m']:.0f} m, "
                      f"OSRM along ours {r.get('osrm_along_ours_m') or float('nan'):.0f} m")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
