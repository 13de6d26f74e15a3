// Pitwall tablet app: hash-routed screens over the paddock's JSON and SSE endpoints. Every screen is built
// with Dom (dom.js): data is text, never HTML.
"use strict";
const view = document.getElementById("view");
const banner = document.getElementById("banner");
const conn = document.getElementById("conn");
const {h} = Dom;
window.pitwallEvents = [];  // every SSE event in arrival order (the browser tests read it)
// ?debug=1 shows what a driver never needs: agent and tool names, the model server's own errors, traces
const DEBUG = new URLSearchParams(location.search).get("debug") === "1";
if (!DEBUG) document.querySelectorAll('a[href="#/traces"]').forEach((a) => { a.hidden = true; });
const MODEL_DOWN = /model server|connecterror|connect error|not reachable|unreachable|no model/i;
let modelNoted = false;
// why an answer is not the model's, in a driver's words: a model that does not answer is said once, in the
// banner, not under every answer; its own error text only with ?debug=1
function whyNotModel(reason) {
  if (!reason) return "";
  if (!MODEL_DOWN.test(reason)) return reason;
  if (!modelNoted) { modelNoted = true; showBanner("No model is answering right now: Pitwall answers from your data.", ""); }
  return DEBUG ? reason : "";
}

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
// when a session was driven, as the paddock sends it: the file's date, or a guess said as one
const dateOf = (s) => `${when(s.date_at || s.started_at)}${s.date_guessed ? " (date guessed)" : ""}`;
const baseName = (p) => String(p || "").split(/[\\/]/).pop();
const SOURCES = {aim_xrk: "AiM XRK", aim_csv: "AiM CSV", vbox_csv: "VBOX CSV", vbo: "VBOX", candump: "CAN log", live: "live", simulator: "simulated"};
// a session named for people: track, date, car and the file it came from (the id stays available, small)
function sessionName(s) {
  const file = baseName(s.source_path);
  const src = SOURCES[s.source_format] || s.source_format || "";
  return {
    title: `${s.track_name || s.track_id || "Unknown track"} · ${dateOf(s)}`,
    sub: [s.car_shown || "car not named in the file", file || src, file && src ? src : "",
      s.date_guessed ? `no date in the file: guessed ${s.date_guessed}` : ""].filter(Boolean).join(" · "),
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
  if (!r.ok && body.error && body.error.code === "lake_unreachable" && !document.getElementById("lake-banner").hidden) {
    throw new Error("Not available while the lake is unreachable (see the note above).");  // said once, above
  }
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
  const gold = await api("/gold").catch(() => []);
  if (!stale(seq)) Dom.add(view, goldCard(gold));
}

// the gold laps the drive screen compares against: which lap, and whether its session is still here
function goldCard(gold) {
  const card = h("div", {class: "card", id: "gold"}, h("h2", {}, "Gold laps (the drive screen's reference)"));
  if (!gold.length) return Dom.add(card, h("p", {class: "muted"}, "No gold lap saved yet: ", h("code", {}, "pitwall gold save SESSION LAP"), " makes one."));
  return Dom.add(card, h("ul", {}, gold.map((g) => h("li", {dataset: {track: g.track_id || ""}},
    h("b", {}, g.track_name), ` · ${g.driver_id || "driver"} · `, g.damaged ? "a damaged file" : `${lapTime(g.time_s)} (lap ${g.lap})`,
    g.session_stored ? "" : h("span", {class: "muted small"},
      " · its session was deleted, so the drive screen no longer compares with it (", h("code", {}, "pitwall gold clear"), " removes it)")))));
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
        h("b", {}, "Written from the data, not by the model."), " ", whyNotModel(d.reason)));
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
    intents.map((i) => h("option", {value: i}, DEBUG ? `${i.replace("_", " ")} → ${agents.intents[i]}` : i.replace(/_/g, " "))));
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
        if (d.available === false) { Dom.fill(out, h("i", {}, `No answer from your data or the model${whyNotModel(d.reason) ? `: ${whyNotModel(d.reason)}` : "."}`)); return; }
        out.textContent = d.text;
        // an answer not written by the model says so, and why (narrator "template" / "data" / anything else)
        if (d.narrator && d.narrator !== "llm") out.prepend(h("div", {class: "template narrator", dataset: {narrator: d.narrator}}, h("b", {},
          d.narrator === "data" ? "Answered from your data, not by the model." : d.narrator === "template" ? "Written from the data, not by the model." : `Answered by: ${d.narrator}.`),
          " ", whyNotModel(d.reason)));
        if (DEBUG) Dom.add(out, h("div", {class: "muted debug", style: "font-size:.8rem"}, d.agent || "", (d.tools || []).length ? " · " + d.tools.map((t) => t.tool).join(", ") : "", d.question ? " · read as " + JSON.stringify(d.question) : ""));
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

// ---------- the lake: one banner while the store is away (what the paddock can still show) ----------
async function lakeStatus() {
  const el = document.getElementById("lake-banner");
  try {
    const r = await fetch("/health", {headers: authHeaders(), cache: "no-store"});
    const said = r.ok ? ((await r.json()).lake || {}).message : null;
    el.textContent = said || "";
    el.hidden = !said;
  } catch (_) {}  // the paddock itself is away: the connection dot says so
}
lakeStatus();
setInterval(lakeStatus, 10000);

window.addEventListener("hashchange", route);
window.addEventListener("offline", () => showBanner("This tablet is offline; showing the app shell only.", "error"));
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
route();
