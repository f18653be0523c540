#!/usr/bin/env python3
"""Counts, for every tile of one zoom over a base map, the features its bbox holds (GET /v1/map/features, limit
20,000, paths left out below zoom 16) and the features the tile sends (GET /v1/map/tiles): how many tiles hit the
budget, how many features they leave out, and the length of lines (km, the part inside each tile) sent and left
out. Usage: scripts/map-tile-budget.py BASE_URL BASEMAP_SQLITE ZOOM (a running `cab serve` and its data
directory's basemap.sqlite). Figures in docs/performance.md, "The web map as tiles"."""
import json, math, sqlite3, sys, urllib.request

base, db, zoom = sys.argv[1], sys.argv[2], int(sys.argv[3])
w, s, e, n = sqlite3.connect(db).execute(
    'SELECT min(min_lon), min(min_lat), max(max_lon), max(max_lat) FROM feature_box').fetchone()
def tx(lon): return int((lon + 180) / 360 * 2 ** zoom)
def ty(lat):
    r = math.radians(lat)
    return int((1 - math.log(math.tan(r) + 1 / math.cos(r)) / math.pi) / 2 * 2 ** zoom)
def lon(x): return x / 2 ** zoom * 360 - 180
def lat(y): return math.degrees(math.atan(math.sinh(math.pi - 2 * math.pi * y / 2 ** zoom)))
def get(path):
    with urllib.request.urlopen(base + path, timeout=60) as r: return json.load(r)
paths = {'footway', 'path', 'steps', 'cycleway', 'bridleway'}
def lines(g):
    c = g['coordinates']
    return {'LineString': [c], 'MultiLineString': c}.get(g['type'], [])
def clipped_km(line, w, s, e, n):
    """Length (km) of the line's part inside the box (Liang-Barsky per segment)."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(line, line[1:]):
        dx, dy, t0, t1, ok = x1 - x0, y1 - y0, 0.0, 1.0, True
        for p, q in ((-dx, x0 - w), (dx, e - x0), (-dy, y0 - s), (dy, n - y0)):
            if p == 0:
                if q < 0: ok = False
                continue
            r = q / p
            if p < 0: t0 = max(t0, r)
            else: t1 = min(t1, r)
        if ok and t0 < t1:
            kx = 111.32 * math.cos(math.radians(y0))
            total += (t1 - t0) * math.hypot(dx * kx, dy * 110.57)
    return total
tiles = truncated = left = sent = 0
km_sent = km_left = 0.0
for y in range(ty(n), ty(s) + 1):
    for x in range(tx(w), tx(e) + 1):
        tile = get(f'/v1/map/tiles/{zoom}/{x}/{y}.geojson')
        box = f'{lon(x)},{lat(y + 1)},{lon(x + 1)},{lat(y)}'
        every = get(f'/v1/map/features?bbox={box}&zoom={zoom}&limit=20000')['features']
        if zoom < 16: every = [f for f in every if not (f['properties']['kind'] == 'road' and f['properties']['class'] in paths)]
        ids = {f['id'] for f in tile['features']}
        tiles += 1
        truncated += tile['truncated']
        sent += len(ids)
        left += sum(1 for f in every if f['id'] not in ids)
        tw, ts, te, tn = lon(x), lat(y + 1), lon(x + 1), lat(y)
        for f in every:
            km = sum(clipped_km(l, tw, ts, te, tn) for l in lines(f['geometry']))
            if f['id'] in ids: km_sent += km
            else: km_left += km
print(json.dumps({'zoom': zoom, 'tiles': tiles, 'truncated': truncated, 'features_sent': sent,
                  'features_left_out': left, 'line_km_in_tiles_sent': round(km_sent, 1),
                  'line_km_in_tiles_left_out': round(km_left, 1)}))
