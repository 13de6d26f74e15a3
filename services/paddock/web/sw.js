// Pitwall service worker: an offline shell. The app's files come from the cache when the paddock is
// unreachable; data (JSON, SSE) always goes to the network, so nothing stale is shown as current.
const SHELL = "pitwall-shell-v6";
const FILES = ["/", "/static/app.css", "/static/app.js", "/static/session.js", "/static/dom.js", "/static/charts.js", "/static/sse.js", "/static/cards.js", "/static/quality.js",
               "/static/icon.svg", "/manifest.webmanifest"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(SHELL).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== SHELL).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  const shell = e.request.method === "GET" && url.origin === location.origin &&
    (url.pathname === "/" || url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest");
  if (!shell) return;  // API calls: network only
  e.respondWith(fetch(e.request).then((r) => {
    const copy = r.clone();
    caches.open(SHELL).then((c) => c.put(e.request, copy));
    return r;
  }).catch(() => caches.match(e.request).then((r) => r || caches.match("/"))));
});
