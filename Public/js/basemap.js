// The offline base map: Leaflet drawing SwiftCab's own imported features, fetched as GeoJSON tiles
// (GET /v1/map/tiles/{z}/{x}/{y}.geojson) that the browser's HTTP cache keeps (ETag, Cache-Control).
/* global L */
import { api, ApiError } from './api.js';
import { debounce } from './ui.js';

/** Where a map opens before it knows better (the default Helsinki extract). */
export const DEFAULT_VIEW = { center: [60.1708, 24.9441], zoom: 15 };

// A block is one tile of the current zoom (256 px square), at most 96 KiB (the server's budget); the browser's HTTP
// cache keeps tiles seen before, this in-memory cache the parsed ones of the last few views.
const CACHE_BLOCKS = 192;
const MAX_DRAWN = 15000;
const LABEL_ZOOM = 16;
const MAIN_LABEL_ZOOM = 14; // the main streets (tertiary and up) are named from here: people use zoom 14-15
const MAIN_LABEL_RANK = 4; // LABEL_ORDER's index of tertiary
const MAX_LABELS = 80;

const ROAD = {
  motorway: { color: '#e07a8c', casing: '#b05567', width: 8 },
  trunk: { color: '#f4a380', casing: '#c0775a', width: 7.5 },
  primary: { color: '#f9c98a', casing: '#b98b48', width: 7 },
  secondary: { color: '#f2f3a8', casing: '#a5a65c', width: 6 },
  tertiary: { color: '#ffffff', casing: '#a9a29a', width: 5.5 },
  residential: { color: '#ffffff', casing: '#b3aca4', width: 4.5 },
  unclassified: { color: '#ffffff', casing: '#b3aca4', width: 4.5 },
  living_street: { color: '#f4f4f4', casing: '#b3aca4', width: 4 },
  road: { color: '#ffffff', casing: '#b3aca4', width: 4 },
  pedestrian: { color: '#ececf2', casing: '#a7a7b5', width: 4 },
  service: { color: '#ffffff', casing: '#bdb6ae', width: 2.5 },
  track: { color: '#c9a46e', casing: null, width: 1.5, dashArray: '4 3' },
  footway: { color: '#e89a94', casing: null, width: 1, dashArray: '2 3', path: true },
  path: { color: '#e89a94', casing: null, width: 1, dashArray: '2 3', path: true },
  steps: { color: '#e89a94', casing: null, width: 1.6, dashArray: '1 2', path: true },
  cycleway: { color: '#8aa2e8', casing: null, width: 1, dashArray: '3 3', path: true },
  bridleway: { color: '#8cbf7e', casing: null, width: 1, dashArray: '3 3', path: true },
};

const LABEL_ORDER = ['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'residential', 'unclassified',
  'living_street', 'road', 'pedestrian', 'service'];
const labelRank = (feature) => {
  const i = LABEL_ORDER.indexOf(feature.properties.class);
  return i < 0 ? LABEL_ORDER.length : i;
};
const PATH_ZOOM = 16; // footways, paths and cycleways only from this zoom: below it they hide the streets (tiles
// below it do not hold them: BaseMapIndex.pathTileZoom)

function roadWidth(base, zoom) {
  return Math.min(28, Math.max(1, base * Math.pow(2, (zoom - 15) * 0.75)));
}

function areaStyle(kind, cls) {
  if (kind === 'water') return { stroke: false, fillColor: '#a9cfe0', fillOpacity: 1 };
  if (kind === 'building') return { color: '#c2b5a9', weight: 0.8, fillColor: '#ddd3ca', fillOpacity: 1 };
  const fill = { forest: '#add19e', wood: '#add19e', cemetery: '#aacbaf', pitch: '#aae0cb', playground: '#dffce2' };
  return { stroke: false, fillColor: fill[cls] || '#c8e8b4', fillOpacity: 1 };
}

function lineStyle(kind, cls, zoom) {
  if (kind === 'water') {
    const width = cls === 'river' ? 6 : cls === 'canal' ? 4 : cls === 'coastline' ? 1.5 : 2;
    return { color: cls === 'coastline' ? '#6fa4c2' : '#a9cfe0', weight: roadWidth(width, zoom), lineCap: 'round' };
  }
  if (kind === 'railway') {
    return { color: '#707070', weight: cls === 'rail' ? 2 : 1.5, dashArray: cls === 'tram' ? null : '6 3' };
  }
  const road = ROAD[cls] || ROAD.service;
  return {
    color: road.color, weight: roadWidth(road.width, zoom), dashArray: road.dashArray || null,
    lineCap: 'round', lineJoin: 'round',
  };
}

/**
 * The named roads drawn, one entry per street name: `{name, rank, lines}` where `lines` chains the street's ways
 * end to start (reversing where needed), so a label can span several OSM ways.
 */
function streetsByName(features) {
  const byName = new Map();
  for (const feature of features) {
    const { name } = feature.properties;
    const entry = byName.get(name) || { name, rank: labelRank(feature), lines: [] };
    entry.rank = Math.min(entry.rank, labelRank(feature));
    const g = feature.geometry;
    entry.lines.push(...(g.type === 'LineString' ? [g.coordinates] : g.coordinates).map((line) => [...line]));
    byName.set(name, entry);
  }
  const same = (a, b) => a[0] === b[0] && a[1] === b[1];
  for (const entry of byName.values()) {
    const chains = [];
    const rest = entry.lines;
    while (rest.length) {
      let chain = rest.pop();
      for (let joined = true; joined;) {
        joined = false;
        for (let i = 0; i < rest.length; i++) {
          const line = rest[i];
          const head = chain[0];
          const tail = chain[chain.length - 1];
          if (same(tail, line[0])) chain = chain.concat(line.slice(1));
          else if (same(tail, line[line.length - 1])) chain = chain.concat(line.slice(0, -1).reverse());
          else if (same(head, line[line.length - 1])) chain = line.slice(0, -1).concat(chain);
          else if (same(head, line[0])) chain = line.slice(1).reverse().concat(chain);
          else continue;
          rest.splice(i, 1);
          joined = true;
          break;
        }
      }
      chains.push(chain);
    }
    entry.lines = chains;
  }
  return [...byName.values()];
}

/** Shows `bounds` whole, after reading the map's current size (the panel beside it may just have changed). */
export function fitTo(map, bounds) {
  map.invalidateSize({ pan: false });
  map.fitBounds(bounds, { padding: [40, 40], maxZoom: 17, animate: false });
}

function tileX(lon, z) { return Math.floor(((lon + 180) / 360) * 2 ** z); }
function tileY(lat, z) {
  const r = (lat * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
}

/**
 * Creates a Leaflet map in `element` with the base layer. `onError(message)` is told when map data cannot be
 * loaded. Returns the map; `map.baseLayer.refresh()` forces a reload.
 */
export function createMap(element, { view, onError = () => {} } = {}) {
  const map = L.map(element, { zoomSnap: 1, minZoom: 3, maxZoom: 19, keyboard: true, attributionControl: true });
  map.attributionControl.setPrefix(false);
  map.attributionControl.addAttribution('Map data © OpenStreetMap contributors (ODbL)');
  const panes = ['bm-areas', 'bm-casings', 'bm-roads', 'bm-rail'];
  const renderers = {};
  panes.forEach((name, i) => {
    map.createPane(name).style.zIndex = String(200 + i * 10);
    renderers[name] = L.canvas({ pane: name, padding: 0.3 });
  });
  map.createPane('bm-labels').style.zIndex = '250';
  map.getPane('bm-labels').style.pointerEvents = 'none';
  const groups = Object.fromEntries([...panes, 'bm-labels'].map((p) => [p, L.layerGroup().addTo(map)]));

  const cache = new Map(); // key -> FeatureCollection (LRU by insertion order)
  const inflight = new Map();
  let drawnZoom = null;
  // Tiles hold their geometry clipped to the tile (a street crossing four tiles is four pieces with one id), so a
  // tile is drawn once per zoom, whole; buildings come whole in every tile they cross and may be drawn twice.
  let drawnTiles = new Set();
  let drawnCount = 0;
  let namedRoads = [];

  function clearDrawn() {
    Object.values(groups).forEach((g) => g.clearLayers());
    drawnTiles = new Set();
    drawnCount = 0;
    namedRoads = [];
  }

  function draw(key, collection, zoom) {
    if (drawnTiles.has(key)) return;
    drawnTiles.add(key);
    for (const feature of collection.features) {
      drawnCount += 1;
      const { kind, class: cls, name } = feature.properties;
      const type = feature.geometry?.type;
      if (!type || type === 'Point' || type === 'MultiPoint') continue;
      if (type === 'Polygon' || type === 'MultiPolygon') {
        L.geoJSON(feature, { style: areaStyle(kind, cls), renderer: renderers['bm-areas'], interactive: false })
          .addTo(groups['bm-areas']);
        continue;
      }
      const road = kind === 'road' ? ROAD[cls] || ROAD.service : null;
      if (road?.path && zoom < PATH_ZOOM) continue;
      const style = lineStyle(kind, cls, zoom);
      const pane = kind === 'railway' ? 'bm-rail' : 'bm-roads';
      if (road?.casing && zoom >= 13) {
        L.geoJSON(feature, {
          style: { color: road.casing, weight: style.weight + 1.5, lineCap: 'round', lineJoin: 'round' },
          renderer: renderers['bm-casings'], interactive: false,
        }).addTo(groups['bm-casings']);
      }
      L.geoJSON(feature, { style, renderer: renderers[pane], interactive: false }).addTo(groups[pane]);
      if (kind === 'road' && name) namedRoads.push(feature);
    }
  }

  async function loadBlock(zoom, bx, by) {
    const key = `${zoom}/${bx}/${by}`;
    if (cache.has(key)) {
      const hit = cache.get(key);
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    if (inflight.has(key)) return inflight.get(key);
    const promise = api('GET', `/v1/map/tiles/${key}.geojson`)
      .then((collection) => {
        cache.set(key, collection);
        while (cache.size > CACHE_BLOCKS) cache.delete(cache.keys().next().value);
        return collection;
      })
      .finally(() => inflight.delete(key));
    inflight.set(key, promise);
    return promise;
  }

  async function refresh() {
    const zoom = Math.round(map.getZoom());
    if (zoom !== drawnZoom || drawnCount > MAX_DRAWN) {
      clearDrawn();
      drawnZoom = zoom;
    }
    const bounds = map.getBounds().pad(0.1);
    const last = 2 ** zoom - 1; // the world's edge tiles: a view past them (zoom 3, or the poles) needs no more
    const clamp = (v) => Math.min(last, Math.max(0, v));
    const x0 = clamp(tileX(bounds.getWest(), zoom));
    const x1 = clamp(tileX(bounds.getEast(), zoom));
    const y0 = clamp(tileY(Math.min(85.05, bounds.getNorth()), zoom));
    const y1 = clamp(tileY(Math.max(-85.05, bounds.getSouth()), zoom));
    const jobs = [];
    for (let bx = x0; bx <= x1; bx++) {
      for (let by = y0; by <= y1; by++) {
        jobs.push(loadBlock(zoom, bx, by).then((collection) => {
          if (drawnZoom === zoom) draw(`${zoom}/${bx}/${by}`, collection, zoom);
        }));
      }
    }
    const results = await Promise.allSettled(jobs);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      const reason = failed.reason instanceof ApiError ? failed.reason.message : 'the server did not answer';
      onError(`The map could not be loaded: ${reason}`);
    }
    if (drawnZoom === zoom) placeLabels(zoom);
    element.dataset.basemapFeatures = String(drawnCount);
    element.dataset.basemapZoom = String(zoom);
    element.dispatchEvent(new CustomEvent('basemap:drawn', { detail: { features: drawnCount } }));
  }

  function placeLabels(zoom) {
    groups['bm-labels'].clearLayers();
    if (zoom < MAIN_LABEL_ZOOM) return;
    const size = map.getSize();
    const placed = [];
    const ranked = streetsByName(namedRoads.filter((f) => zoom >= LABEL_ZOOM || labelRank(f) <= MAIN_LABEL_RANK))
      .sort((a, b) => a.rank - b.rank);
    for (const street of ranked) {
      if (placed.length >= MAX_LABELS) break;
      const name = street.name;
      const textPx = name.length * 6.5 + 12;
      const spot = labelSpot(street.lines, textPx);
      if (!spot) continue;
      const { mid, angle } = spot;
      // The whole rotated label stays on screen: a name cut at the edge is not readable.
      const turn = (angle * Math.PI) / 180;
      const halfX = (Math.abs(Math.cos(turn)) * textPx + Math.abs(Math.sin(turn)) * 14) / 2;
      const halfY = (Math.abs(Math.sin(turn)) * textPx + Math.abs(Math.cos(turn)) * 14) / 2;
      if (mid.x - halfX < 2 || mid.y - halfY < 2 || mid.x + halfX > size.x - 2 || mid.y + halfY > size.y - 2) continue;
      if (placed.some((p) => p.mid.distanceTo(mid) < (p.name === name ? 220 : 36))) continue;
      placed.push({ name, mid });
      const icon = L.divIcon({
        className: 'street-label', iconSize: null,
        html: `<span style="transform: translate(-50%, -50%) rotate(${angle.toFixed(1)}deg)"></span>`,
      });
      const marker = L.marker(map.containerPointToLatLng(mid), {
        icon, interactive: false, keyboard: false, pane: 'bm-labels',
      });
      marker.addTo(groups['bm-labels']);
      marker.getElement().firstChild.textContent = name;
    }
  }

  // Where a street's name fits: the middle of its longest stretch on screen, nearly straight and as long as the
  // text. `lines` are the street's chained segments (streetsByName): OSM splits a street into many short ways, too
  // short alone for a name at zoom 14-15.
  function labelSpot(lines, textPx) {
    const size = map.getSize();
    const onScreen = (p) => p.x >= 0 && p.y >= 0 && p.x <= size.x && p.y <= size.y;
    const runs = [];
    for (const line of lines) {
      let run = [];
      for (const [lon, lat] of line) {
        const p = map.latLngToContainerPoint([lat, lon]);
        if (onScreen(p)) run.push(p);
        else if (run.length) {
          runs.push(run);
          run = [];
        }
      }
      if (run.length > 1) runs.push(run);
    }
    let best = null;
    for (const points of runs) {
      const lengths = [0];
      for (let i = 1; i < points.length; i++) lengths.push(lengths[i - 1] + points[i - 1].distanceTo(points[i]));
      const total = lengths[lengths.length - 1];
      if (total >= textPx && (!best || total > best.total)) best = { points, lengths, total };
    }
    if (!best) return null;
    const at = (distance) => {
      const { points, lengths } = best;
      let i = 1;
      while (i < points.length - 1 && lengths[i] < distance) i++;
      const span = lengths[i] - lengths[i - 1] || 1;
      const t = Math.min(1, Math.max(0, (distance - lengths[i - 1]) / span));
      return points[i - 1].add(points[i].subtract(points[i - 1]).multiplyBy(t));
    };
    const half = best.total / 2;
    const a = at(half - textPx / 2);
    const b = at(half + textPx / 2);
    if (a.distanceTo(b) < textPx * 0.9) return null; // too curved for straight text
    let angle = (Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI;
    if (angle > 90) angle -= 180;
    if (angle < -90) angle += 180;
    return { mid: at(half), angle };
  }

  // data-basemap-idle is "true" once the map shows what the current view needs (tests wait on it).
  let pending = 0;
  const redraw = debounce(() => {
    const taken = pending; // the moves this refresh covers
    refresh()
      .catch((e) => onError(`The map could not be drawn: ${e.message}`))
      .finally(() => {
        pending -= taken;
        element.dataset.basemapIdle = String(pending === 0);
      });
  }, 200);
  const scheduled = () => {
    pending += 1;
    element.dataset.basemapIdle = 'false';
    redraw();
  };
  // The panel below the map grows and shrinks (planner, booking, offers): keep Leaflet's idea of the size right.
  new ResizeObserver(() => map.invalidateSize({ pan: false })).observe(element);
  map.on('moveend zoomend', scheduled);
  map.baseLayer = { refresh };
  const start = view ?? DEFAULT_VIEW;
  map.setView(start.center, start.zoom);
  scheduled();
  if (!view) centreOnTheMap(map);
  return map;
}

/**
 * Moves a map still at the built-in starting view (central Helsinki) onto the imported map's centre when that view
 * lies outside the map (GET /v1/map): any extract opens on its own city. A page that has moved the map meanwhile
 * (the rider's location) keeps its view; without the answer the map stays where it is.
 */
function centreOnTheMap(map) {
  let moved = false;
  map.once('movestart zoomstart', () => { moved = true; });
  api('GET', '/v1/map')
    .then(({ bounds, center }) => {
      if (moved) return;
      const extent = L.latLngBounds([bounds.south, bounds.west], [bounds.north, bounds.east]);
      if (extent.contains(map.getCenter())) return;
      map.setView([center.lat, center.lon], map.getZoom(), { animate: false });
    })
    .catch(() => {});
}
