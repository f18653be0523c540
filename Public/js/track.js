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
let currentStatus = null;
let redispatching = false; // the trip went back to dispatch: "Finding you another driver"
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
  currentStatus = trip.status;
  setStatus(trip.status, trip);
  $('#from').textContent = trip.pickup_name || (trip.pickup ? `${trip.pickup.lat}, ${trip.pickup.lon}` : '–');
  $('#to').textContent = trip.dropoff_name || (trip.dropoff ? `${trip.dropoff.lat}, ${trip.dropoff.lon}` : '–');
  if (trip.driver) showDriver(trip.driver);
  if (!placed && trip.pickup && trip.dropoff) {
    placed = true;
    ends = { pickup: trip.pickup, dropoff: trip.dropoff,
      route: trip.route?.geometry?.coordinates?.map(([lon, lat]) => [lat, lon]) || null };
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
  if (Number.isFinite(trip.eta_s) && ['accepted', 'arriving'].includes(trip.status)) showEta('pickup', trip.eta_s);
  if (Number.isFinite(trip.dropoff_eta_s) && trip.status === 'in_progress') showEta('dropoff', trip.dropoff_eta_s);
}

function setStatus(status, detail = null) {
  if (status !== 'dispatching') redispatching = false;
  const redispatched = status === 'dispatching'
    && (redispatching || !!detail?.redispatch || detail?.redispatch_count > 0);
  $('#status').textContent = redispatched ? statusText.redispatching : statusText[status] || 'Trip updated';
  $('#status').dataset.status = status;
  if (status === 'dispatching' || status === 'requested') {
    $('#driver').hidden = true; // a previous driver is not the one coming
    car.remove();
    hideEta();
  }
  if (status === 'arrived' || status === 'in_progress') {
    if ($('#eta').dataset.kind === 'pickup') hideEta(); // the pickup ETA is over once the driver is there
    if (status === 'in_progress') $('#alert').hidden = true;
  }
  if (isTerminal(status)) end();
}

function hideEta() {
  $('#eta').hidden = true;
  $('#eta').dataset.kind = '';
  delete $('#eta').dataset.etaS;
}

function showDriver(driver) {
  $('#driver').textContent = `Driver: ${[driver.name, driver.vehicle, driver.plate].filter(Boolean).join(' · ')}`;
  $('#driver').hidden = false;
}

function showEta(kind, seconds) {
  $('#eta').hidden = false;
  $('#eta').dataset.kind = kind;
  $('#eta').dataset.etaS = String(Math.round(seconds));
  $('#eta').textContent = kind === 'dropoff' ? `At the destination in ${formatMin(seconds)}`
    : `Driver at the pickup in ${formatMin(seconds)}`;
}

let ends = null; // { pickup, dropoff } of the shared trip

function moved(p, time) {
  // During the ride the car glides along the booked route between fixes.
  car.followRoad(currentStatus === 'in_progress' ? ends?.route : null);
  car.moveTo([p.lat, p.lon], p.heading);
  const target = currentStatus === 'in_progress' ? ends?.dropoff : ends?.pickup;
  const view = map.getBounds().pad(-0.08);
  if (target && !(view.contains([p.lat, p.lon]) && view.contains([target.lat, target.lon]))) {
    fitTo(map, L.latLngBounds([[p.lat, p.lon], [target.lat, target.lon]])); // keep the car in view
  }
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
    status: (data) => {
      currentStatus = data?.status || data;
      setStatus(currentStatus, data);
      if (data?.driver && !['dispatching', 'requested'].includes(currentStatus)) showDriver(data.driver);
    },
    redispatch: (data) => {
      redispatching = true;
      currentStatus = 'dispatching';
      setStatus('dispatching', { redispatch: data });
    },
    driver: (data) => showDriver(data?.driver || data),
    position: (data) => moved(data, data.time),
    eta: (data) => { if (['accepted', 'arriving'].includes(currentStatus)) showEta('pickup', data.eta_s); },
    dropoff_eta: (data) => { if (currentStatus === 'in_progress') showEta('dropoff', data.eta_s); },
    alert: (data) => {
      if (!data?.message) return; // the server's words, as written; a bare kind is not for people
      $('#alert').textContent = data.message;
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
