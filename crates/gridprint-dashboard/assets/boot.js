// Starts the first visit's requests while the map library is still downloading: this module has no
// imports, so it runs as soon as it arrives; app.js picks the answers up from window.__gridprintBoot.
const q = new URLSearchParams(location.search);
const date = /^\d{4}-\d{2}-\d{2}$/.test(q.get('date') ?? '') ? q.get('date') : null;
const publicMode = document.querySelector('meta[name="gridprint-dashboard"]')?.content === 'public';
const meta = fetch('/dashboard/api/meta');
window.__gridprintBoot = {
  meta,
  geojson: fetch('/dashboard/zones.geojson'),
  // The day: the URL's, else the opening slot's (known once meta answers).
  day: publicMode
    ? (date ? fetch(`/dashboard/api/day?date=${date}`)
      : meta.then((r) => r.clone().json()).then((m) => (m.opening_slot ? fetch(`/dashboard/api/day?date=${m.opening_slot.slice(0, 10)}`) : null)))
    : null,
};
