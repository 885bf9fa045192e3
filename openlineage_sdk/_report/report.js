// The lineage page's script: draws the graph and its panels. No library and no network:
// everything it shows is in the #lineage-data JSON of this page.
//
// Two kinds of view. "Whole graph" draws every node where the report's writer laid it out
// (igraph's layered layout, computed when the page was written). A neighbourhood draws a few
// nodes (the latest failures, a namespace, or one node) with what lies upstream and downstream
// of them to a depth the reader chooses; nodes of other namespaces farther than one step away
// are folded into one box per namespace and side, which a click opens. A neighbourhood is small,
// so this script lays it out itself, in the same left-to-right layers.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("lineage-data").textContent);
  var W = D.box[0], H = D.box[1], nodes = D.nodes;
  var STEP_X = W + 90, STEP_Y = H + 20; // the writer's gaps between layers and between rows
  var FAILURE_SEEDS = 3; // the latest failures a neighbourhood starts from
  var READABLE = 0.6; // the smallest zoom a neighbourhood opens at (names of 13px at 8px)
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
  function plural(n, one, many) { return num(n) + " " + (n === 1 ? one : many || one + "s"); }
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
  function label(n) { return n.kind === "job" ? n.ns + "/" + n.name : n.uri; }
  function upOf(i) { var n = nodes[i]; return n.kind === "job" ? n["in"] : n.writers; }
  function downOf(i) { var n = nodes[i]; return n.kind === "job" ? n.out : n.readers; }
  function latest(n) { var r = n.runs[n.runs.length - 1]; return r ? r[3] || r[2] || r[6] || "" : ""; }

  // ---------------------------------------------------------------- what to show
  // A view: {kind: "whole"} or a neighbourhood {kind: "failures" | "ns" | "node", ns, node}.
  var view = null, depth = 2, opened = {};
  var scene = null; // what is drawn: items (nodes or folded namespaces), edges, where
  var wholeScene = null;

  function seedsOf(v) {
    if (v.kind === "ns") return nodes.map(function (n, i) { return n.ns === v.ns ? i : -1; }).filter(function (i) { return i >= 0; });
    if (v.kind === "node") return [v.node];
    var jobs = nodes.map(function (n, i) { return i; }).filter(function (i) { return nodes[i].kind === "job" && nodes[i].runs.length; });
    var failed = jobs.filter(function (i) { return nodes[i].state === "FAIL"; });
    var pool = failed.length ? failed : jobs;
    pool.sort(function (a, b) { var x = latest(nodes[a]), y = latest(nodes[b]); return x < y ? 1 : x > y ? -1 : a - b; });
    v.failed = failed.length;
    return pool.slice(0, FAILURE_SEEDS);
  }

  // The nodes within `depth` steps upstream and downstream of the seeds: {index: [steps, side]}
  // with side -1 upstream, 1 downstream, 0 a seed.
  function reach(seeds, steps) {
    var seen = {};
    seeds.forEach(function (i) { seen[i] = [0, 0]; });
    [[upOf, -1], [downOf, 1]].forEach(function (way) {
      var frontier = seeds;
      for (var d = 1; d <= steps && frontier.length; d++) {
        var next = [];
        frontier.forEach(function (i) {
          way[0](i).forEach(function (j) { if (!seen[j]) { seen[j] = [d, way[1]]; next.push(j); } });
        });
        frontier = next;
      }
    });
    return seen;
  }

  function neighbourhood(v) {
    var seeds = seedsOf(v), seen = reach(seeds, depth), open = {};
    Object.keys(opened).forEach(function (ns) { open[ns] = 1; });
    Object.keys(seen).forEach(function (k) { if (seen[k][0] <= 1) open[nodes[k].ns] = 1; });
    var items = [], itemOf = {}, folds = {};
    Object.keys(seen).map(Number).sort(function (a, b) { return a - b; }).forEach(function (i) {
      var n = nodes[i];
      if (open[n.ns]) { itemOf[i] = items.length; items.push({ i: i }); return; }
      var key = (seen[i][1] < 0 ? "up" : "down") + " " + n.ns, f = folds[key];
      if (f == null) { f = folds[key] = items.length; items.push({ i: -1, ns: n.ns, side: seen[i][1], members: [] }); }
      items[f].members.push(i); itemOf[i] = f;
    });
    var pairs = {}, edges = [];
    function link(a, b, kind) {
      var key = a + " " + b;
      if (a === b || pairs[key]) return;
      pairs[key] = 1; edges.push({ a: a, b: b, kind: kind });
    }
    Object.keys(seen).forEach(function (k) {
      var i = Number(k);
      downOf(i).forEach(function (j) { if (seen[j]) link(itemOf[i], itemOf[j], "data"); });
      var p = nodes[i].parent;
      if (p != null && seen[p]) link(itemOf[p], itemOf[i], "parent");
    });
    layOut(items, edges);
    return { items: items, edges: edges, itemOf: itemOf, seeds: seeds, reached: Object.keys(seen).length, folded: Object.keys(folds).length };
  }

  // ---------------------------------------------------------------- layout of a neighbourhood
  // Layers left to right: cycles broken by reversing the edges a depth-first search finds going
  // back; longest-path layers, each source moved up to just before its first reader; a dummy
  // in every layer a long edge crosses; rows ordered by barycentres, sweeping both ways; then
  // each layer's rows placed as near their neighbours' as their order and spacing allow.
  function layOut(items, edges) {
    var n = items.length, succ = [], pred = [], i, k;
    for (i = 0; i < n; i++) { succ.push([]); pred.push([]); }
    var state = [], order = [];
    edges.forEach(function (e, k2) { succ[e.a].push(k2); });
    for (i = 0; i < n; i++) {
      if (state[i]) continue;
      var stack = [[i, 0]]; state[i] = 1;
      while (stack.length) {
        var top = stack[stack.length - 1], out = succ[top[0]];
        if (top[1] < out.length) {
          var e = edges[out[top[1]++]];
          if (state[e.b] === 1) e.back = true; // on the path: a cycle; this edge goes back
          else if (!state[e.b]) { state[e.b] = 1; stack.push([e.b, 0]); }
        } else { state[top[0]] = 2; order.push(top[0]); stack.pop(); }
      }
    }
    var from = [], to = [];
    edges.forEach(function (e) { var a = e.back ? e.b : e.a, b = e.back ? e.a : e.b; from.push(a); to.push(b); });
    for (i = 0; i < n; i++) { succ[i] = []; pred[i] = []; }
    for (k = 0; k < edges.length; k++) { if (from[k] !== to[k]) { succ[from[k]].push(k); pred[to[k]].push(k); } }
    var layer = new Array(n).fill(0);
    for (var o = order.length - 1; o >= 0; o--) { // reverse post-order: a topological order
      var v = order[o];
      succ[v].forEach(function (k3) { layer[to[k3]] = Math.max(layer[to[k3]], layer[v] + 1); });
    }
    for (i = 0; i < n; i++) {
      if (!pred[i].length && succ[i].length) layer[i] = Math.max(layer[i], Math.min.apply(null, succ[i].map(function (k4) { return layer[to[k4]]; })) - 1);
    }
    // Dummies: vertex ids n, n+1, ... ; every segment joins consecutive layers.
    var lay = layer.slice(), up = [], down = [];
    for (i = 0; i < n; i++) { up.push([]); down.push([]); }
    edges.forEach(function (e, k5) {
      var prev = from[k5], chain = [];
      for (var l = layer[from[k5]] + 1; l < layer[to[k5]]; l++) {
        var d = lay.length; lay.push(l); up.push([prev]); down.push([]); down[prev].push(d); chain.push(d); prev = d;
      }
      if (from[k5] !== to[k5]) { down[prev].push(to[k5]); up[to[k5]].push(prev); }
      e.chain = chain;
    });
    var layers = [];
    lay.forEach(function (l, vtx) { (layers[l] = layers[l] || []).push(vtx); });
    for (i = 0; i < layers.length; i++) layers[i] = layers[i] || [];
    var pos = [];
    function rank() { layers.forEach(function (row) { row.forEach(function (vtx, r) { pos[vtx] = r; }); }); }
    rank();
    function sweep(rows, near) {
      rows.forEach(function (row) {
        var bary = {};
        row.forEach(function (vtx) {
          var ns = near[vtx];
          bary[vtx] = ns.length ? ns.reduce(function (s, x) { return s + pos[x]; }, 0) / ns.length : pos[vtx];
        });
        row.sort(function (a, b) { return bary[a] - bary[b] || pos[a] - pos[b]; });
        row.forEach(function (vtx, r) { pos[vtx] = r; });
      });
    }
    for (var round = 0; round < 8; round++) { sweep(layers.slice(1), up); sweep(layers.slice(0, -1).reverse(), down); }
    // Rows: each layer centred first, then moved towards the mean of its neighbours' rows
    // (least squares, keeping order and a slot of spacing: pool-adjacent-violators).
    var y = [];
    layers.forEach(function (row) { row.forEach(function (vtx, r) { y[vtx] = r - (row.length - 1) / 2; }); });
    function place(rows, near) {
      rows.forEach(function (row) {
        var blocks = [];
        row.forEach(function (vtx, r) {
          var ns = near[vtx], want = ns.length ? ns.reduce(function (s, x) { return s + y[x]; }, 0) / ns.length : y[vtx];
          blocks.push({ sum: want - r, count: 1, first: r });
          while (blocks.length > 1) {
            var b = blocks[blocks.length - 1], a = blocks[blocks.length - 2];
            if (a.sum / a.count <= b.sum / b.count) break;
            a.sum += b.sum; a.count += b.count; blocks.pop();
          }
        });
        blocks.forEach(function (b) { for (var r = b.first; r < b.first + b.count; r++) y[row[r]] = b.sum / b.count + r; });
      });
    }
    for (round = 0; round < 4; round++) { place(layers.slice(1), up); place(layers.slice(0, -1).reverse(), down); }
    var low = Math.min.apply(null, y.length ? y : [0]);
    items.forEach(function (it, vtx) { it.x = layer[vtx] * STEP_X; it.y = Math.round((y[vtx] - low) * STEP_Y); });
    edges.forEach(function (e) { e.bends = e.chain.map(function (d) { return [lay[d] * STEP_X, Math.round((y[d] - low) * STEP_Y)]; }); });
  }

  function whole() {
    if (!wholeScene) {
      var itemOf = {};
      wholeScene = {
        items: nodes.map(function (n, i) { itemOf[i] = i; return { i: i, x: n.x, y: n.y }; }),
        edges: D.edges.map(function (e) { return { a: e[0], b: e[1], kind: e[2], bends: e[3] }; }),
        itemOf: itemOf, seeds: [], reached: nodes.length, folded: 0, whole: true
      };
    }
    return wholeScene;
  }

  // ---------------------------------------------------------------- drawing
  function edgePath(e) {
    var a = scene.items[e.back ? e.b : e.a], b = scene.items[e.back ? e.a : e.b], pts = [[a.x + W, a.y + H / 2]];
    e.bends.forEach(function (p) { pts.push([p[0], p[1] + H / 2]); pts.push([p[0] + W, p[1] + H / 2]); });
    pts.push([b.x, b.y + H / 2]);
    if (a === b) return "";
    var d = "M" + pts[0][0] + " " + pts[0][1];
    for (var i = 1; i < pts.length; i++) {
      var p = pts[i - 1], q = pts[i];
      if (p[1] === q[1]) { d += "L" + q[0] + " " + q[1]; continue; }
      var m = (p[0] + q[0]) / 2; // the curve stays within the gap between two layers
      d += "C" + m + " " + p[1] + " " + m + " " + q[1] + " " + q[0] + " " + q[1];
    }
    return d;
  }
  var DEFS = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#9aa5b1"/></marker>' +
    '<marker id="arrow-parent" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#7e57c2"/></marker>' +
    // A label that is still too wide for its box after cutting (wide letters) ends at the box's edge.
    '<clipPath id="in-box" clipPathUnits="userSpaceOnUse"><rect width="' + (W - 4) + '" height="' + H + '"/></clipPath></defs>';
  function lines3(a, b, c) {
    return '<g clip-path="url(#in-box)"><text class="tag" x="10" y="15">' + esc(cut(a, 44)) + '</text><text class="short" x="10" y="33">' + esc(b) +
      '</text><text class="sub" x="10" y="50">' + esc(c) + "</text></g>";
  }
  // A node's three lines of text: added to the drawing only once zoomed in enough to read them.
  function labels(it) {
    if (it.i < 0) {
      var jobs = it.members.filter(function (i) { return nodes[i].kind === "job"; }).length, sets = it.members.length - jobs;
      var what = [jobs ? plural(jobs, "job") : "", sets ? plural(sets, "dataset") : ""].filter(Boolean).join(", ");
      return lines3((it.side < 0 ? "▲ UPSTREAM" : "▼ DOWNSTREAM") + " · FOLDED", cut(it.ns, 26), what + " · click to open");
    }
    var n = nodes[it.i];
    if (n.kind === "job") {
      var parent = n.parent != null ? " · in " + shortName(nodes[n.parent]) : "";
      return lines3(MARK[n.state] + " " + (n.state === "NONE" ? "NO RUN" : n.state) + " · " + plural(n.total, "run") + (n.failed ? ", " + num(n.failed) + " failed" : "") + parent,
        cut(shortName(n), 26), cut(n.ns + "/" + n.name, 34));
    }
    return lines3("DATASET" + (n.lifecycle ? " · " + n.lifecycle : ""), cut(shortName(n), 26), cut(stats(n) || n.uri, 34));
  }
  function title(it) { return it.i < 0 ? it.ns + " (folded: " + it.members.length + ")" : label(nodes[it.i]); }
  var gItems = [], gEdges = [], labelled = false, screen = null;
  function draw(next) {
    scene = next;
    var out = [DEFS, '<g id="viewport">'];
    scene.edges.forEach(function (e) {
      out.push('<path class="edge ' + e.kind + (e.back ? " back" : "") + '" d="' + edgePath(e) + '"/>');
    });
    scene.items.forEach(function (it, k) {
      var cls = it.i < 0 ? "node folded" : "node " + nodes[it.i].kind + " " + (nodes[it.i].state || "");
      if (scene.seeds.indexOf(it.i) >= 0) cls += " seed";
      out.push('<g class="' + cls + '" data-k="' + k + '"' + (it.i >= 0 ? ' data-i="' + it.i + '"' : ' data-ns="' + esc(it.ns) + '"') +
        ' transform="translate(' + it.x + " " + it.y + ')"><title>' + esc(title(it)) + '</title><rect width="' + W + '" height="' + H + '" rx="6"/></g>');
    });
    out.push("</g>");
    // Zoomed out, names are too small to read: the page draws boxes and lines only ("far"), which
    // keeps the first paint of thousands of nodes fast. apply() switches names on when readable.
    svg.classList.add("far");
    svg.classList.toggle("crowded", scene.edges.length > 1500);
    screen = svg.getBoundingClientRect(); // measured while the drawing is empty: no layout cost
    svg.innerHTML = "";
    svg.innerHTML = out.join("");
    gItems = svg.querySelectorAll(".node"); gEdges = svg.querySelectorAll(".edge"); labelled = false;
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    scene.items.forEach(function (it) { x0 = Math.min(x0, it.x); y0 = Math.min(y0, it.y); x1 = Math.max(x1, it.x + W); y1 = Math.max(y1, it.y + H); });
    scene.edges.forEach(function (e) { e.bends.forEach(function (p) { y0 = Math.min(y0, p[1]); y1 = Math.max(y1, p[1] + H); }); });
    bounds = scene.items.length ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : { x: 0, y: 0, w: W, h: H };
  }
  function addLabels() {
    if (labelled) return;
    labelled = true;
    scene.items.forEach(function (it, k) { gItems[k].insertAdjacentHTML("beforeend", labels(it)); });
  }
  function nodeEl(i) { var k = scene.itemOf[i]; return k == null || scene.items[k].i !== i ? null : gItems[k]; }

  // ---------------------------------------------------------------- zoom, pan, fit, centre
  var bounds = { x: 0, y: 0, w: W, h: H }, box = { x: 0, y: 0, w: 1, h: 1 };
  function apply() {
    svg.setAttribute("viewBox", box.x + " " + box.y + " " + box.w + " " + box.h);
    var far = (screen.width || 1) / box.w < 0.35; // a 13px name would be under 5px
    if (!far) addLabels();
    if (far !== svg.classList.contains("far")) svg.classList.toggle("far", far);
  }
  function fit() {
    var pad = 20, r = screen, bw = bounds.w + 2 * pad, bh = bounds.h + 2 * pad;
    var aspect = (r.width || 1) / (r.height || 1);
    if (bw / bh > aspect) bh = bw / aspect; else bw = bh * aspect; // fill the window, centred
    box = { x: bounds.x + bounds.w / 2 - bw / 2, y: bounds.y + bounds.h / 2 - bh / 2, w: bw, h: bh };
    apply();
  }
  // A neighbourhood opens fitted, unless that makes names too small to read: then it opens at
  // the smallest readable zoom, on its seeds.
  function fitReadable() {
    fit();
    var scale = (screen.width || 1) / box.w;
    if (scale >= READABLE || !scene.seeds.length) return;
    var x = 0, y = 0;
    scene.seeds.forEach(function (i) { var it = scene.items[scene.itemOf[i]]; x += it.x + W / 2; y += it.y + H / 2; });
    x /= scene.seeds.length; y /= scene.seeds.length;
    var w = (screen.width || 1) / READABLE, h = w * box.h / box.w;
    box = { x: x - w / 2, y: y - h / 2, w: w, h: h }; apply();
  }
  function zoom(f, cx, cy) {
    if (cx == null) { cx = box.x + box.w / 2; cy = box.y + box.h / 2; }
    box = { x: cx - (cx - box.x) * f, y: cy - (cy - box.y) * f, w: box.w * f, h: box.h * f }; apply();
  }
  function toGraph(ev) { var r = screen; return [box.x + (ev.clientX - r.left) / r.width * box.w, box.y + (ev.clientY - r.top) / r.height * box.h]; }
  function centre(i) {
    var it = scene.items[scene.itemOf[i]], w = Math.min(box.w, Math.max(4 * W, 1400)), h = box.h * w / box.w;
    box = { x: it.x + W / 2 - w / 2, y: it.y + H / 2 - h / 2, w: w, h: h }; apply();
  }
  svg.addEventListener("wheel", function (ev) { ev.preventDefault(); var p = toGraph(ev); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, p[0], p[1]); }, { passive: false });
  var drag = null;
  svg.addEventListener("pointerdown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, v: box, moved: false }; });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var r = screen, dx = (ev.clientX - drag.x) / r.width * box.w, dy = (ev.clientY - drag.y) / r.height * box.h;
    if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) > 3) { drag.moved = true; svg.classList.add("dragging"); }
    if (drag.moved) { box = { x: drag.v.x - dx, y: drag.v.y - dy, w: box.w, h: box.h }; apply(); }
  });
  window.addEventListener("pointerup", function () { setTimeout(function () { drag = null; }, 0); svg.classList.remove("dragging"); });
  window.addEventListener("resize", function () { screen = svg.getBoundingClientRect(); fit(); });
  document.getElementById("fit").onclick = fit;
  document.getElementById("zoom-in").onclick = function () { zoom(1 / 1.3); };
  document.getElementById("zoom-out").onclick = function () { zoom(1.3); };

  // ---------------------------------------------------------------- views
  var viewSelect = document.getElementById("view"), depthInput = document.getElementById("depth");
  var info = document.getElementById("view-info");
  var lastNode = null;
  function key(v) { return v ? v.kind + " " + (v.kind === "ns" ? v.ns : v.kind === "node" ? v.node : "") : ""; }
  function show(v) {
    if (key(v) !== key(view)) opened = {}; // folded namespaces opened belong to one view
    if (v.kind === "node") lastNode = v.node;
    view = v;
    if (v.kind === "whole") draw(whole());
    else draw(neighbourhood(v));
    if (v.kind === "whole" || !scene.seeds.length) fit(); else fitReadable();
    if (v.kind === "node" && !viewSelect.querySelector('option[value="node"]')) {
      var o = document.createElement("option"); o.value = "node"; viewSelect.insertBefore(o, viewSelect.querySelector('option[value="whole"]'));
    }
    var nodeOption = viewSelect.querySelector('option[value="node"]');
    if (nodeOption && v.kind === "node") nodeOption.textContent = "Around " + cut(label(nodes[v.node]), 40);
    viewSelect.value = v.kind === "ns" ? "ns:" + v.ns : v.kind;
    depthInput.disabled = v.kind === "whole";
    describe();
    filter();
    var selected = panel.dataset.node;
    if (selected != null && selected !== "" && nodeEl(Number(selected))) mark(Number(selected));
  }
  function describe() {
    var total = num(nodes.length) + " nodes", h;
    if (view.kind === "whole") h = "The whole graph: " + total + ".";
    else {
      var what = view.kind === "ns" ? "Namespace <b>" + esc(view.ns) + "</b>" :
        view.kind === "node" ? "<b>" + esc(label(nodes[view.node])) + "</b>" :
        view.failed ? "The " + (scene.seeds.length < view.failed ? plural(scene.seeds.length, "latest failure") + " (of " + plural(view.failed, "job") + " whose latest run failed)" : plural(view.failed, "job") + " whose latest run failed") :
        scene.seeds.length ? "No job's latest run failed: the " + plural(scene.seeds.length, "job") + " run last" : "No job has a run";
      h = what + " with " + plural(depth, "step") + " up- and downstream: " + num(scene.reached) + " of " + total +
        (scene.folded ? "; other namespaces folded into " + plural(scene.folded, "box", "boxes") + " (click one to open it)" : "") + ".";
    }
    info.innerHTML = h + (view.kind === "whole" ? "" : ' <a id="show-whole">Show the whole graph</a>');
  }
  viewSelect.addEventListener("change", function () {
    var v = viewSelect.value;
    if (v === "whole") show({ kind: "whole" });
    else if (v === "failures") show({ kind: "failures" });
    else if (v === "node") show({ kind: "node", node: lastNode });
    else show({ kind: "ns", ns: v.slice(3) });
  });
  depthInput.addEventListener("change", function () {
    var d = Math.max(1, Math.min(50, Math.floor(Number(depthInput.value)) || 1));
    depthInput.value = String(d);
    if (d !== depth) { depth = d; if (view.kind !== "whole") show(view); }
  });
  document.getElementById("whole").onclick = function () { show({ kind: "whole" }); };
  info.addEventListener("click", function (ev) { if (ev.target.id === "show-whole") show({ kind: "whole" }); });

  // ---------------------------------------------------------------- selection and panels
  function link(i) { return '<a data-go="' + i + '">' + esc(label(nodes[i])) + "</a>"; }
  function links(list) { return list.length ? list.map(link).join("<br>") : '<span class="sub">none</span>'; }
  function clearMarks() {
    svg.querySelectorAll(".selected,.near,.upstream").forEach(function (el) { el.classList.remove("selected", "near", "upstream"); });
    svg.querySelectorAll(".cols").forEach(function (el) { el.remove(); });
  }
  function mark(i) {
    clearMarks();
    var k = scene.itemOf[i], el = nodeEl(i);
    if (el) el.classList.add("selected");
    scene.edges.forEach(function (e, m) { if (e.a === k || e.b === k) gEdges[m].classList.add("near"); });
  }
  // Select a node: its panel, and the node marked where it is drawn. A node a neighbourhood
  // does not show becomes the centre of a neighbourhood of its own.
  function select(i, recentre) {
    if (!nodeEl(i)) { panel.dataset.node = ""; show({ kind: "node", node: i }); }
    mark(i);
    var n = nodes[i];
    panel.innerHTML = n.kind === "job" ? jobPanel(n) : datasetPanel(n);
    panel.dataset.node = String(i);
    if (recentre) centre(i);
  }
  function jobPanel(n) {
    var h = "<h2>" + esc(n.name) + '</h2><p class="sub">job · ' + esc(n.ns) + '</p><p>Latest run: <b class="state">' + MARK[n.state] + " " + esc(n.state) + "</b></p>";
    h += '<p><button type="button" class="around">Show its neighbourhood</button></p>';
    if (n.parent != null) h += "<h3>Parent job</h3>" + link(n.parent);
    if (n.children.length) h += "<h3>Child jobs</h3>" + links(n.children);
    h += "<h3>Runs (" + num(n.total) + (n.failed ? ", " + num(n.failed) + " failed" : "") + ")</h3>";
    if (n.earlier) {
      var counts = Object.keys(n.earlier[1]).filter(function (s) { return n.earlier[1][s]; }).map(function (s) { return num(n.earlier[1][s]) + " " + s; }).join(", ");
      h += '<p class="sub earlier">' + plural(n.earlier[0], "earlier run") + " (" + esc(when(n.earlier[2]).slice(0, 10)) + " to " + esc(when(n.earlier[3]).slice(0, 10)) + "): " + esc(counts) + ". The latest " + plural(n.runs.length, "run") + " below.</p>";
    }
    h += "<table><tr><th>state</th><th>start</th><th>end</th><th>duration</th></tr>";
    n.runs.slice().reverse().forEach(function (r) {
      h += '<tr class="run ' + esc(r[1]) + '" title="run ' + esc(r[0]) + '"><td>' + MARK[r[1]] + " " + esc(r[1]) + "</td><td>" + esc(when(r[2])) + "</td><td>" + esc(when(r[3])) + "</td><td>" + dur(r[4]) + "</td></tr>";
      if (r[5]) h += '<tr><td colspan="4"><div class="error">' + esc(r[5]) + "</div></td></tr>";
    });
    return h + "</table><h3>Reads</h3>" + links(n["in"]) + "<h3>Writes</h3>" + links(n.out);
  }
  function datasetPanel(n) {
    var h = "<h2>" + esc(n.name) + '</h2><p class="sub">dataset · ' + esc(n.ns) + "<br>" + esc(n.uri) + "</p>";
    h += '<p><button type="button" class="around">Show its neighbourhood</button></p>';
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
        seen[key] = 1; found.push({ node: s[0], uri: s[1], field: s[2], how: s[3], to: cur[1] });
        if (s[0] >= 0) todo.push([s[0], s[2]]);
      });
    }
    return found;
  }
  function chooseColumn(i, field, button) {
    clearMarks();
    var own = nodeEl(i);
    if (own) own.classList.add("selected");
    panel.querySelectorAll("button.col").forEach(function (b) { b.classList.toggle("chosen", b === button); });
    var found = upstream(i, field), per = {};
    found.forEach(function (f) { if (f.node >= 0) { (per[f.node] = per[f.node] || []).push(f.field); } });
    Object.keys(per).forEach(function (k) {
      var g = nodeEl(Number(k));
      if (!g) return; // not drawn in this view: listed in the panel
      g.classList.add("upstream");
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
  // A folded namespace opens where it is: its nodes are drawn one by one from then on.
  function openFold(ns) { opened[ns] = 1; show(view); }
  svg.addEventListener("click", function (ev) {
    if (drag && drag.moved) return;
    var g = ev.target.closest && ev.target.closest(".node");
    if (!g) return;
    if (g.hasAttribute("data-ns")) openFold(g.getAttribute("data-ns"));
    else select(Number(g.getAttribute("data-i")), true);
  });
  panel.addEventListener("click", function (ev) {
    var a = ev.target.closest("[data-go]");
    if (a) { select(Number(a.getAttribute("data-go")), true); return; }
    if (ev.target.closest("button.around")) {
      var i = Number(panel.dataset.node);
      show({ kind: "node", node: i }); mark(i); return;
    }
    var b = ev.target.closest("button.col");
    if (b) chooseColumn(Number(panel.dataset.node), b.getAttribute("data-field"), b);
  });

  // ---------------------------------------------------------------- search and namespaces
  var search = document.getElementById("search"), nsSelect = document.getElementById("namespace");
  var namespaces = {};
  nodes.forEach(function (n) { namespaces[n.ns] = (namespaces[n.ns] || 0) + 1; });
  var group = viewSelect.querySelector("optgroup");
  Object.keys(namespaces).sort().forEach(function (ns) {
    var o = document.createElement("option"); o.value = o.textContent = ns; nsSelect.appendChild(o);
    var p = document.createElement("option"); p.value = "ns:" + ns; p.textContent = ns + " (" + namespaces[ns] + ")"; group.appendChild(p);
  });
  // Dims what is drawn and does not match; returns the first match among all nodes, drawn or not.
  function filter() {
    var q = search.value.trim().toLowerCase(), ns = nsSelect.value, first = -1, shown = {};
    nodes.forEach(function (n, i) { if (first < 0 && q && (!ns || n.ns === ns) && label(n).toLowerCase().indexOf(q) >= 0) first = i; });
    scene.items.forEach(function (it, k) {
      var name = it.i < 0 ? it.ns : label(nodes[it.i]), itemNs = it.i < 0 ? it.ns : nodes[it.i].ns;
      var inNs = !ns || itemNs === ns, hit = !!q && name.toLowerCase().indexOf(q) >= 0;
      gItems[k].classList.toggle("dim", !inNs || (!!q && !hit));
      gItems[k].classList.toggle("match", hit && inNs);
      if (inNs && (!q || hit)) shown[k] = 1;
    });
    scene.edges.forEach(function (e, m) { gEdges[m].classList.toggle("dim", !(shown[e.a] && shown[e.b])); });
    return first;
  }
  search.addEventListener("input", filter);
  search.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    var i = filter();
    if (i < 0) return;
    var drawn = scene.items.filter(function (it) { return it.i >= 0 && !gItems[scene.itemOf[it.i]].classList.contains("dim"); });
    select(nodeEl(i) || !drawn.length ? i : drawn[0].i, true);
  });
  nsSelect.addEventListener("change", filter);

  document.getElementById("title").textContent = D.title;
  var jobCount = nodes.filter(function (n) { return n.kind === "job"; }).length;
  document.getElementById("meta").textContent = num(D.events) + " events · " + plural(jobCount, "job") + " · " + plural(D.runs, "run") + " · " +
    plural(nodes.length - jobCount, "dataset");
  // A history without runs (dataset events only) has no failures nor last runs to start from.
  show(D.start === "whole" || !seedsOf({ kind: "failures" }).length ? { kind: "whole" } : { kind: "failures" });
  window.lineageReport = {
    select: select, fit: fit, chooseColumn: chooseColumn, renderedAt: performance.now(),
    show: show, view: function () { return { kind: view.kind, depth: depth, items: scene.items.length, folded: scene.folded }; }
  };
})();
