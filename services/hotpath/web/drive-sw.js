// The drive screen offline: the page (network first, cached copy when the hot path is unreachable) and
// the pre-rendered voices (cache first: their names are hashes of what they say). The cue stream is
// never touched.
const CACHE = "pitwall-drive-v1";

self.addEventListener("install", (e) => { self.skipWaiting(); });
self.addEventListener("activate", (e) => { e.waitUntil(self.clients.claim()); });

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/voices/") && url.pathname.endsWith(".wav")) {
    e.respondWith(caches.open(CACHE).then(async (c) => {
      const hit = await c.match(e.request, { ignoreSearch: true });
      if (hit) return hit;
      const r = await fetch(e.request);
      if (r.ok) c.put(url.pathname, r.clone());
      return r;
    }));
    return;
  }
  if (url.pathname === "/drive" || url.pathname === "/voices/manifest.json" || url.pathname === "/drive/manifest.webmanifest") {
    e.respondWith(fetch(e.request).then((r) => {
      if (r.ok) { const copy = r.clone(); caches.open(CACHE).then((c) => c.put(url.pathname, copy)); }
      return r;
    }).catch(() => caches.open(CACHE).then((c) => c.match(url.pathname)).then((hit) => hit || Response.error())));
  }
});
