// Pitwall tablet: the session page (laps, lap-time chart, overlay against any reference lap, track map,
// corner table, data quality, share and delete). Built with Dom (dom.js) and the helpers of app.js.
"use strict";

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
    h("div", {class: "card", id: "quality", hidden: true}),
    h("div", {class: "card"}, h("h2", {}, "Overlay"),
      h("div", {class: "row"}, "Reference ", selA, " ", selRef, " against ", selB),
      h("div", {id: "overlay-speed"}), h("div", {id: "overlay-pedals"}), h("div", {id: "overlay-delta"})),
    h("div", {class: "grid"}, h("div", {class: "card"}, h("h2", {id: "map-title"}, "Track map"), h("div", {id: "trackmap"})),
      h("div", {class: "card"}, h("h2", {id: "corners-title"}, "Corners"), h("div", {id: "corners"}))));
  // the axis spans the laps' own range (not from zero), so a second's difference shows; values on wide bars
  if (full.length) Charts.bars(document.getElementById("lapchart"), full.map((l) => ({label: `lap ${l.lap}`, value: l.time_s,
    color: isBest(l) ? "#3ccf7a" : l.valid ? "#4cc2ff" : "#56606b"})), {title: "lap times", valueFmt: lapTime, yFmt: lapTime, yLabel: "lap time", zero: false});
  else noFullLap(laps);
  api(`/sessions/${enc}/quality`).then((q) => { if (!stale(seq)) QualityCard.render(document.getElementById("quality"), q); })
    .catch(() => {});  // the card stays hidden; the rest of the page does not depend on it
  if (best) selA.value = `${sid}:${best.lap}`;
  if (other) selB.value = other.lap;
  // any other session at this track can be the reference too: its best lap (yours, a friend's, another logger's)
  const others = (await api("/sessions").catch(() => [])).filter((o) => o.session_id !== sid && o.track_id && o.track_id === s.track_id && o.best_lap != null);
  if (stale(seq)) return;
  if (others.length) Dom.add(selA, h("optgroup", {label: "Other sessions here (best lap)"}, others.map((o) =>
    h("option", {value: `${o.session_id}:${o.best_lap}`}, `${o.driver_id} · ${dateOf(o)} · lap ${o.best_lap} · ${lapTime(o.best_lap_s)}`))));
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
        name: achievable ? "achievable lap" : ref ? `${ref.driver_id} ${dateOf(ref)} lap ${refLap}` : `lap ${refLap}`}, corners, seq);
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

// "Turn 11" -> "T11", "Corner 3a" -> "C3A"; one corner format: the track's name in tables, this short form on the map
function shortCorner(c) {
  const m = /^(turn|corner)\s*(\w+)$/i.exec(String(c.corner_name || ""));
  return m ? `${m[1][0].toUpperCase()}${m[2].toUpperCase()}` : String(c.corner_name || c.corner_id || "");
}

// a signed difference as a driver reads it: "+0.42", "-0.31", and "0.00" (never "-0.00") for what rounds to zero
function signed(v, nd) {
  const r = Number(v.toFixed(nd));
  return r === 0 ? (0).toFixed(nd) : (r > 0 ? "+" : "") + r.toFixed(nd);
}

// a session without a full lap (a run that never crossed the line twice): a sentence in each card, never
// an empty axis, empty selects or a bare title
function noFullLap(laps) {
  const why = laps.length
    ? "This session has no full lap (from the line back to the line): only " + laps.map((l) => `lap ${l.lap} (${l.kind})`).join(", ") + "."
    : "This session has no laps: the file never crossed a start/finish line Pitwall knows.";
  Dom.fill(document.getElementById("lapchart"), h("p", {class: "muted", id: "no-full-lap"}, why, " Lap times need a full lap."));
  const row = document.getElementById("lapA").closest(".row");
  Dom.fill(row, h("p", {class: "muted"}, "Nothing to overlay: comparing laps needs a full lap."));
  Dom.fill(document.getElementById("trackmap"), h("p", {class: "muted"}, "The map is drawn from a full lap; this session has none."));
  Dom.fill(document.getElementById("corners"), h("p", {class: "muted"}, "Corner times need a full lap; this session has none."));
}
