// The dispatcher page (/dispatch): every driver live, trips in progress, nearest drivers on click, pickup stats.
/* global L */
import { api, openStream, stored } from './api.js';
import { createMap, fitTo } from './basemap.js';
import { pinIcon } from './car-marker.js';
import { $, announce, errorPlacer, formatKm, formatMin, isTerminal, statusText, whileBusy } from './ui.js';

const errors = errorPlacer($('#error'));
const fail = (error) => errors.show(error);
const clearError = () => errors.clear();
const COLOURS = { available: '#1e8e3e', online: '#1e8e3e', offline: '#8a8f98' };
const SILENT_AFTER_MS = 120000; // the server's rule: a driver silent for 2 minutes drops out of `nearby`
const colourOf = (status) => COLOURS[status] || '#0b57d0';

let token = stored.get('cab.dispatcher');
let stream = null;
let timers = [];
const drivers = new Map(); // id -> { marker, status, updatedAt (ms of the newest fix) }
const names = new Map(); // driver id -> "Name (PLATE)", from nearby answers
const ratings = new Map(); // driver id -> { rating, count }, from nearby answers

/** ", ★ 4.8 (12 ratings)" or ", no ratings yet"; empty when the server does not rate drivers. */
function ratingText(id) {
  const r = ratings.get(id);
  if (!r) return '';
  if (!r.count || !Number.isFinite(r.rating)) return ', no ratings yet';
  return `, ★ ${r.rating.toFixed(1)} (${r.count} ${r.count === 1 ? 'rating' : 'ratings'})`;
}
let nearbyLayer = null;
let openTrips = []; // the open trips as last listed
let selected = null; // the id of the trip shown in #trip-detail
let selectedLayer = null;
let pickupsLayer = null; // every open trip's pickup

const map = createMap($('#map'), { onError: fail });

function showBoard() {
  $('#signin').hidden = !!token;
  $('#board').hidden = !token;
}

$('#signin').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearError();
  const candidate = $('#token').value.trim();
  try {
    await api('GET', '/v1/stats', { token: candidate });
  } catch (error) {
    return errors.at(event.submitter || $('#signin button'),
      error.status === 401 ? 'That token is not a dispatcher token. Check it and try again.' : error);
  }
  token = candidate;
  stored.set('cab.dispatcher', token);
  start();
});

$('#sign-out').addEventListener('click', () => {
  stop();
  token = null;
  stored.set('cab.dispatcher', null);
  showBoard();
});

function start() {
  showBoard();
  stream = openStream('/v1/fleet/stream', token, { position: onPosition }, {
    onError: (message) => announce(message),
    onOpen: refreshDrivers, // the stream sends only changes: drivers standing still are read once on (re)connect
  });
  refreshTrips();
  refreshStats();
  timers = [setInterval(refreshTrips, 10000), setInterval(refreshStats, 15000), setInterval(renderCounts, 5000),
    setInterval(refreshDrivers, 30000)];
}

function stop() {
  stream?.close();
  timers.forEach(clearInterval);
  drivers.forEach((d) => d.marker.remove());
  drivers.clear();
}

function onPosition(p) {
  let entry = drivers.get(p.driver_id);
  const style = { radius: 8, color: '#fff', weight: 2, fillColor: colourOf(p.status), fillOpacity: 1 };
  if (!entry) {
    const marker = L.circleMarker([p.lat, p.lon], style).addTo(map);
    marker.bindTooltip('');
    entry = { marker };
    drivers.set(p.driver_id, entry);
  }
  entry.marker.setLatLng([p.lat, p.lon]).setStyle(style);
  entry.marker.setTooltipContent(`${driverLabel(p.driver_id)}: ${p.status}`);
  Object.assign(entry, { status: p.status, lat: p.lat, lon: p.lon, updatedAt: Date.parse(p.updated_at) || Date.now() });
  renderCounts();
}

/** "Name (PLATE)" once a nearby answer has told us, else the driver's id (the fleet stream carries ids only). */
function driverLabel(id) {
  return names.get(id) || `Driver ${id}`;
}

/** Remembers the names and plates a nearby answer carries. */
function learnNames(list) {
  for (const d of list || []) {
    if (d.name) names.set(d.id, d.plate ? `${d.name} (${d.plate})` : d.name);
    if (d.ratings_count !== undefined) ratings.set(d.id, { rating: d.rating, count: d.ratings_count || 0 });
  }
}

/** Reads every driver who reported in the last 2 minutes (any status) around the map centre. */
async function refreshDrivers() {
  const c = map.getCenter();
  try {
    const answer = await api('GET', `/v1/drivers/nearby?lat=${c.lat.toFixed(6)}&lon=${c.lng.toFixed(6)}`
      + '&k=100&status=available,busy,offline', { token });
    learnNames(answer.drivers);
    for (const d of answer.drivers || []) {
      const known = drivers.get(d.id);
      if (known && known.updatedAt >= Date.parse(d.updated_at)) continue; // the stream was newer
      onPosition({ driver_id: d.id, lat: d.position.lat, lon: d.position.lon, status: d.status, updated_at: d.updated_at });
    }
  } catch (error) {
    fail(`Drivers could not be loaded: ${error.message}`);
  }
}

function renderCounts() {
  const counts = {};
  const now = Date.now();
  drivers.forEach((d, id) => {
    if (now - d.updatedAt > SILENT_AFTER_MS) {
      d.marker.remove();
      drivers.delete(id);
    }
  });
  drivers.forEach((d) => { counts[d.status] = (counts[d.status] || 0) + 1; });
  const parts = Object.entries(counts).map(([status, n]) => `${n} ${status}`);
  const total = drivers.size === 1 ? '1 driver' : `${drivers.size} drivers`;
  $('#driver-counts').textContent = drivers.size ? `${total}: ${parts.join(', ')}.` : 'No drivers seen yet.';
  $('#driver-counts').dataset.total = String(drivers.size);
}

const clock = (iso) => (iso ? new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' }) : '–');
const seconds = (s) => (Math.abs(s) < 90 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

function cells(row, texts) {
  for (const text of texts) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  return row;
}

/** The open trips: `GET /v1/trips?open=true`, or the newest bookings where the server has no trip list. */
async function loadOpenTrips() {
  try {
    return (await api('GET', '/v1/trips?open=true', { token })).trips;
  } catch (error) {
    if (error.status !== 404 && error.status !== 405) throw error;
  }
  const answer = await api('GET', '/v1/bookings?limit=50', { token });
  return (answer.bookings || []).filter((b) => !isTerminal(b.status));
}

// The id's random tail: the server's `short_id` is the id's head, which is its creation time and the same for
// every trip booked in the same minute, so it does not tell trips apart on the board.
const shortId = (trip) => String(trip.id).slice(-6);
const isLate = (trip) => trip.late ?? (!!trip.promised_pickup_at && !trip.actual_pickup_at
  && Date.parse(trip.promised_pickup_at) < Date.now());
// Abandoned: late, and its driver has not reported for two minutes (or is gone from the board).
const isAbandoned = (trip) => isLate(trip) && !!trip.driver && !drivers.has(trip.driver.id);

async function refreshTrips() {
  let open;
  try {
    open = await loadOpenTrips();
  } catch (error) {
    return fail(`Trips could not be loaded: ${error.message}`);
  }
  openTrips = open;
  $('#trips').replaceChildren(...open.map((b) => {
    const status = b.status === 'dispatching' && b.redispatch_count > 0
      ? statusText.redispatching : statusText[b.status] || 'Open';
    const row = cells(document.createElement('tr'), [
      shortId(b), status, b.driver?.name || '–',
      `${b.pickup_name || `${b.pickup.lat}, ${b.pickup.lon}`} · `
        + `${clock(b.promised_pickup_at)} / ${clock(b.actual_pickup_at)}`,
    ]);
    row.dataset.tripId = b.id;
    row.firstChild.className = 'short-id';
    row.firstChild.title = b.id;
    const late = isLate(b);
    const abandoned = isAbandoned(b);
    row.classList.toggle('late', late && !abandoned);
    row.classList.toggle('abandoned', abandoned);
    row.classList.toggle('selected', b.id === selected);
    if (late || b.redispatch_count > 0) {
      const badge = document.createElement('span');
      badge.className = 'badge';
      badge.textContent = abandoned ? 'abandoned' : late ? 'late' : `re-dispatched ${b.redispatch_count}×`;
      if (abandoned) badge.style.background = '#7a1d16';
      row.children[1].append(' ', badge);
    }
    row.tabIndex = 0;
    row.addEventListener('click', () => select(b.id));
    row.addEventListener('keydown', (event) => { if (event.key === 'Enter') select(b.id); });
    return row;
  }));
  $('#trips-empty').hidden = open.length > 0;
  // Every open trip's pickup on the map (red when late); a click opens the trip.
  pickupsLayer?.remove();
  pickupsLayer = L.layerGroup(open.map((b) => L.circleMarker([b.pickup.lat, b.pickup.lon], {
    radius: 6, color: '#fff', weight: 2, fillOpacity: 1, fillColor: isLate(b) ? '#b3261e' : '#146c2e',
    className: 'open-pickup',
  }).bindTooltip(`Pickup of ${shortId(b)}: ${b.pickup_name || 'on the map'}`).on('click', (event) => {
    L.DomEvent.stopPropagation(event);
    select(b.id);
  }))).addTo(map);
  if (selected && !open.some((b) => b.id === selected)) unselect();
  else if (selected) showDetail(open.find((b) => b.id === selected), false);
}

function unselect() {
  selected = null;
  selectedLayer?.remove();
  selectedLayer = null;
  $('#trip-detail').hidden = true;
}

function select(id) {
  selected = id;
  document.querySelectorAll('#trips tr').forEach((row) => row.classList.toggle('selected', row.dataset.tripId === id));
  showDetail(openTrips.find((b) => b.id === id), true);
}

/** The selected trip: its pickup and drop-off, the driver's route there, and what a dispatcher can do. */
async function showDetail(trip, fresh) {
  if (!trip) return unselect();
  $('#trip-detail').hidden = false;
  $('#trip-detail').dataset.tripId = trip.id;
  $('#detail-id').textContent = shortId(trip);
  $('#detail-id').title = trip.id;
  const late = isLate(trip) ? ' Late: past the promised pickup.' : '';
  $('#detail-text').textContent = `${statusText[trip.status] || 'Open'}. Pickup: ${trip.pickup_name || 'on the map'}; `
    + `drop-off: ${trip.dropoff_name || 'on the map'}. Driver: ${trip.driver?.name || 'none yet'}.${late}`;
  const driving = ['accepted', 'arriving', 'arrived', 'in_progress'].includes(trip.status);
  $('#detail-redispatch').hidden = !driving || trip.status === 'in_progress';
  $('#detail-assign').hidden = driving;
  $('#detail-driver').hidden = driving;
  if (!fresh) return;
  $('#trip-detail').scrollIntoView({ block: 'nearest' });
  selectedLayer?.remove();
  selectedLayer = L.layerGroup([
    L.marker([trip.pickup.lat, trip.pickup.lon], { icon: pinIcon('pickup'), title: 'Pickup', keyboard: false }),
    L.marker([trip.dropoff.lat, trip.dropoff.lon], { icon: pinIcon('dropoff'), title: 'Drop-off', keyboard: false }),
  ]).addTo(map);
  const bounds = L.latLngBounds([[trip.pickup.lat, trip.pickup.lon], [trip.dropoff.lat, trip.dropoff.lon]]);
  const car = trip.driver && drivers.get(trip.driver.id);
  $('#detail-route').textContent = '';
  if (car && Number.isFinite(car.lat)) {
    bounds.extend([car.lat, car.lon]);
    const to = trip.status === 'in_progress' ? trip.dropoff : trip.pickup;
    try {
      const route = await api('GET', `/v1/route?from=${car.lat},${car.lon}&to=${to.lat},${to.lon}`);
      if (selected !== trip.id) return;
      selectedLayer.addLayer(L.geoJSON(route.geometry, {
        style: { color: '#6b2fbf', weight: 5, opacity: 0.85 }, interactive: false }));
      const where = trip.status === 'in_progress' ? 'to the drop-off' : 'to the pickup';
      $('#detail-route').textContent = `The driver's route ${where}: `
        + `${formatKm(route.distance_m)}, ${formatMin(route.duration_s)}.`;
    } catch (error) {
      $('#detail-route').textContent = `No route from the driver: ${error.message}`;
    }
  }
  fitTo(map, bounds);
  if (!$('#detail-driver').hidden) loadAssignable(trip);
}

/** Fills the driver picker with the available drivers nearest to the pickup. */
async function loadAssignable(trip) {
  const picker = $('#detail-driver');
  try {
    const answer = await api('GET', `/v1/drivers/nearby?lat=${trip.pickup.lat}&lon=${trip.pickup.lon}&k=10`, { token });
    learnNames(answer.drivers);
    picker.replaceChildren(...(answer.drivers || []).map((d) => {
      const option = document.createElement('option');
      option.value = d.id;
      option.textContent = `${driverLabel(d.id)} — ${formatKm(d.distance_m)}${ratingText(d.id)}`;
      return option;
    }));
    if (!picker.options.length) {
      const none = document.createElement('option');
      none.value = '';
      none.textContent = 'No available driver nearby';
      picker.append(none);
    }
  } catch (error) {
    errors.at($('#detail-assign'), `Drivers could not be loaded: ${error.message}`);
  }
}

/** One dispatcher action on the selected trip; the server's refusal shows beside the button. */
function tripAction(button, busy, path, body) {
  return whileBusy(button, busy, async () => {
    clearError();
    try {
      await api('POST', `/v1/trips/${selected}/${path}`, { token, body });
      announce('Done.');
      await refreshTrips();
      if (selected) select(selected); // its new driver, route and actions
    } catch (error) {
      errors.at(button, error);
    }
  });
}

$('#detail-redispatch').addEventListener('click', () =>
  tripAction($('#detail-redispatch'), 'Re-dispatching…', 'redispatch', {}));
$('#detail-cancel').addEventListener('click', () =>
  tripAction($('#detail-cancel'), 'Cancelling…', 'cancel', { reason: 'Cancelled by the dispatcher' }));
$('#detail-assign').addEventListener('click', () => {
  const driverId = $('#detail-driver').value;
  if (!driverId) return errors.at($('#detail-assign'), 'Choose a driver to assign first.');
  return tripAction($('#detail-assign'), 'Assigning…', 'assign', { driver_id: driverId });
});

async function refreshStats() {
  try {
    const stats = await api('GET', '/v1/stats', { token });
    const picked = stats.trips_picked_up || 0;
    const rows = [
      ['Trips picked up', String(picked)],
      ['On time', picked ? `${stats.on_time} (${Math.round(stats.on_time_share * 100)} %)` : '–'],
      ['Promised wait (mean)', picked ? seconds(stats.mean_promised_wait_s) : '–'],
      ['Actual wait (mean)', picked ? seconds(stats.mean_actual_wait_s) : '–'],
      ['Lateness (median / 90 %)', picked ? `${seconds(stats.median_delay_s)} / ${seconds(stats.p90_delay_s)}` : '–'],
      ['Late pickups', Number.isFinite(stats.late) ? String(stats.late) : '–'],
      ['Abandoned (no driver found, expired)', Number.isFinite(stats.abandoned) ? String(stats.abandoned) : '–'],
      ['Re-dispatched', Number.isFinite(stats.redispatched)
        ? `${stats.redispatched} trips (${stats.redispatches ?? stats.redispatched} times)` : '–'],
      ['Trips by state', Object.entries(stats.trips || {}).map(([k, n]) => `${n} ${statusText[k] || k}`).join('; ') || 'none yet'],
    ];
    $('#stats').replaceChildren(...rows.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }));
  } catch (error) {
    fail(`Statistics could not be loaded: ${error.message}`);
  }
}

async function nearest(latlng) {
  clearError();
  try {
    const answer = await api('GET', `/v1/drivers/nearby?lat=${latlng.lat.toFixed(6)}&lon=${latlng.lng.toFixed(6)}&k=5`, { token });
    learnNames(answer.drivers);
    nearbyLayer?.remove();
    nearbyLayer = L.layerGroup(answer.drivers.map((d) =>
      L.polyline([latlng, [d.position.lat, d.position.lon]], { color: '#6b2fbf', weight: 2, dashArray: '4 4' })))
      .addTo(map);
    $('#nearby').replaceChildren(...answer.drivers.map((d) => {
      const item = document.createElement('li');
      item.textContent = `${driverLabel(d.id)} — ${formatKm(d.distance_m)} away, ${d.status}${ratingText(d.id)}`;
      return item;
    }));
    const n = answer.drivers.length;
    announce(n === 0 ? 'No available driver near there.' : n === 1 ? '1 driver nearby.' : `${n} drivers nearby.`);
  } catch (error) {
    fail(error);
  }
}

map.on('click', (event) => token && nearest(event.latlng));
$('#nearby-centre').addEventListener('click', () => nearest(map.getCenter()));

if (token) start();
else showBoard();
