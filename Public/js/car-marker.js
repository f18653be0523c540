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
  const html = CAR_SVG.replace('<svg ', `<svg${turn} `);
  return L.divIcon({ className, html, iconSize: [30, 30], iconAnchor: [15, 15] });
}

/**
 * A road the car is expected to follow, as [lat, lon] points: `project` finds where a point lies along it, `at`
 * the point a distance along it (metres on a local flat projection: fine over a city).
 */
export class RoadPath {
  constructor(points) {
    this.points = points;
    this.kx = 111320 * Math.cos((points[0][0] * Math.PI) / 180);
    this.along = [0];
    for (let i = 1; i < points.length; i++) this.along.push(this.along[i - 1] + this.metres(points[i - 1], points[i]));
  }

  metres(a, b) {
    return Math.hypot((b[0] - a[0]) * 110540, (b[1] - a[1]) * this.kx);
  }

  /** `{along, off}`: the distance along the road of the nearest road point to `p`, and how far `p` is from it. */
  project(p) {
    let best = { along: 0, off: Infinity };
    for (let i = 1; i < this.points.length; i++) {
      const [a, b] = [this.points[i - 1], this.points[i]];
      const dx = (b[1] - a[1]) * this.kx;
      const dy = (b[0] - a[0]) * 110540;
      const px = (p[1] - a[1]) * this.kx;
      const py = (p[0] - a[0]) * 110540;
      const length2 = dx * dx + dy * dy;
      const t = length2 ? Math.min(1, Math.max(0, (px * dx + py * dy) / length2)) : 0;
      const off = Math.hypot(px - t * dx, py - t * dy);
      if (off < best.off) best = { along: this.along[i - 1] + t * Math.sqrt(length2), off };
    }
    return best;
  }

  /** The road point `distance` metres along, and the bearing of the road there. */
  at(distance) {
    let i = 1;
    while (i < this.points.length - 1 && this.along[i] < distance) i++;
    const [a, b] = [this.points[i - 1], this.points[i]];
    const span = this.along[i] - this.along[i - 1] || 1;
    return { point: interpolate(a, b, (distance - this.along[i - 1]) / span), heading: bearing(a, b) };
  }
}

const ON_ROAD_M = 30; // a fix this near the road is on it

/**
 * A car marker. `moveTo` animates over the time since the previous report (capped at 16 s), so the car keeps
 * moving between fixes instead of jumping; it faces the reported heading, or the direction it moves in. With a
 * road set (`followRoad`), a move between two points on that road goes along it, turning with the street.
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
    this.road = null;
  }

  /** The road the car is expected to follow ([lat, lon] points), or null for straight moves. */
  followRoad(points) {
    this.road = points && points.length > 1 ? new RoadPath(points) : null;
  }

  /** Moves the car to `[lat, lon]` facing `heading` degrees. */
  moveTo(target, heading = null) {
    const now = performance.now();
    const gap = this.lastReport ? now - this.lastReport : 0;
    this.lastReport = now;
    if (!this.marker) {
      const options = { icon: carIcon(), title: this.title, alt: this.title, keyboard: false, zIndexOffset: 1000 };
      this.marker = L.marker(target, options).addTo(this.map);
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
    const a = this.road?.project(from);
    const b = this.road?.project(target);
    // Along the road only when both ends are on it, forwards, and the road is not a long detour from the line.
    const alongRoad = a && b && a.off < ON_ROAD_M && b.off < ON_ROAD_M && b.along > a.along
      && b.along - a.along < 3 * this.road.metres(from, target) + 60;
    const step = (time) => {
      const t = Math.min(1, (time - start) / duration);
      if (alongRoad && t < 1) {
        const spot = this.road.at(a.along + (b.along - a.along) * t);
        this.shown = spot.point;
        if (!Number.isFinite(heading)) this.setHeading(spot.heading);
      } else {
        this.shown = interpolate(from, target, t);
      }
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
    this.road = null;
  }
}

/** A round coloured pin for pickup and drop-off. */
export function pinIcon(kind) {
  return L.divIcon({ className: '', html: `<div class="pin-icon ${kind}"></div>`, iconSize: [18, 18], iconAnchor: [9, 9] });
}
