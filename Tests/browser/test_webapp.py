#!/usr/bin/env python3
"""The web app in a real headless Chromium against a real `cab serve` (issues 8 and 13).

Imports the Helsinki extract into a temporary data directory, starts `cab serve --port 0`, and drives the rider,
driver, dispatcher and tracking pages with Selenium (Debian's chromium and chromium-driver). Every test fails when
the browser logged a JavaScript error. Screenshots go to .build/screenshots/. Prints `N passed, N failed` last and
exits non-zero on any failure. When a test fails, the API endpoints it needs that the server does not route yet
are listed ("waiting for").

Issue 13 plays the whole journey as people live it: a rider, a driver and a friend with the shared link on phones
(390×844), a dispatcher on a desktop, checking what each person sees (elements in the viewport, their text, the QR
code decoded from a screenshot with zbarimg, the car inside the rider's map, the receipt's fare against the driven
trail). `cab serve` runs from a directory outside the repository, so it must find the web app by itself. Checks that
need the server rules of issue 13 (journey-server) run only when the server has them, and say so when skipped.

Environment: CAB_TEST_BASE_URL (use a running server instead of starting one), CAB_BINARY (default .build/debug/cab), CAB_TEST_MAP (default ../shared/data/helsinki.osm.pbf),
CAB_PUBLIC (serve another copy of the web app, e.g. an older one to see which checks it fails).
"""
import math
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CAB = os.environ.get('CAB_BINARY') or os.path.join(ROOT, '.build', 'debug', 'cab')
MAP = os.environ.get('CAB_TEST_MAP') or os.path.join(ROOT, '..', 'shared', 'data', 'helsinki.osm.pbf')
SHOTS = os.path.join(ROOT, '.build', 'screenshots')
TIMEOUT = float(os.environ.get('BROWSER_TEST_TIMEOUT', '30'))
# Installs window.panWatch in a page: long tasks and the gaps between animation frames while it pans (shared with
# scripts/metro-pan.py).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pan-watch.js')) as _source:
    PAN_WATCH = _source.read()

# Points in the Helsinki extract: the rider near the railway station, a driver a few blocks away.
RIDER_AT = (60.1699, 24.9410)
DRIVER_AT = (60.1675, 24.9445)
# A driver further south, out of the rider's view of the booked route at first: the rider's map must follow the car.
DRIVER_FAR = (60.1652, 24.9446)


class Server:
    """`cab import` into a temporary directory, then `cab serve --port 0` on it."""

    def __init__(self, map_path=None):
        self.map = map_path or MAP
        self.data = tempfile.mkdtemp(prefix='swiftcab-browser-')
        self.process = None
        self.base = None
        self.log_lines = []
        self.startup_lines = []  # the first lines of the server's log (where it serves the web app from)
        self.driver_tokens = []  # drivers who went online in the current test
        self.skipped = []  # checks of the current test left out because the server lacks issue 13's rules

    def start(self):
        if os.environ.get('CAB_TEST_BASE_URL'):  # an already running server (for working on the pages)
            self.base = os.environ['CAB_TEST_BASE_URL'].rstrip('/')
            return
        imported = subprocess.run([CAB, 'import', self.map, '--data', self.data], capture_output=True, text=True,
                                  timeout=600)
        if imported.returncode != 0:
            raise RuntimeError(f'cab import failed ({imported.returncode}): {imported.stderr.strip()[-600:]}')
        # Started outside the repository (issue 13, defect 10): the server finds Public/ by itself.
        self.process = subprocess.Popen([CAB, 'serve', '--data', self.data, '--host', '127.0.0.1', '--port', '0'],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=self.data)
        first = []
        reader = threading.Thread(target=lambda: first.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(60)
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()
        match = re.match(r'listening on (http://\S+)', first[0] if first else '')
        if not match:
            self.stop()
            raise RuntimeError(f'cab serve did not print "listening on http://H:PORT" (got {first!r}); '
                               f'stderr: {" ".join(self.log_lines[-5:])}')
        self.base = match.group(1).rstrip('/')
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()

    def _drain(self, stream):
        for line in stream:
            if len(self.startup_lines) < 20:
                self.startup_lines.append(line.rstrip())
            self.log_lines.append(line.rstrip())
            del self.log_lines[:-200]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.data, ignore_errors=True)

    def call(self, method, path, body=None, token=None, headers=None):
        """One API call: (status, parsed JSON or text)."""
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header('Accept', 'application/json')
        if body is not None:
            request.add_header('Content-Type', 'application/json')
        if token:
            request.add_header('Authorization', f'Bearer {token}')
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw or b'null')
        except ValueError:
            return status, raw.decode(errors='replace')

    def routes(self, method, path):
        """False when the server has no route for `method path` (404 "No resource/file at", or 405)."""
        status, answer = self.call(method, path, body={} if method == 'POST' else None)
        detail = answer.get('detail', '') if isinstance(answer, dict) else ''
        return not (status == 405 or (status == 404 and re.match(r'No (resource|file) at', detail)))

    def create_dispatcher(self, name='Browser test dispatch'):
        result = subprocess.run([CAB, 'admin', 'create-dispatcher', '--data', self.data, name], capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(f'cab admin create-dispatcher failed: {result.stderr.strip()}')
        return result.stdout.strip()


class Browser:
    """A headless Chromium with its own profile, a phone-sized or desktop window, and an optional fake location."""

    def __init__(self, server, width=412, height=860, location=None):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
        for arg in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                    f'--window-size={width},{height}', '--lang=en-GB'):
            options.add_argument(arg)
        options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
        service = Service(shutil.which('chromedriver') or '/usr/bin/chromedriver')
        self.driver = webdriver.Chrome(service=service, options=options)
        if width < 500:  # headless Chromium's windows are at least 500 px wide: emulate a phone's viewport instead
            self.driver.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {
                'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': True})
        self.server = server
        self.errors = []
        setting = 'granted' if location else 'denied'
        self.driver.execute_cdp_cmd('Browser.setPermission', {
            'permission': {'name': 'geolocation'}, 'setting': setting, 'origin': server.base})
        if location:
            self.locate(*location)

    def locate(self, lat, lon):
        self.driver.execute_cdp_cmd('Emulation.setGeolocationOverride',
                                    {'latitude': lat, 'longitude': lon, 'accuracy': 5})

    def open(self, path):
        self.driver.get(self.server.base + path)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, what, condition, timeout=TIMEOUT):
        """Polls `condition()` until it is truthy; fails naming `what` and the page's error text."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Exception as error:  # the element may not exist yet
                last = error
            time.sleep(0.2)
        page_error = self.js("const e = document.getElementById('error'); return e && !e.hidden ? e.textContent : ''")
        raise AssertionError(f'timed out waiting for {what}' + (f'; the page says: {page_error}' if page_error else '')
                             + (f' ({type(last).__name__}: {last})' if last and not page_error else ''))

    def visible(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return !!e && !e.hidden && e.offsetParent !== null",
                       css)

    def data(self, css, key):
        return self.js('const e = document.querySelector(arguments[0]); return e ? e.dataset[arguments[1]] : null',
                       css, key)

    def in_viewport(self, css):
        """True when the element is shown, wholly inside the window, and not covered at its centre: a person sees it."""
        return self.js("""
            const e = document.querySelector(arguments[0]);
            if (!e || e.hidden || e.offsetParent === null) return false;
            const r = e.getBoundingClientRect();
            if (r.width === 0 || r.height === 0) return false;
            if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) return false;
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return !!hit && (hit === e || e.contains(hit) || hit.contains(e));""", css)

    def inside_map(self, css):
        """True when the centre of the element (a marker) lies inside the map's box on screen."""
        return self.js("""
            const e = document.querySelector(arguments[0]);
            const m = document.getElementById('map').getBoundingClientRect();
            if (!e) return false;
            const r = e.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            return x >= m.left && x <= m.right && y >= m.top && y <= m.bottom;""", css)

    def text(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : ''", css)

    def element_png(self, css, name):
        """A screenshot of one element, saved under .build/screenshots; returns the path."""
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, f'{name}.png')
        with open(path, 'wb') as out:
            out.write(self.find(css).screenshot_as_png)
        return path

    def tap(self, css):
        """Scrolls the element into view as a person would, then clicks it."""
        element = self.find(css)
        self.js("arguments[0].scrollIntoView({block: 'nearest'})", element)
        element.click()

    def tap_map(self, dx, dy):
        """Clicks the map `dx`, `dy` pixels from its centre."""
        ActionChains(self.driver).move_to_element_with_offset(self.find('#map'), dx, dy).click().perform()

    def screenshot(self, name):
        """Saves the page once its base map has drawn the current view (or after a short wait if it never does)."""
        try:
            self.wait('the map to settle', lambda: self.data('#map', 'basemapIdle') != 'false', timeout=5)
        except AssertionError:
            pass  # a screenshot of a half-drawn map still helps
        os.makedirs(SHOTS, exist_ok=True)
        self.driver.save_screenshot(os.path.join(SHOTS, f'{name}.png'))

    def collect_console_errors(self):
        for entry in self.driver.get_log('browser'):
            # HTTP error answers are logged by Chromium as network entries; the pages show them in words and the
            # flows fail on them. JavaScript errors (exceptions, console.error) are what must never appear.
            if entry.get('level') == 'SEVERE' and entry.get('source') != 'network':
                self.errors.append(entry.get('message', ''))
        return self.errors

    def quit(self):
        try:
            self.collect_console_errors()
        finally:
            self.driver.quit()


# ---------------------------------------------------------------------------------------------------------------
# Flows shared by the tests

def wait_map_drawn(page):
    page.wait('the base map to draw features', lambda: int(page.data('#map', 'basemapFeatures') or 0) > 0)


def rider_books_by_search(server, rider, before_booking=None):
    rider.open('/')
    wait_map_drawn(rider)
    rider.wait('the pickup address', lambda: rider.find('#pickup-name').get_attribute('value') not in ('', None)
               and 'Looking' not in rider.find('#pickup-name').get_attribute('value'))
    search = rider.find('#search')
    search.send_keys('Fabianinkatu')
    rider.wait('search results', lambda: rider.driver.find_elements(By.CSS_SELECTOR, '#search-results li'))
    search.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    return book_and_check(rider, before_booking)


def book_and_check(rider, before_booking=None):
    rider.wait('the estimate', lambda: rider.visible('#estimate') and 'km' in rider.find('#distance').text)
    assert 'min' in rider.find('#duration').text, rider.find('#duration').text
    assert rider.find('#fare').text.strip(), 'no fare shown'
    assert rider.js("return document.querySelectorAll('#map .leaflet-overlay-pane path').length") > 0, 'no route'
    if before_booking:
        before_booking()
    rider.find('#book').click()
    rider.wait('the booking', lambda: rider.visible('#booking') and rider.find('#booking-id').text.strip())
    rider.wait('the QR code image', lambda: rider.js("const i = document.getElementById('qr'); "
                                                     "return i.complete && i.naturalWidth > 0"))
    assert re.fullmatch(r'\d{4}', rider.find('#pin').text.strip()), f'PIN {rider.find("#pin").text!r}'
    return rider.data('#booking', 'bookingId')


def driver_signs_up_and_goes_online(driver_page, report_interval_s=1):
    driver_page.open(f'/driver?report_interval_s={report_interval_s}')
    wait_map_drawn(driver_page)
    driver_page.find('#driver-name').send_keys('Test Driver')
    driver_page.find('#vehicle').send_keys('Toyota Prius, white')
    driver_page.find('#plate').send_keys('ABC-123')
    driver_page.find('#signup button[type=submit]').click()
    driver_page.wait('the driver console', lambda: driver_page.visible('#console'))
    driver_page.find('#online').click()
    driver_page.wait('going online', lambda: driver_page.data('#online-state', 'state') == 'online')
    assert driver_page.find('#online').text == 'Go offline', f'online, yet the button says {driver_page.find("#online").text!r}'
    account = driver_page.js("return JSON.parse(localStorage.getItem('cab.driver'))")
    driver_page.server.driver_tokens.append(account['token'])
    # Dispatch offers only to drivers with a position: a booking made before the first upload waits a whole batch.
    driver_page.wait('the server to know where the driver is', lambda: driver_page.server.call(
        'GET', f'/v1/drivers/{account["id"]}/location', token=account['token'])[0] == 200)
    return account['token']


def driver_accepts_offer(driver_page, booking_id):
    driver_page.wait('the trip offer', lambda: driver_page.data('#offer', 'tripId') == booking_id
                     and driver_page.visible('#offer'), timeout=TIMEOUT * 2)
    assert int(driver_page.find('#offer-countdown').text) >= 0
    driver_page.find('#accept').click()
    driver_page.wait('the accepted trip', lambda: driver_page.data('#trip', 'tripId') == booking_id)


def accepted_trip(server, open_browser):
    """A rider's booking accepted by a driver, each in a browser of their own."""
    rider = open_browser(location=RIDER_AT)
    driver_page = open_browser(location=DRIVER_AT)
    driver_signs_up_and_goes_online(driver_page)
    driver_accepts_offer(driver_page, rider_books_by_search(server, rider))
    return rider, driver_page


def drive_towards(server, token, start, end, steps=8, pause=1.2):
    """Reports positions from `start` to `end` as the driver's phone would."""
    for i in range(1, steps + 1):
        t = i / steps
        lat, lon = start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t
        now = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
        status, answer = server.call('POST', '/v1/driver/locations', token=token, body={'fixes': [
            {'lat': lat, 'lon': lon, 'time': now, 'accuracy': 5, 'speed': 8, 'heading': 0, 'seq': 1000 + i}]})
        assert status in (200, 202, 429), f'location upload: {status} {answer}'
        time.sleep(pause)


PHONE = {'width': 390, 'height': 844}


class Checks:
    """What a person should see, checked without stopping at the first miss, so one run lists every defect; the
    test fails at the end (or at once where the flow cannot go on)."""

    def __init__(self):
        self.missed = []

    def that(self, condition, message):
        if not condition:
            self.missed.append(message)
        return bool(condition)

    def wait(self, page, what, condition, timeout=10):
        try:
            page.wait(what, condition, timeout=timeout)
            return True
        except AssertionError as error:
            self.missed.append(str(error))
            return False

    def done(self):
        if self.missed:
            raise AssertionError(f'{len(self.missed)} checks failed:\n    ' + '\n    '.join(self.missed))


def has_journey_rules(server):
    """True when the server has issue 13's rules and endpoints (journey-server's part): nearby cars stand for them."""
    if not hasattr(server, 'journey_rules'):
        server.journey_rules = server.routes('GET', '/v1/cars/nearby?lat=60.17&lon=24.94')
    return server.journey_rules


def skipped(server, what):
    server.skipped.append(what)


def decode_qr(path):
    """The text of the QR code in a PNG, read by zbarimg (zbar-tools) as a phone's camera would."""
    result = subprocess.run(['zbarimg', '--raw', '-q', path], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, f'zbarimg found no QR code in {path}: {result.stderr.strip()}'
    return result.stdout.strip()


def meters(a, b):
    """Great-circle distance between two (lat, lon) points, as the server measures a trail."""
    r = 6371008.8
    la1, la2 = math.radians(a[0]), math.radians(b[0])
    dla, dlo = la2 - la1, math.radians(b[1] - a[1])
    h = math.sin(dla / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(dlo / 2) ** 2
    return 2 * r * math.asin(math.sqrt(min(1.0, h)))


def steps_between(start, end, step_m):
    """Points from `start` (excluded) to `end` (included) at most `step_m` apart, on the straight line."""
    n = max(1, math.ceil(meters(start, end) / step_m))
    return [(start[0] + (end[0] - start[0]) * i / n, start[1] + (end[1] - start[1]) * i / n) for i in range(1, n + 1)]


def drive_page(page, points, pause, during=None):
    """Moves the driver page's phone along `points` through its location (the page uploads them itself)."""
    for point in points:
        page.locate(*point)
        time.sleep(pause)
        if during:
            during()


# ---------------------------------------------------------------------------------------------------------------
# Tests: (name, needed endpoints, function(server, browsers))

PAGES = [('rider', '/'), ('driver', '/driver'), ('dispatch', '/dispatch'), ('track-dead-link', '/t/no-such-token')]


def test_every_page_loads_and_draws_the_offline_map(server, open_browser):
    page = open_browser(width=1280, height=800)
    for name, path in PAGES:
        page.open(path)
        wait_map_drawn(page)
        if path.startswith('/t/'):
            page.wait('the dead tracking link message', lambda: page.visible('#ended'))
        page.screenshot(f'page-{name}')
    assert page.js("return document.querySelectorAll('#map canvas').length") > 0, 'no canvas drawn'
    page.open('/')
    wait_map_drawn(page)
    # The main streets are named at the zooms people use (14-15), and no label is cut at the map's edge.
    page.wait('main street names at zoom 15', lambda: page.data('#map', 'basemapZoom') == '15' and page.js(
        "return document.querySelectorAll('.street-label span').length") >= 3)
    clipped = page.js("""
        const m = document.getElementById('map').getBoundingClientRect();
        return [...document.querySelectorAll('.street-label span')].filter((s) => {
            const r = s.getBoundingClientRect();
            return r.left < m.left || r.top < m.top || r.right > m.right || r.bottom > m.bottom;
        }).map((s) => s.textContent);""")
    assert not clipped, f'street names cut at the edge of the map: {clipped}'
    page.screenshot('rider-street-names-zoom-15')
    for zoom in (16, 17):  # from 15 to where every street is named
        page.find('.leaflet-control-zoom-in').click()
        page.wait(f'the map drawn at zoom {zoom}', lambda: page.data('#map', 'basemapZoom') == str(zoom))
    page.wait('street names at close zoom',
              lambda: page.js("return document.querySelectorAll('.street-label span').length") >= 5)
    page.screenshot('rider-street-names')


# While panning, no main-thread task may take longer than this (ms), and no gap between two painted frames may be
# longer than the next figure: a person sees a pause of a few tenths of a second as a stutter. On this project's
# 2-core box with a debug server the test measured a longest task of 143 ms and a longest frame gap of 183 ms at a
# load average of 2.6; at a load average of 5.6 (other builds) 1,169 ms. So the bounds are checked only while the
# machine's load average is under its core count; above it the figures are printed and the check is skipped.
PAN_LONGEST_TASK_MS = 300
PAN_LONGEST_FRAME_GAP_MS = 400


def test_panning_fetches_tiles_once_and_stays_fluid(server, open_browser):
    """Issue 19: the rider's map fetches the base map as tiles the browser caches, and stays fluid while panning."""
    page = open_browser(width=1280, height=800)
    page.open('/')
    wait_map_drawn(page)
    page.find('.leaflet-control-zoom-in').click()  # zoom 16: the extract is about two screens tall
    page.wait('the map drawn at zoom 16', lambda: page.data('#map', 'basemapZoom') == '16'
              and page.data('#map', 'basemapIdle') == 'true')
    page.js(PAN_WATCH)  # every tile request kept, long tasks and the gaps between frames recorded
    tiles = lambda: page.js("""return performance.getEntriesByType('resource')
        .filter((e) => e.name.includes('/v1/map/tiles/'))
        .map((e) => ({ url: e.name.split('/v1/map/tiles/')[1], transfer: e.transferSize, body: e.encodedBodySize,
                       decoded: e.decodedBodySize }))""")
    first_view = tiles()
    assert first_view, 'the map fetched no /v1/map/tiles/ tiles'
    # Chromium accepts gzip, and the server sends tiles gzipped (GeoJSON shrinks about five times).
    fullest = max(first_view, key=lambda t: t['decoded'])
    assert fullest['decoded'] > 3 * fullest['body'] > 0, f'the tiles are not gzipped: {fullest}'
    assert all(re.fullmatch(r'16/\d+/\d+\.geojson', t['url']) for t in first_view if t['url'].startswith('16/')), \
        first_view[:3]

    # Where a drag moves the map: the middle column of the map's visible part, clear of panels over it.
    x, y_top, y_bottom = page.js("""
        const m = document.getElementById('map'), r = m.getBoundingClientRect();
        const x = Math.round(r.left + r.width / 2), ys = [];
        for (let y = Math.max(0, r.top); y < Math.min(r.bottom, innerHeight); y += 10) {
            const hit = document.elementFromPoint(x, y);
            if (hit && m.contains(hit) && !hit.closest('.leaflet-control')) ys.push(y);
        }
        return [x, ys[0] + 40, ys[ys.length - 1] - 40];""")
    assert y_bottom - y_top > 200, f'too little of the map to drag: {y_top}..{y_bottom}'

    def pan(south, steps):
        """Drags the map as a person does, `steps` times; south moves the view south (the map up)."""
        y0, y1 = (y_bottom, y_top) if south else (y_top, y_bottom)
        for _ in range(steps):
            actions = ActionChains(page.driver)
            pointer = actions.w3c_actions.pointer_action
            pointer.move_to_location(x, y0)
            pointer.pointer_down()
            for i in range(1, 9):
                pointer.move_to_location(x, round(y0 + (y1 - y0) * i / 8))
            pointer.pointer_up()
            actions.perform()
            page.wait('the map to follow the pan', lambda: page.data('#map', 'basemapIdle') == 'true')

    pan(True, 3)  # south across the extract
    south = tiles()
    assert len(south) > len(first_view), f'panning south fetched no new tiles ({len(first_view)} before)'
    pan(False, 3)  # and back north, over tiles seen before
    back = tiles()
    seen = {t['url'] for t in south}
    refetched = [t for t in back[len(south):] if t['url'] in seen and t['transfer'] > 0]
    assert not refetched, f'tiles downloaded again on the way back: {[t["url"] for t in refetched][:5]}'
    watch = page.js('window.panWatch.on = false; return window.panWatch')  # checked last, after the cache
    # A new visit (the in-page cache gone): the same view comes from the browser's HTTP cache, not the network.
    page.open('/')
    wait_map_drawn(page)
    page.find('.leaflet-control-zoom-in').click()
    page.wait('the map drawn at zoom 16 again', lambda: page.data('#map', 'basemapZoom') == '16'
              and page.data('#map', 'basemapIdle') == 'true')
    again = [t for t in tiles() if t['url'].startswith('16/')]
    assert again, 'the second visit fetched no tiles'
    downloaded = [t['url'] for t in again if t['url'] in seen and t['transfer'] > 0]
    assert not downloaded, f'the second visit downloaded cached tiles again: {downloaded[:5]}'

    # Once max-age is over the browser revalidates (forced here with cache: 'no-cache'): the server answers 304 and
    # the page gets the stored tile whole (resource timing: headers only on the wire, the body from the cache).
    path = '/v1/map/tiles/' + max(again, key=lambda t: t['body'])['url']  # the fullest tile of the view
    revalidated = page.js("""
        const path = arguments[0];
        const answer = await fetch(path, { cache: 'no-cache' });
        const features = (await answer.json()).features.length;
        const entry = performance.getEntriesByName(new URL(path, location.href).href).pop();
        return { status: answer.status, features, transfer: entry.transferSize, body: entry.encodedBodySize };""",
                          path)
    stored = server.call('GET', path)[1]
    assert revalidated['status'] == 200 and revalidated['features'] == len(stored['features']), revalidated
    assert 0 < revalidated['transfer'] < revalidated['body'], f'not a 304 revalidation: {revalidated}'

    # The same with a plain HTTP client: the current ETag answers 304 with no body.
    url = server.base + path
    with urllib.request.urlopen(url, timeout=10) as response:
        etag, cache = response.headers['ETag'], response.headers['Cache-Control']
    assert etag and 'max-age' in cache and 'public' in cache, (etag, cache)
    request = urllib.request.Request(url, headers={'If-None-Match': etag})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError('a current ETag did not answer 304')
    except urllib.error.HTTPError as error:
        assert error.code == 304 and error.read() == b'', error.code

    longest_task = max(watch['longTasks'], default=0)
    longest_gap = max(watch['frameGaps'][1:], default=0)
    print(f'     panned over {len(seen)} tiles; long tasks {sorted(watch["longTasks"])[-5:]} ms, '
          f'longest frame gap {longest_gap:.0f} ms')
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if load >= cores and (longest_task > PAN_LONGEST_TASK_MS or longest_gap > PAN_LONGEST_FRAME_GAP_MS):
        print(f'     fluidity not checked: load average {load:.1f} on {cores} cores (other work starves the browser)')
        return
    assert longest_task <= PAN_LONGEST_TASK_MS, f'a main-thread task took {longest_task} ms while panning'
    assert longest_gap <= PAN_LONGEST_FRAME_GAP_MS, f'no frame was painted for {longest_gap:.0f} ms while panning'


def test_another_city_opens_on_its_own_map(server, open_browser):
    """Issue 19: a server on another extract (Monaco) opens the rider's map on that city, not on the built-in view of
    central Helsinki, where it would draw nothing (location denied: nothing else moves the map)."""
    if os.environ.get('CAB_TEST_BASE_URL'):
        return skipped(server, 'an outside server: its map is the one it was started with')
    monaco = Server(os.path.join(ROOT, '..', 'shared', 'data', 'monaco.osm.pbf'))
    monaco.start()
    page = None
    try:
        status, where = monaco.call('GET', '/v1/map')
        assert status == 200, f'GET /v1/map: {status} {where}'
        bounds = where['bounds']
        assert 43.7 < bounds['south'] < bounds['north'] < 43.8 and 7.3 < bounds['west'] < bounds['east'] < 7.5, bounds
        page = Browser(monaco, width=1280, height=800)
        page.open('/')
        wait_map_drawn(page)
        fetched = page.js("""return performance.getEntriesByType('resource')
            .filter((e) => e.name.includes('/v1/map/tiles/')).map((e) => e.name.split('/v1/map/tiles/')[1])""")
        lon = lambda x, z: x / 2 ** z * 360 - 180
        inside = [t for t in fetched
                  if (lambda z, x: bounds['west'] - 0.05 < lon(x, z) < bounds['east'] + 0.05)(
                      *map(int, t.split('.')[0].split('/')[:2]))]
        assert inside, f'the map fetched no tile of Monaco: {fetched[:5]}'
        errors = page.collect_console_errors()
        assert not errors, f'JavaScript errors: {errors[:3]}'
    finally:
        if page:
            page.quit()
        monaco.stop()


def test_rider_books_by_search_and_sees_route_fare_and_qr(server, open_browser):
    rider = open_browser(location=RIDER_AT, width=390, height=844)  # a phone
    rider_books_by_search(server, rider, before_booking=lambda: rider.screenshot('rider-phone-estimate'))
    for css in ('#status', '#pin', '#cancel'):  # the panel scrolls: what matters can be reached
        assert rider.visible(css), f'{css} is not shown after booking'
    rider.screenshot('rider-booked-by-search')


def test_rider_with_location_denied_books_by_tapping_the_map(server, open_browser):
    rider = open_browser(location=None)
    rider.open('/')
    wait_map_drawn(rider)
    rider.wait('the location-denied message', lambda: rider.visible('#location-message')
               and 'Tap the map' in rider.find('#location-message').text)
    rider.tap_map(-40, 60)
    rider.wait('the tapped pickup', lambda: rider.find('#pickup-name').get_attribute('value')
               and 'Looking' not in rider.find('#pickup-name').get_attribute('value'))
    rider.tap_map(60, -80)
    rider.wait('the reverse-geocoded destination', lambda: rider.find('#search').get_attribute('value')
               and 'Looking' not in rider.find('#search').get_attribute('value'))
    book_and_check(rider)
    rider.screenshot('rider-booked-by-map-tap')


def test_page_modules_upload_every_fix_and_follow_the_road(server, open_browser):
    """The page modules the journey relies on, run in the browser: Complete's flush sends every queued fix and the
    current position even while an upload is under way (defect 1); a car glides along the road around a corner."""
    page = open_browser(width=1024, height=700)
    page.open('/')
    result = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const { LocationReporter } = await import('/js/location-reporter.js');
          const memory = new Map();
          const storage = { getItem: (k) => memory.get(k) ?? null, setItem: (k, v) => memory.set(k, v) };
          const sent = [];
          let t = 60000;
          const reporter = new LocationReporter({ storage, now: () => t, minIntervalS: 20,
            send: async (fixes) => { await new Promise((ok) => setTimeout(ok, 30)); sent.push(...fixes); return {}; } });
          const at = (i, extra = 0) => ({ lat: 60.17 + i * 0.0003 + extra, lon: 24.94, accuracy: 5, time: 1000 * i });
          const first = reporter.offer(at(0));  // the first fix goes at once; its upload is still under way below
          t = 61000; reporter.offer(at(1));
          t = 62000; const third = reporter.offer(at(2));  // within 20 s of the upload: queued
          await reporter.flushAll({ ...at(2, 0.00005), time: 2500 });  // the current position, 5.6 m on: kept
          const stillThere = sent.length;
          await reporter.flushAll({ ...at(2, 0.00005), time: 9000 });  // standing still, later: a fresh fix goes
          const again = sent.length - stillThere;
          await reporter.flushAll({ ...at(2, 0.00005), time: 9000 });  // the same fix twice: once
          const twice = sent.length - stillThere;
          const { RoadPath } = await import('/js/car-marker.js');
          const road = new RoadPath([[60.17, 24.94], [60.171, 24.94], [60.171, 24.942]]);  // north, then east
          const a = road.project([60.1705, 24.94]);  // on the first leg
          const b = road.project([60.171, 24.941]);  // on the second leg
          const middle = road.at((a.along + b.along) / 2).point;
          done({ first, third, sent: sent.slice(0, 4).map((f) => f.lat), left: reporter.queue.length, again, twice, stillThere,
                 aOff: a.off, aAlong: a.along, middle });
        })().catch((error) => done({ error: String(error) }));""")
    assert 'error' not in result, result
    assert result['first'] == 'uploading' and result['third'] == 'queued', result
    assert result['stillThere'] == 4 and result['left'] == 0, f'flushAll left fixes behind: {result}'
    assert abs(result['sent'][-1] - (60.17 + 2 * 0.0003 + 0.00005)) < 1e-7, f'the current position was not sent: {result}'
    assert result['again'] == 1 and result['twice'] == 1, f'a driver standing still sends no fresh fix: {result}'
    assert result['aOff'] < 0.5 and abs(result['aAlong'] - 55.3) < 1, result
    corner = (60.171, 24.94)
    assert meters(tuple(result['middle']), corner) < 15, \
        f'half way round the corner the car is {meters(tuple(result["middle"]), corner):.0f} m from it: {result}'


def test_whole_journey_on_phones(server, open_browser):
    """Issue 13: book, watch the car come, share, start with the QR code, ride, pay, rate; nothing stale or hidden."""
    rules = has_journey_rules(server)
    check = Checks()
    driver_page = open_browser(location=DRIVER_FAR, **PHONE)
    # Uploads at most every 3 s, as a phone saving battery would: Complete must send what is still queued (defect 1).
    driver_signs_up_and_goes_online(driver_page, report_interval_s=3)
    check.wait(driver_page, 'the driver map centred on the car', lambda: driver_page.inside_map('.car-icon'))

    rider = open_browser(location=RIDER_AT, **PHONE)
    rider.open('/')
    wait_map_drawn(rider)
    rider.wait('the pickup address', lambda: rider.find('#pickup-name').get_attribute('value') not in ('', None)
               and 'Looking' not in rider.find('#pickup-name').get_attribute('value'))
    if rules:  # the nearest cars and the nearest one's ETA before booking
        check.wait(rider, 'nearby cars', lambda: rider.visible('#nearby-cars')
                   and rider.data('#nearby-cars', 'cars') not in (None, '0'))
        check.that(rider.data('#nearby-cars', 'nearestEtaS'), f'no ETA of the nearest car: {rider.text("#nearby-cars")!r}')
        check.that('min' in rider.text('#nearby-cars'), f'nearby cars without minutes: {rider.text("#nearby-cars")!r}')
        check.wait(rider, 'a car drawn on the map', lambda: rider.inside_map('.nearby-car'))
    else:
        skipped(server, 'nearby cars before booking (GET /v1/cars/nearby)')

    # A tap outside the area the server has data for says so, not raw coordinates (defect 13).
    for zoom in ('15', '14'):  # one step at a time: a click during the zoom animation is lost
        rider.find('.leaflet-control-zoom-out').click()
        rider.wait(f'the map at zoom {zoom}', lambda: rider.data('#map', 'basemapZoom') == zoom)
    rider.tap_map(-185, 0)
    check.wait(rider, 'the outside-the-area message', lambda: rider.in_viewport('#place-message'))
    check.that('Outside the area we serve' in rider.text('#place-message'),
               f'the tap outside says {rider.text("#place-message")!r}')
    value = rider.find('#search').get_attribute('value') or ''
    check.that(not re.search(r'\d+\.\d{3,}', value), f'raw coordinates in the destination: {value!r}')

    # A search with no results says so where the rider looks (defect 13).
    search = rider.find('#search')
    search.send_keys('Qxzzyqv')
    check.wait(rider, 'the no-results message', lambda: rider.in_viewport('#search-empty'))
    check.that('No places match' in rider.text('#search-empty'), f'no results, yet: {rider.text("#search-empty")!r}')
    search.clear()
    search.send_keys('Fabianinkatu')
    rider.wait('search results', lambda: rider.driver.find_elements(By.CSS_SELECTOR, '#search-results li'))
    check.that(not rider.visible('#search-empty'), 'the no-results message stayed beside results')
    search.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    booking_id = book_and_check(rider)
    rider_token = rider.js("return JSON.parse(localStorage.getItem('cab.rider')).token")
    _, booking = server.call('GET', f'/v1/bookings/{booking_id}', token=rider_token)
    # What matters first is on screen at once: the status and the share action (defect 12); the destination and
    # the price stay visible after booking.
    for css in ('#status', '#share'):
        check.that(rider.in_viewport(css), f'{css} is not in view after booking')
    check.that(rider.text('#booked-dropoff'), 'the destination is not shown after booking')
    check.that('EUR' in rider.text('#booked-fare'),
               f'the price is not shown after booking: {rider.text("#booked-fare")!r}')
    check.that(not rider.visible('#driver'), f'a driver is shown before one accepted: {rider.text("#driver")!r}')
    # The QR code as a camera sees it equals what the booking carries: the booking id with the rider's secret
    # after it (issue 15: the id alone, which the driver has, does not start the trip).
    rider.driver.execute_script("document.getElementById('qr').scrollIntoView({block: 'center'})")
    payload = decode_qr(rider.element_png('#qr', 'journey-rider-qr'))
    secret = (payload or '')[len(booking['id']) + 1:]
    check.that((payload or '').startswith(booking['id'] + '.') and re.fullmatch(r'[0-9a-f]{20}', secret),
               f'the QR code reads {payload!r}, not the booking {booking["id"]!r} with a secret')

    # The driver sees the offer with its pickup in view on the map (defect 14), accepts.
    driver_page.wait('the trip offer', lambda: driver_page.data('#offer', 'tripId') == booking_id
                     and driver_page.visible('#offer'), timeout=TIMEOUT * 2)
    # (short waits: the offer lasts 10 s)
    check.wait(driver_page, 'the offer in view', lambda: driver_page.in_viewport('#accept'), timeout=3)
    check.wait(driver_page, "the offer's pickup on the driver's map",
               lambda: driver_page.inside_map('.pin-icon.pickup'), timeout=3)
    driver_page.screenshot('journey-driver-offer')
    driver_page.tap('#accept')
    driver_page.wait('the accepted trip', lambda: driver_page.data('#trip', 'tripId') == booking_id)
    check.wait(driver_page, 'the route to the pickup',
               lambda: 'Route to the pickup' in driver_page.text('#trip-route'))
    if rules:  # a driver with an open trip cannot silently go offline: the reason shows beside the button
        driver_page.tap('#online')
        check.wait(driver_page, 'the refusal to go offline', lambda: driver_page.in_viewport('#error'))
        check.that(driver_page.data('#online-state', 'state') == 'online', 'the driver went offline with an open trip')
        check.that(driver_page.js("return document.getElementById('error').previousElementSibling"
                                  ".contains(document.getElementById('online'))"), 'the error is not beside Go offline')
        check.that('trip_open' not in driver_page.text('#error'), f'a code, not words: {driver_page.text("#error")!r}')
    else:
        skipped(server, 'going offline with an open trip refused (409 trip_open)')
    if rules:  # "I have arrived" 500 m away is refused with how far the driver is, beside the button (defect 5)
        driver_page.tap('#arrived')
        check.wait(driver_page, 'the refusal to arrive from afar', lambda: driver_page.in_viewport('#error')
                   and driver_page.js("return document.getElementById('error').previousElementSibling"
                                      ".contains(document.getElementById('arrived'))"))
        check.that(re.search(r'\d+ m', driver_page.text('#error')), f'how far? {driver_page.text("#error")!r}')
        check.that(driver_page.data('#trip-status', 'status') == 'accepted', 'arrived from 500 m away')
    else:
        skipped(server, '"I have arrived" far from the pickup refused (409 too_far_from_pickup)')

    rider.wait('the rider to hear of the driver', lambda: rider.data('#status', 'status') in ('accepted', 'arriving'))
    check.wait(rider, "the driver's name", lambda: 'Test Driver' in rider.text('#driver'))
    rider.tap('#share')
    rider.wait('the tracking link', lambda: '/t/' in (rider.find('#share-link').get_attribute('value') or ''))
    check.that(rider.in_viewport('#share-link'), 'the tracking link is out of view')
    check.that('link' in rider.text('#notice'), f'no word about the link: {rider.text("#notice")!r}')
    link = rider.find('#share-link').get_attribute('value')
    friend = open_browser(**PHONE)
    friend.open(link[link.index('/t/'):])
    friend.wait('the shared trip', lambda: friend.visible('#trip') and friend.data('#status', 'status'))

    # The approach: the car stays inside the rider's map, moves smoothly and faces where it goes (defect 6).
    pickup = (booking['pickup']['lat'], booking['pickup']['lon'])
    shown, outside, etas, alerts = set(), [], [], set()

    def watch():
        if rider.visible('#alert'):
            alerts.add(rider.text('#alert'))
        if rider.data('#map', 'carShownLat'):
            shown.add(rider.data('#map', 'carShownLat'))
            if not rider.inside_map('.car-icon'):
                outside.append(rider.data('#map', 'carShownLat'))
        eta = rider.data('#eta', 'etaS')
        if eta and (not etas or etas[-1] != int(eta)):
            etas.append(int(eta))

    drive_page(driver_page, steps_between(DRIVER_FAR, pickup, 24), pause=0.7, during=watch)
    for _ in range(8):  # the last uploads and the animation towards them
        time.sleep(0.5)
        watch()
    check.that(len(shown) >= 4, f'the car did not move smoothly on the rider page (positions shown: {len(shown)})')
    check.that(not outside, f'the car left the rider\'s map {len(outside)} times during the approach')
    check.that(len(etas) >= 2 and etas[-1] < etas[0], f'the ETA did not fall: {etas}')
    check.that(not [a for a in alerts if re.fullmatch(r'[a-z0-9_]+', a)], f'alerts shown as codes: {alerts}')
    check.that(rider.js("const c = document.querySelector('.car-icon'); return c && c.dataset.heading") is not None,
               'the car does not face a direction')
    rider.screenshot('journey-rider-approach')
    check.wait(friend, 'the car on the shared link', lambda: friend.inside_map('.car-icon'))

    driver_page.tap('#arrived')
    driver_page.wait('arrived', lambda: driver_page.data('#trip-status', 'status') == 'arrived')
    check.that('Route to the pickup' not in driver_page.text('#trip-route'),
               'the route to the pickup stayed after arrival')
    rider.wait('the rider to see the driver there', lambda: rider.data('#status', 'status') == 'arrived')
    check.wait(rider, 'the pickup ETA cleared on arrival', lambda: not rider.visible('#eta'))

    # A wrong code: the refusal shows beside Start trip, in view on the phone (defect 8).
    pin = rider.text('#pin')
    driver_page.find('#pin').send_keys('1111' if pin != '1111' else '2222')
    driver_page.tap('#start-form button[type=submit]')
    check.wait(driver_page, 'the wrong-code error in view', lambda: driver_page.in_viewport('#error'))
    driver_page.screenshot('journey-driver-wrong-code')
    check.that(driver_page.data('#trip-status', 'status') == 'arrived', 'a wrong code started the trip')
    # The QR code's text starts the trip (defect 4): the box takes any text, pasted or scanned.
    check.that(driver_page.find('#pin').get_attribute('inputmode') in (None, '', 'text')
               and not driver_page.find('#pin').get_attribute('pattern'), 'the code box takes digits only')
    can_scan = driver_page.js("return 'BarcodeDetector' in window && !!navigator.mediaDevices?.getUserMedia")
    check.that(driver_page.visible('#scan') == bool(can_scan),
               'the scan button does not match what the browser can do')
    driver_page.find('#pin').clear()
    driver_page.find('#pin').send_keys(payload)
    driver_page.tap('#start-form button[type=submit]')
    if not check.wait(driver_page, 'the trip to start with the QR code',
                      lambda: driver_page.data('#trip-status', 'status') == 'in_progress'):
        driver_page.find('#pin').clear()  # go on with the PIN to see what else is wrong
        driver_page.find('#pin').send_keys(pin)
        driver_page.tap('#start-form button[type=submit]')
        driver_page.wait('the trip to start', lambda: driver_page.data('#trip-status', 'status') == 'in_progress')
    started = time.monotonic()
    check.that(not driver_page.visible('#error'), f'an old error stayed: {driver_page.text("#error")!r}')

    rider.wait('the ride on the rider page', lambda: rider.data('#status', 'status') == 'in_progress')
    check.that(not rider.visible('#cancel'), 'Cancel is offered during the ride')
    seen = rider.js("return document.getElementById('booking').innerText")
    check.that('arrived' not in seen.lower(), f'"arrived" stayed into the ride: {seen!r}')
    check.that(not rider.visible('#handover'), 'the PIN and the QR code stayed into the ride')
    friend.wait('the ride on the shared link', lambda: friend.data('#status', 'status') == 'in_progress')

    # The ride: about 25 m a step; the page queues the fixes and uploads every 3 s. The last step is 15 m, under
    # the page's 20 m filter: the fare only has it when Complete sends the current position (defect 1).
    dropoff = (booking['dropoff']['lat'], booking['dropoff']['lon'])
    short = 15 / meters(pickup, dropoff)
    before_end = (dropoff[0] + (pickup[0] - dropoff[0]) * short, dropoff[1] + (pickup[1] - dropoff[1]) * short)
    ride = steps_between(pickup, before_end, 24) + [dropoff]
    split = len(ride) * 2 // 3
    drive_page(driver_page, ride[:split], pause=0.7)
    if rules:  # during the ride: the ETA to the destination, never the pickup's
        check.wait(rider, 'the ETA to the destination', lambda: rider.data('#eta', 'kind') == 'dropoff'
                   and 'destination' in rider.text('#eta'))
        check.wait(friend, 'the ETA to the destination on the shared link',
                   lambda: friend.data('#eta', 'kind') == 'dropoff')
        friend.screenshot('journey-friend-ride')
    else:
        skipped(server, 'the ETA to the destination during the ride (dropoff_eta)')
    check.that(rider.data('#eta', 'kind') != 'pickup', f'the pickup ETA shows during the ride: {rider.text("#eta")!r}')
    drive_page(driver_page, ride[split:], pause=0.7)
    driven_m = sum(meters(a, b) for a, b in zip(ride, ride[1:]))  # the fixes taken after the start
    driver_page.tap('#complete')  # at once: fixes of the last seconds are still queued
    driver_page.wait('the trip to complete', lambda: driver_page.data('#trip-status', 'status') == 'completed')
    for css in ('#start-form', '#complete', '#arrived', '#cancel-trip'):
        check.that(not driver_page.visible(css), f'{css} is still offered after the trip completed')

    # The receipt: fare, distance, time; the fare is km × 1.2 EUR of the driven trail (defects 1 and 2).
    _, done = server.call('GET', f'/v1/bookings/{booking_id}', token=rider_token)
    fare_minor = done['final_fare']['total']['amount_minor']
    expected_minor = driven_m / 1000 * 1.2 * 100
    check.that(abs(fare_minor - expected_minor) <= max(1.0, expected_minor * 0.02),
               f'fare {fare_minor / 100:.2f} EUR, the driven {driven_m:.0f} m cost {expected_minor / 100:.3f} EUR')
    if check.wait(rider, 'the receipt', lambda: rider.in_viewport('#receipt')
                  and rider.data('#receipt-total', 'amountMinor')):
        check.that(int(rider.data('#receipt-total', 'amountMinor')) == fare_minor and 'EUR' in rider.text('#receipt-total'),
                   f'the receipt says {rider.text("#receipt-total")!r}, the booking {fare_minor / 100:.2f} EUR')
    for css in ('#pin', '#qr', '#alert', '#eta', '#cancel'):
        check.that(not rider.visible(css), f'{css} is still shown after the trip ended')
    if rules:
        check.that('km' in rider.text('#receipt-distance') and re.search(r'\d', rider.text('#receipt-duration')),
                   f'no distance or time on the receipt: {rider.text("#receipt")!r}')
        check.that(abs(float(rider.data('#receipt-distance', 'meters') or 0) - driven_m) <= driven_m * 0.02,
                   f'receipt distance {rider.data("#receipt-distance", "meters")} m, driven {driven_m:.0f} m')
        check.that(rider.text('#receipt-lines'), 'no fare lines on the receipt')
        if check.that(rider.visible('#rating [data-stars="5"]'), 'no rating of the driver offered'):
            rider.tap('#rating [data-stars="5"]')
            rider.find('#rating-comment').send_keys('Smooth ride')
            rider.tap('#rating button[type=submit]')
            check.wait(rider, 'the thanks for the rating',
                       lambda: rider.in_viewport('#rated') and '5 stars' in rider.text('#rated'))
            _, rated = server.call('GET', f'/v1/bookings/{booking_id}', token=rider_token)
            check.that((rated.get('rating') or {}).get('stars') == 5, f'the rating was not stored: {rated.get("rating")}')
    else:
        skipped(server, 'receipt distance and time, fare lines, rating (booking receipt, POST rating)')
    rider.screenshot('journey-rider-receipt')
    driver_page.screenshot('journey-driver-completed')
    friend.wait('the tracking link to die', lambda: friend.visible('#ended'))
    print(f'     ride {driven_m:.0f} m in {time.monotonic() - started:.0f} s, fare {fare_minor / 100:.2f} EUR '
          f'(km × 1.2 = {expected_minor / 100:.3f})')

    # A new booking never shows the previous trip's driver (defect 7).
    rider.tap('#new-trip')
    rider.wait('the planner again', lambda: rider.visible('#planner'))
    search = rider.find('#search')
    search.send_keys('Fabianinkatu')
    rider.wait('search results', lambda: rider.driver.find_elements(By.CSS_SELECTOR, '#search-results li'))
    search.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    second = book_and_check(rider)
    assert second != booking_id
    for css in ('#driver', '#receipt', '#rated', '#eta', '#alert'):
        check.that(not rider.visible(css), f'{css} of the previous trip shows on a new booking: {rider.text(css)!r}')
    rider.tap('#cancel')
    rider.wait('the second booking cancelled', lambda: rider.data('#status', 'status') == 'cancelled_by_rider')
    check.done()


def test_rider_cancel_reaches_the_driver(server, open_browser):
    rider, driver_page = accepted_trip(server, open_browser)
    rider.find('#cancel').click()
    rider.wait('the rider to see the cancellation', lambda: rider.data('#status', 'status') == 'cancelled_by_rider')
    driver_page.wait('the driver to see the cancellation',
                     lambda: driver_page.data('#trip-status', 'status') == 'cancelled_by_rider')
    driver_page.screenshot('driver-sees-rider-cancel')


def test_driver_cancel_reaches_the_rider(server, open_browser):
    rider, driver_page = accepted_trip(server, open_browser)
    rider.wait("the driver's name", lambda: rider.visible('#driver'))
    driver_page.find('#cancel-trip').click()
    if has_journey_rules(server):  # a driver's cancel after accepting finds the rider another driver (issue 13)
        driver_page.wait('the driver to see the trip handed on',
                         lambda: driver_page.data('#trip-status', 'status') == 'reassigned')
        rider.wait('"Finding you another driver"', lambda: rider.data('#status', 'status') == 'dispatching'
                   and rider.text('#status') == 'Finding you another driver')
        assert not rider.visible('#driver'), f'the old driver is still shown: {rider.text("#driver")!r}'
        assert not rider.js("return !!document.querySelector('.car-icon')"), "the old driver's car is still shown"
        rider.screenshot('rider-sees-redispatch')
        return
    skipped(server, 're-dispatch after a driver cancels')
    driver_page.wait('the driver to see the cancellation',
                     lambda: driver_page.data('#trip-status', 'status') == 'cancelled_by_driver')
    rider.wait('the rider to see the cancellation', lambda: rider.data('#status', 'status') == 'cancelled_by_driver')
    rider.screenshot('rider-sees-driver-cancel')


def test_serve_outside_the_repository_finds_the_web_app(server, open_browser):
    """Defect 10: the suite's server runs in a temporary directory; it found Public/ beside its executable."""
    if os.environ.get('CAB_TEST_BASE_URL'):
        return skipped(server, 'an outside server: nothing to say about where it was started')
    status, page = server.call('GET', '/', headers={'Accept': 'text/html'})
    assert status == 200 and 'SwiftCab' in str(page), f'GET / from a server started outside the repository: {status}'
    assert any('serving the web app' in line for line in server.startup_lines), \
        'cab serve did not log where it serves the web app from'
    wrong = subprocess.run([CAB, 'serve', '--data', server.data, '--port', '0', '--public', '/nonexistent/web'],
                           capture_output=True, text=True, timeout=60, cwd=server.data)
    assert wrong.returncode == 64 and '--public /nonexistent/web' in wrong.stderr, \
        f'a wrong --public must stop the server with a reason: {wrong.returncode} {wrong.stderr.strip()[-300:]}'


def sign_in_dispatcher(server, open_browser):
    token = server.create_dispatcher()
    board = open_browser(width=1280, height=800)
    board.open('/dispatch')
    board.find('#token').send_keys(token)
    board.find('#signin button[type=submit]').click()
    board.wait('the board', lambda: board.visible('#board'))
    return board


def test_dispatcher_sees_drivers_live_and_nearby(server, open_browser):
    driver_page = open_browser(location=DRIVER_AT)
    driver_signs_up_and_goes_online(driver_page)
    board = sign_in_dispatcher(server, open_browser)
    board.wait('a live driver', lambda: int(board.data('#driver-counts', 'total') or 0) >= 1, timeout=TIMEOUT * 2)
    board.find('#nearby-centre').click()
    board.wait('nearby drivers', lambda: board.driver.find_elements(By.CSS_SELECTOR, '#nearby li'))
    nearby = board.find('#nearby').text
    assert 'Test Driver (ABC-123)' in nearby, f'the nearby list does not name the driver: {nearby!r}'
    if has_journey_rules(server):
        assert 'rating' in nearby, f'the nearby list does not give ratings: {nearby!r}'
    else:
        skipped(server, "drivers' ratings on the board (nearby items' rating, ratings_count)")
    board.wait('pickup statistics', lambda: board.driver.find_elements(By.CSS_SELECTOR, '#stats dt'))
    assert '{' not in board.find('#stats').text, f'statistics shown as JSON: {board.find("#stats").text!r}'
    board.screenshot('dispatch')


def test_dispatcher_assigns_and_cancels_a_trip(server, open_browser):
    """Issue 13: a dispatcher acts on an open trip: sees it with a short id, its pickup and the driver's route,
    assigns a driver by hand, sees it late, re-dispatches it and cancels it."""
    rules = has_journey_rules(server)
    # The driver stands at the pickup: the promised pickup is a few seconds after the assignment, so the trip is
    # late soon after, while the driver has not arrived.
    driver_page = open_browser(location=RIDER_AT, **PHONE)
    driver_signs_up_and_goes_online(driver_page)
    driver_id = driver_page.js("return JSON.parse(localStorage.getItem('cab.driver')).id")
    _, rider = server.call('POST', '/v1/riders', {'name': 'Phone rider'})
    status, booking = server.call('POST', '/v1/bookings', {
        'pickup': {'lat': RIDER_AT[0], 'lon': RIDER_AT[1]}, 'dropoff': {'lat': 60.1676, 'lon': 24.9497},
        'pickup_name': 'Rautatientori', 'dropoff_name': 'Esplanadi'}, token=rider['token'])
    assert status == 201, f'booking: {status} {booking}'
    board = sign_in_dispatcher(server, open_browser)
    row = f"#trips tr[data-trip-id='{booking['id']}']"
    board.wait('the open trip on the board', lambda: board.visible(row))
    board.wait("the open trip's pickup on the map", lambda: board.inside_map('#map .open-pickup'))
    lines = board.js("const c = document.querySelector(arguments[0]).firstElementChild; const r = document.createRange();"
                     " r.selectNodeContents(c); return r.getClientRects().length", row)
    assert lines == 1, f'the short trip id wraps over {lines} lines'
    board.wait('a live driver', lambda: int(board.data('#driver-counts', 'total') or 0) >= 1, timeout=TIMEOUT * 2)
    board.find(row).click()
    board.wait('the trip detail', lambda: board.in_viewport('#detail-text'))
    board.wait("the trip's pickup on the map", lambda: board.inside_map('.pin-icon.pickup'))
    board.wait('the driver to pick', lambda: board.js(
        "return [...document.querySelectorAll('#detail-driver option')].some((o) => o.value === arguments[0])", driver_id))
    if rules:
        assert 'rating' in board.text('#detail-driver'), f'no rating beside the drivers: {board.text("#detail-driver")!r}'
    board.js("document.getElementById('detail-driver').value = arguments[0]", driver_id)
    board.find('#detail-assign').click()
    driver_page.wait('the assigned trip on the driver page', lambda: driver_page.data('#trip', 'tripId') == booking['id']
                     and driver_page.data('#trip-status', 'status') == 'accepted')
    board.wait('the trip accepted on the board', lambda: board.text(row + ' td:nth-child(2)').startswith('Driver on the way'))
    board.wait("the driver's route to the pickup", lambda: 'route to the pickup' in board.text('#detail-route'))
    board.wait('the late trip highlighted', lambda: board.js(
        "const r = document.querySelector(arguments[0]); return r.classList.contains('late') && "
        "r.querySelector('.badge').textContent === 'late'", row), timeout=20)
    board.screenshot('dispatch-trip-assigned-late')
    if rules:
        board.find('#detail-redispatch').click()
        driver_page.wait('the driver to see the trip handed on',
                         lambda: driver_page.data('#trip-status', 'status') == 'reassigned')
        board.wait('the trip looking for a driver again',
                   lambda: board.text(row + ' td:nth-child(2)').startswith('Finding you another driver'))
    else:
        skipped(server, 'dispatcher re-dispatch (POST /v1/trips/{id}/redispatch)')
    board.find('#detail-cancel').click()
    board.wait('the trip gone from the open trips', lambda: not board.visible(row))
    _, after = server.call('GET', f'/v1/bookings/{booking["id"]}', token=rider['token'])
    assert after['status'].startswith('cancelled'), f'the cancelled trip is {after["status"]}'
    assert not board.visible('#error'), board.text('#error')


def test_driver_signs_in_on_a_new_device_with_a_token(server, open_browser):
    status, account = server.call('POST', '/v1/drivers', {'name': 'Token Driver', 'vehicle': 'Skoda Octavia, blue',
                                                          'plate': 'TOK-42'})
    assert status == 201, f'driver not created: {status} {account}'
    page = open_browser(location=DRIVER_AT)
    page.open('/driver')
    wait_map_drawn(page)
    # A wrong token is refused with the server's reason, and nothing is signed in.
    page.find('#driver-token').send_keys('driver_not-a-real-token')
    page.find('#token-signin button[type=submit]').click()
    page.wait('the refusal', lambda: page.visible('#error') and 'token' in page.find('#error').text.lower())
    assert not page.visible('#console'), 'a wrong token signed in'
    # A rider's token is not a driver's.
    _, rider = server.call('POST', '/v1/riders', {'name': 'Not A Driver'})
    page.find('#driver-token').clear()
    page.find('#driver-token').send_keys(rider['token'])
    page.find('#token-signin button[type=submit]').click()
    page.wait('the role refusal', lambda: 'rider' in page.find('#error').text)
    assert not page.visible('#console'), "a rider's token signed in as a driver"
    page.find('#driver-token').clear()
    page.find('#driver-token').send_keys(account['token'])
    page.find('#token-signin button[type=submit]').click()
    page.wait('the driver console', lambda: page.visible('#console'))
    assert 'Token Driver' in page.find('#who').text and 'TOK-42' in page.find('#who').text, page.find('#who').text
    page.find('#online').click()
    page.wait('going online', lambda: page.data('#online-state', 'state') == 'online')
    server.driver_tokens.append(account['token'])
    page.screenshot('driver-token-signin')


def test_rider_sees_what_a_place_is_and_gets_saved_places_offered(server, open_browser):
    """Issue 21: a result says what it is and where, in the browser's language beside the local name; a chosen
    destination saved as Home is offered first, before typing."""
    rider = open_browser(location=RIDER_AT)  # --lang=en-GB: Accept-Language asks for English names
    rider.open('/')
    wait_map_drawn(rider)
    rider.wait('the pickup address', lambda: rider.find('#pickup-name').get_attribute('value') not in ('', None)
               and 'Looking' not in rider.find('#pickup-name').get_attribute('value'))
    search = rider.find('#search')
    search.send_keys('tuomiokirkko')
    rider.wait('search results', lambda: rider.driver.find_elements(By.CSS_SELECTOR, '#search-results li'))
    first = rider.find('#search-results li')
    assert first.get_attribute('data-category') == 'church', first.get_attribute('outerHTML')
    assert 'Helsinki Cathedral' in first.text and '(Helsingin tuomiokirkko)' in first.text, first.text
    assert 'church' in first.text and 'Unioninkatu 29' in first.text and 'Kruununhaka' in first.text, first.text
    rider.screenshot('rider-place-categories')
    search.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    rider.wait('the offer to save it', lambda: rider.visible('#save-place'))
    rider.find('#save-place button').click()  # "Save as Home"
    rider.wait('the saved place', lambda: 'Saved' in rider.find('#announcer').text)
    search.clear()
    rider.find('#pickup-name').click()
    search.click()
    rider.wait('saved places offered before typing',
               lambda: 'saved place' in (rider.js("return document.querySelector('#search-results li')?.dataset.category") or ''))
    assert rider.find('#search-results li').text.startswith('Home'), rider.find('#search-results li').text
    rider.screenshot('rider-saved-places')


TESTS = [
    (test_every_page_loads_and_draws_the_offline_map, [('GET', '/v1/map/tiles/15/18654/9484.geojson')]),
    (test_panning_fetches_tiles_once_and_stays_fluid, [('GET', '/v1/map/tiles/16/37308/18968.geojson')]),
    (test_another_city_opens_on_its_own_map, [('GET', '/v1/map')]),
    (test_rider_books_by_search_and_sees_route_fare_and_qr,
     [('POST', '/v1/riders'), ('GET', '/v1/places?q=a&near=60.17,24.94'), ('GET', '/v1/places/reverse?lat=60.17&lon=24.94'),
      ('POST', '/v1/estimates'), ('POST', '/v1/bookings'), ('GET', '/v1/bookings/x/qr.svg')]),
    (test_rider_with_location_denied_books_by_tapping_the_map,
     [('POST', '/v1/riders'), ('GET', '/v1/places/reverse?lat=60.17&lon=24.94'), ('POST', '/v1/estimates'),
      ('POST', '/v1/bookings')]),
    (test_page_modules_upload_every_fix_and_follow_the_road, []),
    (test_whole_journey_on_phones,
     [('POST', '/v1/drivers'), ('POST', '/v1/driver/status'), ('POST', '/v1/driver/locations'),
      ('GET', '/v1/driver/stream'), ('POST', '/v1/trips/x/accept'), ('GET', '/v1/bookings/x/stream'),
      ('POST', '/v1/bookings/x/share'), ('GET', '/v1/track/x'), ('GET', '/v1/track/x/stream'),
      ('POST', '/v1/trips/x/arrived'), ('POST', '/v1/trips/x/start'), ('POST', '/v1/trips/x/complete'),
      ('GET', '/v1/route?from=60.17,24.94&to=60.168,24.945')]),
    (test_rider_cancel_reaches_the_driver, [('POST', '/v1/bookings/x/cancel'), ('GET', '/v1/driver/stream')]),
    (test_driver_cancel_reaches_the_rider, [('POST', '/v1/trips/x/cancel'), ('GET', '/v1/bookings/x/stream')]),
    (test_dispatcher_assigns_and_cancels_a_trip,
     [('POST', '/v1/trips/x/assign'), ('POST', '/v1/trips/x/cancel'), ('GET', '/v1/drivers/nearby?lat=60.17&lon=24.94')]),
    (test_serve_outside_the_repository_finds_the_web_app, []),
    (test_driver_signs_in_on_a_new_device_with_a_token, [('GET', '/v1/me'), ('POST', '/v1/driver/status')]),
    (test_rider_sees_what_a_place_is_and_gets_saved_places_offered,
     [('GET', '/v1/places?q=a&near=60.17,24.94'), ('PUT', '/v1/me/places/Home'), ('GET', '/v1/me/places')]),
    (test_dispatcher_sees_drivers_live_and_nearby,
     [('GET', '/v1/fleet/stream'), ('GET', '/v1/drivers/nearby?lat=60.17&lon=24.94&k=5'), ('GET', '/v1/stats'),
      ('GET', '/v1/bookings?limit=50')]),
]


def main():
    selected = sys.argv[1:]
    passed = failed = 0
    server = Server()
    try:
        server.start()
    except Exception as error:
        print(f'FAIL setup: {error}')
        print(f'0 passed, {len(TESTS)} failed')
        return 1
    try:
        for test, needs in TESTS:
            if selected and not any(s in test.__name__ for s in selected):
                continue
            browsers = []

            def open_browser(**kwargs):
                browser = Browser(server, **kwargs)
                browsers.append(browser)
                return browser

            started = time.monotonic()
            problem = None
            try:
                test(server, open_browser)
            except Exception as error:
                problem = f'{type(error).__name__}: {error}'
                if not isinstance(error, AssertionError):
                    problem += '\n' + ''.join(traceback.format_exc(limit=3))
                for i, browser in enumerate(browsers):
                    try:
                        browser.screenshot(f'FAILED-{test.__name__}-{i}')
                    except Exception:
                        pass
            for browser in browsers:
                try:
                    browser.quit()
                except Exception as error:
                    problem = problem or f'browser did not close: {error}'
            # A closed browser does not go offline: without this, the next test's offer would wait for the batches
            # offered to this test's drivers to time out.
            for token in server.driver_tokens:
                server.call('POST', '/v1/driver/status', body={'status': 'offline'}, token=token)
            server.driver_tokens.clear()
            console = [e for b in browsers for e in b.errors]
            if console and not problem:
                problem = 'JavaScript errors in the console:\n  ' + '\n  '.join(console[:10])
            took = time.monotonic() - started
            if problem:
                failed += 1
                missing = [f'{m} {p.split("?")[0]}' for m, p in needs if not server.routes(m, p)]
                print(f'FAIL {test.__name__} ({took:.1f} s): {problem}')
                if console:
                    print('  console errors:\n    ' + '\n    '.join(console[:10]))
                if missing:
                    print(f'  waiting for: {", ".join(missing)}')
            else:
                passed += 1
                print(f'ok   {test.__name__} ({took:.1f} s)')
            for what in server.skipped:
                print(f'     skipped, the server has no issue 13 rules yet: {what}')
            server.skipped.clear()
    finally:
        server.stop()
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
