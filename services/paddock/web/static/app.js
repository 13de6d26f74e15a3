// Pitwall tablet app: hash-routed screens over the paddock's JSON and SSE endpoints.
"use strict";
const view = document.getElementById("view");
const banner = document.getElementById("banner");
const conn = document.getElementById("conn");
window.pitwallEvents = [];  // every SSE event in arrival order (the browser tests read it)

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
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
  view.innerHTML = `<div class="card"><h1>Something went wrong</h1><p>${esc(e.message)}</p>
    <button onclick="route()">Try again</button></div>`;
}

// ---------- Sessions list ----------
async function sessionsScreen(seq) {
  const rows = await api("/sessions");
  if (stale(seq)) return;
  if (!rows.length) {
    view.innerHTML = `<h1>Sessions</h1><div class="card"><p>No sessions yet. Import a log with
      <code>pitwall import FILE</code>, or run <code>pitwall demo</code>.</p></div>`;
    return;
  }
  view.innerHTML = `<h1>Sessions</h1><div class="card"><div class="table-wrap"><table id="sessions"><thead><tr><th>Session</th><th>Driver</th>
    <th>Laps</th><th>Best lap</th><th>Status</th></tr></thead><tbody>
    ${rows.map((s) => { const n = sessionName(s); return `<tr class="clickable" data-sid="${esc(s.session_id)}">
      <td class="name"><a href="#/session/${encodeURIComponent(s.session_id)}">${esc(n.title)}</a>
        <div class="muted small">${esc(n.sub)}</div><div class="muted small sid">${esc(s.session_id)}</div></td>
      <td>${esc(s.driver_name || s.driver_id)}</td><td>${s.n_laps ?? "–"}</td>
      <td>${lapTime(s.best_lap_s)}${s.best_lap != null ? ` <span class="muted">(lap ${s.best_lap})</span>` : ""}</td>
      <td>${esc(s.status)}</td></tr>`; }).join("")}</tbody></table></div></div>`;
  view.querySelectorAll("tr[data-sid]").forEach((tr) =>
    tr.addEventListener("click", () => { location.hash = `#/session/${encodeURIComponent(tr.dataset.sid)}`; }));
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
  view.innerHTML = `<h1>${esc(nm.title)} · ${esc(s.driver_name || s.driver_id)}</h1><p class="muted small">${esc(nm.sub)} · <span class="sid">${esc(sid)}</span></p>
    <div class="row"><a class="btn" id="go-debrief" href="#/debrief/${encodeURIComponent(sid)}">Debrief</a>
      <a class="btn" href="#/ask/${encodeURIComponent(sid)}">Ask about this session</a>
      <a class="btn" href="#/cues/${encodeURIComponent(sid)}">Cue log</a>
      <button class="btn" id="export">Share with a coach</button>
      <button class="btn danger" id="delete">Delete session</button></div>
    <div class="grid">
      <div class="card"><h2>Laps</h2><div class="table-wrap"><table id="laps"><thead><tr><th>Lap</th><th>Time</th><th>Δ to best, s</th><th>Kind</th><th>Note</th></tr></thead><tbody>
        ${laps.map((l) => `<tr class="${(best && l.lap === best.lap) ? "best" : ""} ${l.kind === "full" && !l.valid ? "invalid" : ""}" data-lap="${l.lap}">
          <td>${l.lap}</td><td>${lapTime(l.time_s)}</td><td>${best && l.kind === "full" ? (l.time_s - best.time_s >= 0 ? "+" : "") + num(l.time_s - best.time_s) : ""}</td>
          <td>${esc(l.kind)}</td><td>${(best && l.lap === best.lap) ? "best" : esc(l.invalid_reason || "")}</td></tr>`).join("")}</tbody></table></div></div>
      <div class="card"><h2>Lap times (full laps)</h2><div id="lapchart"></div></div>
    </div>
    <div class="card" id="quality" hidden></div>
    <div class="card"><h2>Overlay</h2>
      <div class="row">Reference <select id="lapA"><optgroup label="This session">${full.map((l) => `<option value="${esc(sid)}:${l.lap}">lap ${l.lap} · ${lapTime(l.time_s)}</option>`).join("")}${best ? `<option value="${esc(sid)}:achievable">achievable lap (your laps joined where they matched)</option>` : ""}</optgroup></select>
        <select id="refLap" hidden aria-label="lap of that session"></select>
        against <select id="lapB">${full.map((l) => `<option value="${l.lap}">${l.lap} · ${lapTime(l.time_s)}</option>`).join("")}</select></div>
      <div id="overlay-speed"></div><div id="overlay-pedals"></div><div id="overlay-delta"></div></div>
    <div class="grid"><div class="card"><h2 id="map-title">Track map</h2><div id="trackmap"></div></div>
      <div class="card"><h2 id="corners-title">Corners</h2><div id="corners"></div></div></div>`;
  // the axis spans the laps' own range (not from zero), so a second's difference shows; values on wide bars
  Charts.bars(document.getElementById("lapchart"), full.map((l) => ({label: `lap ${l.lap}`, value: l.time_s,
    color: (best && l.lap === best.lap) ? "#3ccf7a" : l.valid ? "#4cc2ff" : "#56606b"})), {title: "lap times", valueFmt: lapTime, yFmt: lapTime, zero: false});
  api(`/sessions/${sid}/quality`).then((q) => { if (!stale(seq)) QualityCard.render(document.getElementById("quality"), q); })
    .catch(() => {});  // the card stays hidden; the rest of the page does not depend on it
  document.getElementById("export").onclick = () => exportSession(sid).catch((e) => showBanner(e.message, "error"));
  document.getElementById("delete").onclick = () => deleteSession(sid, nm.title).catch((e) => showBanner(e.message, "error"));
  const selA = document.getElementById("lapA"), selB = document.getElementById("lapB");
  if (best) selA.value = `${sid}:${best.lap}`;
  if (other) selB.value = other.lap;
  // any other session at this track can be the reference too: its best lap (yours, a friend's, another logger's)
  const others = (await api("/sessions").catch(() => [])).filter((o) => o.session_id !== sid && o.track_id && o.track_id === s.track_id && o.best_lap != null);
  if (stale(seq)) return;
  if (others.length) selA.insertAdjacentHTML("beforeend", `<optgroup label="Other sessions here (best lap)">${others.map((o) =>
    `<option value="${esc(o.session_id)}:${o.best_lap}">${esc(o.driver_id)} · ${esc(when(o.started_at))} · lap ${o.best_lap} · ${lapTime(o.best_lap_s)}</option>`).join("")}</optgroup>`);
  // another session's reference: its best lap first, then any of its valid laps (#refLap)
  const selRef = document.getElementById("refLap");
  const draw = async () => {
    const [refSid, best] = selA.value.split(/:(?=[^:]*$)/);
    const ref = refSid === sid ? null : others.find((o) => o.session_id === refSid);
    try {
      if (ref && selRef.dataset.sid !== refSid) {
        const theirs = (await api(`/sessions/${encodeURIComponent(refSid)}/laps`)).filter((l) => l.kind === "full" && l.valid);
        if (stale(seq)) return;
        selRef.innerHTML = theirs.map((l) => `<option value="${l.lap}">lap ${l.lap} · ${lapTime(l.time_s)}</option>`).join("");
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
    {x: B.dist_m, y: B.speed_kmh, color: "#f5a524", label: `lap ${b} speed km/h`, width: 1.5}], {title: "speed", xUnit: "m"});
  // a channel the session did not record is said so, never drawn as a flat zero
  const has = (tr, c) => (tr[c] || []).some((v) => typeof v === "number" && Number.isFinite(v));
  const pedals = [
    {x: A.dist_m, y: A.throttle_pct, color: "#3ccf7a", label: `${a} throttle %`, width: 1.5, ch: "throttle_pct", tr: A},
    {x: B.dist_m, y: B.throttle_pct, color: "#9be7b8", label: `lap ${b} throttle %`, width: 1.5, ch: "throttle_pct", tr: B},
    {x: A.dist_m, y: A.brake_bar, color: "#ff5d5d", label: `${a} brake bar`, width: 1.5, ch: "brake_bar", tr: A},
    {x: B.dist_m, y: B.brake_bar, color: "#ffb0b0", label: `lap ${b} brake bar`, width: 1.5, ch: "brake_bar", tr: B}];
  const drawn = pedals.filter((p) => has(p.tr, p.ch));
  const missing = [...new Set(pedals.filter((p) => !has(p.tr, p.ch)).map((p) => ({throttle_pct: "throttle", brake_bar: "brake pressure"}[p.ch])))];
  const pedalBox = document.getElementById("overlay-pedals");
  if (drawn.length) Charts.line(pedalBox, drawn, {title: "pedals", height: 170, xUnit: "m"});
  else pedalBox.replaceChildren();
  if (missing.length) pedalBox.insertAdjacentHTML("beforeend", `<p class="muted small" id="not-recorded">Not recorded in this session: ${esc(missing.join(" and "))}.</p>`);
  Charts.line(document.getElementById("overlay-delta"), [{x, y: delta, color: "#e6edf3", label: `delta s (lap ${b} − ${a})`}],
    {title: "delta", height: 140, zeroLine: true, xUnit: "m"});
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
  document.getElementById("corners").innerHTML = `<div class="table-wrap"><table id="corner-table"><thead><tr><th>Corner</th><th>Entry km/h</th><th>Min km/h</th>
    <th>Exit km/h</th><th>Brakes at, m</th><th>Time, s</th><th title="lap ${b} minus ${a}; negative is faster">Δ s vs ${a}</th></tr></thead><tbody>${ids.map((id) => {
      const c = cb[id], r = ca[id];
      const d = r && c.time_s != null && r.time_s != null ? c.time_s - r.time_s : null;
      return `<tr><td>${esc(c.corner_name)}</td><td>${num(c.entry_kmh, 0)}</td><td>${num(c.min_kmh, 0)}</td><td>${num(c.exit_kmh, 0)}</td>
        <td>${c.brake_point_m != null ? num(c.brake_point_m, 0) : "–"}</td><td>${num(c.time_s, 2)}</td>
        <td style="color:${d > 0.02 ? "var(--bad)" : d < -0.02 ? "var(--good)" : "inherit"}">${d == null ? "–" : (d >= 0 ? "+" : "") + num(d, 2)}</td></tr>`;
    }).join("")}</tbody></table></div><p class="muted small">Entry, minimum and exit speed in km/h; brake point in metres from the
    start/finish line; Δ = lap ${b} − ${a} through the corner, negative is faster.</p>`;
}

// "Turn 11" -> "T11", "Corner 3a" -> "C3A"; one corner format: the track's name in tables, this short form on the map
function shortCorner(c) {
  const m = /^(turn|corner)\s*(\w+)$/i.exec(String(c.corner_name || ""));
  return m ? `${m[1][0].toUpperCase()}${m[2].toUpperCase()}` : String(c.corner_name || c.corner_id || "");
}

// ---------- Debrief ---------- (the data cards and step names: cards.js)
async function debriefScreen(sid, seq) {
  const s = await api(`/sessions/${sid}`);
  if (stale(seq)) return;
  view.innerHTML = `<h1>Debrief · ${esc(sessionName(s).title)} · ${esc(s.driver_name || s.driver_id)}</h1>
    <div class="grid"><div class="card"><h2>Progress</h2><ul class="phases" id="phases"></ul></div>
    <div class="card"><h2>Your engineer</h2><div id="state" class="muted">Starting…</div><div class="narrative" id="narrative"></div>
      <div id="verdict"></div><ul id="focus"></ul></div></div>
    <h2>Data</h2><div class="grid" id="data"></div>`;
  const body = {session_id: sid, driver_id: s.driver_id};
  await streamWithReconnect("/coach/debrief", body, debriefHandlers());
}

function debriefHandlers() {
  const $ = (id) => document.getElementById(id);
  return {
    reset() { $("phases").innerHTML = ""; $("narrative").textContent = ""; $("data").innerHTML = ""; $("verdict").innerHTML = ""; $("focus").innerHTML = ""; },
    phase(d) {
      const id = `ph-${d.agent}`;
      let li = document.getElementById(id);
      if (!li) { li = document.createElement("li"); li.id = id; $("phases").appendChild(li); }
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
      if (d.narrator && d.narrator !== "llm") v.insertAdjacentHTML("beforeend", `<div class="template" id="template-note"><b>Written from the data, not by the model.</b>
        ${esc(d.reason || "")}</div>`);
      if (d.ungrounded && d.ungrounded.length) v.insertAdjacentHTML("beforeend", `<div class="warn" id="ungrounded"><b>Check these:</b> the
        model mentioned ${d.ungrounded.map(esc).join(", ")}, which the session data does not contain.</div>`);
      $("focus").innerHTML = (d.focus_items || []).map((f) => `<li>${esc(f)}</li>`).join("");
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
  view.innerHTML = `<h1>Ask your engineer</h1><div class="card"><div class="row">
      Session <select id="ask-session">${sessions.map((x) => `<option value="${esc(x.session_id)}">${esc(sessionName(x).title)} · ${esc(x.driver_name || x.driver_id)}</option>`).join("")}</select>
      Topic <select id="intent"><option value="">let Pitwall decide</option>${intents.map((i) => `<option value="${i}">${i.replace("_", " ")} → ${esc(agents.intents[i])}</option>`).join("")}</select></div>
    <div class="chat" id="chat"></div>
    <form id="ask-form" class="row" style="margin-top:.8rem"><input id="question" style="flex:1" maxlength="2000"
      placeholder="Why was lap 7 slower than lap 5?" autocomplete="off"><button id="ask-btn">Ask</button></form></div>`;
  document.getElementById("ask-session").value = current;
  document.getElementById("ask-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const q = document.getElementById("question").value.trim();
    if (!q) return;
    const chat = document.getElementById("chat"), btn = document.getElementById("ask-btn");
    const sel = document.getElementById("ask-session").value;
    const drv = (sessions.find((x) => x.session_id === sel) || {}).driver_id || driver;
    chat.insertAdjacentHTML("beforeend", `<div class="msg user">${esc(q)}</div>`);
    const out = document.createElement("div");
    out.className = "msg assistant";
    chat.appendChild(out);
    btn.disabled = true;
    const body = {driver_id: drv, session_id: sel || null, question: q};
    const intent = document.getElementById("intent").value;
    if (intent) body.intent = intent;
    await streamWithReconnect("/coach/ask", body, {
      reset() { out.textContent = ""; },
      phase() {},
      token(d) { out.textContent += d.text; },
      done(d) {
        out.dataset.done = "1";
        if (d.available === false) { out.innerHTML = `<i>The model is not available: ${esc(d.reason)}</i>`; return; }
        out.textContent = d.text;
        // an answer not written by the model says so, and why (narrator "template" / "data" / anything else)
        if (d.narrator && d.narrator !== "llm") out.insertAdjacentHTML("afterbegin", `<div class="template narrator" data-narrator="${esc(d.narrator)}"><b>${
          d.narrator === "data" ? "Answered from your data, not by the model." : d.narrator === "template" ? "Written from the data, not by the model." : `Answered by: ${esc(d.narrator)}.`}</b> ${esc(d.reason || "")}</div>`);
        out.insertAdjacentHTML("beforeend", `<div class="muted" style="font-size:.8rem">${esc(d.agent || "")}${(d.tools || []).length ? " · " + d.tools.map((t) => esc(t.tool)).join(", ") : ""}</div>`);
      },
      error(d) { out.dataset.done = "1"; out.innerHTML = `<i>Could not answer: ${esc(d.message)}</i>`; },
    });
    btn.disabled = false;
    document.getElementById("question").value = "";
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
  view.innerHTML = `<h1>Cue log <span class="muted">${esc(sessionName(s).title)}</span></h1>
    <p>${spoken} cue${spoken === 1 ? "" : "s"} spoken${notes.length > spoken ? `, ${notes.length - spoken} held back (${esc(whyText)})` : ""}.
      A cue that would come too late is never said: late is worse than silence.</p>
    <div class="card"><div class="table-wrap"><table id="cue-table"><thead><tr><th>Lap</th><th>Where</th><th>Cue</th><th>Said?</th><th>Why not</th></tr></thead>
    <tbody>${notes.map((n) => `<tr title="rule ${esc(n.rule)}"><td>${n.lap ?? "–"}</td><td>${esc(n.corner ? shortCorner({corner_name: n.corner}) : "")} ${n.dist_m != null ? `<span class="muted small">${num(n.dist_m, 0)} m</span>` : ""}</td>
      <td>${esc(n.text)}</td><td><span class="tag ${esc(n.status)} ${n.priority >= 3 ? "safety" : ""}">${n.status === "spoken" ? "said" : "held back"}${n.priority >= 3 ? " · safety" : ""}</span></td>
      <td>${n.status === "spoken" ? "" : esc(held(n.reason))}</td></tr>`).join("") || `<tr><td colspan="5" class="muted">No cues for this session.</td></tr>`}</tbody></table></div></div>`;
}

// ---------- Agent traces ----------
let tracePoll = null;
async function tracesScreen(seq) {
  if (stale(seq)) return;
  view.innerHTML = `<h1>Agent traces</h1><p class="muted">Every agent run, tool call and model error, newest first; refreshed every 3 s.</p>
    <div class="card"><div class="table-wrap"><table id="trace-table"><thead><tr><th>Time</th><th>Agent / tool</th><th>Event</th><th>Latency</th><th>OK</th><th>Session</th></tr></thead><tbody></tbody></table></div></div>`;
  let since = null;
  const tbody = view.querySelector("#trace-table tbody");
  const load = async () => {
    const r = await api(`/coach/traces?limit=200${since ? `&since_ts=${encodeURIComponent(since)}` : ""}`);
    if (stale(seq)) return;
    if (!r.available) { showBanner(`Traces unavailable: ${r.reason}`, "error"); return; }
    if (r.traces.length) since = r.traces[0].ts;
    tbody.insertAdjacentHTML("afterbegin", r.traces.map((t) => `<tr><td>${esc(String(t.ts).slice(11, 23))}</td><td>${esc(t.agent_name)}</td>
      <td>${esc(t.event_type)}</td><td>${num(t.latency_ms, 1)} ms</td><td>${t.success ? "✓" : "✗"}</td><td>${esc(t.pitwall_sid || "")}</td></tr>`).join(""));
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
  view.innerHTML = `<p class="muted">Loading…</p>`;
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
