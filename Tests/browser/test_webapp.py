#!/usr/bin/env python3
"""The web app in a real headless Chromium against a real `cab serve` (issue 8).

Imports the Helsinki extract into a temporary data directory, starts `cab serve --port 0`, and drives the rider,
driver, dispatcher and tracking pages with Selenium (Debian's chromium and chromium-driver). Every test fails when
the browser logged a JavaScript error. Screenshots go to .build/screenshots/. Prints `N passed, N failed` last and
exits non-zero on any failure. When a test fails, the API endpoints it needs that the server does not route yet
are listed ("waiting for").

Environment: CAB_TEST_BASE_URL (use a running server instead of starting one), CAB_BINARY (default .build/debug/cab), CAB_TEST_MAP (default ../shared/data/helsinki.osm.pbf).
"""
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

# Points in the Helsinki extract: the rider near the railway station, a driver a few blocks away.
RIDER_AT = (60.1699, 24.9410)
DRIVER_AT = (60.1675, 24.9445)


class Server:
    """`cab import` into a temporary directory, then `cab serve --port 0` on it."""

    def __init__(self):
        self.data = tempfile.mkdtemp(prefix='swiftcab-browser-')
        self.process = None
        self.base = None
        self.log_lines = []
        self.driver_tokens = []  # drivers who went online in the current test

    def start(self):
        if os.environ.get('CAB_TEST_BASE_URL'):  # an already running server (for working on the pages)
            self.base = os.environ['CAB_TEST_BASE_URL'].rstrip('/')
            return
        imported = subprocess.run([CAB, 'import', MAP, '--data', self.data], capture_output=True, text=True,
                                  timeout=600)
        if imported.returncode != 0:
            raise RuntimeError(f'cab import failed ({imported.returncode}): {imported.stderr.strip()[-600:]}')
        self.process = subprocess.Popen([CAB, 'serve', '--data', self.data, '--host', '127.0.0.1', '--port', '0'],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
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


def driver_signs_up_and_goes_online(driver_page):
    driver_page.open('/driver?report_interval_s=1')
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
    for zoom in (16, 17):  # from 15 to where streets are named
        page.find('.leaflet-control-zoom-in').click()
        page.wait(f'the map drawn at zoom {zoom}', lambda: page.data('#map', 'basemapZoom') == str(zoom))
    page.wait('street names at close zoom',
              lambda: page.js("return document.querySelectorAll('.street-label span').length") >= 5)
    page.screenshot('rider-street-names')


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


def test_driver_accepts_and_rider_sees_the_car_move_then_the_trip_ends_and_the_link_dies(server, open_browser):
    rider = open_browser(location=RIDER_AT)
    driver_page = open_browser(location=DRIVER_AT)
    token = driver_signs_up_and_goes_online(driver_page)
    booking_id = rider_books_by_search(server, rider)
    driver_accepts_offer(driver_page, booking_id)
    driver_page.screenshot('driver-accepted')
    rider.wait('the rider to hear of the driver', lambda: rider.data('#status', 'status') in ('accepted', 'arriving'))
    rider.find('#share').click()
    rider.wait('the tracking link', lambda: '/t/' in (rider.find('#share-link').get_attribute('value') or ''))
    link = rider.find('#share-link').get_attribute('value')
    assert 'link' in rider.find('#notice').text, f'no word about the copied link: {rider.find("#notice").text!r}'

    pickup = RIDER_AT
    positions, etas = set(), []

    def sample():
        lat = rider.data('#map', 'carShownLat')
        if lat:
            positions.add(lat)
        eta = rider.data('#eta', 'etaS')
        if eta and (not etas or etas[-1] != int(eta)):
            etas.append(int(eta))

    sampler_stop = threading.Event()

    def sampler():
        while not sampler_stop.is_set():
            try:
                sample()
            except Exception:
                pass
            time.sleep(0.3)

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    try:
        drive_towards(server, token, DRIVER_AT, pickup)
    finally:
        sampler_stop.set()
        thread.join()
    assert len(positions) >= 3, f'the car did not move smoothly on the rider page (positions shown: {len(positions)})'
    assert len(etas) >= 2 and etas[-1] < etas[0], f'the ETA did not fall: {etas}'
    rider.screenshot('rider-car-moving')

    tracker = open_browser(width=1024, height=700)
    tracker.open(link[link.index('/t/'):])
    tracker.wait('the shared trip', lambda: tracker.visible('#trip') and tracker.data('#status', 'status'))
    wait_map_drawn(tracker)
    tracker.wait('the age of the position', lambda: 'Updated' in tracker.find('#updated').text)
    tracker.screenshot('tracking-link')

    pin = rider.find('#pin').text.strip()
    driver_page.find('#arrived').click()
    driver_page.wait('arrived', lambda: driver_page.data('#trip-status', 'status') == 'arrived')
    driver_page.find('#pin').send_keys(pin)
    driver_page.find('#start-form button[type=submit]').click()
    driver_page.wait('the trip to start', lambda: driver_page.data('#trip-status', 'status') == 'in_progress')
    driver_page.find('#complete').click()
    driver_page.wait('the trip to complete', lambda: driver_page.data('#trip-status', 'status') == 'completed')
    for css in ('#start-form', '#complete', '#arrived', '#cancel-trip'):
        assert not driver_page.visible(css), f'{css} is still offered after the trip completed'
    driver_page.screenshot('driver-completed')
    rider.wait('the rider to see the trip completed', lambda: rider.data('#status', 'status') == 'completed')
    tracker.wait('the tracking link to die', lambda: tracker.visible('#ended'))
    tracker.screenshot('tracking-link-ended')


def test_rider_cancel_reaches_the_driver(server, open_browser):
    rider, driver_page = accepted_trip(server, open_browser)
    rider.find('#cancel').click()
    rider.wait('the rider to see the cancellation', lambda: rider.data('#status', 'status') == 'cancelled_by_rider')
    driver_page.wait('the driver to see the cancellation',
                     lambda: driver_page.data('#trip-status', 'status') == 'cancelled_by_rider')
    driver_page.screenshot('driver-sees-rider-cancel')


def test_driver_cancel_reaches_the_rider(server, open_browser):
    rider, driver_page = accepted_trip(server, open_browser)
    driver_page.find('#cancel-trip').click()
    # Issue 13: the answer says the trip is back in dispatch, the driver's stream that it is no longer theirs.
    driver_page.wait('the driver to see the cancellation',
                     lambda: driver_page.data('#trip-status', 'status') in ('cancelled_by_driver', 'dispatching'))
    # Issue 13: a driver's cancel hands the trip back; the rider's trip is looking for another driver.
    rider.wait('the rider to see the trip handed back', lambda: rider.data('#status', 'status') == 'dispatching')
    rider.screenshot('rider-sees-driver-cancel')


def test_dispatcher_sees_drivers_live_and_nearby(server, open_browser):
    driver_page = open_browser(location=DRIVER_AT)
    driver_signs_up_and_goes_online(driver_page)
    token = server.create_dispatcher()
    board = open_browser(width=1280, height=800)
    board.open('/dispatch')
    board.find('#token').send_keys(token)
    board.find('#signin button[type=submit]').click()
    board.wait('the board', lambda: board.visible('#board'))
    board.wait('a live driver', lambda: int(board.data('#driver-counts', 'total') or 0) >= 1, timeout=TIMEOUT * 2)
    board.find('#nearby-centre').click()
    board.wait('nearby drivers', lambda: board.driver.find_elements(By.CSS_SELECTOR, '#nearby li'))
    nearby = board.find('#nearby').text
    assert 'Test Driver (ABC-123)' in nearby, f'the nearby list does not name the driver: {nearby!r}'
    board.wait('pickup statistics', lambda: board.driver.find_elements(By.CSS_SELECTOR, '#stats dt'))
    assert '{' not in board.find('#stats').text, f'statistics shown as JSON: {board.find("#stats").text!r}'
    board.screenshot('dispatch')


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
    (test_every_page_loads_and_draws_the_offline_map, [('GET', '/v1/map/features?bbox=24.93,60.16,24.96,60.18&zoom=15')]),
    (test_rider_books_by_search_and_sees_route_fare_and_qr,
     [('POST', '/v1/riders'), ('GET', '/v1/places?q=a&near=60.17,24.94'), ('GET', '/v1/places/reverse?lat=60.17&lon=24.94'),
      ('POST', '/v1/estimates'), ('POST', '/v1/bookings'), ('GET', '/v1/bookings/x/qr.svg')]),
    (test_rider_with_location_denied_books_by_tapping_the_map,
     [('POST', '/v1/riders'), ('GET', '/v1/places/reverse?lat=60.17&lon=24.94'), ('POST', '/v1/estimates'),
      ('POST', '/v1/bookings')]),
    (test_driver_accepts_and_rider_sees_the_car_move_then_the_trip_ends_and_the_link_dies,
     [('POST', '/v1/drivers'), ('POST', '/v1/driver/status'), ('POST', '/v1/driver/locations'),
      ('GET', '/v1/driver/stream'), ('POST', '/v1/trips/x/accept'), ('GET', '/v1/bookings/x/stream'),
      ('POST', '/v1/bookings/x/share'), ('GET', '/v1/track/x'), ('GET', '/v1/track/x/stream'),
      ('POST', '/v1/trips/x/arrived'), ('POST', '/v1/trips/x/start'), ('POST', '/v1/trips/x/complete'),
      ('GET', '/v1/route?from=60.17,24.94&to=60.168,24.945')]),
    (test_rider_cancel_reaches_the_driver, [('POST', '/v1/bookings/x/cancel'), ('GET', '/v1/driver/stream')]),
    (test_driver_cancel_reaches_the_rider, [('POST', '/v1/trips/x/cancel'), ('GET', '/v1/bookings/x/stream')]),
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
    finally:
        server.stop()
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
