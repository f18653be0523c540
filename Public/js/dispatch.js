// The dispatcher page (/dispatch): every driver live, trips in progress, nearest drivers on click, pickup stats.
/* global L */
import { api, openStream, stored } from './api.js';
import { createMap } from './basemap.js';
import { $, announce, clearError, formatKm, isTerminal, showError, statusText } from './ui.js';

const errorBox = $('#error');
const fail = (error) => showError(errorBox, error);
const COLOURS = { available: '#1e8e3e', online: '#1e8e3e', offline: '#8a8f98' };
const SILENT_AFTER_MS = 120000; // the server's rule: a driver silent for 2 minutes drops out of `nearby`
const colourOf = (status) => COLOURS[status] || '#0b57d0';

let token = stored.get('cab.dispatcher');
let stream = null;
let timers = [];
const drivers = new Map(); // id -> { marker, status, updatedAt (ms of the newest fix) }
const names = new Map(); // driver id -> "Name (PLATE)", from nearby answers
let nearbyLayer = null;

const map = createMap($('#map'), { onError: fail });

function showBoard() {
  $('#signin').hidden = !!token;
  $('#board').hidden = !token;
}

$('#signin').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearError(errorBox);
  const candidate = $('#token').value.trim();
  try {
    await api('GET', '/v1/stats', { token: candidate });
  } catch (error) {
    return fail(error.status === 401 ? 'That token is not a dispatcher token. Check it and try again.' : error);
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
  Object.assign(entry, { status: p.status, updatedAt: Date.parse(p.updated_at) || Date.now() });
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

async function refreshTrips() {
  try {
    const answer = await api('GET', '/v1/bookings?limit=50', { token });
    const open = (answer.bookings || []).filter((b) => !isTerminal(b.status));
    $('#trips').replaceChildren(...open.map((b) => {
      const row = cells(document.createElement('tr'), [
        b.id, statusText[b.status] || b.status, b.driver?.name || '–',
        `${clock(b.promised_pickup_at)} / ${clock(b.actual_pickup_at)}`,
      ]);
      row.title = `Pickup: ${b.pickup_name || `${b.pickup.lat}, ${b.pickup.lon}`}`;
      return row;
    }));
    $('#trips-empty').hidden = open.length > 0;
  } catch (error) {
    fail(`Trips could not be loaded: ${error.message}`);
  }
}

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
  clearError(errorBox);
  try {
    const answer = await api('GET', `/v1/drivers/nearby?lat=${latlng.lat.toFixed(6)}&lon=${latlng.lng.toFixed(6)}&k=5`, { token });
    learnNames(answer.drivers);
    nearbyLayer?.remove();
    nearbyLayer = L.layerGroup(answer.drivers.map((d) =>
      L.polyline([latlng, [d.position.lat, d.position.lon]], { color: '#6b2fbf', weight: 2, dashArray: '4 4' })))
      .addTo(map);
    $('#nearby').replaceChildren(...answer.drivers.map((d) => {
      const item = document.createElement('li');
      item.textContent = `${driverLabel(d.id)} — ${formatKm(d.distance_m)} away, ${d.status}`;
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
