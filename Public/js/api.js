// The SwiftCab HTTP API from the browser (docs/api.md): JSON in and out, problem+json errors as words.

/** An API failure with the server's problem `detail`, ready to show a person. */
export class ApiError extends Error {
  constructor(status, message, problem = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }
}

/** Calls `method path` with an optional JSON `body` and bearer `token`; resolves to the parsed JSON answer. */
export async function api(method, path, { body, token, headers = {}, signal } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, signal };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'Cannot reach the SwiftCab server. Check your connection and try again.');
  }
  if (!response.ok) throw await problemFrom(response);
  if (response.status === 204) return null;
  const type = response.headers.get('Content-Type') || '';
  return type.includes('json') ? response.json() : response.text();
}

/** Fetches `path` as a Blob (an authenticated image such as the booking's QR code). */
export async function fetchBlob(path, token) {
  let response;
  try {
    response = await fetch(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch {
    throw new ApiError(0, 'Cannot reach the SwiftCab server. Check your connection and try again.');
  }
  if (!response.ok) throw await problemFrom(response);
  return response.blob();
}

async function problemFrom(response) {
  let problem = null;
  try {
    problem = await response.json();
  } catch {
    problem = null;
  }
  const detail = problem?.detail || problem?.title || `The server answered ${response.status} ${response.statusText}.`;
  return new ApiError(response.status, detail, problem);
}

/**
 * Opens a server-sent-event stream. EventSource cannot send headers, so the token travels as the
 * `access_token` query parameter. `handlers` maps event names (`position`, `status`, ...) to functions taking
 * the parsed data; `onError(message)` is told when the connection drops (the browser reconnects by itself,
 * resuming with Last-Event-ID).
 */
export function openStream(path, token, handlers, { onError, onOpen } = {}) {
  const url = new URL(path, location.origin);
  if (token) url.searchParams.set('access_token', token);
  const source = new EventSource(url);
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => {
      let data = null;
      try {
        data = event.data ? JSON.parse(event.data) : null;
      } catch {
        data = event.data;
      }
      handler(data, event);
    });
  }
  source.onopen = () => onOpen?.();
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) onError?.('The live connection closed.');
    else onError?.('The live connection dropped; reconnecting…');
  };
  return { close: () => source.close(), source };
}

/** A fresh random key for `Idempotency-Key` (works outside secure contexts too). */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A value kept in localStorage as JSON; `null` when absent or unreadable. */
export const stored = {
  get(key) {
    try {
      return JSON.parse(localStorage.getItem(key));
    } catch {
      return null;
    }
  },
  set(key, value) {
    if (value === null || value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  },
};
