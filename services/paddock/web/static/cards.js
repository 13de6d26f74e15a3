// Pitwall tablet: the debrief's data cards and progress steps as a driver reads them. A card is a short
// summary in the driver's words with labelled units: no ids the screen's title already gives, no flags or
// bookkeeping, a lap number and its time as one row ("Best lap: lap 2 · 1:35.343"), corners as T11, and
// what the session did not record said as such. Steps are named by what they do, never by a class name.
// Uses num and lapTime (app.js), Dom (dom.js) and Charts (charts.js) when called; data is text, never HTML.

const CARD_TITLES = {
  highlights_data: "Session highlights", telemetry_data: "Where lap times vary", pedagogy_data: "Your practice plan",
  tire_data: "Tyre temperatures", handling_data: "Handling balance (understeer / oversteer)", engine_health_data: "Engine health",
  traction_data: "Lockups and wheelspin", input_quality_data: "Smoothness of your inputs", safety_data: "Safety events",
  opportunities_data: "Three opportunities", threads_data: "Since last session",
};
const STEP_WORDS = {
  DebriefPipeline: "Debrief", BriefPipeline: "Brief", ModelQueue: "Waiting for the model",
  AskEvidence: "Reading your data", AskNarrator: "Your engineer", PitwallOrchestrator: "Your engineer",
};
// a step without its own words: its name split into lower-case words, "Agent" and "Pipeline" dropped
function stepWords(agent) {
  const a = String(agent || "");
  if (STEP_WORDS[a]) return STEP_WORDS[a];
  const words = a.replace(/(Agent|Pipeline)$/, "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().trim();
  return words ? words[0].toUpperCase() + words.slice(1) : "Working";
}

// units from the canonical name suffixes (shared/signals.py): speed_kmh -> "speed", "km/h"
const UNITS = [["_kmh", "km/h"], ["_ms", "ms"], ["_s", "s"], ["_pct", "%"], ["_bar", "bar"], ["_kpa", "kPa"], ["_c", "°C"],
  ["_m", "m"], ["_g", "g"], ["_deg", "°"], ["_dps", "°/s"], ["_rpm", "rpm"], ["_hz", "Hz"], ["_v", "V"]];
function human(key) {
  let k = String(key), unit = "";
  for (const [suf, u] of UNITS) if (k.toLowerCase().endsWith(suf)) { k = k.slice(0, -suf.length); unit = u; break; }
  const name = k.replace(/_/g, " ").replace(/\bn\b/, "number of").replace(/^./, (c) => c.toUpperCase());
  return {name, unit};
}
const withUnit = (v, unit) => (typeof v === "number" ? `${Number.isInteger(v) ? v : num(v, 2)}${unit ? " " + unit : ""}` : String(v));

// what a card never shows: ids and names the screen's title gives, flags, bookkeeping, model constants
const HIDDEN = new Set(["session_id", "driver_id", "track", "track_id", "car", "car_id", "session_date", "available",
  "recorded", "not_recorded", "note", "warning", "reason", "hint", "samples", "n_laps", "seq", "wheelbase_m",
  "steering_ratio", "yaw_gain", "corner", "error",
  // how a figure was chosen, not a figure of the session
  "labels", "opportunities_reason", "cause"]);
// the driver's words for a figure: [label, how to show the value]
const lap = (v) => lapTime(v);
const unit = (u, d = 2) => (v) => `${Number.isInteger(v) ? v : num(v, d)} ${u}`;
const cornerId = (v) => String(v).toUpperCase();
const WORDS = {
  valid_laps: ["Valid laps", String],
  theoretical_best_s: ["Theoretical best", lap],
  personal_best_s: ["Personal best", lap],
  consistency_std_s: ["Lap-time spread (std dev)", unit("s")],
  least_consistent: ["Least consistent corner", cornerId],
  most_consistent: ["Most consistent corner", cornerId],
  count: ["Events", String],
  brake_presses: ["Brake presses", String],
  coolant_drift_c: ["Coolant temperature rise", unit("°C", 1)],
  score: ["Smoothness score", (v) => `${num(v, 0)} / 100`],
  verdict: ["Verdict", String],
  steering_reversals_per_km: ["Steering reversals", unit("per km", 1)],
  throttle_modulation_pct_per_s: ["Throttle changes", unit("%/s", 1)],
  brake_release_bar_per_s: ["Brake release", unit("bar/s", 1)],
  counter_steer_share: ["Time counter-steering", (v) => `${num(v * 100, 1)} %`],
};

const COUNT_WORDS = {lockup: "Lockups", wheelspin: "Wheelspin", abs: "ABS", dsc: "DSC (stability control)",
  mil: "Engine warning light", tpms_alarm: "TPMS alarms", alarm: "Logger alarms"};
const WHEELS = {fl: "Front left", fr: "Front right", rl: "Rear left", rr: "Rear right"};
// the one chart a card draws: [list, field, title]; cards without one draw none (a list of events by
// time or a plan's blocks is not a bar chart)
const CHARTS = {
  highlights_data: ["biggest_opportunities", "time_to_find_s", "Time to find a lap, on the laps it was lost, s"],
  telemetry_data: ["corners", "cv_time_pct", "Corner time spread lap to lap, %"],
  engine_health_data: ["laps", "oil_floor_under_load_bar", "Lowest oil pressure under load, bar"],
};

// [label, value] rows of a tool's output, in the driver's words
function cardFacts(d) {
  const rows = [];
  const done = new Set();
  if (d && d.counts && typeof d.counts === "object") {  // events by kind: one row each, not one "count"
    for (const [k, v] of Object.entries(d.counts)) if (typeof v === "number") rows.push([COUNT_WORDS[k] || human(k).name, String(v)]);
    done.add("count");
  }
  for (const [w, x] of Object.entries((d && d.wheels) || {})) {
    if (!x || typeof x !== "object" || x.hot_bar == null) continue;
    const temp = x.max_temp_c != null ? `, up to ${num(x.max_temp_c, 0)} °C` : "";
    rows.push([`${WHEELS[w] || w} tyre`, `${num(x.cold_bar, 2)} → ${num(x.hot_bar, 2)} bar${temp}`]);
  }
  for (const [k, v] of Object.entries(d || {})) {
    if (done.has(k) || HIDDEN.has(k) || v === null || typeof v === "object" || typeof v === "boolean") continue;
    if (/_recorded$/.test(k)) continue;
    const t = d[`${k}_s`];
    if (Number.isInteger(v) && typeof t === "number" && /lap/.test(k)) {  // best_lap + best_lap_s: one row
      done.add(`${k}_s`);
      rows.push([human(k).name, `lap ${v} · ${lapTime(t)}`]);
      continue;
    }
    if (WORDS[k]) { rows.push([WORDS[k][0], WORDS[k][1](v)]); continue; }
    const h = human(k);
    const lapLike = h.unit === "s" && typeof v === "number" && v >= 20 && /lap|best|pace/.test(k);
    rows.push([h.name, lapLike ? lapTime(v) : withUnit(v, h.unit)]);
  }
  return rows.slice(0, 8);
}

// the opportunities and the threads: one row each, the numbers as the tools give them
const lapWords = (xs) => (xs || []).map((x) => `lap ${x}`).join(", ");
function opportunityRows(d) {
  const h = Dom.h, o = d.opportunities || [];
  if (!o.length) return h("p", {class: "muted"}, `No opportunity to name${d.reason ? `: ${d.reason}` : ""}.`);
  return h("ol", {class: "opps"}, o.map((x) => h("li", {dataset: {corner: x.corner_id}}, h("b", {}, x.corner),
    ` · ${num(x.time_to_find_s, 2)} s a lap on ${lapWords(x.laps)} (against your good laps)`, h("br"), `${x.says}: `, h("b", {}, x.target), h("br"),
    h("span", {class: "muted small"}, `${x.evidence} (lap ${x.worst_lap})`))));
}
function threadRows(d) {
  const h = Dom.h, t = d.threads || [];
  if (!t.length) return h("p", {class: "muted"}, d.reason || "No thread to follow.");
  const side = (v) => v ? `${num(v.time_to_find_s, 2)} s a lap on ${v.laps_lost} of ${v.valid_laps} laps` : "no lap lost time there";
  return h("div", {}, d.order ? h("p", {class: "muted small order"}, `Sessions compared in ${d.order}.`) : null,
    h("ul", {class: "threads"}, t.map((x) => h("li", {dataset: {corner: x.corner_id, status: x.status}}, h("b", {}, x.corner), " ",
      h("span", {class: "status"}, x.status), `: ${side(x.before)} → ${side(x.now)}`))));
}

function dataCard(ev) {
  const h = Dom.h;
  const d = ev.data || {};
  const title = CARD_TITLES[ev.key] || stepWords(String(ev.key || "").replace(/_data$/, "").replace(/_(.)/g, (_, c) => c.toUpperCase()).replace(/^./, (c) => c.toUpperCase()));
  const card = h("div", {class: "card data-card", dataset: {key: ev.key}}, h("h2", {}, title));
  if (!d.error && (ev.key === "opportunities_data" || ev.key === "threads_data"))
    return Dom.add(card, ev.key === "threads_data" ? threadRows(d) : opportunityRows(d));
  const [listKey, field, chartTitle] = CHARTS[ev.key] || [];
  const list = (Array.isArray(d[listKey]) ? d[listKey] : []).filter((r) => r && typeof r[field] === "number");
  if (list.length >= 2) {
    const box = h("div", {class: "card-chart"});
    card.appendChild(box);
    const label = (r) => (r.lap != null ? `lap ${r.lap}` : cornerId(r.corner ?? r.corner_id ?? ""));
    Charts.bars(box, list.slice(0, 40).map((r) => ({label: label(r), value: r[field]})),
      {height: 150, title: chartTitle, valueFmt: (v) => num(v, Math.abs(v) >= 100 ? 0 : 2)});
    Dom.add(card, h("p", {class: "muted small"}, `${chartTitle}, per ${list[0].lap != null ? "lap" : "corner"}`));
  }
  if (Array.isArray(d.blocks) && d.blocks.length)  // a practice plan: its blocks, in order
    Dom.add(card, h("ol", {class: "plan"}, d.blocks.map((b) => h("li", {}, `${b.laps} lap${b.laps === 1 ? "" : "s"}: ${b.focus}`))));
  const facts = cardFacts(d);
  if (facts.length) Dom.add(card, h("dl", {class: "kv"}, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  for (const note of [d.not_recorded, d.available === false && d.reason, d.warning])  // not_recorded: a whole sentence
    if (note) Dom.add(card, h("p", {class: "muted small"}, note));
  if (d.error) Dom.add(card, h("p", {class: "warn"}, d.error.message || d.error));
  return card;
}
