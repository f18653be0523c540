// Small DOM helpers shared by the pages: errors in words, a live region, busy buttons, number formats.

export const $ = (selector, root = document) => root.querySelector(selector);

/** Shows `error` (an ApiError, Error or string) in `element`, which should have role="alert". */
export function showError(element, error) {
  element.textContent = typeof error === 'string' ? error : error?.message || 'Something went wrong.';
  element.hidden = false;
}

/**
 * One error box that is shown next to what caused the error: `at(near, error)` moves it just below `near` (the
 * button or form a person used; its `.row` or form when it sits in one) and scrolls it into view, so a phone shows
 * it beside the thumb; `show(error)` puts it back at the top of the panel (errors nobody's tap caused).
 */
export function errorPlacer(element) {
  const home = document.createComment('error home');
  element.before(home);
  const place = (anchor) => {
    if (anchor.nextSibling !== element) anchor.after(element);
  };
  return {
    at(near, error) {
      showError(element, error);
      const anchor = near?.closest?.('.row, form') || near;
      place(anchor && anchor.isConnected && anchor.offsetParent !== null ? anchor : home);
      element.scrollIntoView({ block: 'nearest' });
    },
    show(error) {
      showError(element, error);
      place(home);
      element.scrollIntoView({ block: 'nearest' });
    },
    clear: () => clearError(element),
  };
}

/** Hides an error element. */
export function clearError(element) {
  element.textContent = '';
  element.hidden = true;
}

/** Says `text` through the page's polite live region (#announcer) and shows it there. */
export function announce(text) {
  const region = document.getElementById('announcer');
  if (region) region.textContent = text;
}

/** Shows `text` in the page's visible #notice and says it through the live region. */
export function notify(text) {
  const notice = document.getElementById('notice');
  if (notice) {
    notice.textContent = text;
    notice.hidden = false;
  }
  announce(text);
}

/** Runs `work` with `button` disabled and labelled `busyText`; restores the label after unless `work` changed it. */
export async function whileBusy(button, busyText, work) {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  button.textContent = busyText;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    if (button.textContent === busyText) button.textContent = label;
  }
}

/** "1.5 km" from metres. */
export const formatKm = (meters) => `${(meters / 1000).toFixed(meters < 10000 ? 1 : 0)} km`;

/** "4 min" from seconds (at least 1). */
export const formatMin = (seconds) => `${Math.max(1, Math.round(seconds / 60))} min`;

/** "14.40 EUR" from a MONEY object. */
export const formatMoney = (money) =>
  money?.display || (money ? `${(money.amount_minor / 100).toFixed(2)} ${money.currency}` : '');

/** Runs `fn` once `ms` after the last call. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Decodes an encoded polyline (precision 5) into [[lat, lon], ...]. */
export function decodePolyline(text, precision = 5) {
  const factor = 10 ** precision;
  const points = [];
  let index = 0;
  let lat = 0;
  let lon = 0;
  const next = () => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = text.charCodeAt(index++) - 63;
      result |= (byte & 0x1f) << shift;
      shift += 5;
    } while (byte >= 0x20 && index < text.length);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (index < text.length) {
    lat += next();
    lon += next();
    points.push([lat / factor, lon / factor]);
  }
  return points;
}

/** "12 min 5 s" or "45 s" from seconds. */
export const formatDuration = (seconds) => {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
};

/** Human words for a trip status. */
export const statusText = {
  requested: 'Booked — looking for a driver',
  dispatching: 'Looking for a driver',
  accepted: 'Driver on the way',
  arriving: 'Driver arriving',
  arrived: 'Driver has arrived',
  in_progress: 'On the way to your destination',
  completed: 'Trip completed',
  cancelled_by_rider: 'Cancelled by the rider',
  cancelled_by_driver: 'Cancelled by the driver',
  no_driver_found: 'No driver found — please try again',
  redispatching: 'Finding you another driver',
  expired: 'Booking expired',
};

/** True for statuses after which nothing more happens. */
export const isTerminal = (status) =>
  ['completed', 'cancelled_by_rider', 'cancelled_by_driver', 'no_driver_found', 'expired'].includes(status);
