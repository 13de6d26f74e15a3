// Pitwall charts: small SVG line, bar and track-map charts drawn in the browser from JSON. No CDN, no build.
// Labels are text (textContent, Dom from dom.js), never HTML.
"use strict";
const Charts = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const el = (name, attrs = {}, parent = null) => {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  };
  const finite = (v) => typeof v === "number" && Number.isFinite(v);
  const extent = (arrays) => {
    let lo = Infinity, hi = -Infinity;
    for (const a of arrays) for (const v of a) if (finite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!Number.isFinite(lo)) return [0, 1];
    if (lo === hi) return [lo - 1, hi + 1];
    return [lo, hi];
  };
  // drawn at the container's own pixel width, so 11 px text is 11 px on a phone and on a tablet
  const widthOf = (c, dflt) => Math.max(300, Math.round((c && c.getBoundingClientRect().width) || dflt));
  // axis numbers: no "-0.00" for a value that rounds to zero
  const fmt = (v) => {
    const s = Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
    return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
  };
  // the left margin fits the longest axis label (11 px text, about 7 px a character)
  const leftFor = (labels, min) => Math.max(min, Math.max(...labels.map((t) => String(t).length)) * 7 + 12);
  // a y-axis title, turned along the axis
  const yTitle = (svg, text, H, T, B) => {
    if (!text) return;
    el("text", {x: 11, y: T + (H - T - B) / 2, "text-anchor": "middle", class: "axis-title",
                transform: `rotate(-90 11 ${T + (H - T - B) / 2})`}, svg).textContent = text;
  };

  // series: [{x: [...], y: [...], color, label, width, dash}]; opts: {height, yLabel (the axis title with
  // its unit), xUnit, zeroLine}
  function line(container, series, opts = {}) {
    const [y0, y1] = opts.yRange || extent(series.map((s) => s.y));
    const yTicks = [0, 1, 2, 3, 4].map((i) => fmt(y0 + (y1 - y0) * i / 4));
    const W = widthOf(container, 900), H = opts.height || 220, R = 10, T = 10, B = 24;
    const L = leftFor(yTicks, 40) + (opts.yLabel ? 16 : 0);
    const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
                           "aria-label": opts.title || "chart", "data-series": series.length});
    const xTicks = W < 500 ? 3 : 5;
    const [x0, x1] = extent(series.map((s) => s.x));
    const xText = (v) => opts.xUnit ? `${Math.round(v)} ${opts.xUnit}` : fmt(v);
    const sx = (v) => L + (v - x0) / (x1 - x0 || 1) * (W - L - R);
    const sy = (v) => T + (1 - (v - y0) / (y1 - y0 || 1)) * (H - T - B);
    el("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#2a3a4a"}, svg);
    for (let i = 0; i <= 4; i++) {
      const v = y0 + (y1 - y0) * i / 4, y = sy(v);
      el("line", {x1: L, x2: W - R, y1: y, y2: y, stroke: "#1f2d3b"}, svg);
      el("text", {x: L - 6, y: y + 4, "text-anchor": "end"}, svg).textContent = yTicks[i];
    }
    yTitle(svg, opts.yLabel, H, T, B);
    for (let i = 0; i <= xTicks; i++) {
      const v = x0 + (x1 - x0) * i / xTicks;
      el("text", {x: sx(v), y: H - 6, "text-anchor": i === 0 ? "start" : i === xTicks ? "end" : "middle"}, svg).textContent = xText(v);
    }
    if (opts.zeroLine && y0 < 0 && y1 > 0) el("line", {x1: L, x2: W - R, y1: sy(0), y2: sy(0), stroke: "#8ba0b4", "stroke-dasharray": "4 4"}, svg);
    for (const s of series) {
      const pts = [];
      for (let i = 0; i < s.x.length; i++) if (finite(s.x[i]) && finite(s.y[i])) pts.push(`${sx(s.x[i]).toFixed(1)},${sy(s.y[i]).toFixed(1)}`);
      const pl = el("polyline", {points: pts.join(" "), fill: "none", stroke: s.color, "stroke-width": s.width || 2,
                                 "data-label": s.label || "", "data-points": pts.length}, svg);
      if (s.dash) pl.setAttribute("stroke-dasharray", "6 4");
    }
    container.replaceChildren(svg);
    if (series.some((s) => s.label)) {
      const lg = document.createElement("div");
      lg.className = "legend";
      for (const s of series) {
        const mark = s.dash ? `background:repeating-linear-gradient(90deg, ${s.color} 0 5px, transparent 5px 8px)` : `background:${s.color}`;
        Dom.add(lg, Dom.h("span", {}, Dom.h("i", {style: mark}), s.label));
      }
      container.appendChild(lg);
    }
    return svg;
  }

  // bars: [{label, value, color}]; zero-based unless opts.zero === false (lap times: the axis spans the
  // laps' own range, so a second's difference is visible); opts.valueFmt prints values; opts.yFmt the axis
  function bars(container, items, opts = {}) {
    const W = widthOf(container, 900), H = opts.height || 200, R = 10, T = 10, B = 28;
    const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": opts.title || "bars"});
    const vals = items.map((d) => d.value).filter(finite);
    let [lo, hi] = extent([vals]);
    if (opts.zero === false) {
      const pad = Math.max(0.5, (hi - lo) * 0.25);
      lo = Math.max(0, Math.floor(lo - pad));
      hi = Math.ceil(hi + pad / 4);
    } else {
      lo = Math.min(0, lo);
      hi = Math.max(0, hi);
    }
    if (lo === hi) hi = lo + 1;
    const yTicks = [0, 1, 2, 3, 4].map((i) => (opts.yFmt || fmt)(lo + (hi - lo) * i / 4));
    const L = leftFor(yTicks, 48) + (opts.yLabel ? 16 : 0);
    yTitle(svg, opts.yLabel, H, T, B);
    svg.setAttribute("data-lo", lo);
    const bw = (W - L - R) / Math.max(items.length, 1);
    const sy = (v) => T + (1 - (v - lo) / (hi - lo || 1)) * (H - T - B);
    for (let i = 0; i <= 4; i++) {
      const v = lo + (hi - lo) * i / 4;
      el("text", {x: L - 6, y: sy(v) + 4, "text-anchor": "end"}, svg).textContent = yTicks[i];
      el("line", {x1: L, x2: W - R, y1: sy(v), y2: sy(v), stroke: "#1f2d3b"}, svg);
    }
    items.forEach((d, i) => {
      if (!finite(d.value)) return;
      const y = sy(Math.max(d.value, lo)), y0 = sy(Math.max(lo, Math.min(0, hi)));
      el("rect", {x: L + i * bw + bw * 0.15, y: Math.min(y, y0), width: bw * 0.7, height: Math.max(1, Math.abs(y0 - y)),
                  fill: d.color || "#4cc2ff", "data-label": d.label, "data-value": d.value}, svg);
      if (opts.valueFmt && bw >= 64) {
        el("text", {x: L + (i + 0.5) * bw, y: Math.min(y, y0) + 14, "text-anchor": "middle", class: "bar-value"}, svg).textContent = opts.valueFmt(d.value);
      }
      const every = Math.ceil(24 / bw); // a label every few bars when they are narrow
      if (i % every === 0) el("text", {x: L + (i + 0.5) * bw, y: H - 10, "text-anchor": "middle"}, svg).textContent = bw >= 44 ? d.label : String(d.label).replace(/^lap /, "");
    });
    container.replaceChildren(svg);
    return svg;
  }

  // a track outline from lat/lon, each segment coloured by value (delta: green gaining, red losing)
  // opts.marks: [{lat, lon, label}] (corner labels); opts.start: {lat, lon, label} (the start/finish line)
  function trackMap(container, lat, lon, value, opts = {}) {
    const W = widthOf(container, 600), H = opts.height || Math.round(Math.min(420, W * 0.8)), P = 16;
    const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": "track map"});
    const ok = lat.map((v, i) => finite(v) && finite(lon[i]));
    const la = lat.filter((_, i) => ok[i]), lo = lon.filter((_, i) => ok[i]);
    if (la.length < 2) { container.textContent = "No GPS in this lap."; return null; }
    const k = Math.cos((la.reduce((a, b) => a + b, 0) / la.length) * Math.PI / 180);
    const [x0, x1] = extent([lo.map((v) => v * k)]), [y0, y1] = extent([la]);
    const s = Math.min((W - 2 * P) / (x1 - x0), (H - 2 * P) / (y1 - y0));
    const X = (v) => P + (v * k - x0) * s, Y = (v) => H - P - (v - y0) * s;
    const m = Math.max(...value.filter(finite).map(Math.abs), 1e-3);
    const colour = (v) => {
      if (!finite(v)) return "#8ba0b4";
      const t = Math.min(1, Math.abs(v) / m);
      return v > 0 ? `rgb(${Math.round(120 + 135 * t)},${Math.round(120 - 60 * t)},${Math.round(120 - 60 * t)})`
                   : `rgb(${Math.round(120 - 60 * t)},${Math.round(120 + 100 * t)},${Math.round(120 - 20 * t)})`;
    };
    let segs = 0;
    for (let i = 1; i < lat.length; i++) {
      if (!ok[i] || !ok[i - 1]) continue;
      el("line", {x1: X(lon[i - 1]).toFixed(1), y1: Y(lat[i - 1]).toFixed(1), x2: X(lon[i]).toFixed(1), y2: Y(lat[i]).toFixed(1),
                  stroke: colour(value[i]), "stroke-width": 5, "stroke-linecap": "round"}, svg);
      segs++;
    }
    svg.setAttribute("data-segments", segs);
    for (const mk of opts.marks || []) {
      if (!finite(mk.lat) || !finite(mk.lon)) continue;
      const x = X(mk.lon), y = Y(mk.lat);
      el("circle", {cx: x.toFixed(1), cy: y.toFixed(1), r: 3, fill: "#e6edf3"}, svg);
      const right = x > W - 60; // labels stay inside the map at every edge
      el("text", {x: (right ? x - 6 : x + 6).toFixed(1), y: Math.max(12, y - 6).toFixed(1), class: "corner-label",
                  "text-anchor": right ? "end" : "start"}, svg).textContent = mk.label;
    }
    const sf = opts.start;
    if (sf && finite(sf.lat) && finite(sf.lon)) {
      const x = X(sf.lon), y = Y(sf.lat);
      el("rect", {x: (x - 6).toFixed(1), y: (y - 6).toFixed(1), width: 12, height: 12, fill: "#ffffff", stroke: "#000", "stroke-width": 2, class: "start-finish"}, svg);
      const right = x > W - 40;
      el("text", {x: (right ? x - 9 : x + 9).toFixed(1), y: Math.min(H - 4, y + 16).toFixed(1), class: "sf-label",
                  "text-anchor": right ? "end" : "start"}, svg).textContent = sf.label || "S/F";
    }
    container.replaceChildren(svg);
    return svg;
  }

  return {line, bars, trackMap};
})();
