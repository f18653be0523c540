// The tracking-link page (/t/{token}): a shared trip, no account. Stops when the link dies (404/410).
/* global L */
import { api, openStream } from './api.js';
import { createMap, fitTo } from './basemap.js';
import { CarMarker, pinIcon } from './car-marker.js';
import { $, announce, formatMin, isTerminal, showError, statusText } from './ui.js';

const STALE_AFTER_S = 60;
const token = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() || '');
const errorBox = $('#error');
const map = createMap($('#map'), { onError: (message) => showError(errorBox, message) });
const car = new CarMarker(map, { title: 'Driver' });
let stream = null;
let lastUpdate = null;
let placed = false;
let tripLayers = [];

function end() {
  stream?.close();
  stream = null;
  $('#trip').hidden = true;
  $('#ended').hidden = false;
  document.body.dataset.ended = 'true';
  car.remove();
  tripLayers.forEach((layer) => layer.remove()); // a dead link shows no more of the trip
  tripLayers = [];
  announce('This tracking link has ended.');
}

function show(trip) {
  $('#trip').hidden = false;
  setStatus(trip.status);
  $('#from').textContent = trip.pickup_name || (trip.pickup ? `${trip.pickup.lat}, ${trip.pickup.lon}` : '–');
  $('#to').textContent = trip.dropoff_name || (trip.dropoff ? `${trip.dropoff.lat}, ${trip.dropoff.lon}` : '–');
  if (trip.driver) showDriver(trip.driver);
  if (!placed && trip.pickup && trip.dropoff) {
    placed = true;
    tripLayers.push(
      L.marker([trip.pickup.lat, trip.pickup.lon], { icon: pinIcon('pickup'), title: 'Pickup', keyboard: false }).addTo(map),
      L.marker([trip.dropoff.lat, trip.dropoff.lon], { icon: pinIcon('dropoff'), title: 'Drop-off', keyboard: false }).addTo(map));
    const geometry = trip.route?.geometry;
    if (geometry) {
      tripLayers.push(L.geoJSON(geometry, { style: { color: '#0b57d0', weight: 5, opacity: 0.8 }, interactive: false }).addTo(map));
    }
    fitTo(map, [[trip.pickup.lat, trip.pickup.lon], [trip.dropoff.lat, trip.dropoff.lon]]);
  }
  const position = trip.position || trip.driver_position;
  if (position) moved(position, trip.updated_at);
  if (Number.isFinite(trip.eta_s)) showEta(trip.eta_s);
}

function setStatus(status) {
  $('#status').textContent = statusText[status] || status;
  $('#status').dataset.status = status;
  if (isTerminal(status)) end();
}

function showDriver(driver) {
  $('#driver').textContent = `Driver: ${[driver.name, driver.vehicle, driver.plate].filter(Boolean).join(' · ')}`;
  $('#driver').hidden = false;
}

function showEta(seconds) {
  $('#eta').hidden = false;
  $('#eta').dataset.etaS = String(Math.round(seconds));
  $('#eta').textContent = `Arriving in ${formatMin(seconds)}`;
}

function moved(p, time) {
  car.moveTo([p.lat, p.lon], p.heading);
  lastUpdate = time ? Date.parse(time) : Date.now();
}

setInterval(() => {
  if (!lastUpdate) return;
  const age = Math.max(0, Math.round((Date.now() - lastUpdate) / 1000));
  const stale = age > STALE_AFTER_S;
  $('#updated').textContent = stale ? `No update for ${age} s — the driver's position may be out of date.` : `Updated ${age} s ago`;
  $('#updated').dataset.stale = String(stale);
}, 1000);

async function load() {
  if (!token) return end();
  try {
    show(await api('GET', `/v1/track/${encodeURIComponent(token)}`));
  } catch (error) {
    if (error.status === 404 || error.status === 410) return end();
    return showError(errorBox, error);
  }
  if ($('#ended').hidden) follow();
}

function follow() {
  stream = openStream(`/v1/track/${encodeURIComponent(token)}/stream`, null, {
    status: (data) => setStatus(data?.status || data),
    driver: (data) => showDriver(data?.driver || data),
    position: (data) => moved(data, data.time),
    eta: (data) => showEta(data.eta_s),
    alert: (data) => {
      $('#alert').textContent = data.message || data.kind;
      $('#alert').hidden = false;
    },
  }, {
    onError: async () => {
      // The stream closes when the link dies; ask once whether the trip is still shared.
      try {
        await api('GET', `/v1/track/${encodeURIComponent(token)}`);
      } catch (error) {
        if (error.status === 404 || error.status === 410) end();
      }
    },
  });
}

load();
