// Pitwall drive screen: speaks each cue the moment it arrives, never after its deadline (speak_by),
// shows the predictive delta big and the last lap at the line. No build step, no dependencies.
(() => {
  "use strict";
  const qs = new URLSearchParams(location.search);
  const token = qs.get("token");
  const withToken = (u) => (token ? `${u}${u.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : u);
  const $ = (id) => document.getElementById(id);
  const SAFETY = 3; // priority of safety cues: they interrupt technique cues

  const S = {
    sessionId: qs.get("session_id"),
    buffers: new Map(), // cue text -> decoded AudioBuffer
    voiceMs: new Map(), // cue text -> rendered duration (ms)
    ctx: null,
    current: null, // {cue, stop(), timer}
    queue: [],
    offsetMs: 0, // server clock - this clock, when they differ by more than 0.5 s (another device)
    received: 0,
    started: 0,
    late: 0,
    interrupted: 0,
    deltas: 0,
    log: [], // {type: start|late|interrupted|end, phrase_id, via, at, speak_by}
  };
  window.pitwallDrive = S;

  const now = () => Date.now() + S.offsetMs;

  function fmtLap(s) {
    if (s == null || !isFinite(s)) return "–:––.–";
    const ms = Math.round(s * 1000); // rounded once, as shared/display.py does: never "0:60.000"
    const m = Math.floor(ms / 60000);
    return `${m}:${((ms - m * 60000) / 1000).toFixed(3).padStart(6, "0")}`;
  }
  function fmtDelta(d) {
    if (d == null || !isFinite(d)) return "–.––";
    const a = Math.abs(d); // at most six characters, so the number fits a phone held upright
    return `${d > 0 ? "+" : d < 0 ? "−" : "±"}${a >= 100 ? "99.9" : a.toFixed(a >= 10 ? 1 : 2)}`;
  }

  // ---- audio ------------------------------------------------------------------------------
  function audioCtx() {
    if (!S.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (AC) S.ctx = new AC({ latencyHint: "interactive" });
    }
    return S.ctx;
  }

  async function loadVoices() {
    let m;
    try {
      const r = await fetch(withToken("/voices/manifest.json"));
      m = await r.json();
    } catch (e) {
      $("voices").textContent = "voices: offline";
      return;
    }
    const entries = Object.entries(m.entries || {});
    if (!entries.length) {
      $("voices").textContent = "voices: speech synthesis";
      return;
    }
    const ctx = audioCtx();
    if (!ctx) return;
    let done = 0;
    const next = async () => {
      while (entries.length) {
        const [text, e] = entries.shift();
        try {
          const r = await fetch(withToken(e.url));
          const buf = await ctx.decodeAudioData(await r.arrayBuffer());
          S.buffers.set(text, buf);
          S.voiceMs.set(text, Math.round(buf.duration * 1000));
        } catch (err) {
          /* this phrase falls back to speech synthesis */
        }
        done += 1;
        if (done % 20 === 0 || !entries.length) $("voices").textContent = `voices: ${S.buffers.size}`;
      }
    };
    await Promise.all([next(), next(), next(), next()]);
  }

  function speakSynth(cue, finish) {
    const synth = window.speechSynthesis;
    if (!synth || !window.SpeechSynthesisUtterance) return false;
    const u = new SpeechSynthesisUtterance(cue.text);
    u.rate = 1.4;
    u.onend = finish;
    u.onerror = finish;
    synth.speak(u);
    return { stop: () => synth.cancel() };
  }

  function speakBuffer(cue, finish) {
    const ctx = S.ctx;
    const buf = S.buffers.get(cue.text);
    if (!ctx || !buf || ctx.state !== "running") return false;
    const src = ctx.createBufferSource();
    src.buffer = buf;
    src.connect(ctx.destination);
    src.onended = finish;
    src.start();
    return { stop: () => { src.onended = null; try { src.stop(); } catch (e) { /* already ended */ } } };
  }

  // speech may start until speak_by (the hot path allowed for the phrase's length and the headset)
  function deadline(cue) {
    return cue.speak_by == null ? Infinity : cue.speak_by;
  }

  // the one place a cue's deadline is checked: nothing starts after speak_by
  function start(cue) {
    const t = now();
    const fileMs = S.voiceMs.get(cue.text);
    let via = null;
    let h = null;
    const finish = () => end(cue);
    if (t > deadline(cue)) {
      drop(cue, t);
      return;
    }
    if (fileMs != null) {
      h = speakBuffer(cue, finish);
      if (h) via = "audio";
    }
    if (!h) {
      h = speakSynth(cue, finish);
      if (h) via = "speech";
    }
    if (!h) {
      S.log.push({ type: "unspoken", phrase_id: cue.phrase_id, at: t, reason: "no audio or speech engine" });
      return;
    }
    S.started += 1;
    // an engine that never reports the end (no voices installed) must not block the next cue
    const timer = setTimeout(finish, (fileMs || (cue.speak_s || 1) * 2000) + 1500);
    S.current = { cue, stop: h.stop, timer };
    S.log.push({ type: "start", phrase_id: cue.phrase_id, via, at: t, speak_by: cue.speak_by, priority: cue.priority });
    show(cue);
  }

  function end(cue) {
    if (!S.current || S.current.cue !== cue) return;
    clearTimeout(S.current.timer);
    S.current = null;
    S.log.push({ type: "end", phrase_id: cue.phrase_id, at: now() });
    setTimeout(() => { if (!S.current) $("cue").className = "idle"; }, 1500);
    while (S.queue.length && !S.current) start(S.queue.shift()); // a queued cue past its deadline is dropped
  }

  function drop(cue, t) {
    S.late += 1;
    S.log.push({ type: "late", phrase_id: cue.phrase_id, at: t, speak_by: cue.speak_by });
    $("late-count").textContent = `late ${S.late}`; // diagnostics (?debug=1): drivers see no counters
  }

  function onCue(cue) {
    S.received += 1;
    const t = now();
    const cur = S.current;
    if (!cur) {
      start(cue);
    } else if (cue.priority >= SAFETY && cur.cue.priority < SAFETY) {
      clearTimeout(cur.timer);
      S.current = null;
      cur.stop();
      S.interrupted += 1;
      S.log.push({ type: "interrupted", phrase_id: cur.cue.phrase_id, at: t });
      start(cue);
    } else {
      S.queue.push(cue);
      S.queue.sort((a, b) => b.priority - a.priority || (a.speak_by || 0) - (b.speak_by || 0));
    }
  }

  function show(cue) {
    const el = $("cue");
    el.textContent = cue.text;
    el.className = cue.priority >= SAFETY ? "safety" : "technique";
  }

  S.handleCue = onCue; // the stream's handlers, for diagnostics in the browser console

  // ---- delta ---------------------------------------------------------------------------------
  let lastLapFlashUntil = 0;
  function onDelta(d) {
    S.deltas += 1;
    if (S.ended) return;
    const el = $("delta");
    // no delta on an out-lap or an in-lap (the hot path says which): the pit lane is no lap to compare
    const pit = d.lap_kind === "out" || d.lap_kind === "in";
    el.textContent = pit ? `${d.lap_kind} lap` : fmtDelta(d.delta_s);
    el.className = pit || d.delta_s == null ? "neutral" : d.delta_s <= 0 ? "ahead" : "behind";
    $("lap-time").textContent = fmtLap(d.lap_time_s);
    $("predicted").textContent = fmtLap(d.predicted_s);
    const ref = d.reference;
    const refWords = { gold: "gold lap", last_lap: "last lap", chosen: "chosen lap", achievable: "achievable lap" };
    $("ref-label").textContent = ref ? `${refWords[ref.source] || "best lap"} ${fmtLap(ref.time_s)}` : "reference (none yet)";
    if (d.last_lap) {
      const ll = $("last-lap");
      ll.textContent = fmtLap(d.last_lap.time_s);
      if (d.crossed) {
        lastLapFlashUntil = Date.now() + 5000;
        ll.classList.add("flash");
        setTimeout(() => { if (Date.now() >= lastLapFlashUntil) ll.classList.remove("flash"); }, 5000);
      }
    }
  }

  S.handleDelta = onDelta;

  // ---- stream ---------------------------------------------------------------------------------
  function connect() {
    let url = "/cues/stream?delta=true";
    if (S.sessionId) url += `&session_id=${encodeURIComponent(S.sessionId)}`;
    const es = new EventSource(withToken(url));
    es.addEventListener("open", () => { $("conn").textContent = "live"; $("conn").className = "on"; });
    es.addEventListener("error", () => { $("conn").textContent = "reconnecting"; $("conn").className = "off"; });
    es.addEventListener("hello", (e) => {
      const h = JSON.parse(e.data);
      const off = (h.server_ms || Date.now()) - Date.now();
      S.offsetMs = Math.abs(off) > 500 ? off : 0;
    });
    es.addEventListener("cue", (e) => onCue(JSON.parse(e.data)));
    es.addEventListener("delta", (e) => onDelta(JSON.parse(e.data)));
    S.es = es;
  }

  // the session in the car: its track by name; when it ends, the screen says so and stops showing a delta
  function ended(view) {
    S.ended = true;
    const el = $("delta");
    el.textContent = "Session over";
    el.className = "ended";
    const laps = ((view && view.laps) || []).filter((l) => l.kind === "full" && l.valid);
    const best = laps.length ? Math.min(...laps.map((l) => l.time_s)) : null;
    $("delta-label").textContent = best != null ? `best lap ${fmtLap(best)}` : "no full lap";
    $("lap-time").textContent = fmtLap(null); // nothing is being timed any more
    $("predicted").textContent = fmtLap(null);
    $("cue").className = "idle";
    $("session").textContent = S.trackName ? `${S.trackName} · ended` : "session ended";
  }
  function began(view) {
    S.ended = false;
    S.trackName = view.track_name || "unknown track";
    $("session").textContent = S.trackName;
    if ($("delta").className === "ended") {
      $("delta").className = "neutral";
      $("delta").textContent = "–.––";
      Dom.fill($("delta-label"), "Δ to ", Dom.h("span", {id: "ref-label"}, "reference"));
    }
  }
  async function pollActive() {
    try {
      let sid = S.sessionId;
      if (!sid) sid = (await (await fetch(withToken("/health"))).json()).active_session || null;
      if (sid) {
        const r = await fetch(withToken(`/sessions/${encodeURIComponent(sid)}/live`));
        if (r.ok) {
          const view = await r.json();
          if (S.watching !== sid || S.ended) began(view);
          S.watching = sid;
          S.lastView = view;
        } else if (r.status === 404 && S.watching === sid && !S.ended) ended(S.lastView);
      } else if (S.watching && !S.ended) ended(S.lastView);
      else if (!S.watching) $("session").textContent = "waiting for a session";
    } catch (e) {
      $("session").textContent = "hot path unreachable";
    }
    setTimeout(pollActive, 2000);
  }

  // ---- screen on, sound unlocked ---------------------------------------------------------------
  let wakeLock = null;
  async function keepAwake() {
    try {
      if ("wakeLock" in navigator && document.visibilityState === "visible") wakeLock = await navigator.wakeLock.request("screen");
    } catch (e) {
      /* not allowed here (no secure context): the screen may dim */
    }
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && (!wakeLock || wakeLock.released)) keepAwake();
  });

  async function unlock() {
    const ctx = audioCtx();
    if (ctx && ctx.state !== "running") {
      try { await ctx.resume(); } catch (e) { /* stays suspended: speech synthesis is used */ }
    }
    keepAwake();
    $("unlock").hidden = true;
  }
  $("unlock").addEventListener("click", unlock);

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(withToken("/drive/sw.js"), { scope: "/drive" }).catch(() => {});
  }
  const ctx = audioCtx();
  if (ctx && ctx.state === "running") unlock(); // autoplay allowed (kiosk set-up): no tap needed
  else if (ctx) ctx.resume().then(() => { if (ctx.state === "running") unlock(); }).catch(() => {});
  if (qs.get("debug")) $("diag").hidden = false;
  connect();
  pollActive();
  loadVoices();
})();
