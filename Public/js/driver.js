// The driver page (/driver): account, online/offline, location sharing, offers, and the trip from pickup to drop-off.
/* global L */
import { api, openStream, stored } from './api.js';
import { createMap, fitTo } from './basemap.js';
import { CarMarker, pinIcon } from './car-marker.js';
import { LocationReporter } from './location-reporter.js';
import { $, announce, clearError, formatKm, formatMin, formatMoney, isTerminal, notify, showError, statusText,
  whileBusy } from './ui.js';

const errorBox = $('#error');
const fail = (error) => showError(errorBox, error);
const params = new URLSearchParams(location.search);

let driver = stored.get('cab.driver');
let online = false;
let stream = null;
let watchId = null;
let tickTimer = null;
let offer = null;
let offerTimer = null;
let trip = null;
let here = null;
let tripLayers = [];

const map = createMap($('#map'), { onError: fail });
const me = new CarMarker(map, { title: 'You' });

const reporter = new LocationReporter({
  minIntervalS: Number(params.get('report_interval_s')) || 20,
  send: async (fixes) => {
    try {
      return await api('POST', '/v1/driver/locations', { token: driver.token, body: { fixes } });
    } catch (error) {
      if (error.status === 429) error.retryAfterS = 20;
      throw error;
    }
  },
  onError: (error) => {
    $('#location-state').textContent = `Location upload failed (${error.message}); retrying.`;
  },
});

/** Keeps `account` as the signed-in driver (on this device too) and shows the console. */
function signIn(account, message) {
  driver = account;
  stored.set('cab.driver', driver);
  showSignedIn();
  announce(message);
}

function showSignedIn() {
  $('#signup').hidden = !!driver;
  $('#token-signin').hidden = !!driver;
  $('#console').hidden = !driver;
  if (driver) $('#who').textContent = `${driver.name} · ${driver.vehicle} · ${driver.plate}`;
}

$('#signup').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = event.submitter || $('#signup button');
  whileBusy(button, 'Creating…', async () => {
    clearError(errorBox);
    try {
      const body = { name: $('#driver-name').value.trim(), vehicle: $('#vehicle').value.trim(), plate: $('#plate').value.trim() };
      const answer = await api('POST', '/v1/drivers', { body });
      signIn({ id: answer.id, name: answer.name, vehicle: answer.vehicle, plate: answer.plate, token: answer.token },
        'Driver account created. Go online to receive trips.');
    } catch (error) {
      fail(error);
    }
  });
});

// A token given elsewhere (another device, a fleet manager): GET /v1/me says whose it is.
$('#token-signin').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = event.submitter || $('#token-signin button');
  whileBusy(button, 'Signing in…', async () => {
    clearError(errorBox);
    try {
      const token = $('#driver-token').value.trim();
      const me = await api('GET', '/v1/me', { token });
      if (me.role !== 'driver') throw new Error(`That token belongs to a ${me.role}, not a driver.`);
      $('#driver-token').value = '';
      signIn({ id: me.id, name: me.name, vehicle: me.vehicle, plate: me.plate, token },
        `Signed in as ${me.name}. Go online to receive trips.`);
    } catch (error) {
      fail(error);
    }
  });
});

$('#sign-out').addEventListener('click', async () => {
  if (online) await setOnline(false);
  stored.set('cab.driver', null);
  driver = null;
  showSignedIn();
});

async function setOnline(wanted) {
  clearError(errorBox);
  try {
    await api('POST', '/v1/driver/status', { token: driver.token, body: { status: wanted ? 'online' : 'offline' } });
  } catch (error) {
    return fail(error);
  }
  online = wanted;
  $('#online').textContent = online ? 'Go offline' : 'Go online';
  $('#online').setAttribute('aria-pressed', String(online));
  showOnlineState();
  $('#online-state').dataset.state = online ? 'online' : 'offline';
  if (online) {
    startLocation();
    listen();
  } else {
    stopLocation();
    stream?.close();
    stream = null;
  }
  announce(online ? 'You are online.' : 'You are offline.');
}

$('#online').addEventListener('click', () => whileBusy($('#online'), 'Please wait…', () => setOnline(!online)));

function showOnlineState() {
  const busy = trip && !isTerminal(trip.status);
  $('#online-state').textContent = !online ? 'Offline' : busy ? 'Online — on a trip' : 'Online — waiting for trips';
}

const SHARING = {
  uploading: 'Sharing your location: sent.',
  queued: 'Sharing your location: it goes with the next update.',
  dropped: 'Sharing your location: you have not moved 20 m since the last one.',
};

function startLocation() {
  if (!('geolocation' in navigator)) {
    $('#location-state').textContent = 'This browser cannot share your location, so no trips can be offered.';
    return;
  }
  watchId = navigator.geolocation.watchPosition(
    (position) => {
      const c = position.coords;
      here = { lat: c.latitude, lon: c.longitude };
      me.moveTo([here.lat, here.lon], c.heading);
      const decision = reporter.offer({
        lat: c.latitude, lon: c.longitude, accuracy: c.accuracy, speed: c.speed, heading: c.heading,
        time: position.timestamp,
      });
      $('#location-state').textContent = SHARING[decision] || 'Sharing your location.';
      $('#location-state').dataset.decision = decision;
    },
    (error) => {
      $('#location-state').textContent = error.code === 1
        ? 'Location access is off for this site: allow it to receive trips.'
        : 'Your location could not be found; retrying.';
    },
    { enableHighAccuracy: true, maximumAge: 5000, timeout: 30000 },
  );
  tickTimer = setInterval(() => reporter.tick(), 1000);
}

function stopLocation() {
  if (watchId !== null) navigator.geolocation.clearWatch(watchId);
  watchId = null;
  clearInterval(tickTimer);
}

function listen() {
  stream?.close();
  stream = openStream('/v1/driver/stream', driver.token, {
    offer: showOffer,
    cancelled: (data) => {
      if (offer?.trip_id === data.trip_id) hideOffer();
      if (trip?.id === data.trip_id) {
        setTripStatus(data.status || (data.by === 'rider' ? 'cancelled_by_rider' : 'cancelled_by_driver'));
        announce('The trip was cancelled.');
      }
    },
    assigned: async (data) => {
      try {
        const booking = data?.id ? data : await api('GET', `/v1/bookings/${data.trip_id}`, { token: driver.token });
        showTrip(booking);
      } catch (error) {
        fail(error);
      }
    },
  }, { onError: (message) => { if (online) $('#location-state').textContent = message; } });
}

function showOffer(data) {
  offer = data;
  $('#notice').hidden = true;
  $('#offer').hidden = false;
  $('#offer').dataset.tripId = data.trip_id;
  $('#offer-pickup').textContent = data.pickup_name || `${data.pickup.lat}, ${data.pickup.lon}`;
  $('#offer-dropoff').textContent = data.dropoff_name || `${data.dropoff.lat}, ${data.dropoff.lon}`;
  $('#offer-eta').textContent = formatMin(data.eta_s ?? 0);
  drawTripPoints(data.pickup, data.dropoff);
  announce(`New trip offer: pickup at ${$('#offer-pickup').textContent}.`);
  $('#accept').focus();
  clearInterval(offerTimer);
  const expires = Date.parse(data.expires_at);
  const update = () => {
    const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
    $('#offer-countdown').textContent = String(left);
    if (left <= 0) {
      hideOffer();
      notify('The offer expired and went to another driver.');
    }
  };
  update();
  offerTimer = setInterval(update, 250);
}

function hideOffer() {
  clearInterval(offerTimer);
  offer = null;
  $('#offer').hidden = true;
  if (!trip) clearTripLayers();
}

function clearTripLayers() {
  tripLayers.forEach((layer) => layer.remove());
  tripLayers = [];
}

function drawTripPoints(pickup, dropoff) {
  clearTripLayers();
  tripLayers.push(L.marker([pickup.lat, pickup.lon], { icon: pinIcon('pickup'), title: 'Pickup', keyboard: false }).addTo(map));
  tripLayers.push(L.marker([dropoff.lat, dropoff.lon], { icon: pinIcon('dropoff'), title: 'Drop-off', keyboard: false }).addTo(map));
}

$('#accept').addEventListener('click', () => whileBusy($('#accept'), 'Accepting…', async () => {
  clearError(errorBox);
  const id = offer?.trip_id;
  try {
    const booking = await api('POST', `/v1/trips/${id}/accept`, { token: driver.token });
    hideOffer();
    showTrip(booking);
  } catch (error) {
    hideOffer();
    fail(error.status === 409 ? `This trip is no longer available: ${error.message}` : error);
  }
}));

$('#decline').addEventListener('click', () => whileBusy($('#decline'), 'Declining…', async () => {
  const id = offer?.trip_id;
  hideOffer();
  try {
    await api('POST', `/v1/trips/${id}/decline`, { token: driver.token });
    notify('Offer declined.');
  } catch (error) {
    if (error.status !== 409) fail(error);
  }
}));

function showTrip(booking) {
  trip = booking;
  $('#trip').hidden = false;
  $('#trip').dataset.tripId = booking.id;
  $('#trip-id').textContent = booking.id;
  $('#trip-pickup').textContent = booking.pickup_name || `${booking.pickup.lat}, ${booking.pickup.lon}`;
  $('#trip-dropoff').textContent = booking.dropoff_name || `${booking.dropoff.lat}, ${booking.dropoff.lon}`;
  $('#final-fare').textContent = '';
  drawTripPoints(booking.pickup, booking.dropoff);
  setTripStatus(booking.status);
  if (['accepted', 'arriving'].includes(booking.status)) routeTo(booking.pickup, 'to the pickup');
  else if (booking.status === 'in_progress' && booking.route?.geometry) drawRoute(booking.route.geometry, booking.route, 'to the drop-off');
}

function setTripStatus(status) {
  if (!trip) return;
  trip.status = status;
  $('#trip-status').textContent = statusText[status] || status;
  $('#trip-status').dataset.status = status;
  const over = isTerminal(status);
  showOnlineState();
  $('#arrived').hidden = !['accepted', 'arriving'].includes(status);
  $('#start-form').hidden = status !== 'arrived';
  $('#complete').hidden = status !== 'in_progress';
  $('#cancel-trip').hidden = over || status === 'in_progress';
  if (over) {
    clearTripLayers();
    setTimeout(() => { if (trip && isTerminal(trip.status)) $('#trip').hidden = true; }, 8000);
  }
}

async function routeTo(target, words) {
  if (!here) return;
  try {
    const route = await api('GET', `/v1/route?from=${here.lat},${here.lon}&to=${target.lat},${target.lon}`);
    drawRoute(route.geometry, route, words);
  } catch (error) {
    fail(`No route ${words}: ${error.message}`);
  }
}

function drawRoute(geometry, summary, words) {
  const line = L.geoJSON(geometry, { style: { color: '#0b57d0', weight: 6, opacity: 0.85 }, interactive: false }).addTo(map);
  tripLayers.push(line);
  fitTo(map, line.getBounds());
  $('#trip-route').textContent = `Route ${words}: ${formatKm(summary.distance_m)}, ${formatMin(summary.duration_s)}.`;
}

async function tripAction(button, busyText, action, body) {
  return whileBusy(button, busyText, async () => {
    clearError(errorBox);
    try {
      const booking = await api('POST', `/v1/trips/${trip.id}/${action}`, { token: driver.token, body });
      trip = { ...trip, ...booking };
      setTripStatus(booking.status);
      return booking;
    } catch (error) {
      fail(error);
      return null;
    }
  });
}

$('#arrived').addEventListener('click', () => tripAction($('#arrived'), 'Telling the rider…', 'arrived'));
$('#start-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = $('#pin').value.trim();
  if (!code) return fail("Enter the rider's PIN to start the trip.");
  const booking = await tripAction(event.submitter || $('#start-form button'), 'Starting…', 'start', { code });
  if (booking?.route?.geometry) {
    clearTripLayers();
    drawTripPoints(booking.pickup, booking.dropoff);
    drawRoute(booking.route.geometry, booking.route, 'to the drop-off');
  }
});
$('#complete').addEventListener('click', async () => {
  const booking = await tripAction($('#complete'), 'Completing…', 'complete');
  if (booking?.final_fare) $('#final-fare').textContent = `Trip completed. Fare: ${formatMoney(booking.final_fare.total)}.`;
});
$('#cancel-trip').addEventListener('click', () =>
  tripAction($('#cancel-trip'), 'Cancelling…', 'cancel', { reason: 'Cancelled by the driver in the web app' }));

showSignedIn();
window.addEventListener('beforeunload', () => stream?.close());
