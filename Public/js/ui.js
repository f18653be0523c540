// Small DOM helpers shared by the pages: errors in words, a live region, busy buttons, number formats.

export const $ = (selector, root = document) => root.querySelector(selector);

/** Shows `error` (an ApiError, Error or string) in `element`, which should have role="alert". */
export function showError(element, error) {
  element.textContent = typeof error === 'string' ? error : error?.message || 'Something went wrong.';
  element.hidden = false;
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
  expired: 'Booking expired',
};

/** True for statuses after which nothing more happens. */
export const isTerminal = (status) =>
  ['completed', 'cancelled_by_rider', 'cancelled_by_driver', 'no_driver_found', 'expired'].includes(status);
