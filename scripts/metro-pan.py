#!/usr/bin/env python3
"""The rider's map panned across a whole metro in headless Chromium (issue 19, item 5): figures, never asserted.

Starts `cab serve` on an imported data directory, opens the rider's page in headless Chromium at 1280 x 800, zooms in to --zoom, then drags the map as a person does, one
screen at a time, west to the edge of the map, then east across it to the other edge, on --rows bands from north to
south. It prints the main thread's longest tasks (PerformanceObserver `longtask`), the gaps between animation frames,
how long the map took to settle after each drag (idle, with every tile drawn), and the tiles fetched with their sizes.

usage: scripts/metro-pan.py --data DIR [--cab .build/release/cab] [--zoom 14] [--rows 3]

A metro to pan: python3 ../shared/tools/synth_city.py 330 city330.osm; osmium cat city330.osm -o city330.osm.pbf;
cab import city330.osm.pbf --data DIR. Needs selenium (the venv scripts/test-browser.sh makes: .build/venv/bin/python),
chromium and chromedriver (scripts/install-deps.sh --test).
"""

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def serve(cab, data):
    process = subprocess.Popen([cab, 'serve', '--data', data, '--host', '127.0.0.1', '--port', '0'],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    line = process.stdout.readline()
    match = re.match(r'listening on (http://\S+)', line)
    if not match:
        process.terminate()
        sys.exit(f'metro-pan: cab serve did not start: {line!r}')
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return process, match.group(1).rstrip('/')


def wait(what, check, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.02)
    sys.exit(f'metro-pan: timed out waiting for {what}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data', required=True)
    parser.add_argument('--cab', default=os.path.join(ROOT, '.build', 'release', 'cab'))
    parser.add_argument('--zoom', type=int, default=14)
    parser.add_argument('--rows', type=int, default=3)
    args = parser.parse_args()
    process, base = serve(args.cab, args.data)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
    for arg in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,800',
                '--lang=en-GB'):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which('chromedriver') or '/usr/bin/chromedriver'),
                              options=options)
    try:
        driver.set_script_timeout(60)
        driver.get(base + '/')
        data = lambda key: driver.execute_script(f"return document.getElementById('map').dataset.{key}")
        idle = lambda: data('basemapIdle') == 'true'
        wait('the base map', lambda: int(data('basemapFeatures') or 0) > 0 and idle())
        start_zoom = int(data('basemapZoom'))
        button = '.leaflet-control-zoom-in' if args.zoom > start_zoom else '.leaflet-control-zoom-out'
        step = 1 if args.zoom > start_zoom else -1
        for zoom in range(start_zoom + step, args.zoom + step, step):
            driver.find_element(By.CSS_SELECTOR, button).click()
            wait(f'zoom {zoom}', lambda: data('basemapZoom') == str(zoom) and idle())
        wait(f'zoom {args.zoom}', lambda: data('basemapZoom') == str(args.zoom) and idle())
        with open(os.path.join(ROOT, 'Tests', 'browser', 'pan-watch.js')) as source:
            driver.execute_script(source.read())
        # The map's visible middle, clear of the panels over it: drags go from one side of it to the other.
        left, right, top, bottom = driver.execute_script("""
            const m = document.getElementById('map'), r = m.getBoundingClientRect();
            const free = (x, y) => { const h = document.elementFromPoint(x, y);
                                     return h && m.contains(h) && !h.closest('.leaflet-control'); };
            const y = Math.round(r.top + r.height / 2), x = Math.round(r.left + r.width / 2);
            const xs = [], ys = [];
            for (let i = Math.max(0, r.left); i < Math.min(r.right, innerWidth); i += 10) if (free(i, y)) xs.push(i);
            for (let j = Math.max(0, r.top); j < Math.min(r.bottom, innerHeight); j += 10) if (free(x, j)) ys.push(j);
            return [xs[0] + 60, xs[xs.length - 1] - 60, ys[0] + 60, ys[ys.length - 1] - 60];""")
        middle_x, middle_y = (left + right) // 2, (top + bottom) // 2
        settle = []

        def drag(dx, dy):
            """Drags the map by (dx, dy) pixels in eight moves, then waits until every tile is drawn."""
            x0, y0 = middle_x - dx // 2, middle_y - dy // 2
            actions = ActionChains(driver)
            pointer = actions.w3c_actions.pointer_action
            pointer.move_to_location(x0, y0)
            pointer.pointer_down()
            for i in range(1, 9):
                pointer.move_to_location(x0 + dx * i // 8, y0 + dy * i // 8)
            pointer.pointer_up()
            actions.perform()  # the gesture itself takes about 2 s (eight moves of WebDriver's default 250 ms)
            began = time.monotonic()
            wait('the map to follow the drag', idle)
            settle.append(time.monotonic() - began)

        # The map's extent (GET /v1/map) in pixels at this zoom (2^zoom * 256 px around the world; Mercator
        # stretches north-south by 1/cos(latitude)); each drag moves the view by one free width or height.
        bounds = driver.execute_script("return await (await fetch('/v1/map')).json()")['bounds']
        width, height = right - left, bottom - top
        world = 256 * 2 ** args.zoom
        span_px = (bounds['east'] - bounds['west']) / 360 * world
        latitude = math.radians((bounds['north'] + bounds['south']) / 2)
        tall_px = (bounds['north'] - bounds['south']) / 360 * world / math.cos(latitude)
        across = max(1, round(span_px / width))
        down = max(1, round(tall_px / height / max(1, args.rows)))
        for _ in range(down * (args.rows // 2)):
            drag(0, height)  # north first (the map moves down)
        for _ in range((across + 1) // 2):
            drag(width, 0)  # to the west edge (the map moves right)
        for row in range(args.rows):
            for _ in range(across):
                drag(-width if row % 2 == 0 else width, 0)
            if row + 1 < args.rows:
                for _ in range(down):
                    drag(0, -height)  # south
        watch = driver.execute_script('window.panWatch.on = false; return window.panWatch')
        tiles = driver.execute_script("""return performance.getEntriesByType('resource')
            .filter((e) => e.name.includes('/v1/map/tiles/'))
            .map((e) => ({ transfer: e.transferSize, decoded: e.decodedBodySize, ms: e.duration }))""")
    finally:
        driver.quit()
        process.terminate()
    gaps = sorted(watch['frameGaps'])
    tasks = sorted(watch['longTasks'])
    pct = lambda values, p: values[min(len(values) - 1, int(p * len(values)))] if values else float('nan')
    print(f'metro-pan: {len(settle)} drags of {width} x {height} px at zoom {args.zoom} ({across} across, '
          f'{args.rows} rows), {len(tiles)} tiles fetched')
    print(f'  longest tasks (ms): {tasks[-5:][::-1]} of {len(tasks)} over 50 ms')
    print(f'  frame gaps (ms): p50 {pct(gaps, 0.5):.0f}, p99 {pct(gaps, 0.99):.0f}, longest {gaps[-1]:.0f} '
          f'over {len(gaps)} frames')
    print(f'  from the end of a drag until every tile is drawn (s): p50 {pct(sorted(settle), 0.5):.2f}, '
          f'longest {max(settle):.2f}')
    if tiles:
        sizes = sorted(t['decoded'] for t in tiles)
        times = sorted(t['ms'] for t in tiles)
        print(f'  tiles: decoded p50 {pct(sizes, 0.5) / 1000:.1f} KB, max {sizes[-1] / 1000:.1f} KB; on the wire '
              f'{sum(t["transfer"] for t in tiles) / 1e6:.1f} MB in all; fetch p50 {pct(times, 0.5):.1f} ms, '
              f'p99 {pct(times, 0.99):.1f} ms')


if __name__ == '__main__':
    main()
