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

/** Initial bearing in degrees from one [lat, lon] to another. */
function bearing(from, to) {
  const rad = Math.PI / 180;
  const y = Math.sin((to[1] - from[1]) * rad) * Math.cos(to[0] * rad);
  const x = Math.cos(from[0] * rad) * Math.sin(to[0] * rad)
    - Math.sin(from[0] * rad) * Math.cos(to[0] * rad) * Math.cos((to[1] - from[1]) * rad);
  return ((Math.atan2(y, x) / rad) + 360) % 360;
}

/** A car icon facing `heading` degrees (the nearby cars on the rider's map use it too). */
export function carIcon(heading = null, className = 'car-icon') {
  const turn = Number.isFinite(heading) ? ` style="transform: rotate(${Math.round(heading)}deg)"` : '';
  return L.divIcon({ className, html: CAR_SVG.replace('<svg ', `<svg${turn} `), iconSize: [30, 30], iconAnchor: [15, 15] });
}

/**
 * A car marker. `moveTo` animates over the time since the previous report (capped at 16 s), so the car keeps
 * moving between fixes instead of jumping; it faces the reported heading, or the direction it moves in.
 */
export class CarMarker {
  constructor(map, { title = 'Driver', colour = null, onMove = null } = {}) {
    this.map = map;
    this.onMove = onMove;
    this.marker = null;
    this.title = title;
    this.colour = colour;
    this.shown = null;
    this.target = null;
    this.lastReport = 0;
    this.frame = null;
  }

  /** Moves the car to `[lat, lon]` facing `heading` degrees. */
  moveTo(target, heading = null) {
    const now = performance.now();
    const gap = this.lastReport ? now - this.lastReport : 0;
    this.lastReport = now;
    if (!this.marker) {
      this.marker = L.marker(target, { icon: carIcon(), title: this.title, alt: this.title, keyboard: false, zIndexOffset: 1000 })
        .addTo(this.map);
      this.shown = target;
      this.target = target;
      this.setHeading(heading);
      this.onMove?.(target);
      return;
    }
    const moved = Math.abs(target[0] - this.shown[0]) + Math.abs(target[1] - this.shown[1]) > 2e-5; // ~2 m
    this.setHeading(Number.isFinite(heading) ? heading : moved ? bearing(this.shown, target) : null);
    cancelAnimationFrame(this.frame);
    const from = this.shown;
    this.target = target;
    const duration = Math.min(Math.max(gap, 300), 16000);
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
    if (svg && Number.isFinite(heading)) {
      svg.style.transform = `rotate(${Math.round(heading)}deg)`;
      this.marker.getElement().dataset.heading = String(Math.round(heading));
    }
  }

  remove() {
    cancelAnimationFrame(this.frame);
    this.marker?.remove();
    this.marker = null;
    this.shown = null;
    this.target = null;
    this.lastReport = 0;
  }
}

/** A round coloured pin for pickup and drop-off. */
export function pinIcon(kind) {
  return L.divIcon({ className: '', html: `<div class="pin-icon ${kind}"></div>`, iconSize: [18, 18], iconAnchor: [9, 9] });
}
