// The driver's location uploads, with the same rules as CabClient's LocationReporter: a fix is kept only when it is
// at least `minDistanceM` (20 m) from the last kept one; uploads happen at most once per `minIntervalS` (20 s),
// sooner on a sharp turn; the last upload is remembered across reloads; kept fixes wait in a bounded queue while
// offline and go oldest first in batches of at most 100, with back-off after failures (and Retry-After on 429).

const EARTH_RADIUS_M = 6371008.8;
const rad = (d) => (d * Math.PI) / 180;

/** Great-circle distance in metres between two {lat, lon}. */
export function distanceMeters(a, b) {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** Initial bearing from a to b in degrees 0..360. */
export function bearingDegrees(a, b) {
  const y = Math.sin(rad(b.lon - a.lon)) * Math.cos(rad(b.lat));
  const x = Math.cos(rad(a.lat)) * Math.sin(rad(b.lat)) - Math.sin(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.cos(rad(b.lon - a.lon));
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}

const turn = (a, b) => {
  const d = Math.abs(a - b) % 360;
  return d > 180 ? 360 - d : d;
};

/**
 * Decides which fixes to upload. `send(fixes)` uploads a batch and resolves to the server's answer or rejects
 * with an error carrying `status` (and `retryAfterS` for 429). `now()` gives milliseconds (injectable for tests).
 */
export class LocationReporter {
  constructor({ send, onError = null, now = () => Date.now(), storage = globalThis.localStorage, key = 'cab.reporter',
    minDistanceM = 20, minIntervalS = 20, sharpTurnDeg = 45, maxQueue = 500, batchSize = 100 } = {}) {
    Object.assign(this, { send, onError, now, storage, key, minDistanceM, minIntervalS, sharpTurnDeg, maxQueue, batchSize });
    const saved = this.load();
    this.lastKept = saved.lastKept || null;
    this.lastUploadAt = saved.lastUploadAt || 0;
    this.queue = saved.queue || [];
    this.seq = saved.seq || 0;
    this.retryAt = 0;
    this.failures = 0;
    this.uploading = false;
    this.inflight = null;
  }

  load() {
    try {
      return JSON.parse(this.storage?.getItem(this.key)) || {};
    } catch {
      return {};
    }
  }

  save() {
    this.storage?.setItem(this.key, JSON.stringify({
      lastKept: this.lastKept, lastUploadAt: this.lastUploadAt, queue: this.queue, seq: this.seq,
    }));
  }

  /**
   * Takes one raw fix {lat, lon, accuracy, speed, heading, time}; answers 'dropped', 'queued' or 'uploading'.
   * `force` keeps it even when it is nearer than `minDistanceM` to the last kept one, as long as it is newer (the
   * position when the driver taps Arrived or Complete: the server wants a fresh one), and never starts an upload.
   */
  offer(fix, { force = false } = {}) {
    const moved = this.lastKept ? distanceMeters(this.lastKept, fix) : Infinity;
    const heading = Number.isFinite(fix.heading) ? fix.heading
      : this.lastKept && moved >= 0.5 ? bearingDegrees(this.lastKept, fix) : this.lastKept?.heading ?? null;
    const newer = !this.lastKept || new Date(fix.time ?? this.now()).getTime() > Date.parse(this.lastKept.time);
    if (force ? !newer : moved < this.minDistanceM) return 'dropped';
    const sharp = this.lastKept && Number.isFinite(this.lastKept.heading) && Number.isFinite(heading)
      && turn(this.lastKept.heading, heading) >= this.sharpTurnDeg;
    this.seq += 1;
    const kept = {
      lat: +fix.lat.toFixed(7), lon: +fix.lon.toFixed(7), time: new Date(fix.time ?? this.now()).toISOString(),
      accuracy: fix.accuracy ?? null, speed: fix.speed ?? null, heading, seq: this.seq,
    };
    this.lastKept = kept;
    this.queue.push(kept);
    if (this.queue.length > this.maxQueue) this.queue.splice(0, this.queue.length - this.maxQueue);
    this.save();
    if (force) return 'queued';
    if (this.due(sharp)) {
      this.flush().catch((error) => this.onError?.(error));
      return 'uploading';
    }
    return 'queued';
  }

  /** True when an upload may go now. */
  due(sharpTurn = false) {
    const now = this.now();
    if (now < this.retryAt || this.uploading || !this.queue.length) return false;
    return sharpTurn || now - this.lastUploadAt >= this.minIntervalS * 1000;
  }

  /**
   * Uploads every waiting fix now, `last` (the current position, when given) included, ignoring the interval and
   * any back-off; resolves once the queue is empty and rejects when an upload fails. A trip's fare is the trail
   * the server holds, so Complete waits for this first (issue 13: the last 20 s of a ride were not paid).
   */
  async flushAll(last = null) {
    if (last) this.offer(last, { force: true });
    // An upload already under way is waited for; its failure is reported by whoever started it, and this call
    // tries again below and rejects on its own failure.
    while (this.uploading) await this.inflight?.catch(() => null);
    this.retryAt = 0;
    await this.flush();
  }

  /** Uploads the queue oldest first; keeps what fails for later. */
  async flush() {
    if (this.uploading) return this.inflight;
    this.uploading = true;
    this.inflight = this.upload();
    return this.inflight;
  }

  async upload() {
    try {
      while (this.queue.length) {
        const batch = this.queue.slice(0, this.batchSize);
        await this.send(batch);
        this.queue.splice(0, batch.length);
        this.lastUploadAt = this.now();
        this.failures = 0;
        this.save();
      }
    } catch (error) {
      this.failures += 1;
      const backoffS = error?.retryAfterS ?? Math.min(300, 2 ** this.failures);
      this.retryAt = this.now() + backoffS * 1000;
      throw error;
    } finally {
      this.uploading = false;
    }
  }

  /** Called on a timer: uploads waiting fixes once the interval or back-off has passed. */
  tick() {
    return this.due() ? this.flush().catch((error) => this.onError?.(error)) : Promise.resolve();
  }
}
