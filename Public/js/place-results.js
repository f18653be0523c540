// Place results on the rider page: each result shows what it is (its category) and where (its address or
// district), with the local name beside a translated one; before the rider types, their saved places
// ("Home", "Work") and recent destinations are offered (GET /v1/me/places), and a chosen destination can be
// saved under a label (PUT /v1/me/places/{label}). See docs/places.md.
import { api } from './api.js';
import { formatKm } from './ui.js';

/** The line under a result's name: category, address or area, and the distance when known. */
export function placeDetails(place) {
  const where = [place.address, place.area].filter(Boolean).join(', ');
  const distance = place.distance_m != null ? formatKm(place.distance_m) : null;
  return [place.category, where, distance].filter(Boolean).join(' · ');
}

/**
 * One result as a listbox option: the name (with the local name in parentheses when the name is a
 * translation), then `placeDetails`. `onChoose` runs on a click.
 */
export function placeOption(place, { id, selected, onChoose }) {
  const item = document.createElement('li');
  item.id = id;
  item.setAttribute('role', 'option');
  item.setAttribute('aria-selected', String(selected));
  item.dataset.category = place.category || '';
  const name = document.createElement('span');
  name.className = 'place-name';
  name.textContent = place.name;
  item.append(name);
  if (place.local_name) {
    const local = document.createElement('span');
    local.className = 'place-local';
    local.lang = ''; // the name on the spot, in the place's own language
    local.textContent = ` (${place.local_name})`;
    item.append(local);
  }
  const small = document.createElement('small');
  small.textContent = placeDetails(place);
  if (place.pickup) small.textContent += ` · pickup: ${place.pickup.name}`;
  item.append(small);
  item.addEventListener('click', onChoose);
  return item;
}

/**
 * The rider's saved places then recent destinations, shaped like search results (`name`, `position`,
 * `category` "saved place" or "recent", `address` the label or nothing), or [] without a rider.
 */
export async function myPlaces(rider, signal) {
  if (!rider?.token) return [];
  const answer = await api('GET', '/v1/me/places', { token: rider.token, signal });
  const saved = (answer.saved || []).map((p) => ({
    name: p.label, address: p.name === p.label ? p.address : [p.name, p.address].filter(Boolean).join(', '),
    category: 'saved place', position: p.position,
  }));
  const recent = (answer.recent || []).map((p) => ({
    name: p.name || `${p.position.lat.toFixed(5)}, ${p.position.lon.toFixed(5)}`, category: 'recent',
    position: p.position,
  }));
  return [...saved, ...recent];
}

/**
 * Fills `container` with "Save as Home" / "Save as Work" buttons for the destination `place`
 * (`{name, position}`); `getRider` gives (or makes) the rider account; `done` is told what happened.
 */
export function offerToSave(container, place, { getRider, done }) {
  container.replaceChildren(...['Home', 'Work'].map((label) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = `Save as ${label}`;
    button.addEventListener('click', async () => {
      try {
        const rider = await getRider();
        await api('PUT', `/v1/me/places/${encodeURIComponent(label)}`, {
          token: rider.token, body: { name: place.name, position: place.position },
        });
        done(`Saved ${place.name} as ${label}.`);
      } catch (error) {
        done(null, error);
      }
    });
    return button;
  }));
  container.hidden = false;
}
