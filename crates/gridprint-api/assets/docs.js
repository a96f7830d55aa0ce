// gridprint docs page: renders openapi.json (same origin) and lets you try every operation.
// No external assets, no innerHTML with data: every node is built with createElement/textContent.
"use strict";

(function () {
  const doc = document.getElementById("doc");
  const tokenInput = document.getElementById("token");
  document.getElementById("auth").addEventListener("submit", (e) => e.preventDefault());

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return node;
  }

  // Inline markdown: `code`, **bold**, plain text.
  function inline(text) {
    const out = [];
    const re = /(`[^`]+`|\*\*[^*]+\*\*)/g;
    let last = 0;
    for (const m of text.matchAll(re)) {
      if (m.index > last) out.push(text.slice(last, m.index));
      const t = m[0];
      out.push(t.startsWith("`") ? el("code", { text: t.slice(1, -1) }) : el("strong", { text: t.slice(2, -2) }));
      last = m.index + t.length;
    }
    if (last < text.length) out.push(text.slice(last));
    return out;
  }

  // Block markdown: ## headings, "- " lists (with continuation lines), paragraphs.
  function markdown(text, level) {
    const frag = document.createDocumentFragment();
    const blocks = (text || "").split(/\n\s*\n/);
    for (const block of blocks) {
      const lines = block.split("\n");
      const head = lines[0].match(/^(#{1,6})\s+(.*)$/);
      if (head) {
        frag.append(el("h" + Math.min(6, head[1].length + (level || 0)), {}, inline(head[2])));
        lines.shift();
        if (!lines.length) continue;
      }
      if (lines[0] && lines[0].startsWith("- ")) {
        const ul = el("ul");
        let item = null;
        for (const line of lines) {
          if (line.startsWith("- ")) {
            item = line.slice(2);
            ul.append(el("li"));
          } else {
            item += " " + line.trim();
          }
          ul.lastChild.replaceChildren(...inline(item));
        }
        frag.append(ul);
      } else if (lines.join("").trim()) {
        frag.append(el("p", {}, inline(lines.join(" "))));
      }
    }
    return frag;
  }

  let spec = null;

  function resolve(schema) {
    let s = schema || {};
    for (let i = 0; s && s.$ref && i < 10; i++) {
      s = spec.components.schemas[s.$ref.split("/").pop()] || {};
    }
    return s;
  }

  function typeText(schema) {
    if (!schema) return "";
    if (schema.$ref) return schema.$ref.split("/").pop() + enumText(resolve(schema));
    if (schema.oneOf || schema.anyOf) return (schema.oneOf || schema.anyOf).map(typeText).join(" | ");
    const t = Array.isArray(schema.type) ? schema.type.filter((x) => x !== "null").join("|") : schema.type;
    if (t === "array") return (schema.prefixItems ? "[" + schema.prefixItems.map(typeText).join(", ") + "]" : typeText(schema.items) + "[]");
    return (t || "any") + (schema.format ? " (" + schema.format + ")" : "") + enumText(schema);
  }

  function enumText(schema) {
    return schema && schema.enum ? ": " + schema.enum.join(", ") : "";
  }

  function paramInput(p, id) {
    const s = resolve(p.schema);
    const type = Array.isArray(s.type) ? s.type.filter((x) => x !== "null")[0] : s.type;
    if (s.enum || type === "boolean") {
      const values = s.enum || ["true", "false"];
      return el("select", { id, name: p.name }, el("option", { value: "", text: "" }), values.map((v) => el("option", { value: v, text: String(v) })));
    }
    const placeholder = p.example !== undefined ? String(p.example) : (p.schema && p.schema.example !== undefined ? String(p.schema.example) : "");
    return el("input", { id, name: p.name, type: "text", placeholder, spellcheck: "false" });
  }

  function operation(path, method, op, n) {
    const secured = (op.security || []).some((s) => Object.keys(s).length > 0);
    const form = el("form", { class: "try" });
    const rows = [];
    for (const [i, p] of (op.parameters || []).entries()) {
      const id = "p" + n + "-" + i;
      rows.push(el("tr", {},
        el("td", {}, el("label", { for: id }, el("code", { text: p.name })), p.in === "path" ? " (path)" : ""),
        el("td", {}, paramInput(p, id)),
        el("td", {}, el("div", { class: "hint", text: typeText(p.schema) }), markdown(p.description || "")),
      ));
    }
    const output = el("div", { class: "output", "aria-live": "polite" });
    if (rows.length) {
      form.append(el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "parameter" }), el("th", { text: "value" }), el("th", { text: "description" }))), el("tbody", {}, rows)));
    }
    form.append(el("p", {}, el("button", { type: "submit", text: "Send request" })));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      let url = path;
      const query = new URLSearchParams();
      for (const p of op.parameters || []) {
        const input = form.elements[p.name];
        const v = input ? input.value.trim() : "";
        if (p.in === "path") url = url.replace("{" + p.name + "}", encodeURIComponent(v));
        else if (v !== "") query.append(p.name, v);
      }
      const qs = query.toString();
      if (qs) url += "?" + qs;
      const headers = {};
      const token = tokenInput.value.trim();
      if (secured && token) headers.Authorization = "Bearer " + token;
      output.replaceChildren(el("p", { text: "Sending GET " + url + " …" }));
      try {
        const started = performance.now();
        const resp = await fetch(url, { headers });
        const text = await resp.text();
        const ms = Math.round(performance.now() - started);
        let body = text;
        if ((resp.headers.get("content-type") || "").includes("json")) {
          try { body = JSON.stringify(JSON.parse(text), null, 2); } catch (_) { /* keep the text */ }
        }
        if (body.length > 200000) body = body.slice(0, 200000) + "\n… (" + text.length + " characters in all)";
        const shown = ["content-type", "etag", "cache-control", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after", "x-request-id"];
        const hdrs = shown.filter((h) => resp.headers.get(h) !== null).map((h) => h + ": " + resp.headers.get(h)).join("\n");
        output.replaceChildren(
          el("p", { class: "status-line" + (resp.ok ? "" : " status-error"), text: resp.status + " " + resp.statusText + " (" + ms + " ms)" }),
          el("p", {}, el("code", { text: "curl" + (headers.Authorization ? " -H 'Authorization: Bearer <token>'" : "") + " '" + new URL(url, location.href).href + "'" })),
          el("pre", { text: hdrs }),
          el("pre", { text: body }),
        );
      } catch (err) {
        output.replaceChildren(el("p", { class: "status-error", text: "Request failed: " + err }));
      }
    });
    const responses = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "status" }), el("th", { text: "description" }), el("th", { text: "body" }))),
      el("tbody", {}, Object.entries(op.responses || {}).map(([code, r]) => el("tr", {},
        el("td", {}, el("code", { text: code })),
        el("td", {}, markdown(r.description || "")),
        el("td", {}, Object.entries(r.content || {}).map(([type, c]) => el("div", {}, el("code", { text: type }), " ", typeText(c.schema)))),
      ))));
    return el("details", { class: "op", id: op.operationId },
      el("summary", {}, el("span", { class: "method", text: method }), el("code", { text: path }), " — ", op.summary || "", secured ? el("span", { class: "lock", text: "🔒 token" }) : null),
      el("div", {}, markdown(op.description || ""), el("h4", { text: "Try it" }), form, output, el("h4", { text: "Responses" }), responses),
    );
  }

  function render() {
    const info = spec.info || {};
    const parts = [el("h1", { text: (info.title || "API") + " " + (info.version || "") }), markdown(info.description || "", 1)];
    let n = 0;
    const tags = spec.tags && spec.tags.length ? spec.tags : [{ name: "default" }];
    for (const tag of tags) {
      const ops = [];
      for (const [path, item] of Object.entries(spec.paths || {})) {
        for (const [method, op] of Object.entries(item)) {
          if (!op || typeof op !== "object" || !op.responses) continue;
          if ((op.tags || ["default"]).includes(tag.name)) ops.push(operation(path, method, op, n++));
        }
      }
      if (ops.length) parts.push(el("section", {}, el("h2", { text: "Endpoints: " + tag.name }), tag.description ? el("p", {}, inline(tag.description)) : null, ops));
    }
    const schemas = Object.entries((spec.components && spec.components.schemas) || {});
    parts.push(el("section", {}, el("h2", { text: "Schemas" }), schemas.map(([name, s]) =>
      el("details", { class: "op", id: "schema-" + name }, el("summary", {}, el("code", { text: name }), " — ", (s.description || "").split("\n")[0]),
        el("div", {}, el("pre", { text: JSON.stringify(s, null, 2) }))))));
    doc.replaceChildren(...parts);
    if (location.hash) {
      const target = document.getElementById(location.hash.slice(1));
      if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
    }
  }

  fetch("openapi.json")
    .then((r) => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then((s) => { spec = s; render(); })
    .catch((err) => doc.replaceChildren(el("p", { class: "status-error", text: "Could not load openapi.json: " + err })));
})();
