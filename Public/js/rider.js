// The rider page (/): pickup, destination, estimate, Book Now, then the trip live, the receipt and a rating.
/* global L */
import { api, fetchBlob, newIdempotencyKey, openStream, stored } from './api.js';
import { createMap, fitTo } from './basemap.js';
import { CarMarker, carIcon, pinIcon } from './car-marker.js';
import { myPlaces, offerToSave, placeOption } from './place-results.js';
import { $, announce, debounce, decodePolyline, errorPlacer, formatDuration, formatKm, formatMin, formatMoney,
  isTerminal, notify, statusText, whileBusy } from './ui.js';

const errors = errorPlacer($('#error'));
const fail = (error) => errors.show(error);
const point = (latlng) => ({ lat: +latlng.lat.toFixed(6), lon: +latlng.lng.toFixed(6) });
const OUTSIDE = 'Outside the area we serve. Choose a point on the map’s streets.';
const APPROACH = ['accepted', 'arriving'];

const state = {
  rider: stored.get('cab.rider'),
  pickup: null, pickupName: '', dropoff: null, dropoffName: '',
  picking: 'pickup', estimate: null, booking: null, stream: null, bookingKey: null,
};

const map = createMap($('#map'), { onError: fail });
const markers = { pickup: null, dropoff: null };
let routeLine = null;
let trailLine = null;
const car = new CarMarker(map, {
  title: 'Your driver',
  onMove: ([lat, lon]) => Object.assign($('#map').dataset, { carShownLat: lat.toFixed(6), carShownLon: lon.toFixed(6) }),
});

async function ensureRider() {
  if (state.rider?.token) return state.rider;
  const rider = await api('POST', '/v1/riders', { body: { name: 'Web rider' } });
  state.rider = { id: rider.id, name: rider.name, token: rider.token };
  stored.set('cab.rider', state.rider);
  return state.rider;
}

/** The name of the place at `p`, or null when `p` is outside the area the server has data for. */
async function reverseName(p) {
  const answer = await api('GET', `/v1/places/reverse?lat=${p.lat}&lon=${p.lon}`);
  const place = answer?.result;
  return place ? [place.name, place.address].filter(Boolean).join(', ') : null;
}

function placeMarker(kind, p, title) {
  markers[kind]?.remove();
  markers[kind] = L.marker([p.lat, p.lon], { icon: pinIcon(kind), title, alt: title, keyboard: false }).addTo(map);
}

function placeMessage(text) {
  $('#place-message').textContent = text || '';
  $('#place-message').hidden = !text;
  if (text) $('#place-message').scrollIntoView({ block: 'nearest' });
}

/** Sets the pickup or drop-off (`kind`) at `p`; a point outside the served area is refused in words. */
async function setPoint(kind, p, name = null) {
  const field = kind === 'pickup' ? $('#pickup-name') : $('#search');
  const previous = field.value;
  placeMessage('');
  field.value = name || 'Looking up the address…';
  let resolved = name;
  if (!resolved) {
    try {
      resolved = await reverseName(p);
    } catch (error) {
      field.value = previous;
      return errors.at(field, `Could not look up the address: ${error.message}`);
    }
  }
  if (!resolved) {
    field.value = kind === 'pickup' ? state.pickupName : state.dropoffName;
    return placeMessage(OUTSIDE);
  }
  field.value = resolved;
  placeMarker(kind, p, kind === 'pickup' ? 'Pickup' : 'Destination');
  if (kind === 'pickup') {
    Object.assign(state, { pickup: p, pickupName: resolved, picking: 'dropoff' });
    $('#pick-pickup').setAttribute('aria-pressed', 'false');
    refreshNearbyCars();
  } else {
    Object.assign(state, { dropoff: p, dropoffName: resolved });
    offerToSave($('#save-place'), { name: resolved, position: p },
      { getRider: ensureRider, done: (text, error) => (error ? errors.at($('#save-place'), error) : announce(text)) });
    announce(`Destination set: ${resolved}`);
  }
  await updateEstimate();
}

const setPickup = (p, name) => setPoint('pickup', p, name);
const setDropoff = (p, name) => setPoint('dropoff', p, name);

async function updateEstimate() {
  if (!state.pickup || !state.dropoff || state.booking) return;
  errors.clear();
  try {
    const estimate = await api('POST', '/v1/estimates', { body: { pickup: state.pickup, dropoff: state.dropoff } });
    state.estimate = estimate;
    state.bookingKey = null;
    $('#distance').textContent = formatKm(estimate.distance_m);
    $('#duration').textContent = formatMin(estimate.duration_s);
    $('#fare').textContent = formatMoney(estimate.fare?.total);
    $('#estimate').hidden = false; // first: the panel grows and the map shrinks before the route is fitted
    drawRoute(estimate.geometry);
    announce(`${formatKm(estimate.distance_m)}, ${formatMin(estimate.duration_s)}, ${formatMoney(estimate.fare?.total)}`);
  } catch (error) {
    $('#estimate').hidden = true;
    errors.at($('#search'), error);
  }
}

function drawRoute(geometry) {
  routeLine?.remove();
  routeLine = null;
  if (!geometry) return;
  routeLine = L.geoJSON(geometry, { style: { color: '#0b57d0', weight: 6, opacity: 0.85 }, interactive: false }).addTo(map);
  const bounds = routeLine.getBounds();
  Object.values(markers).forEach((marker) => marker && bounds.extend(marker.getLatLng()));
  fitTo(map, bounds);
}

// The nearest cars before booking: coarse positions without identities, and the pickup ETA of the nearest.
let nearbyLayer = null;
let nearbyTimer = null;

async function refreshNearbyCars() {
  clearTimeout(nearbyTimer);
  if (!state.pickup || state.booking || !state.rider) return;
  nearbyTimer = setTimeout(refreshNearbyCars, 10000);
  const line = $('#nearby-cars');
  let answer;
  try {
    answer = await api('GET', `/v1/cars/nearby?lat=${state.pickup.lat}&lon=${state.pickup.lon}`,
      { token: state.rider.token });
  } catch {
    // An extra, not a step of booking: when the server cannot say, the page shows no cars rather than an error.
    line.hidden = true;
    return;
  }
  if (state.booking) return;
  nearbyLayer?.remove();
  const cars = answer?.cars || [];
  nearbyLayer = L.layerGroup(cars.map((c) => L.marker([c.lat, c.lon], {
    icon: carIcon(c.heading, 'nearby-car'), interactive: false, keyboard: false,
  }))).addTo(map);
  if (cars.length && !state.dropoff && !state.shownNearestCar) {
    // Once, before a destination: the pickup and the nearest car together, so the rider sees a car is near.
    state.shownNearestCar = true;
    const from = L.latLng(state.pickup.lat, state.pickup.lon);
    const nearest = cars.map((c) => L.latLng(c.lat, c.lon)).sort((a, b) => from.distanceTo(a) - from.distanceTo(b))[0];
    map.invalidateSize({ pan: false }); // the panel may just have changed the map's size
    if (!map.getBounds().pad(-0.1).contains(nearest)) fitTo(map, L.latLngBounds([from, nearest]));
  }
  line.dataset.cars = String(cars.length);
  line.dataset.nearestEtaS = Number.isFinite(answer?.nearest_eta_s) ? String(Math.round(answer.nearest_eta_s)) : '';
  line.textContent = !cars.length ? 'No cars near your pickup right now; you can still book.'
    : `${cars.length === 1 ? '1 car' : `${cars.length} cars`} nearby`
      + (Number.isFinite(answer.nearest_eta_s) ? ` · the nearest is ${formatMin(answer.nearest_eta_s)} away` : '');
  line.hidden = false;
}

function clearNearbyCars() {
  clearTimeout(nearbyTimer);
  nearbyLayer?.remove();
  nearbyLayer = null;
  $('#nearby-cars').hidden = true;
}

// Location: the browser's position, or a tap on the map when it is denied.
function locate() {
  const message = $('#location-message');
  const denied = (text) => {
    message.textContent = `${text} Tap the map to set your pickup.`;
    message.hidden = false;
    $('#pickup-name').placeholder = 'Tap the map';
    state.picking = 'pickup';
    $('#pick-pickup').setAttribute('aria-pressed', 'true');
  };
  if (!('geolocation' in navigator)) return denied('This browser cannot tell your location.');
  navigator.geolocation.getCurrentPosition(
    (position) => {
      const p = { lat: +position.coords.latitude.toFixed(6), lon: +position.coords.longitude.toFixed(6) };
      map.setView([p.lat, p.lon], 16, { animate: false }); // at once: a fit that follows must not race a zoom animation
      setPickup(p).catch(fail);
    },
    (error) => denied(error.code === 1 ? 'Location access is off for this site.' : 'Your location could not be found.'),
    { enableHighAccuracy: true, timeout: 10000, maximumAge: 60000 },
  );
}

map.on('click', (event) => {
  if (state.booking) return;
  const p = point(event.latlng);
  (state.picking === 'pickup' || !state.pickup ? setPickup(p) : setDropoff(p)).catch(fail);
});

$('#pick-pickup').addEventListener('click', () => {
  state.picking = 'pickup';
  $('#pick-pickup').setAttribute('aria-pressed', 'true');
  announce('Tap the map to set your pickup.');
});

$('#destination-at-centre').addEventListener('click', () => {
  if (!state.pickup) {
    return errors.at($('#destination-at-centre'), 'Set your pickup first: allow location access or tap the map.');
  }
  setDropoff(point(map.getCenter())).catch(fail);
});

// Search as you type (a combobox with a listbox of results).
const search = $('#search');
const list = $('#search-results');
let results = [];
let active = -1;
let searchAbort = null;

function renderResults() {
  list.replaceChildren(...results.map((place, i) =>
    placeOption(place, { id: `result-${i}`, selected: i === active, onChoose: () => choose(i) })));
  search.setAttribute('aria-expanded', String(results.length > 0));
  if (active >= 0) search.setAttribute('aria-activedescendant', `result-${active}`);
  else search.removeAttribute('aria-activedescendant');
}

function showNoResults(q) {
  const empty = $('#search-empty');
  empty.textContent = q ? `No places match “${q}”. Check the spelling, or tap the map to set the destination.` : '';
  empty.hidden = !q;
}

function choose(i) {
  const place = results[i];
  results = [];
  active = -1;
  renderResults();
  if (!state.pickup) return errors.at(search, 'Set your pickup first: allow location access or tap the map.');
  setDropoff({ lat: place.position.lat, lon: place.position.lon }, place.name).catch(fail);
}

const runSearch = debounce(async () => {
  const q = search.value.trim();
  searchAbort?.abort();
  if (q.length < 2) {
    showNoResults('');
    const mine = q ? [] : await myPlaces(state.rider).catch(() => []); // no typing yet: saved and recent places
    if (search.value.trim() === q) [results, active] = [mine, -1];
    return renderResults();
  }
  searchAbort = new AbortController();
  const near = state.pickup || point(map.getCenter());
  try {
    const answer = await api('GET', `/v1/places?q=${encodeURIComponent(q)}&near=${near.lat},${near.lon}&limit=6`,
      { signal: searchAbort.signal });
    if (search.value.trim() !== q) return; // typed on meanwhile
    results = answer.results || [];
    active = -1;
    renderResults();
    showNoResults(results.length ? '' : q);
    announce(results.length ? `${results.length} results` : 'No places found');
  } catch (error) {
    if (error.name !== 'AbortError') errors.at(search, error);
  }
}, 250);

search.addEventListener('input', () => {
  errors.clear();
  placeMessage('');
  runSearch();
});
search.addEventListener('focus', () => { if (!search.value.trim()) runSearch(); });
search.addEventListener('keydown', (event) => {
  if (!results.length) return;
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    active = (active + (event.key === 'ArrowDown' ? 1 : results.length - 1)) % results.length;
    renderResults();
  } else if (event.key === 'Enter' && active >= 0) {
    event.preventDefault();
    choose(active);
  } else if (event.key === 'Escape') {
    results = [];
    renderResults();
  }
});

// Booking.
$('#book').addEventListener('click', () => whileBusy($('#book'), 'Booking…', async () => {
  errors.clear();
  try {
    const rider = await ensureRider();
    state.bookingKey ||= newIdempotencyKey(); // a retry after a failure reuses the key: never two bookings
    const booking = await api('POST', '/v1/bookings', {
      token: rider.token, headers: { 'Idempotency-Key': state.bookingKey },
      body: { pickup: state.pickup, dropoff: state.dropoff, pickup_name: state.pickupName, dropoff_name: state.dropoffName },
    });
    stored.set('cab.booking', booking.id);
    showBooking(booking);
    announce(`Booked. Your booking is ${booking.id}.`);
  } catch (error) {
    errors.at($('#book'), error);
  }
}));

/** Everything a previous trip left on the page: driver, ETA, alerts, receipt, rating, car, trail, link. */
function clearTripView() {
  car.remove();
  road.kind = null;
  road.askedAt = 0;
  trailLine?.remove();
  trailLine = null;
  delete $('#map').dataset.carShownLat;
  delete $('#map').dataset.carShownLon;
  for (const id of ['#driver', '#eta', '#alert', '#notice', '#share-box', '#receipt', '#rating', '#rated']) {
    $(id).hidden = true;
  }
  $('#driver').textContent = '';
  $('#eta').textContent = '';
  $('#eta').dataset.kind = '';
  delete $('#eta').dataset.etaS;
  $('#alert').textContent = '';
  $('#share-link').value = '';
  $('#receipt-lines').replaceChildren();
  $('#handover').hidden = false;
  $('#trip-summary').hidden = false;
  $('#share').hidden = false;
  state.rating = 0;
  showStars(0);
}

function showBooking(booking) {
  clearTripView();
  state.redispatched = false;
  clearNearbyCars();
  state.booking = booking;
  $('#planner').hidden = true;
  $('#booking').hidden = false;
  $('#booking-id').textContent = booking.id;
  $('#booking').dataset.bookingId = booking.id;
  $('#pin').textContent = booking.pin || '';
  $('#booked-dropoff').textContent = booking.dropoff_name || state.dropoffName || 'your destination';
  $('#booked-fare').textContent = formatMoney(booking.fare?.total);
  if (booking.pickup) placeMarker('pickup', booking.pickup, 'Pickup');
  if (booking.dropoff) placeMarker('dropoff', booking.dropoff, 'Destination');
  if (booking.route?.geometry) drawRoute(booking.route.geometry);
  setStatus(booking.status, booking);
  if (booking.driver && !isTerminal(booking.status) && booking.status !== 'dispatching') showDriver(booking.driver);
  fetchBlob(booking.qr || `/v1/bookings/${booking.id}/qr.svg`, state.rider.token)
    .then((blob) => { $('#qr').src = URL.createObjectURL(blob); })
    .catch((error) => fail(`The QR code could not be loaded: ${error.message}`));
  if (booking.status === 'completed') showReceipt(booking);
  else if (!isTerminal(booking.status)) follow(booking.id);
}

function setEta(kind, seconds, text) {
  const eta = $('#eta');
  eta.hidden = !text;
  eta.textContent = text || '';
  eta.dataset.kind = kind;
  if (Number.isFinite(seconds)) eta.dataset.etaS = String(Math.round(seconds));
  else delete eta.dataset.etaS;
}

function setAlert(text, kind = '') {
  $('#alert').textContent = text || '';
  $('#alert').dataset.kind = kind;
  $('#alert').hidden = !text;
}

/** Shows `status`; `detail` (a booking or a status event) may say the trip is being re-dispatched. */
function setStatus(status, detail = null) {
  const previous = $('#status').dataset.status;
  if (status !== 'dispatching') state.redispatched = false;
  const redispatched = status === 'dispatching'
    && (state.redispatched || !!detail?.redispatch || detail?.redispatch_count > 0);
  $('#status').textContent = redispatched ? statusText.redispatching : statusText[status] || 'Trip updated';
  $('#status').dataset.status = status;
  $('#status').dataset.redispatch = redispatched ? 'true' : 'false';
  if (state.booking) state.booking.status = status;
  const over = isTerminal(status);
  // A rider cancels before the ride; once it has started the trip ends at the destination.
  $('#cancel').hidden = over || status === 'in_progress';
  $('#share').hidden = over;
  $('#new-trip').hidden = !over;
  if (status === 'dispatching' || status === 'requested') {
    // Looking (again) for a driver: nothing of a previous driver may stay on screen.
    $('#driver').hidden = true;
    $('#driver').textContent = '';
    car.remove();
    road.kind = null;
    setEta('', null, '');
    setAlert('');
  }
  if (status === 'arrived') {
    setEta('', null, ''); // the driver is here: an ETA to the pickup would be stale
    if ($('#alert').dataset.kind !== 'arrived') setAlert('');
  }
  if (status === 'in_progress' && previous !== 'in_progress') {
    setEta('', null, '');
    setAlert(''); // "your driver has arrived" is over
    $('#handover').hidden = true; // the PIN and the QR have done their job
  }
  if (over) {
    state.stream?.close();
    state.stream = null;
    setEta('', null, '');
    setAlert('');
    $('#share-box').hidden = true;
    $('#notice').hidden = true; // "link copied" is over with the trip
    $('#handover').hidden = true;
    stored.set('cab.booking', null);
  }
}

function showDriver(driver) {
  if (!driver) return;
  const text = [driver.name, driver.vehicle, driver.plate].filter(Boolean).join(' · ');
  $('#driver').textContent = `Your driver: ${text}`;
  $('#driver').hidden = false;
}

/** Keeps the car and where it is heading (the pickup, then the destination) in view while it moves. */
function keepCarInView(target) {
  if (!target || !car.shown) return;
  const view = map.getBounds().pad(-0.08);
  const points = [car.shown, car.target || car.shown, [target.lat, target.lon]];
  if (points.every((p) => view.contains(p))) return;
  fitTo(map, L.latLngBounds(points));
}

// The road the car takes, so it glides along the streets between fixes: the booked route during the ride, the
// road route from the car to the pickup during the approach (asked again when the car leaves it).
const road = { kind: null, askedAt: 0 };
const lineOf = (geometry) => geometry?.coordinates?.map(([lon, lat]) => [lat, lon]) || null;

function followTheRoad(status, at) {
  if (status === 'in_progress') {
    if (road.kind !== 'ride') car.followRoad(lineOf(state.booking.route?.geometry));
    road.kind = 'ride';
    return;
  }
  if (!APPROACH.includes(status)) {
    car.followRoad(null);
    road.kind = null;
    return;
  }
  const offRoad = !car.road || car.road.project(at).off > 30;
  if ((road.kind === 'approach' && !offRoad) || Date.now() - road.askedAt < 10000) return;
  road.kind = 'approach';
  road.askedAt = Date.now();
  const to = state.booking.pickup;
  api('GET', `/v1/route?from=${at[0]},${at[1]}&to=${to.lat},${to.lon}`)
    .then((route) => { if (APPROACH.includes(state.booking?.status)) car.followRoad(lineOf(route.geometry)); })
    .catch(() => car.followRoad(null)); // without a road the car moves straight, which is only less pretty
}

function follow(id) {
  state.stream?.close();
  state.stream = openStream(`/v1/bookings/${id}/stream`, state.rider.token, {
    status: (data) => {
      const status = data?.status || data;
      setStatus(status, data);
      announce($('#status').textContent);
      const driving = !['dispatching', 'requested'].includes(status) && !isTerminal(status);
      if (data?.driver && driving) showDriver(data.driver);
      if (status === 'completed') loadReceipt(id);
    },
    // The driver handed the trip back (or was late, or a dispatcher moved it): SwiftCab looks for another one.
    redispatch: (data) => {
      state.redispatched = true;
      setStatus('dispatching', { redispatch: data });
      announce(statusText.redispatching);
    },
    driver: (data) => showDriver(data?.driver || data),
    position: (data) => {
      const status = state.booking?.status;
      if (!APPROACH.includes(status) && status !== 'arrived' && status !== 'in_progress') return;
      const first = !car.marker;
      $('#map').dataset.carLat = String(data.lat);
      $('#map').dataset.carLon = String(data.lon);
      followTheRoad(status, [data.lat, data.lon]);
      car.moveTo([data.lat, data.lon], data.heading);
      const target = status === 'in_progress' ? state.booking.dropoff : state.booking.pickup;
      if (first && target) fitTo(map, L.latLngBounds([[data.lat, data.lon], [target.lat, target.lon]]));
      else keepCarInView(target);
    },
    eta: (data) => {
      if (!APPROACH.includes(state.booking?.status)) return; // only on the way to the pickup
      setEta('pickup', data.eta_s, `Driver arrives in ${formatMin(data.eta_s)}`);
    },
    dropoff_eta: (data) => {
      if (state.booking?.status !== 'in_progress') return;
      setEta('dropoff', data.eta_s, `At your destination in ${formatMin(data.eta_s)}`);
    },
    alert: (data) => {
      if (!data?.message) return; // the server writes the words; a bare kind is not for people
      setAlert(data.message, data.kind || '');
    },
  }, { onError: (message) => { if (state.stream) announce(message); } });
}

// The receipt: what the trip cost and why, then a rating of the driver.
async function loadReceipt(id) {
  try {
    showReceipt(await api('GET', `/v1/bookings/${id}`, { token: state.rider.token }));
  } catch (error) {
    fail(`The receipt could not be loaded: ${error.message}`);
  }
}

function showReceipt(booking) {
  state.booking = booking;
  const receipt = booking.receipt;
  const fare = booking.final_fare;
  const total = receipt?.total || fare?.total;
  const lines = receipt?.lines || fare?.lines || [];
  $('#trip-summary').hidden = true;
  $('#receipt').hidden = false;
  $('#receipt-total').textContent = formatMoney(total) || '–';
  $('#receipt-total').dataset.amountMinor = total ? String(total.amount_minor) : '';
  $('#receipt-distance').textContent = Number.isFinite(receipt?.distance_m) ? formatKm(receipt.distance_m) : '–';
  $('#receipt-distance').dataset.meters = Number.isFinite(receipt?.distance_m) ? String(receipt.distance_m) : '';
  $('#receipt-duration').textContent = Number.isFinite(receipt?.duration_s)
    ? formatDuration(receipt.duration_s) : '–';
  $('#receipt-lines').replaceChildren(...lines.map((line) => {
    const row = document.createElement('tr');
    const label = document.createElement('td');
    label.textContent = line.detail ? `${line.label} (${line.detail})` : line.label;
    const amount = document.createElement('td');
    amount.textContent = formatMoney(line.amount);
    amount.className = 'amount';
    row.append(label, amount);
    return row;
  }));
  $('#receipt-basis').textContent = receipt?.basis === 'booked_route'
    ? 'No positions were recorded during the ride, so the fare is for the booked route.'
    : receipt?.basis === 'trail' ? 'The fare is for the route driven, shown on the map.' : '';
  trailLine?.remove();
  trailLine = null;
  if (receipt?.trail_polyline) {
    const points = decodePolyline(receipt.trail_polyline);
    if (points.length > 1) {
      routeLine?.remove();
      routeLine = null;
      trailLine = L.polyline(points, { color: '#146c2e', weight: 6, opacity: 0.9, interactive: false }).addTo(map);
      fitTo(map, trailLine.getBounds());
    }
  }
  car.remove();
  if (booking.rating) showRated(booking.rating.stars);
  else $('#rating').hidden = false;
  $('#receipt').scrollIntoView({ block: 'start' });
  announce(`Trip completed. Fare ${formatMoney(total)}.`);
}

function showStars(n) {
  document.querySelectorAll('#rating [data-stars]').forEach((button) => {
    const on = Number(button.dataset.stars) <= n;
    button.classList.toggle('on', on);
    button.setAttribute('aria-checked', String(Number(button.dataset.stars) === n));
    button.setAttribute('role', 'radio');
  });
}

function showRated(stars) {
  $('#rating').hidden = true;
  $('#rated').textContent = `Thank you: you gave your driver ${stars} ${stars === 1 ? 'star' : 'stars'}.`;
  $('#rated').hidden = false;
}

document.querySelectorAll('#rating [data-stars]').forEach((button) => button.addEventListener('click', () => {
  state.rating = Number(button.dataset.stars);
  showStars(state.rating);
}));

$('#rating').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = event.submitter || $('#rating button[type=submit]');
  if (!state.rating) return errors.at(button, 'Choose from 1 to 5 stars first.');
  whileBusy(button, 'Sending…', async () => {
    errors.clear();
    try {
      const comment = $('#rating-comment').value.trim();
      await api('POST', `/v1/bookings/${state.booking.id}/rating`, {
        token: state.rider.token, body: comment ? { stars: state.rating, comment } : { stars: state.rating },
      });
      showRated(state.rating);
    } catch (error) {
      errors.at(button, error);
    }
  });
});

$('#cancel').addEventListener('click', () => whileBusy($('#cancel'), 'Cancelling…', async () => {
  errors.clear();
  try {
    const booking = await api('POST', `/v1/bookings/${state.booking.id}/cancel`, {
      token: state.rider.token, body: { reason: 'Cancelled by the rider in the web app' },
    });
    setStatus(booking.status, booking);
    const fee = booking.cancellation?.fee;
    notify(fee && fee.amount_minor > 0 ? `Cancelled. Cancellation fee ${formatMoney(fee)}.` : 'Booking cancelled, free of charge.');
  } catch (error) {
    errors.at($('#cancel'), error);
  }
}));

// Sharing: the browser's share sheet where it has one, else the link to copy.
$('#share').addEventListener('click', () => whileBusy($('#share'), 'Sharing…', async () => {
  errors.clear();
  let link;
  try {
    const answer = await api('POST', `/v1/bookings/${state.booking.id}/share`, { token: state.rider.token });
    link = new URL(answer.url, location.origin).href;
  } catch (error) {
    return errors.at($('#share'), error);
  }
  $('#share-link').value = link;
  $('#share-box').hidden = false;
  const shared = { title: 'My SwiftCab trip', text: 'Follow my cab live:', url: link };
  if (navigator.share && (!navigator.canShare || navigator.canShare(shared))) {
    try {
      await navigator.share(shared);
      return notify('Trip shared. Whoever has the link sees your trip until it ends.');
    } catch (error) {
      if (error.name === 'AbortError') return notify('Not shared. The link is below if you want to copy it.');
    }
  }
  await copyLink();
}));

async function copyLink() {
  const link = $('#share-link').value;
  try {
    await navigator.clipboard.writeText(link);
    notify('Tracking link copied. Paste it to share your trip.');
  } catch {
    $('#share-link').select();
    notify('Copy the tracking link to share your trip.');
  }
}

$('#copy-link').addEventListener('click', copyLink);

$('#new-trip').addEventListener('click', () => {
  state.stream?.close();
  Object.assign(state,
    { booking: null, stream: null, dropoff: null, dropoffName: '', estimate: null, bookingKey: null });
  clearTripView();
  routeLine?.remove();
  routeLine = null;
  markers.dropoff?.remove();
  markers.dropoff = null;
  $('#booking').hidden = true;
  $('#status').dataset.status = '';
  $('#estimate').hidden = true;
  $('#planner').hidden = false;
  $('#search').value = '';
  $('#save-place').hidden = true; // the previous destination's "Save as" buttons
  showNoResults('');
  refreshNearbyCars();
  $('#search').focus();
});

// Start: the account, then a booking still in progress (after a reload), else the location.
(async () => {
  try {
    await ensureRider();
  } catch (error) {
    fail(`Could not create your rider account: ${error.message}`);
  }
  const open = stored.get('cab.booking');
  if (open && state.rider) {
    try {
      const booking = await api('GET', `/v1/bookings/${open}`, { token: state.rider.token });
      if (!isTerminal(booking.status)) return showBooking(booking);
    } catch (error) {
      if (error.status !== 404) fail(error);
    }
    stored.set('cab.booking', null);
  }
  locate();
})();
