// The lineage page's script: draws the graph laid out when the report was made, and its panels.
// No library and no network: everything it shows is in the #lineage-data JSON of this page.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("lineage-data").textContent);
  var W = D.box[0], H = D.box[1], nodes = D.nodes, edges = D.edges;
  var svg = document.getElementById("graph"), panel = document.getElementById("panel");
  var MARK = { COMPLETE: "✔", FAIL: "✖", RUNNING: "▶", ABORT: "■", NONE: "·" };
  function esc(t) {
    return String(t == null ? "" : t).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  // Names are cut in the middle, keeping their start and their end (where names differ).
  function cut(t, n) { t = String(t); if (t.length <= n) return t; var k = Math.floor((n - 1) / 2); return t.slice(0, n - 1 - k) + "…" + t.slice(t.length - k); }
  function size(b) { var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0; while (b >= 1024 && i < 4) { b /= 1024; i++; } return (i ? b.toFixed(1) : b) + " " + u[i]; }
  function num(n) { return Number(n).toLocaleString("en-US"); }
  function stats(n) {
    var s = [];
    if (n.rows != null) s.push(num(n.rows) + " rows");
    if (n.bytes != null) s.push(size(n.bytes));
    if (n.files != null) s.push(n.files + (n.files === 1 ? " file" : " files"));
    return s.join(" · ");
  }
  function shortName(n) {
    if (n.kind === "job") { var p = n.name.split("."); return p[p.length - 1] || n.name; }
    var q = n.name.replace(/\/+$/, "").split("/"); return q[q.length - 1] || n.name;
  }
  function when(t) { return t ? String(t).replace("T", " ").replace(/\.\d+/, "") : ""; }
  function dur(s) { if (s == null) return ""; if (s < 60) return s.toFixed(2) + " s"; var m = Math.floor(s / 60); return m + " min " + Math.round(s - 60 * m) + " s"; }

  // ---------------------------------------------------------------- drawing
  function edgePath(e) {
    var a = nodes[e[0]], b = nodes[e[1]], pts = [[a.x + W, a.y + H / 2]];
    e[3].forEach(function (p) { pts.push([p[0], p[1] + H / 2]); pts.push([p[0] + W, p[1] + H / 2]); });
    pts.push([b.x, b.y + H / 2]);
    var d = "M" + pts[0][0] + " " + pts[0][1];
    for (var i = 1; i < pts.length; i++) {
      var p = pts[i - 1], q = pts[i];
      if (p[1] === q[1]) { d += "L" + q[0] + " " + q[1]; continue; }
      var m = (p[0] + q[0]) / 2; // the curve stays within the gap between two layers
      d += "C" + m + " " + p[1] + " " + m + " " + q[1] + " " + q[0] + " " + q[1];
    }
    return d;
  }
  var out = ['<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#9aa5b1"/></marker>' +
    '<marker id="arrow-parent" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#7e57c2"/></marker>' +
    // A label that is still too wide for its box after cutting (wide letters) ends at the box's edge.
    '<clipPath id="in-box" clipPathUnits="userSpaceOnUse"><rect width="' + (W - 4) + '" height="' + H + '"/></clipPath></defs><g id="viewport">'];
  edges.forEach(function (e, i) {
    out.push('<path class="edge ' + e[2] + '" d="' + edgePath(e) + '"/>');
  });
  function label(n) { return n.kind === "job" ? n.ns + "/" + n.name : n.uri; }
  // A node's three lines of text: added to the drawing only once zoomed in enough to read them.
  function labels(n) {
    var lines;
    if (n.kind === "job") {
      var parent = n.parent != null ? " · in " + shortName(nodes[n.parent]) : "";
      var runs = n.runs.length, failed = n.runs.filter(function (r) { return r[1] === "FAIL"; }).length;
      lines = [MARK[n.state] + " " + (n.state === "NONE" ? "NO RUN" : n.state) + " · " + runs + " run" + (runs === 1 ? "" : "s") + (failed ? ", " + failed + " failed" : "") + parent,
        cut(shortName(n), 26), cut(n.ns + "/" + n.name, 34)];
    } else {
      lines = ["DATASET" + (n.lifecycle ? " · " + n.lifecycle : ""), cut(shortName(n), 26), cut(stats(n) || n.uri, 34)];
    }
    return '<g clip-path="url(#in-box)"><text class="tag" x="10" y="15">' + esc(cut(lines[0], 44)) + '</text><text class="short" x="10" y="33">' + esc(lines[1]) +
      '</text><text class="sub" x="10" y="50">' + esc(lines[2]) + "</text></g>";
  }
  nodes.forEach(function (n, i) {
    out.push('<g class="node ' + n.kind + " " + (n.state || "") + '" data-i="' + i + '" transform="translate(' + n.x + " " + n.y + ')">' +
      "<title>" + esc(label(n)) + '</title><rect width="' + W + '" height="' + H + '" rx="6"/></g>');
  });
  var labelled = false;
  function addLabels() {
    if (labelled) return;
    labelled = true;
    nodes.forEach(function (n, i) { gNodes[i].insertAdjacentHTML("beforeend", labels(n)); });
  }
  out.push("</g>");
  // Zoomed out, names are too small to read: the page draws boxes and lines only ("far"), which
  // keeps the first paint of thousands of nodes fast. apply() switches names on when readable.
  svg.classList.add("far");
  if (edges.length > 1500) svg.classList.add("crowded");
  var screen = svg.getBoundingClientRect(); // measured while the drawing is empty: no layout cost
  svg.innerHTML = out.join("");
  var gNodes = svg.querySelectorAll(".node"), gEdges = svg.querySelectorAll(".edge");

  // ---------------------------------------------------------------- zoom, pan, fit, centre
  var bounds = { x: 0, y: 0, w: W, h: H };
  if (nodes.length) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    nodes.forEach(function (n) { x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y); x1 = Math.max(x1, n.x + W); y1 = Math.max(y1, n.y + H); });
    edges.forEach(function (e) { e[3].forEach(function (p) { y0 = Math.min(y0, p[1]); y1 = Math.max(y1, p[1] + H); }); });
    bounds = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  }
  var view = { x: 0, y: 0, w: 1, h: 1 };
  function apply() {
    svg.setAttribute("viewBox", view.x + " " + view.y + " " + view.w + " " + view.h);
    var far = (screen.width || 1) / view.w < 0.35; // a 13px name would be under 5px
    if (!far) addLabels();
    if (far !== svg.classList.contains("far")) svg.classList.toggle("far", far);
  }
  function fit() {
    var pad = 20, r = screen, bw = bounds.w + 2 * pad, bh = bounds.h + 2 * pad;
    var aspect = (r.width || 1) / (r.height || 1);
    if (bw / bh > aspect) bh = bw / aspect; else bw = bh * aspect; // fill the window, centred
    view = { x: bounds.x + bounds.w / 2 - bw / 2, y: bounds.y + bounds.h / 2 - bh / 2, w: bw, h: bh };
    apply();
  }
  function zoom(f, cx, cy) {
    if (cx == null) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
    view = { x: cx - (cx - view.x) * f, y: cy - (cy - view.y) * f, w: view.w * f, h: view.h * f }; apply();
  }
  function toGraph(ev) { var r = screen; return [view.x + (ev.clientX - r.left) / r.width * view.w, view.y + (ev.clientY - r.top) / r.height * view.h]; }
  function centre(i) {
    var n = nodes[i], w = Math.min(view.w, Math.max(4 * W, 1400)), h = view.h * w / view.w;
    view = { x: n.x + W / 2 - w / 2, y: n.y + H / 2 - h / 2, w: w, h: h }; apply();
  }
  svg.addEventListener("wheel", function (ev) { ev.preventDefault(); var p = toGraph(ev); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, p[0], p[1]); }, { passive: false });
  var drag = null;
  svg.addEventListener("pointerdown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, v: view, moved: false }; });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var r = screen, dx = (ev.clientX - drag.x) / r.width * view.w, dy = (ev.clientY - drag.y) / r.height * view.h;
    if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) > 3) { drag.moved = true; svg.classList.add("dragging"); }
    if (drag.moved) { view = { x: drag.v.x - dx, y: drag.v.y - dy, w: view.w, h: view.h }; apply(); }
  });
  window.addEventListener("pointerup", function () { setTimeout(function () { drag = null; }, 0); svg.classList.remove("dragging"); });
  window.addEventListener("resize", function () { screen = svg.getBoundingClientRect(); fit(); });
  document.getElementById("fit").onclick = fit;
  document.getElementById("zoom-in").onclick = function () { zoom(1 / 1.3); };
  document.getElementById("zoom-out").onclick = function () { zoom(1.3); };

  // ---------------------------------------------------------------- selection and panels
  function link(i) { return '<a data-go="' + i + '">' + esc(label(nodes[i])) + "</a>"; }
  function links(list) { return list.length ? list.map(link).join("<br>") : '<span class="sub">none</span>'; }
  function clearMarks() {
    svg.querySelectorAll(".selected,.near,.upstream").forEach(function (el) { el.classList.remove("selected", "near", "upstream"); });
    svg.querySelectorAll(".cols").forEach(function (el) { el.remove(); });
  }
  function select(i, recentre) {
    clearMarks();
    var n = nodes[i];
    gNodes[i].classList.add("selected");
    edges.forEach(function (e, k) { if (e[0] === i || e[1] === i) gEdges[k].classList.add("near"); });
    panel.innerHTML = n.kind === "job" ? jobPanel(n) : datasetPanel(n);
    panel.dataset.node = String(i);
    if (recentre) centre(i);
  }
  function jobPanel(n) {
    var h = "<h2>" + esc(n.name) + '</h2><p class="sub">job · ' + esc(n.ns) + '</p><p>Latest run: <b class="state">' + MARK[n.state] + " " + esc(n.state) + "</b></p>";
    if (n.parent != null) h += "<h3>Parent job</h3>" + link(n.parent);
    if (n.children.length) h += "<h3>Child jobs</h3>" + links(n.children);
    h += "<h3>Runs (" + n.runs.length + ")</h3><table><tr><th>state</th><th>start</th><th>end</th><th>duration</th></tr>";
    n.runs.slice().reverse().forEach(function (r) {
      h += '<tr class="run ' + esc(r[1]) + '" title="run ' + esc(r[0]) + '"><td>' + MARK[r[1]] + " " + esc(r[1]) + "</td><td>" + esc(when(r[2])) + "</td><td>" + esc(when(r[3])) + "</td><td>" + dur(r[4]) + "</td></tr>";
      if (r[5]) h += '<tr><td colspan="4"><div class="error">' + esc(r[5]) + "</div></td></tr>";
    });
    return h + "</table><h3>Reads</h3>" + links(n["in"]) + "<h3>Writes</h3>" + links(n.out);
  }
  function datasetPanel(n) {
    var h = "<h2>" + esc(n.name) + '</h2><p class="sub">dataset · ' + esc(n.ns) + "<br>" + esc(n.uri) + "</p>";
    h += "<h3>Statistics</h3>" + (esc(stats(n)) || '<span class="sub">none reported</span>');
    if (n.lifecycle) h += "<h3>Lifecycle</h3>" + esc(n.lifecycle);
    h += "<h3>Schema</h3>";
    if (n.columns.length) {
      h += "<table><tr><th>column</th><th>type</th><th>from</th></tr>";
      n.columns.forEach(function (c) {
        var has = n.lineage[c[0]] && n.lineage[c[0]].length;
        h += "<tr><td>" + (has ? '<button class="col" type="button" data-field="' + esc(c[0]) + '">' + esc(c[0]) + "</button>" : esc(c[0])) + "</td><td>" + esc(c[1]) + "</td><td>" + (has ? n.lineage[c[0]].length : "") + "</td></tr>";
      });
      h += "</table>";
    } else h += '<span class="sub">none reported</span>';
    h += '<div id="column-lineage"></div>';
    if (n.symlinks.length) h += "<h3>Symlinks</h3>" + n.symlinks.map(esc).join("<br>");
    return h + "<h3>Written by</h3>" + links(n.writers) + "<h3>Read by</h3>" + links(n.readers);
  }
  // The upstream columns of one column, followed through every dataset's column lineage.
  function upstream(i, field) {
    var seen = {}, found = [], todo = [[i, field]];
    while (todo.length) {
      var cur = todo.shift(), n = nodes[cur[0]];
      ((n && n.lineage && n.lineage[cur[1]]) || []).forEach(function (s) {
        var key = s[1] + "\u0000" + s[2];
        if (seen[key]) return;
        seen[key] = 1; found.push({ node: s[0], uri: s[1], field: s[2], how: s[3], to: cur[1], depth: cur === todo ? 0 : 1 });
        if (s[0] >= 0) todo.push([s[0], s[2]]);
      });
    }
    return found;
  }
  function chooseColumn(i, field, button) {
    clearMarks();
    gNodes[i].classList.add("selected");
    panel.querySelectorAll("button.col").forEach(function (b) { b.classList.toggle("chosen", b === button); });
    var found = upstream(i, field), per = {};
    found.forEach(function (f) { if (f.node >= 0) { (per[f.node] = per[f.node] || []).push(f.field); } });
    Object.keys(per).forEach(function (k) {
      var g = gNodes[k]; g.classList.add("upstream");
      var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
      t.setAttribute("class", "cols"); t.setAttribute("x", "10"); t.setAttribute("y", String(H + 13));
      t.textContent = "⇢ " + cut(per[k].join(", "), 40); g.appendChild(t);
    });
    var h = "<h3>Column " + esc(field) + " comes from</h3><ul>";
    found.forEach(function (f) {
      h += '<li class="upcol" data-dataset="' + esc(f.uri) + '" data-field="' + esc(f.field) + '">' + (f.node >= 0 ? link(f.node) : esc(f.uri)) + " · <b>" + esc(f.field) + "</b>" +
        ' <span class="how">→ ' + esc(f.to) + (f.how ? " (" + esc(f.how) + ")" : "") + "</span></li>";
    });
    document.getElementById("column-lineage").innerHTML = h + "</ul>";
  }
  svg.addEventListener("click", function (ev) {
    if (drag && drag.moved) return;
    var g = ev.target.closest && ev.target.closest(".node");
    if (g) select(Number(g.getAttribute("data-i")), true);
  });
  panel.addEventListener("click", function (ev) {
    var a = ev.target.closest("[data-go]");
    if (a) { select(Number(a.getAttribute("data-go")), true); return; }
    var b = ev.target.closest("button.col");
    if (b) chooseColumn(Number(panel.dataset.node), b.getAttribute("data-field"), b);
  });

  // ---------------------------------------------------------------- search and namespaces
  var search = document.getElementById("search"), nsSelect = document.getElementById("namespace");
  var namespaces = {};
  nodes.forEach(function (n) { namespaces[n.ns] = 1; });
  Object.keys(namespaces).sort().forEach(function (ns) { var o = document.createElement("option"); o.value = o.textContent = ns; nsSelect.appendChild(o); });
  function filter() {
    var q = search.value.trim().toLowerCase(), ns = nsSelect.value, first = -1, shown = {};
    nodes.forEach(function (n, i) {
      var inNs = !ns || n.ns === ns, hit = q && label(n).toLowerCase().indexOf(q) >= 0;
      gNodes[i].classList.toggle("dim", !inNs || (!!q && !hit));
      gNodes[i].classList.toggle("match", !!hit && inNs);
      if (inNs && (!q || hit)) shown[i] = 1;
      if (hit && inNs && first < 0) first = i;
    });
    edges.forEach(function (e, k) { gEdges[k].classList.toggle("dim", !(shown[e[0]] && shown[e[1]])); });
    return first;
  }
  search.addEventListener("input", filter);
  search.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { var i = filter(); if (i >= 0) select(i, true); } });
  nsSelect.addEventListener("change", filter);

  document.getElementById("title").textContent = D.title;
  document.getElementById("meta").textContent = D.events + " events · " + nodes.filter(function (n) { return n.kind === "job"; }).length + " jobs · " + D.runs + " runs · " +
    nodes.filter(function (n) { return n.kind === "dataset"; }).length + " datasets";
  fit();
  window.lineageReport = { select: select, fit: fit, chooseColumn: chooseColumn, renderedAt: performance.now() };
})();
