// A car on the map that glides between reported positions instead of jumping.
/* global L */

const CAR_SVG = `<svg width="30" height="30" viewBox="0 0 30 30" aria-hidden="true">
  <rect x="9" y="3" width="12" height="24" rx="4" fill="#f6c20c" stroke="#222" stroke-width="1.5"/>
  <rect x="11" y="8" width="8" height="5" rx="1" fill="#2b3a4a"/>
  <rect x="11" y="19" width="8" height="4" rx="1" fill="#2b3a4a"/></svg>`;

/** Linear interpolation between two [lat, lon] points. */
export function interpolate(from, to, t) {
  const k = Math.min(1, Math.max(0, t));
  return [from[0] + (to[0] - from[0]) * k, from[1] + (to[1] - from[1]) * k];
}

/** A car marker. `moveTo` animates over the time since the previous report (capped), so motion looks continuous. */
export class CarMarker {
  constructor(map, { title = 'Driver', colour = null, onMove = null } = {}) {
    this.map = map;
    this.onMove = onMove;
    this.marker = null;
    this.title = title;
    this.colour = colour;
    this.shown = null;
    this.lastReport = 0;
    this.frame = null;
  }

  /** Moves the car to `[lat, lon]` facing `heading` degrees. */
  moveTo(target, heading = null) {
    const now = performance.now();
    const gap = this.lastReport ? now - this.lastReport : 0;
    this.lastReport = now;
    if (!this.marker) {
      const icon = L.divIcon({ className: 'car-icon', html: CAR_SVG, iconSize: [30, 30], iconAnchor: [15, 15] });
      this.marker = L.marker(target, { icon, title: this.title, alt: this.title, keyboard: false, zIndexOffset: 1000 })
        .addTo(this.map);
      this.shown = target;
      this.setHeading(heading);
      this.onMove?.(target);
      return;
    }
    this.setHeading(heading);
    cancelAnimationFrame(this.frame);
    const from = this.shown;
    const duration = Math.min(Math.max(gap, 300), 5000);
    const start = now;
    const step = (time) => {
      const t = (time - start) / duration;
      this.shown = interpolate(from, target, t);
      this.marker.setLatLng(this.shown);
      this.onMove?.(this.shown);
      if (t < 1) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  setHeading(heading) {
    const svg = this.marker?.getElement()?.querySelector('svg');
    if (svg && Number.isFinite(heading)) svg.style.transform = `rotate(${heading}deg)`;
  }

  remove() {
    cancelAnimationFrame(this.frame);
    this.marker?.remove();
    this.marker = null;
    this.shown = null;
  }
}

/** A round coloured pin for pickup and drop-off. */
export function pinIcon(kind) {
  return L.divIcon({ className: '', html: `<div class="pin-icon ${kind}"></div>`, iconSize: [18, 18], iconAnchor: [9, 9] });
}
