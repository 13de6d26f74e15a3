// Pitwall tablet app: hash-routed screens over the paddock's JSON and SSE endpoints. Every screen is built
// with Dom (dom.js): data is text, never HTML.
"use strict";
const view = document.getElementById("view");
const banner = document.getElementById("banner");
const conn = document.getElementById("conn");
const {h} = Dom;
window.pitwallEvents = [];  // every SSE event in arrival order (the browser tests read it)

const num = (v, d = 3) => (typeof v === "number" && Number.isFinite(v) ? v.toFixed(d) : "–");
// one lap-time format everywhere: m:ss.sss (the CLI and the demo use the same)
const lapTime = (s) => {
  if (typeof s !== "number" || !Number.isFinite(s)) return "–";
  const ms = Math.round(s * 1000); // rounded once, as shared/display.py does: never "0:60.000"
  const m = Math.floor(ms / 60000);
  return `${m}:${((ms - 60000 * m) / 1000).toFixed(3).padStart(6, "0")}`;
};
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const when = (ts) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})/.exec(String(ts || ""));
  return m ? `${+m[3]} ${MONTHS[+m[2] - 1]} ${m[1]} ${m[4]}:${m[5]}` : "date unknown";
};
const baseName = (p) => String(p || "").split(/[\\/]/).pop();
const carName = (id) => String(id || "unknown car").replace(/_aim_mxp$/, "").replace(/_/g, " ").replace(/\bbmw\b/, "BMW").replace(/\be(\d\d)\b/, "E$1").replace(/\bm(\d)\b/, "M$1");
const SOURCES = {aim_xrk: "AiM XRK", aim_csv: "AiM CSV", vbox_csv: "VBOX CSV", vbo: "VBOX", candump: "CAN log", live: "live", simulator: "simulated"};
// a session named for people: track, date, car and the file it came from (the id stays available, small)
function sessionName(s) {
  const file = baseName(s.source_path);
  const src = SOURCES[s.source_format] || s.source_format || "";
  return {
    title: `${s.track_name || s.track_id || "Unknown track"} · ${when(s.started_at)}`,
    sub: [s.car_name || carName(s.car_id), file || src, file && src ? src : ""].filter(Boolean).join(" · "),
  };
}
const driverOf = (s) => String(s.driver_name || s.driver_id || "");
const table = (id, head, rows) => h("div", {class: "table-wrap"}, h("table", {id},
  h("thead", {}, h("tr", {}, head.map((c) => (c instanceof Node ? c : h("th", {}, c))))), h("tbody", {}, rows)));
const td = (...kids) => h("td", {}, ...kids);

function authHeaders() {
  const t = localStorage.getItem("pitwall-token");
  return t ? {Authorization: `Bearer ${t}`} : {};
}

function showBanner(text, kind = "") {
  banner.textContent = text;
  banner.className = `banner ${kind}`;
  banner.hidden = !text;
}

async function api(path) {
  let r;
  try {
    r = await fetch(path, {headers: authHeaders()});
  } catch (e) {
    conn.className = "conn down";
    throw new Error(`The paddock is not reachable (${e.message}).`);
  }
  conn.className = "conn ok";
  if (r.status === 401 || r.status === 403) {
    const t = prompt("This paddock needs its API token (PITWALL_API_TOKEN):");
    if (t) { localStorage.setItem("pitwall-token", t); return api(path); }
  }
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((body.error && (body.error.message || body.error.code)) || `HTTP ${r.status}`);
  return body;
}

function fail(e) {
  Dom.fill(view, h("div", {class: "card"}, h("h1", {}, "Something went wrong"), h("p", {}, e.message),
    h("button", {onclick: () => route()}, "Try again")));
}

// ---------- Sessions list ----------
async function sessionsScreen(seq) {
  const rows = await api("/sessions");
  if (stale(seq)) return;
  if (!rows.length) {
    Dom.fill(view, h("h1", {}, "Sessions"), h("div", {class: "card"}, h("p", {}, "No sessions yet. Import a log with ",
      h("code", {}, "pitwall import FILE"), ", or run ", h("code", {}, "pitwall demo"), ".")));
    return;
  }
  Dom.fill(view, h("h1", {}, "Sessions"), h("div", {class: "card"}, table("sessions",
    ["Session", "Driver", "Laps", "Best lap", "Status"], rows.map((s) => {
      const n = sessionName(s);
      const tr = h("tr", {class: "clickable", dataset: {sid: s.session_id}},
        h("td", {class: "name"}, h("a", {href: `#/session/${encodeURIComponent(s.session_id)}`}, n.title),
          h("div", {class: "muted small"}, n.sub), h("div", {class: "muted small sid"}, s.session_id)),
        td(driverOf(s)), td(s.n_laps ?? "–"),
        td(lapTime(s.best_lap_s), s.best_lap != null ? [" ", h("span", {class: "muted"}, `(lap ${s.best_lap})`)] : null),
        td(s.status));
      tr.addEventListener("click", () => { location.hash = `#/session/${encodeURIComponent(s.session_id)}`; });
      return tr;
    }))));
}

// ---------- Session page ----------
async function sessionScreen(sid, seq) {
  const [s, laps, corners] = await Promise.all([api(`/sessions/${sid}`), api(`/sessions/${sid}/laps`), api(`/sessions/${sid}/corners`)]);
  if (stale(seq)) return;
  const full = laps.filter((l) => l.kind === "full");
  const valid = full.filter((l) => l.valid);
  // the one best lap: the fastest valid full lap (the earlier of a tie), whatever flags a row carries
  const best = valid.slice().sort((a, b) => a.time_s - b.time_s || a.lap - b.lap)[0];
  const other = valid.filter((l) => !best || l.lap !== best.lap).slice(-1)[0] || best;
  const nm = sessionName(s);
  const enc = encodeURIComponent(sid);
  const isBest = (l) => best && l.lap === best.lap;
  const lapRows = laps.map((l) => h("tr", {class: [isBest(l) ? "best" : "", l.kind === "full" && !l.valid ? "invalid" : ""].join(" ").trim(), dataset: {lap: l.lap}},
    td(l.lap), td(lapTime(l.time_s)),
    td(best && l.kind === "full" ? (l.time_s - best.time_s >= 0 ? "+" : "") + num(l.time_s - best.time_s) : ""),
    td(l.kind), td(isBest(l) ? "best" : (l.invalid_reason || ""))));
  const quality = s.data_quality || s.quality;
  const selA = h("select", {id: "lapA"}, h("optgroup", {label: "This session"},
    full.map((l) => h("option", {value: `${sid}:${l.lap}`}, `lap ${l.lap} · ${lapTime(l.time_s)}`)),
    best ? h("option", {value: `${sid}:achievable`}, "achievable lap (your laps joined where they matched)") : null));
  const selRef = h("select", {id: "refLap", hidden: true, "aria-label": "lap of that session"});
  const selB = h("select", {id: "lapB"}, full.map((l) => h("option", {value: l.lap}, `${l.lap} · ${lapTime(l.time_s)}`)));
  Dom.fill(view, h("h1", {}, `${nm.title} · ${driverOf(s)}`),
    h("p", {class: "muted small"}, `${nm.sub} · `, h("span", {class: "sid"}, sid)),
    h("div", {class: "row"}, h("a", {class: "btn", id: "go-debrief", href: `#/debrief/${enc}`}, "Debrief"),
      h("a", {class: "btn", href: `#/ask/${enc}`}, "Ask about this session"),
      h("a", {class: "btn", href: `#/cues/${enc}`}, "Cue log"),
      h("button", {class: "btn", id: "export", onclick: () => exportSession(sid).catch((e) => showBanner(e.message, "error"))}, "Share with a coach"),
      h("button", {class: "btn danger", id: "delete", onclick: () => deleteSession(sid, nm.title).catch((e) => showBanner(e.message, "error"))}, "Delete session")),
    h("div", {class: "grid"},
      h("div", {class: "card"}, h("h2", {}, "Laps"), table("laps", ["Lap", "Time", "Δ to best, s", "Kind", "Note"], lapRows)),
      h("div", {class: "card"}, h("h2", {}, "Lap times (full laps)"), h("div", {id: "lapchart"}))),
    h("div", {class: "card", id: "quality", hidden: !quality}, h("h2", {}, "Data quality"), qualityNodes(quality)),
    h("div", {class: "card"}, h("h2", {}, "Overlay"),
      h("div", {class: "row"}, "Reference ", selA, " ", selRef, " against ", selB),
      h("div", {id: "overlay-speed"}), h("div", {id: "overlay-pedals"}), h("div", {id: "overlay-delta"})),
    h("div", {class: "grid"}, h("div", {class: "card"}, h("h2", {id: "map-title"}, "Track map"), h("div", {id: "trackmap"})),
      h("div", {class: "card"}, h("h2", {id: "corners-title"}, "Corners"), h("div", {id: "corners"}))));
  // the axis spans the laps' own range (not from zero), so a second's difference shows; values on wide bars
  Charts.bars(document.getElementById("lapchart"), full.map((l) => ({label: `lap ${l.lap}`, value: l.time_s,
    color: isBest(l) ? "#3ccf7a" : l.valid ? "#4cc2ff" : "#56606b"})), {title: "lap times", valueFmt: lapTime, yFmt: lapTime, yLabel: "lap time", zero: false});
  if (best) selA.value = `${sid}:${best.lap}`;
  if (other) selB.value = other.lap;
  // any other session at this track can be the reference too: its best lap (yours, a friend's, another logger's)
  const others = (await api("/sessions").catch(() => [])).filter((o) => o.session_id !== sid && o.track_id && o.track_id === s.track_id && o.best_lap != null);
  if (stale(seq)) return;
  if (others.length) Dom.add(selA, h("optgroup", {label: "Other sessions here (best lap)"}, others.map((o) =>
    h("option", {value: `${o.session_id}:${o.best_lap}`}, `${o.driver_id} · ${when(o.started_at)} · lap ${o.best_lap} · ${lapTime(o.best_lap_s)}`))));
  // another session's reference: its best lap first, then any of its valid laps (#refLap)
  const draw = async () => {
    const [refSid, best] = selA.value.split(/:(?=[^:]*$)/);
    const ref = refSid === sid ? null : others.find((o) => o.session_id === refSid);
    try {
      if (ref && selRef.dataset.sid !== refSid) {
        const theirs = (await api(`/sessions/${encodeURIComponent(refSid)}/laps`)).filter((l) => l.kind === "full" && l.valid);
        if (stale(seq)) return;
        Dom.fill(selRef, theirs.map((l) => h("option", {value: l.lap}, `lap ${l.lap} · ${lapTime(l.time_s)}`)));
        selRef.dataset.sid = refSid;
        selRef.value = best;
      }
      selRef.hidden = !ref;
      const refLap = ref ? selRef.value || best : best;
      const achievable = refLap === "achievable";  // this session's laps joined where they matched
      await overlay(sid, +selB.value, {sid: refSid, lap: achievable ? refLap : +refLap,
        name: achievable ? "achievable lap" : ref ? `${ref.driver_id} ${when(ref.started_at)} lap ${refLap}` : `lap ${refLap}`}, corners, seq);
    } catch (e) { showBanner(e.message, "error"); }
  };
  selA.onchange = draw; selB.onchange = draw; selRef.onchange = draw;
  if (full.length) await draw();
}

// one file for a coach: the session's data and a report any browser opens (`pitwall import` takes it)
async function exportSession(sid) {
  showBanner("Preparing the file…");
  const r = await fetch(`/sessions/${encodeURIComponent(sid)}/export`, {headers: authHeaders()});
  if (!r.ok) throw new Error(`Could not export this session (HTTP ${r.status}).`);
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await r.blob());
  a.download = `${sid}.pitwall`;
  document.body.appendChild(a); a.click(); a.remove();
  showBanner(`Saved ${sid}.pitwall: send it to your coach; it holds a report they open in any browser.`);
}

async function deleteSession(sid, title) {
  if (!confirm(`Delete ${title} and everything about it (laps, telemetry, debriefs)? This cannot be undone.`)) return;
  const r = await fetch(`/sessions/${encodeURIComponent(sid)}`, {method: "DELETE", headers: authHeaders()});
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(`Not deleted: ${(body.error && body.error.message) || body.detail || `HTTP ${r.status}`}`);
  showBanner(`Deleted ${title}.`);
  location.hash = "#/";
}

// lap b of this session against a reference lap (ref: {sid, lap, name}), of this or any other session
async function overlay(sid, b, ref, corners, seq) {
  const ch = "speed_kmh,throttle_pct,brake_bar,lat,lon";
  const enc = encodeURIComponent;
  // the achievable lap is stitched from several laps: its trace has its own endpoint and no per-lap corner rows
  const refPath = ref.lap === "achievable" ? `/sessions/${enc(ref.sid)}/achievable/trace` : `/sessions/${enc(ref.sid)}/laps/${ref.lap}/trace`;
  const [A, B, refCorners] = await Promise.all([api(`${refPath}?channels=${ch}&step_m=10`),
    api(`/sessions/${enc(sid)}/laps/${b}/trace?channels=${ch}&step_m=10`),
    ref.lap === "achievable" ? Promise.resolve([]) : ref.sid === sid ? Promise.resolve(corners) : api(`/sessions/${enc(ref.sid)}/corners`)]);
  if (stale(seq)) return;
  const a = ref.name; // "lap 2", or "bo 21 Nov 2026 10:00 lap 3" for another session's lap
  const n = Math.min(A.dist_m.length, B.dist_m.length);
  const x = A.dist_m.slice(0, n);
  const delta = x.map((_, i) => B.time_s[i] - A.time_s[i]);
  Charts.line(document.getElementById("overlay-speed"), [
    {x: A.dist_m, y: A.speed_kmh, color: "#4cc2ff", label: `${a} speed km/h (reference)`, width: 4},
    {x: B.dist_m, y: B.speed_kmh, color: "#f5a524", label: `lap ${b} speed km/h`, width: 1.5}], {title: "speed", yLabel: "km/h", xUnit: "m"});
  // a channel the session did not record is said so, never drawn as a flat zero
  const has = (tr, c) => (tr[c] || []).some((v) => typeof v === "number" && Number.isFinite(v));
  const pedals = [
    // one hue a pedal (throttle green, brake red), the reference solid and the other lap dashed
    {x: A.dist_m, y: A.throttle_pct, color: "#3ccf7a", label: `${a} throttle %`, width: 2, ch: "throttle_pct", tr: A},
    {x: B.dist_m, y: B.throttle_pct, color: "#3ccf7a", label: `lap ${b} throttle %`, width: 1.5, dash: true, ch: "throttle_pct", tr: B},
    {x: A.dist_m, y: A.brake_bar, color: "#ff5d5d", label: `${a} brake bar`, width: 2, ch: "brake_bar", tr: A},
    {x: B.dist_m, y: B.brake_bar, color: "#ff5d5d", label: `lap ${b} brake bar`, width: 1.5, dash: true, ch: "brake_bar", tr: B}];
  const drawn = pedals.filter((p) => has(p.tr, p.ch));
  const missing = [...new Set(pedals.filter((p) => !has(p.tr, p.ch)).map((p) => ({throttle_pct: "throttle", brake_bar: "brake pressure"}[p.ch])))];
  const pedalBox = document.getElementById("overlay-pedals");
  const pedalAxis = [...new Set(drawn.map((p) => ({throttle_pct: "throttle %", brake_bar: "brake bar"}[p.ch])))].join(" · ");
  if (drawn.length) Charts.line(pedalBox, drawn, {title: "pedals", height: 170, yLabel: pedalAxis, xUnit: "m"});
  else pedalBox.replaceChildren();
  if (missing.length) Dom.add(pedalBox, h("p", {class: "muted small", id: "not-recorded"}, `Not recorded in this session: ${missing.join(" and ")}.`));
  Charts.line(document.getElementById("overlay-delta"), [{x, y: delta, color: "#e6edf3", label: `delta s (lap ${b} − ${a})`}],
    {title: "delta", height: 140, zeroLine: true, yLabel: "s", xUnit: "m"});
  // where time is lost, not the running total: the delta's change over ±50 m
  const slope = delta.map((_, i) => delta[Math.min(n - 1, i + 5)] - delta[Math.max(0, i - 5)]);
  const pick = (lap) => Object.fromEntries(corners.filter((c) => c.lap === lap).map((c) => [c.corner_id, c]));
  const ca = Object.fromEntries(refCorners.filter((c) => c.lap === ref.lap).map((c) => [c.corner_id, c])), cb = pick(b);
  const ids = Object.keys(cb).sort((p, q) => cb[p].start_m - cb[q].start_m);
  // corner labels at each corner's middle on lap b's line, and the start/finish at the lap's first point
  const at = (m) => { let i = 0; while (i < n - 1 && B.dist_m[i] < m) i++; return i; };
  const marks = ids.map((id) => { const c = cb[id], i = at((c.start_m + c.end_m) / 2); return {lat: B.lat[i], lon: B.lon[i], label: shortCorner(c)}; });
  Charts.trackMap(document.getElementById("trackmap"), B.lat.slice(0, n), B.lon.slice(0, n), slope,
    {marks, start: {lat: B.lat[0], lon: B.lon[0], label: "S/F"}});
  document.getElementById("map-title").textContent = `Track map, lap ${b} against ${a}: red where lap ${b} loses time, green where it gains`;
  document.getElementById("corners-title").textContent = `Corners, lap ${b} (Δ against ${a})`;
  const sign = (d) => (d > 0.02 ? "var(--bad)" : d < -0.02 ? "var(--good)" : "inherit");
  Dom.fill(document.getElementById("corners"), table("corner-table", ["Corner", "Entry km/h", "Min km/h", "Exit km/h", "Brakes at, m", "Time, s",
    h("th", {title: `lap ${b} minus ${a}; negative is faster`}, `Δ s vs ${a}`)], ids.map((id) => {
    const c = cb[id], r = ca[id];
    const d = r && c.time_s != null && r.time_s != null ? c.time_s - r.time_s : null;
    return h("tr", {}, td(c.corner_name), td(num(c.entry_kmh, 0)), td(num(c.min_kmh, 0)), td(num(c.exit_kmh, 0)),
      td(c.brake_point_m != null ? num(c.brake_point_m, 0) : "–"), td(num(c.time_s, 2)),
      h("td", {style: `color:${sign(d)}`}, d == null ? "–" : signed(d, 2)));
  })), h("p", {class: "muted small"}, `Entry, minimum and exit speed in km/h; brake point in metres from the
    start/finish line; Δ = lap ${b} − ${a} through the corner, negative is faster.`));
}

// a signed difference as a driver reads it: "+0.42", "-0.31", and "0.00" (never "-0.00") for what rounds to zero
function signed(v, nd) {
  const r = Number(v.toFixed(nd));
  return r === 0 ? (0).toFixed(nd) : (r > 0 ? "+" : "") + r.toFixed(nd);
}

// "Turn 11" -> "T11", "Corner 3a" -> "C3A"; one corner format: the track's name in tables, this short form on the map
function shortCorner(c) {
  const m = /^(turn|corner)\s*(\w+)$/i.exec(String(c.corner_name || ""));
  return m ? `${m[1][0].toUpperCase()}${m[2].toUpperCase()}` : String(c.corner_name || c.corner_id || "");
}

// the data-quality report of a session, whatever its shape: a list of findings or key/value facts
function qualityNodes(q) {
  if (!q) return null;
  const text = (v) => (typeof v === "object" ? JSON.stringify(v) : v);
  if (Array.isArray(q)) return h("ul", {}, q.map((x) => h("li", {}, typeof x === "object" && x ? (x.message || x.text || JSON.stringify(x)) : x)));
  if (typeof q !== "object") return h("p", {}, q);
  return h("dl", {class: "kv"}, Object.entries(q).map(([k, v]) => [h("dt", {}, human(k).name), h("dd", {}, text(v))]));
}

// ---------- Debrief ---------- (the data cards and step names: cards.js)
async function debriefScreen(sid, seq) {
  const s = await api(`/sessions/${sid}`);
  if (stale(seq)) return;
  Dom.fill(view, h("h1", {}, `Debrief · ${sessionName(s).title} · ${driverOf(s)}`),
    h("div", {class: "grid"}, h("div", {class: "card"}, h("h2", {}, "Progress"), h("ul", {class: "phases", id: "phases"})),
      h("div", {class: "card"}, h("h2", {}, "Your engineer"), h("div", {id: "state", class: "muted"}, "Starting…"),
        h("div", {class: "narrative", id: "narrative"}), h("div", {id: "verdict"}), h("ul", {id: "focus"}))),
    h("h2", {}, "Data"), h("div", {class: "grid", id: "data"}));
  const body = {session_id: sid, driver_id: s.driver_id};
  await streamWithReconnect("/coach/debrief", body, debriefHandlers());
}

function debriefHandlers() {
  const $ = (id) => document.getElementById(id);
  return {
    reset() { for (const id of ["phases", "narrative", "data", "verdict", "focus"]) Dom.fill($(id)); },
    phase(d) {
      const id = `ph-${d.agent}`;
      let li = document.getElementById(id);
      if (!li) { li = h("li", {id}); $("phases").appendChild(li); }
      li.className = d.status;
      const status = {started: "started", finished: "done", queued: `waiting (${d.ahead} ahead)`}[d.status] || d.status;
      li.textContent = `${stepWords(d.agent)}: ${status}${d.ms ? ` · ${num(d.ms / 1000, 1)} s` : ""}`;
      $("state").textContent = d.status === "queued" ? "Waiting for the model…" : "Working…";
    },
    data(d) { $("data").appendChild(dataCard(d)); },
    token(d) { $("state").textContent = "Speaking…"; $("narrative").textContent += d.text; },
    done(d) {
      $("narrative").textContent = d.text;
      $("state").textContent = `Done in ${num(d.ms / 1000, 1)} s · ${d.llm_calls} model call${d.llm_calls === 1 ? "" : "s"} · ${d.emotion}`;
      $("state").dataset.done = "1";
      const v = $("verdict");
      if (d.narrator && d.narrator !== "llm") Dom.add(v, h("div", {class: "template", id: "template-note"},
        h("b", {}, "Written from the data, not by the model."), " ", d.reason || ""));
      if (d.ungrounded && d.ungrounded.length) Dom.add(v, h("div", {class: "warn", id: "ungrounded"}, h("b", {}, "Check these:"),
        ` the model mentioned ${d.ungrounded.join(", ")}, which the session data does not contain.`));
      Dom.fill($("focus"), (d.focus_items || []).map((f) => h("li", {}, f)));
    },
    error(d) { $("state").textContent = `Error: ${d.message}`; showBanner(`The debrief failed: ${d.message}`, "error"); },
  };
}
// the stream the current screen is showing; leaving the screen cancels it (the paddock then cancels the run)
let activeStream = null;

// stream an SSE request; if the paddock goes away mid-stream, say so, wait for it, and run it again
async function streamWithReconnect(url, body, handlers, maxAttempts = 20) {
  if (activeStream) activeStream.abort();
  const ctrl = new AbortController();
  activeStream = ctrl;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (ctrl.signal.aborted) return;
    handlers.reset && handlers.reset();
    try {
      await postSSE(url, body, {headers: authHeaders(), signal: ctrl.signal, onEvent: (type, data) => {
        if (ctrl.signal.aborted) return;
        window.pitwallEvents.push({type, t: performance.now(), text: data.text});
        handlers[type] && handlers[type](data);
      }});
      if (activeStream === ctrl) activeStream = null;
      if (attempt) showBanner("Reconnected to the paddock; the answer above is complete.", "ok");
      return;
    } catch (e) {
      if (e.name === "AbortError" || ctrl.signal.aborted) return;  // the driver left this screen
      if (e.status === 429) { showBanner(`The model is busy; retrying in ${e.retryAfter || 5} s.`); await sleep(1000 * (+e.retryAfter || 5)); continue; }
      if (!(e instanceof NetworkLost)) { handlers.error({message: e.message}); return; }
      conn.className = "conn down";
      showBanner(`Lost the connection to the paddock (${e.message}). Reconnecting…`, "error");
      window.pitwallEvents.push({type: "disconnected", t: performance.now()});
      await waitForPaddock(ctrl.signal);
      showBanner("The paddock is back. Asking again…");
      window.pitwallEvents.push({type: "reconnected", t: performance.now()});
    }
  }
  handlers.error({message: "gave up after repeated connection losses"});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitForPaddock(signal) {
  while (!(signal && signal.aborted)) {
    try { const r = await fetch("/health", {cache: "no-store"}); if (r.ok) { conn.className = "conn ok"; return; } } catch (_) {}
    await sleep(700);
  }
}

// ---------- Q&A ----------
async function askScreen(sid, seq) {
  const [agents, sessions] = await Promise.all([api("/coach/agents"), api("/sessions")]);
  if (stale(seq)) return;
  const intents = Object.keys(agents.intents || {});
  const current = sid || (sessions[0] && sessions[0].session_id) || "";
  const driver = (sessions.find((x) => x.session_id === current) || {}).driver_id || "driver";
  const sessionSel = h("select", {id: "ask-session"}, sessions.map((x) => h("option", {value: x.session_id}, `${sessionName(x).title} · ${driverOf(x)}`)));
  const intentSel = h("select", {id: "intent"}, h("option", {value: ""}, "let Pitwall decide"),
    intents.map((i) => h("option", {value: i}, `${i.replace("_", " ")} → ${agents.intents[i]}`)));
  const question = h("input", {id: "question", style: "flex:1", maxlength: 2000, placeholder: "Why was lap 7 slower than lap 5?", autocomplete: "off"});
  const btn = h("button", {id: "ask-btn"}, "Ask");
  const chat = h("div", {class: "chat", id: "chat"});
  const form = h("form", {id: "ask-form", class: "row", style: "margin-top:.8rem"}, question, btn);
  Dom.fill(view, h("h1", {}, "Ask your engineer"), h("div", {class: "card"},
    h("div", {class: "row"}, "Session ", sessionSel, " Topic ", intentSel), chat, form));
  sessionSel.value = current;
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const q = question.value.trim();
    if (!q) return;
    const sel = sessionSel.value;
    const drv = (sessions.find((x) => x.session_id === sel) || {}).driver_id || driver;
    Dom.add(chat, h("div", {class: "msg user"}, q));
    const out = h("div", {class: "msg assistant"});
    chat.appendChild(out);
    btn.disabled = true;
    const body = {driver_id: drv, session_id: sel || null, question: q};
    if (intentSel.value) body.intent = intentSel.value;
    await streamWithReconnect("/coach/ask", body, {
      reset() { out.textContent = ""; },
      phase() {},
      token(d) { out.textContent += d.text; },
      done(d) {
        out.dataset.done = "1";
        if (d.available === false) { Dom.fill(out, h("i", {}, `The model is not available: ${d.reason}`)); return; }
        out.textContent = d.text;
        // an answer not written by the model says so, and why (narrator "template" / "data" / anything else)
        if (d.narrator && d.narrator !== "llm") out.prepend(h("div", {class: "template narrator", dataset: {narrator: d.narrator}}, h("b", {},
          d.narrator === "data" ? "Answered from your data, not by the model." : d.narrator === "template" ? "Written from the data, not by the model." : `Answered by: ${d.narrator}.`),
          " ", d.reason || ""));
        Dom.add(out, h("div", {class: "muted", style: "font-size:.8rem"}, d.agent || "", (d.tools || []).length ? " · " + d.tools.map((t) => t.tool).join(", ") : ""));
      },
      error(d) { out.dataset.done = "1"; Dom.fill(out, h("i", {}, `Could not answer: ${d.message}`)); },
    });
    btn.disabled = false;
    question.value = "";
  };
}

// ---------- Cue log ----------
// why a cue was held back, in a driver's words (the arbiter's reasons)
const HELD = {
  superseded: "replaced by a more useful cue", late: "too late to say before its corner",
  busy: "you were braking or cornering", gap: "too soon after the last cue", expired: "waited too long",
  budget: "enough cues that lap already", corner_done: "that corner was coached already that lap",
  pb_lap: "you were on a personal-best lap", no_window: "no quiet stretch before that corner",
  session_end: "the session ended first",
};
const held = (r) => HELD[r] || String(r || "held back").replace(/_/g, " ");

async function cuesScreen(sid, seq) {
  const [s, notes] = await Promise.all([api(`/sessions/${sid}`), api(`/sessions/${sid}/notes`)]);
  if (stale(seq)) return;
  const spoken = notes.filter((n) => n.status === "spoken").length;
  const why = {};
  for (const n of notes) if (n.status !== "spoken") why[held(n.reason)] = (why[held(n.reason)] || 0) + 1;
  const whyText = Object.entries(why).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join("; ");
  const rows = notes.map((n) => h("tr", {title: `rule ${n.rule}`}, td(n.lap ?? "–"),
    td(n.corner ? shortCorner({corner_name: n.corner}) : "", " ", n.dist_m != null ? h("span", {class: "muted small"}, `${num(n.dist_m, 0)} m`) : null),
    td(n.text), td(h("span", {class: `tag ${n.status} ${n.priority >= 3 ? "safety" : ""}`}, `${n.status === "spoken" ? "said" : "held back"}${n.priority >= 3 ? " · safety" : ""}`)),
    td(n.status === "spoken" ? "" : held(n.reason))));
  Dom.fill(view, h("h1", {}, "Cue log ", h("span", {class: "muted"}, sessionName(s).title)),
    h("p", {}, `${spoken} cue${spoken === 1 ? "" : "s"} spoken${notes.length > spoken ? `, ${notes.length - spoken} held back (${whyText})` : ""}.
      A cue that would come too late is never said: late is worse than silence.`),
    h("div", {class: "card"}, table("cue-table", ["Lap", "Where", "Cue", "Said?", "Why not"],
      rows.length ? rows : h("tr", {}, h("td", {colspan: 5, class: "muted"}, "No cues for this session.")))));
}

// ---------- Agent traces ----------
let tracePoll = null;
async function tracesScreen(seq) {
  if (stale(seq)) return;
  Dom.fill(view, h("h1", {}, "Agent traces"), h("p", {class: "muted"}, "Every agent run, tool call and model error, newest first; refreshed every 3 s."),
    h("div", {class: "card"}, table("trace-table", ["Time", "Agent / tool", "Event", "Latency", "OK", "Session"], [])));
  let since = null;
  const tbody = view.querySelector("#trace-table tbody");
  const load = async () => {
    const r = await api(`/coach/traces?limit=200${since ? `&since_ts=${encodeURIComponent(since)}` : ""}`);
    if (stale(seq)) return;
    if (!r.available) { showBanner(`Traces unavailable: ${r.reason}`, "error"); return; }
    if (r.traces.length) since = r.traces[0].ts;
    tbody.prepend(...r.traces.map((t) => h("tr", {}, td(String(t.ts).slice(11, 23)), td(t.agent_name), td(t.event_type),
      td(`${num(t.latency_ms, 1)} ms`), td(t.success ? "✓" : "✗"), td(t.pitwall_sid || ""))));
  };
  await load();
  tracePoll = setInterval(() => load().catch(() => {}), 3000);
}

// ---------- router ----------
// each navigation gets a number; a screen whose data arrives after the driver moved on draws nothing
let routeSeq = 0;
const stale = (seq) => seq !== routeSeq;

async function route() {
  const seq = ++routeSeq;
  if (tracePoll) { clearInterval(tracePoll); tracePoll = null; }
  if (activeStream) { activeStream.abort(); activeStream = null; }
  showBanner("");
  const [, screen, arg] = (location.hash || "#/").split("/");
  const sid = arg ? decodeURIComponent(arg) : "";
  Dom.fill(view, h("p", {class: "muted"}, "Loading…"));
  try {
    if (screen === "session" && sid) await sessionScreen(sid, seq);
    else if (screen === "debrief" && sid) await debriefScreen(sid, seq);
    else if (screen === "ask") await askScreen(sid, seq);
    else if (screen === "cues" && sid) await cuesScreen(sid, seq);
    else if (screen === "traces") await tracesScreen(seq);
    else await sessionsScreen(seq);
  } catch (e) { if (!stale(seq)) fail(e); }
}

window.addEventListener("hashchange", route);
window.addEventListener("offline", () => showBanner("This tablet is offline; showing the app shell only.", "error"));
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
route();
