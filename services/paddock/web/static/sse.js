// Server-Sent Events over POST (EventSource only does GET): fetch + a streaming parser.
// postSSE(url, body, {onEvent, signal, headers}) resolves with {done: bool} when the stream ends and
// rejects with a NetworkLost error when the connection breaks before the server finished.
"use strict";
class NetworkLost extends Error {}

async function postSSE(url, body, {onEvent, signal, headers = {}} = {}) {
  let resp;
  try {
    resp = await fetch(url, {method: "POST", signal, body: JSON.stringify(body),
      headers: {"Content-Type": "application/json", "Accept": "text/event-stream", ...headers}});
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new NetworkLost(`could not reach the paddock (${e.message})`);
  }
  if (!resp.ok) {
    let detail = "";
    try { const j = await resp.json(); detail = (j.error && (j.error.message || j.error.code)) || JSON.stringify(j); } catch (_) {}
    const err = new Error(`HTTP ${resp.status}: ${detail}`);
    err.status = resp.status;
    err.retryAfter = resp.headers.get("Retry-After");
    throw err;
  }
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = "", finished = false;
  const dispatch = (block) => {
    let event = "message", id = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;  // comment keepalive
      const i = line.indexOf(":");
      const field = i < 0 ? line : line.slice(0, i), value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
      if (field === "event") event = value; else if (field === "data") data.push(value); else if (field === "id") id = value;
    }
    if (!data.length) return;
    let parsed;
    try { parsed = JSON.parse(data.join("\n")); } catch (_) { parsed = {text: data.join("\n")}; }
    if (event === "done" || event === "error") finished = true;
    onEvent && onEvent(event, parsed, id);
  };
  try {
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buf += decoder.decode(value, {stream: true}).replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) { dispatch(buf.slice(0, cut)); buf = buf.slice(cut + 2); }
    }
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new NetworkLost(`the paddock connection dropped mid-stream (${e.message})`);
  }
  if (!finished) throw new NetworkLost("the paddock closed the stream before it finished");
  return {done: true};
}
