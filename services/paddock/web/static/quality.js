// Pitwall tablet: the session's data-quality card (GET /sessions/{id}/quality). Its sentences come from
// the paddock (`summary`, shared/quality_words.py: the same lines `pitwall import` prints): gaps, laps that
// cannot be trusted, a file that stops early, what the file has no channel for. Nodes are built with
// Dom.h (dom.js) only: nothing from a logger file is ever parsed as HTML.
"use strict";

const QualityCard = (() => {
  const el = (tag, text, cls) => Dom.h(tag, cls ? {class: cls} : {}, text);  // the one DOM helper (dom.js)

  function channelTable(channels) {
    const det = el("details");
    det.appendChild(el("summary", `${channels.length} channels recorded`));
    const wrap = el("div", null, "table-wrap");
    const table = el("table");
    const head = el("tr");
    for (const h of ["Channel", "Rate", "Recorded"]) head.appendChild(el("th", h));
    table.appendChild(el("thead")).appendChild(head);
    const body = table.appendChild(el("tbody"));
    for (const c of channels) {
      const tr = body.appendChild(el("tr"));
      tr.appendChild(el("td", String(c.name ?? "")));
      tr.appendChild(el("td", c.rate_hz ? `${c.rate_hz} Hz` : "–"));
      tr.appendChild(el("td", `${Math.round(c.coverage_pct ?? 0)} %`));
    }
    wrap.appendChild(table);
    det.appendChild(wrap);
    return det;
  }

  // fill `card` (a .card element) from the report `q`; shown in every case, with a sentence when empty
  function render(card, q) {
    card.replaceChildren(el("h2", "Data from the logger"));
    if (!q || q.available === false) {
      card.appendChild(el("p", "No file report for this session: it was recorded live or simulated, not imported from a logger file.", "muted"));
    } else if (!(q.summary || []).length) {
      card.appendChild(el("p", "The file is whole: no gaps in the data and every lap counted."));
    } else {
      const ul = el("ul", null, "quality-findings");
      for (const line of q.summary) ul.appendChild(el("li", line));
      card.appendChild(ul);
    }
    if (q && Array.isArray(q.channels) && q.channels.length) card.appendChild(channelTable(q.channels));
    card.hidden = false;
  }

  return {render};
})();
