// The rider page (/): pickup, destination, estimate, Book Now, then the trip live.
/* global L */
import { api, fetchBlob, newIdempotencyKey, openStream, stored } from './api.js';
import { createMap, fitTo } from './basemap.js';
import { CarMarker, pinIcon } from './car-marker.js';
import { myPlaces, offerToSave, placeOption } from './place-results.js';
import { $, announce, clearError, debounce, formatKm, formatMin, formatMoney, isTerminal, notify, showError, statusText,
  whileBusy } from './ui.js';

const errorBox = $('#error');
const fail = (error) => showError(errorBox, error);
const point = (latlng) => ({ lat: +latlng.lat.toFixed(6), lon: +latlng.lng.toFixed(6) });

const state = {
  rider: stored.get('cab.rider'),
  pickup: null, pickupName: '', dropoff: null, dropoffName: '',
  picking: 'pickup', estimate: null, booking: null, stream: null, bookingKey: null,
};

const map = createMap($('#map'), { onError: fail });
const markers = { pickup: null, dropoff: null };
let routeLine = null;
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

async function reverseName(p) {
  try {
    const answer = await api('GET', `/v1/places/reverse?lat=${p.lat}&lon=${p.lon}`);
    const place = answer?.result;
    return place ? [place.name, place.address].filter(Boolean).join(', ') : `${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}`;
  } catch (error) {
    fail(`Could not look up the address: ${error.message}`);
    return `${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}`;
  }
}

function placeMarker(kind, p, title) {
  markers[kind]?.remove();
  markers[kind] = L.marker([p.lat, p.lon], { icon: pinIcon(kind), title, alt: title, keyboard: false }).addTo(map);
}

async function setPickup(p, name = null) {
  state.pickup = p;
  placeMarker('pickup', p, 'Pickup');
  $('#pickup-name').value = name || 'Looking up the address…';
  state.picking = 'dropoff';
  $('#pick-pickup').setAttribute('aria-pressed', 'false');
  state.pickupName = name || (await reverseName(p));
  $('#pickup-name').value = state.pickupName;
  await updateEstimate();
}

async function setDropoff(p, name = null) {
  state.dropoff = p;
  placeMarker('dropoff', p, 'Destination');
  $('#search').value = name || 'Looking up the address…';
  state.dropoffName = name || (await reverseName(p));
  $('#search').value = state.dropoffName;
  offerToSave($('#save-place'), { name: state.dropoffName, position: p },
    { getRider: ensureRider, done: (text, error) => (error ? fail(error) : announce(text)) });
  announce(`Destination set: ${state.dropoffName}`);
  await updateEstimate();
}

async function updateEstimate() {
  if (!state.pickup || !state.dropoff || state.booking) return;
  clearError(errorBox);
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
    fail(error);
  }
}

function drawRoute(geometry) {
  routeLine?.remove();
  if (!geometry) return;
  routeLine = L.geoJSON(geometry, { style: { color: '#0b57d0', weight: 6, opacity: 0.85 }, interactive: false }).addTo(map);
  const bounds = routeLine.getBounds();
  Object.values(markers).forEach((marker) => marker && bounds.extend(marker.getLatLng()));
  fitTo(map, bounds);
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
      map.setView([p.lat, p.lon], 16);
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
  if (!state.pickup) return fail('Set your pickup first: allow location access or tap the map.');
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

function choose(i) {
  const place = results[i];
  results = [];
  active = -1;
  renderResults();
  if (!state.pickup) return fail('Set your pickup first: allow location access or tap the map.');
  setDropoff({ lat: place.position.lat, lon: place.position.lon }, place.name).catch(fail);
}

const runSearch = debounce(async () => {
  const q = search.value.trim();
  searchAbort?.abort();
  if (q.length < 2) {
    const mine = q ? [] : await myPlaces(state.rider).catch(() => []); // no typing yet: saved and recent places
    if (search.value.trim() === q) [results, active] = [mine, -1];
    return renderResults();
  }
  searchAbort = new AbortController();
  const near = state.pickup || point(map.getCenter());
  try {
    const answer = await api('GET', `/v1/places?q=${encodeURIComponent(q)}&near=${near.lat},${near.lon}&limit=6`,
      { signal: searchAbort.signal });
    results = answer.results || [];
    active = -1;
    renderResults();
    announce(results.length ? `${results.length} results` : 'No places found');
  } catch (error) {
    if (error.name !== 'AbortError') fail(error);
  }
}, 250);

search.addEventListener('input', () => {
  clearError(errorBox);
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
  clearError(errorBox);
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
    fail(error);
  }
}));

function showBooking(booking) {
  state.booking = booking;
  $('#planner').hidden = true;
  $('#booking').hidden = false;
  $('#booking-id').textContent = booking.id;
  $('#booking').dataset.bookingId = booking.id;
  $('#pin').textContent = booking.pin || '';
  if (booking.pickup) placeMarker('pickup', booking.pickup, 'Pickup');
  if (booking.dropoff) placeMarker('dropoff', booking.dropoff, 'Destination');
  if (booking.route?.geometry) drawRoute(booking.route.geometry);
  setStatus(booking.status);
  if (booking.driver) showDriver(booking.driver);
  fetchBlob(booking.qr || `/v1/bookings/${booking.id}/qr.svg`, state.rider.token)
    .then((blob) => { $('#qr').src = URL.createObjectURL(blob); })
    .catch((error) => fail(`The QR code could not be loaded: ${error.message}`));
  if (!isTerminal(booking.status)) follow(booking.id);
}

function setStatus(status) {
  $('#status').textContent = statusText[status] || status;
  $('#status').dataset.status = status;
  const over = isTerminal(status);
  $('#cancel').hidden = over;
  $('#share').hidden = over;
  $('#new-trip').hidden = !over;
  if (over) {
    state.stream?.close();
    state.stream = null;
    $('#eta').hidden = true;
    stored.set('cab.booking', null);
  }
}

function showDriver(driver) {
  const text = [driver.name, driver.vehicle, driver.plate].filter(Boolean).join(' · ');
  $('#driver').textContent = `Your driver: ${text}`;
  $('#driver').hidden = false;
}

function follow(id) {
  state.stream?.close();
  state.stream = openStream(`/v1/bookings/${id}/stream`, state.rider.token, {
    status: (data) => {
      const status = data?.status || data;
      setStatus(status);
      announce(statusText[status] || status);
      if (data?.driver) showDriver(data.driver);
    },
    driver: (data) => showDriver(data?.driver || data),
    position: (data) => {
      $('#map').dataset.carLat = String(data.lat);
      $('#map').dataset.carLon = String(data.lon);
      car.moveTo([data.lat, data.lon], data.heading);
    },
    eta: (data) => {
      const eta = $('#eta');
      eta.hidden = false;
      eta.dataset.etaS = String(Math.round(data.eta_s));
      eta.textContent = `Driver arrives in ${formatMin(data.eta_s)}`;
    },
    alert: (data) => {
      const alert = $('#alert');
      alert.textContent = data.message || data.kind;
      alert.dataset.kind = data.kind || '';
      alert.hidden = false;
    },
  }, { onError: (message) => { if (state.stream) announce(message); } });
}

$('#cancel').addEventListener('click', () => whileBusy($('#cancel'), 'Cancelling…', async () => {
  clearError(errorBox);
  try {
    const booking = await api('POST', `/v1/bookings/${state.booking.id}/cancel`, {
      token: state.rider.token, body: { reason: 'Cancelled by the rider in the web app' },
    });
    setStatus(booking.status);
    const fee = booking.cancellation?.fee;
    notify(fee && fee.amount_minor > 0 ? `Cancelled. Cancellation fee ${formatMoney(fee)}.` : 'Booking cancelled, free of charge.');
  } catch (error) {
    fail(error);
  }
}));

$('#share').addEventListener('click', () => whileBusy($('#share'), 'Sharing…', async () => {
  clearError(errorBox);
  try {
    const answer = await api('POST', `/v1/bookings/${state.booking.id}/share`, { token: state.rider.token });
    const link = new URL(answer.url, location.origin).href;
    $('#share-link').value = link;
    $('#share-link').hidden = false;
    $('#share-link-label').hidden = false;
    try {
      await navigator.clipboard.writeText(link);
      notify('Tracking link copied. Paste it to share your trip.');
    } catch {
      $('#share-link').select();
      notify('Copy the tracking link below to share your trip.');
    }
  } catch (error) {
    fail(error);
  }
}));

$('#new-trip').addEventListener('click', () => {
  state.booking = null;
  state.dropoff = null;
  state.estimate = null;
  state.bookingKey = null;
  car.remove();
  routeLine?.remove();
  markers.dropoff?.remove();
  $('#booking').hidden = true;
  $('#alert').hidden = true;
  $('#notice').hidden = true;
  $('#share-link').hidden = true;
  $('#share-link-label').hidden = true;
  $('#estimate').hidden = true;
  $('#planner').hidden = false;
  $('#search').value = '';
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
