// The driver page (/driver): account, online/offline, location sharing, offers, and the trip from pickup to drop-off.
/* global L */
import { api, openStream, stored } from './api.js';
import { createMap, fitTo } from './basemap.js';
import { CarMarker, pinIcon } from './car-marker.js';
import { LocationReporter } from './location-reporter.js';
import { $, announce, errorPlacer, formatKm, formatMin, formatMoney, isTerminal, notify, statusText,
  whileBusy } from './ui.js';

const errors = errorPlacer($('#error'));
const fail = (error) => errors.show(error);
const clearError = () => errors.clear();
const params = new URLSearchParams(location.search);
// A trip handed to another driver (re-dispatched) is over for this driver although the trip itself goes on.
const tripOver = (status) => isTerminal(status) || status === 'reassigned';
const driverStatusText = { ...statusText, reassigned: 'Handed to another driver' };

let driver = stored.get('cab.driver');
let online = false;
let stream = null;
let watchId = null;
let tickTimer = null;
let offer = null;
let offerTimer = null;
let trip = null;
let here = null;
let hereFix = null; // the newest raw fix, sent before a trip completes
let tripLayers = [];
let routeLayer = null;
let centred = false;

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
    clearError();
    try {
      const body = { name: $('#driver-name').value.trim(), vehicle: $('#vehicle').value.trim(), plate: $('#plate').value.trim() };
      const answer = await api('POST', '/v1/drivers', { body });
      signIn({ id: answer.id, name: answer.name, vehicle: answer.vehicle, plate: answer.plate, token: answer.token },
        'Driver account created. Go online to receive trips.');
    } catch (error) {
      errors.at(button, error);
    }
  });
});

// A token given elsewhere (another device, a fleet manager): GET /v1/me says whose it is.
$('#token-signin').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = event.submitter || $('#token-signin button');
  whileBusy(button, 'Signing in…', async () => {
    clearError();
    try {
      const token = $('#driver-token').value.trim();
      const me = await api('GET', '/v1/me', { token });
      if (me.role !== 'driver') throw new Error(`That token belongs to a ${me.role}, not a driver.`);
      $('#driver-token').value = '';
      signIn({ id: me.id, name: me.name, vehicle: me.vehicle, plate: me.plate, token },
        `Signed in as ${me.name}. Go online to receive trips.`);
    } catch (error) {
      errors.at(button, error);
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
  clearError();
  try {
    await api('POST', '/v1/driver/status', { token: driver.token, body: { status: wanted ? 'online' : 'offline' } });
  } catch (error) {
    // e.g. 409 trip_open: the server says what to do with the trip first, beside the button.
    return errors.at($('#online'), error);
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
  const busy = trip && !tripOver(trip.status);
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
      hereFix = {
        lat: c.latitude, lon: c.longitude, accuracy: c.accuracy, speed: c.speed, heading: c.heading,
        time: position.timestamp,
      };
      followCar();
      const decision = reporter.offer(hereFix);
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
        // Without a status and with a re-dispatch reason, the trip goes on with another driver.
        const handedOn = !data.status && ['driver_cancelled', 'pickup_overdue', 'dispatcher'].includes(data.reason);
        const status = handedOn ? 'reassigned'
          : data.status || (data.by === 'rider' ? 'cancelled_by_rider' : 'cancelled_by_driver');
        setTripStatus(tripOver(status) ? status : 'reassigned');
        if (data.reason === 'pickup_overdue') notify('The pickup was overdue, so the trip went to another driver.');
        else if (data.reason === 'dispatcher') notify('A dispatcher gave the trip to another driver.');
        announce(tripOver(status) && !handedOn ? 'The trip was cancelled.' : 'The trip was handed to another driver.');
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

/** Centres the map on the car once, then keeps the car (and the pickup or drop-off of a trip) in view. */
function followCar() {
  if (!here) return;
  const car = [here.lat, here.lon];
  if (!centred) {
    centred = true;
    map.setView(car, Math.max(map.getZoom(), 16), { animate: false });
    $('#map').dataset.centredOnCar = 'true';
    return;
  }
  const target = offer ? offer.pickup : trip && !tripOver(trip.status)
    ? (trip.status === 'in_progress' ? trip.dropoff : trip.pickup) : null;
  const view = map.getBounds().pad(-0.1);
  if (view.contains(car) && (!target || view.contains([target.lat, target.lon]))) return;
  if (target) fitTo(map, L.latLngBounds([car, [target.lat, target.lon]]));
  else map.panTo(car, { animate: false });
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
  // The pickup comes into view with the car: where the trip starts decides whether to take it.
  const bounds = L.latLngBounds([[data.pickup.lat, data.pickup.lon]]);
  if (here) bounds.extend([here.lat, here.lon]);
  fitTo(map, bounds);
  $('#offer').scrollIntoView({ block: 'nearest' });
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
  clearRoute();
}

function clearRoute() {
  routeLayer?.remove();
  routeLayer = null;
  $('#trip-route').textContent = '';
}

function drawTripPoints(pickup, dropoff) {
  clearTripLayers();
  tripLayers.push(L.marker([pickup.lat, pickup.lon], { icon: pinIcon('pickup'), title: 'Pickup', keyboard: false }).addTo(map));
  tripLayers.push(L.marker([dropoff.lat, dropoff.lon], { icon: pinIcon('dropoff'), title: 'Drop-off', keyboard: false }).addTo(map));
}

$('#accept').addEventListener('click', () => whileBusy($('#accept'), 'Accepting…', async () => {
  clearError();
  const id = offer?.trip_id;
  try {
    const booking = await api('POST', `/v1/trips/${id}/accept`, { token: driver.token });
    hideOffer();
    showTrip(booking);
  } catch (error) {
    hideOffer();
    errors.at($('#online'), error.status === 409 ? `This trip is no longer available: ${error.message}` : error);
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
  $('#pin').value = '';
  $('#trip').hidden = false;
  $('#trip').dataset.tripId = booking.id;
  $('#trip-id').textContent = booking.id;
  $('#trip-pickup').textContent = booking.pickup_name || `${booking.pickup.lat}, ${booking.pickup.lon}`;
  $('#trip-dropoff').textContent = booking.dropoff_name || `${booking.dropoff.lat}, ${booking.dropoff.lon}`;
  $('#final-fare').textContent = '';
  drawTripPoints(booking.pickup, booking.dropoff);
  setTripStatus(booking.status);
  $('#trip').scrollIntoView({ block: 'nearest' });
  if (['accepted', 'arriving'].includes(booking.status)) routeTo(booking.pickup, 'to the pickup');
  else if (booking.status === 'in_progress' && booking.route?.geometry) drawRoute(booking.route.geometry, booking.route, 'to the drop-off');
}

function setTripStatus(status) {
  if (!trip) return;
  trip.status = status;
  $('#trip-status').textContent = driverStatusText[status] || 'Trip updated';
  $('#trip-status').dataset.status = status;
  const over = tripOver(status);
  showOnlineState();
  $('#arrived').hidden = !['accepted', 'arriving'].includes(status);
  $('#start-form').hidden = status !== 'arrived';
  $('#complete').hidden = status !== 'in_progress';
  $('#cancel-trip').hidden = over || status === 'in_progress';
  if (status === 'arrived') {
    clearRoute(); // at the pickup: "Route to the pickup" is done
    $('#trip-route').textContent = 'At the pickup: wait for the rider, then start the trip with their PIN or QR code.';
  }
  if (status !== 'arrived') stopScan();
  if (over) {
    clearTripLayers();
    setTimeout(() => { if (trip && tripOver(trip.status)) $('#trip').hidden = true; }, 8000);
  }
}

async function routeTo(target, words) {
  if (!here) return;
  const forStatus = trip?.status;
  try {
    const route = await api('GET', `/v1/route?from=${here.lat},${here.lon}&to=${target.lat},${target.lon}`);
    if (trip?.status === forStatus) drawRoute(route.geometry, route, words); // not after the trip moved on
  } catch (error) {
    fail(`No route ${words}: ${error.message}`);
  }
}

function drawRoute(geometry, summary, words) {
  clearRoute();
  routeLayer = L.geoJSON(geometry, { style: { color: '#0b57d0', weight: 6, opacity: 0.85 }, interactive: false })
    .addTo(map);
  const bounds = routeLayer.getBounds();
  if (here) bounds.extend([here.lat, here.lon]);
  fitTo(map, bounds);
  $('#trip-route').textContent = `Route ${words}: ${formatKm(summary.distance_m)}, ${formatMin(summary.duration_s)}.`;
}

/** Runs `action` on the trip; its refusal (the server's words) is shown beside `button`. */
async function tripAction(button, busyText, action, body, before = null) {
  return whileBusy(button, busyText, async () => {
    clearError();
    try {
      await before?.();
      const booking = await api('POST', `/v1/trips/${trip.id}/${action}`, { token: driver.token, body });
      trip = { ...trip, ...booking };
      setTripStatus(booking.status);
      return booking;
    } catch (error) {
      errors.at(button, error);
      return null;
    }
  });
}


$('#start-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = $('#pin').value.trim();
  if (!code) {
    return errors.at($('#start-form button[type=submit]'), "Enter the rider's PIN or QR code to start the trip.");
  }
  const booking = await tripAction(event.submitter || $('#start-form button'), 'Starting…', 'start', { code });
  if (booking?.route?.geometry) {
    clearTripLayers();
    drawTripPoints(booking.pickup, booking.dropoff);
    drawRoute(booking.route.geometry, booking.route, 'to the drop-off');
  }
});
// The fare is the trail the server holds: every queued fix and the current position go up before Complete.
/** A fix taken now (the browser's position right now, or the newest one it gave when it cannot say). */
function freshFix() {
  return new Promise((resolve) => {
    if (!('geolocation' in navigator) || watchId === null) return resolve(hereFix);
    navigator.geolocation.getCurrentPosition(
      (position) => {
        const c = position.coords;
        resolve({ lat: c.latitude, lon: c.longitude, accuracy: c.accuracy, speed: c.speed, heading: c.heading,
          time: position.timestamp });
      },
      () => resolve(hereFix),
      { enableHighAccuracy: true, maximumAge: 0, timeout: 4000 },
    );
  });
}

const sendEveryFix = (why, again) => async () => {
  try {
    await reporter.flushAll(await freshFix());
  } catch (error) {
    throw new Error(`Your last positions could not be sent (${error.message}), so ${why}. `
      + `Check the connection and tap ${again} again.`);
  }
};
// "Arrived" is judged on the server's newest fix: it goes up first too.
$('#arrived').addEventListener('click', () => tripAction($('#arrived'), 'Telling the rider…', 'arrived', undefined,
  sendEveryFix('SwiftCab cannot tell that you are at the pickup', 'I have arrived')));
$('#complete').addEventListener('click', async () => {
  const booking = await tripAction($('#complete'), 'Completing…', 'complete', undefined,
    sendEveryFix('the fare would be too low', 'Complete trip'));
  const total = booking?.receipt?.total || booking?.final_fare?.total;
  if (total) $('#final-fare').textContent = `Trip completed. Fare: ${formatMoney(total)}.`;
});
$('#cancel-trip').addEventListener('click', async () => {
  const id = trip.id;
  const booking = await tripAction($('#cancel-trip'), 'Cancelling…', 'cancel',
    { reason: 'Cancelled by the driver in the web app' });
  if (booking && !tripOver(booking.status)) {
    // The server hands the trip to another driver: it is no longer this driver's.
    setTripStatus('reassigned');
    notify(`You cancelled trip ${id}; SwiftCab is finding the rider another driver.`);
  }
});

// The rider's code: typed, pasted, or scanned with the camera where the browser can read QR codes.
const canScan = 'BarcodeDetector' in window && !!navigator.mediaDevices?.getUserMedia;
let scanning = null;
$('#scan').hidden = !canScan;
$('#paste').hidden = !navigator.clipboard?.readText;
$('#code-help').textContent = canScan
  ? "Ask for the 4-digit PIN, or scan the rider's QR code."
  : "Ask for the 4-digit PIN, or paste the text of the rider's QR code (this browser cannot scan).";

$('#paste').addEventListener('click', async () => {
  try {
    const text = (await navigator.clipboard.readText()).trim();
    if (!text) return errors.at($('#paste'), 'The clipboard is empty: copy the code first.');
    $('#pin').value = text;
  } catch (error) {
    errors.at($('#paste'), `Cannot read the clipboard (${error.message}): type the code instead.`);
  }
});

$('#scan').addEventListener('click', async () => {
  clearError();
  try {
    const detector = new window.BarcodeDetector({ formats: ['qr_code'] });
    const media = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
    const video = $('#scanner');
    video.srcObject = media;
    await video.play();
    $('#scanner-box').hidden = false;
    scanning = { media, timer: null };
    const look = async () => {
      if (!scanning) return;
      const found = (await detector.detect(video).catch(() => []))[0];
      if (found?.rawValue) {
        stopScan();
        $('#pin').value = found.rawValue;
        $('#start-form').requestSubmit();
      } else if (scanning) {
        scanning.timer = setTimeout(look, 250);
      }
    };
    look();
  } catch (error) {
    stopScan();
    errors.at($('#scan'), `The camera cannot scan here (${error.message}). Type the PIN or paste the code instead.`);
  }
});

function stopScan() {
  if (!scanning) return;
  clearTimeout(scanning.timer);
  scanning.media.getTracks().forEach((track) => track.stop());
  scanning = null;
  $('#scanner').srcObject = null;
  $('#scanner-box').hidden = true;
}
$('#stop-scan').addEventListener('click', stopScan);

showSignedIn();
window.addEventListener('beforeunload', () => stream?.close());
