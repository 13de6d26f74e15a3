// Pitwall's one way to put anything on a page (the tablet, and the drive screen, which inlines this file):
// elements made with createElement, data always as text nodes or attribute values, never HTML parsed from
// a string. A name from a logger file or a friend's bundle ("<img src=x onerror=…>") shows as the text it
// is and never runs. tests/hostile/test_no_html_strings.py fails on any HTML-from-a-string call in a page's script.
"use strict";
const Dom = (() => {
  // h("td", {class: "name", dataset: {sid}, title: "…", onclick: fn}, "text", node, [more, "kids"])
  // attributes: a value of null/undefined/false is left out, true is an empty attribute; on* take functions
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === "dataset") Object.assign(e.dataset, v);
      else if (k.startsWith("on")) { if (typeof v === "function") e.addEventListener(k.slice(2), v); }
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    return add(e, ...kids);
  }
  // children appended in order: nodes as they are, anything else as its text; null/false/"" skipped
  function add(parent, ...kids) {
    for (const k of kids.flat(Infinity)) {
      if (k == null || k === false || k === "") continue;
      parent.append(k instanceof Node ? k : String(k));
    }
    return parent;
  }
  // the children replaced
  function fill(parent, ...kids) {
    parent.replaceChildren();
    return add(parent, ...kids);
  }
  return {h, add, fill};
})();
