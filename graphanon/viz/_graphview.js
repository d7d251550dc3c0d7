// graphanon interactive graph view: one canvas renderer shared by the standalone HTML files
// (graphanon.viz.views.write_view) and the notebook widget (graphanon.viz.views.GraphWidget).
// Written for graphanon; no third-party code. Plain 2-D canvas with batched paths: one path per
// colour for nodes and one per colour for edges, a uniform grid for picking, and edges dropped
// while dragging on large graphs, so 10^5 nodes stay responsive.
//
// Data (built in Python, see graphanon/viz/views/):
//   {title, subtitle, layout: "fixed" | "tree",
//    nodes: {label, x, y, cat, info, step?, parent?, group?}, categories: [{name, color}],
//    edges: {src, dst, cat}, edge_categories: [{name, color, on_select?}],
//    steps?: [caption], collapsed?: [node], note?, label_room?, focus?}
// nodes.group: the selected node's group is ringed; focus: see candidateFocus below.
// State for tests and scripts: root.dataset.nodeCount / .visibleCount / .edgeCount / .rendered,
// root.graphanonView (this object), window.graphanonViews (all views of the page).

function graphanonView(root, data, options) {
  "use strict";
  // compact views (GraphView(compact=True)): arrays arrive as {u8 | u16 | i32 | f32 | f64: base64}, decoded here
  const isTyped = x => x && typeof x === "object" && !Array.isArray(x) && !ArrayBuffer.isView(x);
  const nodes = Object.assign({}, data.nodes), edges = Object.assign({src: [], dst: [], cat: []}, data.edges || {});
  for (const key of ["cat", "x", "y", "group"]) if (isTyped(nodes[key])) nodes[key] = decodeTyped(nodes[key]);
  if (isTyped(nodes.label)) nodes.label = Array.from(decodeTyped(nodes.label), String);
  for (const key of ["src", "dst", "cat"]) if (isTyped(edges[key])) edges[key] = decodeTyped(edges[key]);
  const columns = (nodes.columns || []).map(c => ({name: c.name, per: c.per, values: decodeTyped(c.values)}));
  const lists = (nodes.lists || []).map(l => ({name: l.name, start: decodeTyped(l.start), index: decodeTyped(l.index), labels: l.labels}));
  data = Object.assign({}, data, {nodes, edges});
  const n = nodes.label.length, m = edges.src.length;
  const cats = data.categories || [{name: "node", color: "#4c72b0"}];
  const ecats = data.edge_categories || [{name: "edge", color: "#999999"}];
  const catOf = Int32Array.from(nodes.cat || new Array(n).fill(0));
  const stepOf = nodes.step ? Int32Array.from(nodes.step) : null;
  const parent = nodes.parent ? Int32Array.from(nodes.parent) : null;
  const src = Int32Array.from(edges.src), dst = Int32Array.from(edges.dst);
  const ecat = Int32Array.from(edges.cat || new Array(m).fill(0));
  const onSelectOnly = ecats.map(c => !!c.on_select);
  const px = new Float64Array(n), py = new Float64Array(n);
  const visible = new Uint8Array(n).fill(1);
  const collapsed = new Uint8Array(n);
  (data.collapsed || []).forEach(i => { collapsed[i] = 1; });
  const t0 = performance.now();

  // ----- DOM -----
  root.classList.add("ga-view");
  root.innerHTML = "";
  const css = document.createElement("style");
  css.textContent = `
.ga-view{font:13px system-ui,sans-serif;color:#222;display:flex;flex-direction:column;height:100%;min-height:480px;border:1px solid #ddd;box-sizing:border-box}
.ga-view .ga-top{padding:6px 10px;border-bottom:1px solid #eee}
.ga-view .ga-title{font-weight:600;font-size:15px}
.ga-view .ga-sub{color:#555;font-size:12px}
.ga-view .ga-bar{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin-top:4px}
.ga-view .ga-main{flex:1;display:flex;min-height:0}
.ga-view .ga-canvas-box{flex:1;position:relative;min-width:0}
.ga-view canvas{position:absolute;left:0;top:0;width:100%;height:100%;cursor:grab}
.ga-view .ga-side{width:280px;border-left:1px solid #eee;overflow:auto;padding:6px 10px}
.ga-view .ga-legend div{display:flex;align-items:center;gap:6px;margin:2px 0}
.ga-view .ga-sw{width:12px;height:12px;border-radius:6px;display:inline-block;flex:none}
.ga-view .ga-line{width:16px;height:3px;display:inline-block;flex:none}
.ga-view .ga-detail table{border-collapse:collapse;width:100%}
.ga-view .ga-detail td{border-top:1px solid #f0f0f0;padding:2px 4px;vertical-align:top;word-break:break-word}
.ga-view .ga-detail table{table-layout:fixed}
.ga-view .ga-detail td:first-child{color:#666;width:42%}
.ga-view .ga-tip{position:absolute;pointer-events:none;background:rgba(255,255,240,.95);border:1px solid #bbb;padding:3px 6px;font-size:12px;display:none;max-width:320px;z-index:2}
.ga-view button{font-size:12px}
.ga-view h4{margin:8px 0 4px 0;font-size:13px}
.ga-view .ga-main{position:relative}
.ga-view .ga-focus{position:absolute;left:0;top:0;bottom:0;width:72%;background:#fff;border-right:2px solid #bbb;z-index:3;display:flex;flex-direction:column}
.ga-view .ga-focus .ga-focus-view{flex:1;min-height:0}
.ga-view .ga-focus .ga-view{min-height:0}
.ga-view .ga-focus-close{align-self:flex-end;margin:4px}
.ga-view .ga-bin-records a{font-size:12px;margin-right:2px}`;
  root.appendChild(css);
  const top = el("div", "ga-top", root);
  el("div", "ga-title", top).textContent = data.title || "";
  if (data.subtitle) el("div", "ga-sub", top).textContent = data.subtitle;
  const bar = el("div", "ga-bar", top);
  const search = el("input", "ga-search", bar);
  search.placeholder = "find a node by label";
  const fitBtn = button(bar, "fit", () => { fit(); draw(); });
  fitBtn.className = "ga-fit";
  let stepInput = null, stepCaption = null, current = 0;
  if (stepOf && data.steps) {
    button(bar, "◀", () => setStep(current - 1)).className = "ga-prev";
    stepInput = el("input", "ga-step", bar);
    stepInput.type = "range"; stepInput.min = 0; stepInput.max = data.steps.length - 1;
    stepInput.oninput = () => setStep(+stepInput.value);
    button(bar, "▶", () => setStep(current + 1)).className = "ga-next";
    stepCaption = el("span", "ga-step-caption", bar);
  }
  if (parent) {
    button(bar, "expand all", () => { collapsed.fill(0); relayout(); }).className = "ga-expand-all";
    button(bar, "as published", () => {
      collapsed.fill(0); (data.collapsed || []).forEach(i => { collapsed[i] = 1; }); relayout();
    }).className = "ga-reset";
  }
  const status = el("span", "ga-status", bar);
  const main = el("div", "ga-main", root);
  const box = el("div", "ga-canvas-box", main);
  const canvas = el("canvas", "", box);
  const tip = el("div", "ga-tip", box);
  const side = el("div", "ga-side", main);
  el("h4", "", side).textContent = "Legend";
  const legend = el("div", "ga-legend", side);
  el("h4", "", side).textContent = "Selected";
  const detail = el("div", "ga-detail", side);
  detail.textContent = "click a node";
  if (data.note) { el("h4", "", side).textContent = "Note"; el("div", "ga-note", side).textContent = data.note; }
  const ctx = canvas.getContext("2d");

  // a node's detail rows: nodes.info, or built from the compact columns and lists
  function infoOf(i) {
    if (nodes.info) return nodes.info[i];
    if (!columns.length && !lists.length) return null;
    const out = {};
    for (const c of columns) out[c.name] = c.values[c.per === "group" ? nodes.group[i] : i];
    for (const l of lists) {
      const parts = [];
      for (let p = l.start[i]; p < l.start[i + 1]; p++) parts.push(l.labels[l.index[p]]);
      out[l.name] = parts.join(" ");
    }
    return out;
  }
  function el(tag, cls, parentEl) {
    const e = document.createElement(tag); if (cls) e.className = cls; parentEl.appendChild(e); return e;
  }
  function button(parentEl, text, fn) { const b = el("button", "", parentEl); b.textContent = text; b.onclick = fn; return b; }

  // ----- layout -----
  const kids = parent ? childLists() : null;
  function childLists() {
    const out = Array.from({length: n}, () => []);
    for (let i = 0; i < n; i++) if (parent[i] >= 0) out[parent[i]].push(i);
    return out;
  }
  function treeLayout() {
    // left to right: x = depth, y = row of the visible leaf (a collapsed node is a leaf)
    visible.fill(0);
    let row = 0;
    const stack = [];
    for (let i = 0; i < n; i++) if (parent[i] < 0) stack.push([i, 0, 0]);
    stack.reverse();
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, depth, state] = top;
      if (state === 0) {
        visible[v] = 1; px[v] = depth * 220; top[2] = 1;
        if (!collapsed[v] && kids[v].length) {
          for (let j = kids[v].length - 1; j >= 0; j--) stack.push([kids[v][j], depth + 1, 0]);
          continue;
        }
        py[v] = row++ * 18; stack.pop();
      } else {
        const ks = kids[v];
        py[v] = (py[ks[0]] + py[ks[ks.length - 1]]) / 2; stack.pop();
      }
    }
  }
  let visVersion = 0;  // bumped when visibility changes: the edge layer is drawn again
  function applyVisibility() {
    visVersion++;
    if (parent) treeLayout();
    else {
      px.set(nodes.x); py.set(nodes.y);
      if (stepOf) for (let i = 0; i < n; i++) visible[i] = stepOf[i] <= current ? 1 : 0;
    }
    let c = 0; for (let i = 0; i < n; i++) c += visible[i];
    root.dataset.visibleCount = c;
    buildGrid();
  }

  // ----- picking grid -----
  let gridX0 = 0, gridY0 = 0, cell = 1, gw = 1, gh = 1, gridStart = null, gridItems = null;
  function bounds(onlyVisible) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      if (onlyVisible && !visible[i]) continue;
      if (px[i] < x0) x0 = px[i]; if (px[i] > x1) x1 = px[i];
      if (py[i] < y0) y0 = py[i]; if (py[i] > y1) y1 = py[i];
    }
    if (x0 === Infinity) return [0, 0, 1, 1];
    return [x0, y0, x1, y1];
  }
  function buildGrid() {
    const [x0, y0, x1, y1] = bounds(true);
    const side = Math.max(1, Math.ceil(Math.sqrt(n)));
    cell = Math.max((x1 - x0) / side, (y1 - y0) / side, 1e-9);
    gridX0 = x0; gridY0 = y0;
    gw = Math.floor((x1 - x0) / cell) + 1; gh = Math.floor((y1 - y0) / cell) + 1;
    const counts = new Int32Array(gw * gh + 1);
    const key = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) if (visible[i]) {
      key[i] = Math.floor((px[i] - x0) / cell) * gh + Math.floor((py[i] - y0) / cell);
      counts[key[i] + 1]++;
    }
    for (let c = 1; c < counts.length; c++) counts[c] += counts[c - 1];
    gridStart = counts.slice();
    gridItems = new Int32Array(counts[counts.length - 1]);
    const fillAt = counts.slice();
    for (let i = 0; i < n; i++) if (key[i] >= 0) gridItems[fillAt[key[i]]++] = i;
  }
  function pick(sx, sy) {
    const wx = (sx - tx) / scale, wy = (sy - ty) / scale, r = 9 / scale;
    let best = -1, bestD = r * r;
    const ca = Math.max(0, Math.floor((wx - r - gridX0) / cell)), cb = Math.min(gw - 1, Math.floor((wx + r - gridX0) / cell));
    const ra = Math.max(0, Math.floor((wy - r - gridY0) / cell)), rb = Math.min(gh - 1, Math.floor((wy + r - gridY0) / cell));
    for (let a = ca; a <= cb; a++) for (let b = ra; b <= rb; b++) {
      const g = a * gh + b;
      for (let p = gridStart[g]; p < gridStart[g + 1]; p++) {
        const i = gridItems[p], dx = px[i] - wx, dy = py[i] - wy, d = dx * dx + dy * dy;
        if (d <= bestD) { bestD = d; best = i; }
      }
    }
    return best;
  }

  // ----- view transform and drawing -----
  let scale = 1, tx = 0, ty = 0, W = 0, H = 0, dragging = false, selected = -1, frames = 0;
  let userMoved = false; // panned or zoomed by the user: a resize then keeps their view
  let incStart = null, incList = null; // node -> edge ids (CSR of typed arrays), built on demand
  function edgesOf(v) {
    if (!incStart) {
      incStart = new Int32Array(n + 1);
      for (let e = 0; e < m; e++) { incStart[src[e] + 1]++; if (dst[e] !== src[e]) incStart[dst[e] + 1]++; }
      for (let i = 0; i < n; i++) incStart[i + 1] += incStart[i];
      const fill = incStart.slice(0, n); incList = new Int32Array(incStart[n]);
      for (let e = 0; e < m; e++) { incList[fill[src[e]]++] = e; if (dst[e] !== src[e]) incList[fill[dst[e]]++] = e; }
    }
    return incList.subarray(incStart[v], incStart[v + 1]);
  }
  function resize() {
    const r = box.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    W = Math.max(50, r.width); H = Math.max(50, r.height);
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  function fit() {
    userMoved = false;
    const [x0, y0, x1, y1] = bounds(true), pad = 30;
    const labelRoom = data.label_room !== undefined ? data.label_room : parent ? 160 : 0;
    scale = Math.min((W - 2 * pad - labelRoom) / Math.max(x1 - x0, 1e-9), (H - 2 * pad) / Math.max(y1 - y0, 1e-9));
    if (!isFinite(scale) || scale <= 0) scale = 1;
    if (parent) scale = Math.min(scale, 1.2);
    tx = pad - x0 * scale + (W - 2 * pad - labelRoom - (x1 - x0) * scale) / 2;
    ty = pad - y0 * scale + (H - 2 * pad - (y1 - y0) * scale) / 2;
  }
  function nodeRadius(count) { return count > 20000 ? 1.6 : count > 3000 ? 2.5 : count > 300 ? 4 : 6; }
  // Large graphs: at most EDGE_BUDGET edges with an end on screen are stroked (an even sample,
  // said in the status line; zoom in to see all), nodes beyond 5,000 are written as pixel squares
  // into an image, and while dragging or zooming a snapshot of the last frame is moved instead
  // of redrawing when that frame took more than 30 ms.
  const EDGE_BUDGET = 40000;
  const snap = document.createElement("canvas"), snapCtx = snap.getContext("2d");
  let snapView = null, lastDrawMs = 0;
  const nodeLayer = document.createElement("canvas"), nodeCtx = nodeLayer.getContext("2d");
  const rgba = cats.map(c => {
    const h = c.color.replace("#", ""), v = parseInt(h.length === 3 ? h.replace(/./g, "$&$&") : h, 16);
    return (0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff)) >>> 0;
  });
  function onScreen(i) {
    const x = px[i] * scale + tx, y = py[i] * scale + ty;
    return x >= -10 && y >= -10 && x <= W + 10 && y <= H + 10;
  }
  function edgePath(e, c = ctx) {  // a tree edge is an S-curve from parent to child, others straight
    const x0 = px[src[e]] * scale + tx, y0 = py[src[e]] * scale + ty, x1 = px[dst[e]] * scale + tx, y1 = py[dst[e]] * scale + ty;
    c.moveTo(x0, y0);
    if (parent) { const xm = (x0 + x1) / 2; c.bezierCurveTo(xm, y0, xm, y1, x1, y1); } else c.lineTo(x1, y1);
  }
  function draw() {
    frames++;
    if (dragging && snapView && lastDrawMs > 30) { drawFromSnapshot(); return; }
    const started = performance.now();
    ctx.clearRect(0, 0, W, H);
    const selEdges = selected >= 0 ? new Set(edgesOf(selected)) : null;
    // the edges of every node: drawn once per view (pan, zoom, size, visibility) into a layer of their own, so a
    // click (a selection) redraws only what it changes on top of that layer
    const key = [scale, tx, ty, W, H, canvas.width, visVersion].join(",");
    if (key !== edgeKey) { drawEdgeLayer(); edgeKey = key; }
    ctx.drawImage(edgeLayer, 0, 0, W, H);
    for (let c = 0; c < ecats.length; c++) {  // categories drawn around the selected node only
      if (!onSelectOnly[c] || !selEdges) continue;
      ctx.beginPath();
      let any = false;
      for (const e of selEdges) {
        if (ecat[e] !== c || !visible[src[e]] || !visible[dst[e]]) continue;
        edgePath(e); any = true;
      }
      if (!any) continue;
      ctx.strokeStyle = ecats[c].color; ctx.globalAlpha = 0.95; ctx.lineWidth = 2; ctx.stroke();
    }
    ctx.globalAlpha = 1;
    if (selEdges) {  // the selected node's own edges on top
      ctx.beginPath();
      for (const e of selEdges) {
        if (onSelectOnly[ecat[e]] || !visible[src[e]] || !visible[dst[e]]) continue;
        edgePath(e);
      }
      ctx.strokeStyle = "#222"; ctx.lineWidth = 1.5; ctx.stroke();
    }
    // level of detail by the nodes on screen: zoomed in on a part of a large graph, its nodes are drawn as dots
    let shownCount = 0;
    for (let i = 0; i < n && shownCount <= 20000; i++) if (visible[i] && onScreen(i)) shownCount++;
    const r = nodeRadius(shownCount);
    if (shownCount > 5000) drawNodePixels(r); else drawNodePaths(r, shownCount > 3000);
    // labels where they fit: at most 400 on screen, and only when rows are >= 11 px apart
    drawLabels(r);
    if (selEdges) {  // the selected node's neighbours ringed in the colour of the edge to them
      for (const e of selEdges) {
        const o = src[e] === selected ? dst[e] : src[e];
        if (!visible[o]) continue;
        ctx.beginPath(); ctx.arc(px[o] * scale + tx, py[o] * scale + ty, r + 3, 0, 6.2832);
        ctx.strokeStyle = ecats[ecat[e]].color; ctx.lineWidth = 2; ctx.stroke();
      }
    }
    if (groupMembers.length > 1) {  // the selected record's group (similarity views)
      ctx.beginPath();
      for (const o of groupMembers) {
        if (!visible[o] || o === selected) continue;
        const x = px[o] * scale + tx, y = py[o] * scale + ty; ctx.moveTo(x + r + 2.5, y); ctx.arc(x, y, r + 2.5, 0, 6.2832);
      }
      ctx.strokeStyle = "#111"; ctx.lineWidth = 1.5; ctx.stroke();
    }
    if (selected >= 0 && visible[selected]) {
      const x = px[selected] * scale + tx, y = py[selected] * scale + ty;
      ctx.beginPath(); ctx.arc(x, y, r + 5, 0, 6.2832); ctx.strokeStyle = "#e31a1c"; ctx.lineWidth = 2.5; ctx.stroke();
    }
    lastDrawMs = performance.now() - started;
    if (lastDrawMs > 30) {  // keep this frame to move around while dragging
      snap.width = canvas.width; snap.height = canvas.height;
      snapCtx.drawImage(canvas, 0, 0); snapView = [scale, tx, ty];
    } else snapView = null;
    root.dataset.rendered = String(frames);
    root.dataset.drawMs = lastDrawMs.toFixed(1);
  }
  const edgeLayer = document.createElement("canvas"), edgeCtx = edgeLayer.getContext("2d");
  let edgeKey = "";
  function drawEdgeLayer() {
    // which edges: visible ends, one end on screen, then an even sample down to the budget
    if (edgeLayer.width !== canvas.width || edgeLayer.height !== canvas.height) {
      edgeLayer.width = canvas.width; edgeLayer.height = canvas.height;
    }
    edgeCtx.setTransform(canvas.width / W, 0, 0, canvas.height / H, 0, 0);
    edgeCtx.clearRect(0, 0, W, H);
    let candidates = 0;
    const cand = new Uint8Array(m);
    for (let e = 0; e < m; e++) {
      if (onSelectOnly[ecat[e]] || !visible[src[e]] || !visible[dst[e]]) continue;
      if (!onScreen(src[e]) && !onScreen(dst[e]) && m > 2000) continue;
      cand[e] = 1; candidates++;
    }
    const stride = Math.max(1, Math.ceil(candidates / EDGE_BUDGET));
    let drawn = 0, seen = 0;
    for (let e = 0; e < m; e++) if (cand[e]) { if (seen++ % stride === 0) { cand[e] = 2; drawn++; } }
    root.dataset.edgesDrawn = drawn;
    status.textContent = `${n.toLocaleString()} nodes, ${m.toLocaleString()} edges` +
      (stride > 1 ? ` (drawing ${drawn.toLocaleString()} of the ${candidates.toLocaleString()} on screen: zoom in for all)` : "");
    for (let c = 0; c < ecats.length; c++) {
      if (onSelectOnly[c]) continue;
      edgeCtx.beginPath();
      let any = false;
      for (let e = 0; e < m; e++) {
        if (ecat[e] !== c || cand[e] !== 2) continue;
        edgePath(e, edgeCtx); any = true;
      }
      if (!any) continue;
      edgeCtx.strokeStyle = ecats[c].color;
      edgeCtx.globalAlpha = drawn > 20000 ? 0.25 : 0.7;
      edgeCtx.lineWidth = 1;
      edgeCtx.stroke();
    }
  }
  function drawFromSnapshot() {
    const [s0, tx0, ty0] = snapView, f = scale / s0;
    ctx.clearRect(0, 0, W, H);
    ctx.drawImage(snap, tx - tx0 * f, ty - ty0 * f, W * f, H * f);
    root.dataset.rendered = String(frames);
  }
  function drawNodePaths(r, small) {
    for (let c = 0; c < cats.length; c++) {
      ctx.beginPath();
      for (let i = 0; i < n; i++) {
        if (catOf[i] !== c || !visible[i] || !onScreen(i)) continue;
        const x = px[i] * scale + tx, y = py[i] * scale + ty;
        if (small) ctx.rect(x - r, y - r, 2 * r, 2 * r);
        else { ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 6.2832); }
      }
      ctx.fillStyle = cats[c].color; ctx.fill();
      if (cats[c].cross) {  // e.g. suppressed: a cross over the dot, never under a label
        ctx.beginPath();
        for (let i = 0; i < n; i++) {
          if (catOf[i] !== c || !visible[i]) continue;
          const x = px[i] * scale + tx, y = py[i] * scale + ty;
          ctx.moveTo(x - r - 2, y - r - 2); ctx.lineTo(x + r + 2, y + r + 2);
          ctx.moveTo(x - r - 2, y + r + 2); ctx.lineTo(x + r + 2, y - r - 2);
        }
        ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5; ctx.stroke();
      }
    }
    if (parent) {  // collapsed nodes with hidden children: a ring
      ctx.beginPath();
      for (let i = 0; i < n; i++) if (visible[i] && collapsed[i] && kids[i].length) {
        const x = px[i] * scale + tx, y = py[i] * scale + ty; ctx.moveTo(x + r + 3, y); ctx.arc(x, y, r + 3, 0, 6.2832);
      }
      ctx.strokeStyle = "#555"; ctx.lineWidth = 1; ctx.stroke();
    }
  }
  function drawNodePixels(r) {  // many nodes: squares written straight into an image
    const dpr = canvas.width / W, w = canvas.width, h = canvas.height;
    if (nodeLayer.width !== w || nodeLayer.height !== h) { nodeLayer.width = w; nodeLayer.height = h; }
    const img = nodeCtx.createImageData(w, h), buf = new Uint32Array(img.data.buffer);
    const side = Math.max(2, Math.round(2 * r * dpr)), half = side >> 1;
    for (let i = 0; i < n; i++) {
      if (!visible[i]) continue;
      const x0 = Math.round((px[i] * scale + tx) * dpr) - half, y0 = Math.round((py[i] * scale + ty) * dpr) - half;
      if (x0 + side < 0 || y0 + side < 0 || x0 >= w || y0 >= h) continue;
      const colour = rgba[catOf[i]];
      for (let y = Math.max(0, y0); y < Math.min(h, y0 + side); y++) buf.fill(colour, y * w + Math.max(0, x0), y * w + Math.min(w, x0 + side));
    }
    nodeCtx.putImageData(img, 0, 0);
    ctx.drawImage(nodeLayer, 0, 0, W, H);
  }
  function drawLabels(r) {
    const shown = [];
    for (let i = 0; i < n && shown.length <= 400; i++) {
      if (!visible[i]) continue;
      const x = px[i] * scale + tx, y = py[i] * scale + ty;
      if (x >= 0 && y >= 0 && x <= W && y <= H) shown.push(i);
    }
    if (shown.length > 400) return;
    ctx.font = "11px system-ui,sans-serif"; ctx.fillStyle = "#222"; ctx.textBaseline = "middle";
    // screen boxes already used, the shown nodes' dots first: a label never covers a dot or another label;
    // one too long for its room is cut (with an ellipsis) to the room, and skipped if under 4 characters remain
    const taken = shown.map(i => { const x = px[i] * scale + tx, y = py[i] * scale + ty; return [x - r, y - r, x + r, y + r]; });
    const hits = bx => taken.some(b => bx[0] < b[2] && b[0] < bx[2] && bx[1] < b[3] && b[1] < bx[3]);
    labelBoxes = [];
    for (const i of shown) {
      const full = String(nodes.label[i]);
      const x = px[i] * scale + tx + r + 3, y = py[i] * scale + ty;
      const fits = t => { const w = ctx.measureText(t).width; return x + w <= W && !hits([x, y - 6, x + w, y + 6]); };
      let text = full;
      if (!fits(text)) {
        let lo = 3, hi = full.length - 1;  // the longest prefix (plus an ellipsis) that fits
        while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (fits(full.slice(0, mid) + "\u2026")) lo = mid; else hi = mid - 1; }
        text = full.slice(0, lo) + "\u2026";
        if (lo <= 3 || !fits(text)) continue;
      }
      const bx = [x, y - 6, x + ctx.measureText(text).width, y + 6];
      taken.push(bx); labelBoxes.push({node: i, text, box: bx}); ctx.fillText(text, x, y);
    }
  }
  let labelBoxes = [];  // the labels drawn last (node, text, screen box), for tests and the widget
  let pending = false;
  function redraw(full) { if (full) edgeKey = ""; if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; draw(); }); } }

  // ----- interaction -----
  let down = null, moved = false;
  canvas.addEventListener("mousedown", ev => { down = [ev.offsetX, ev.offsetY, tx, ty]; moved = false; });
  window.addEventListener("mouseup", ev => {
    if (!down) return;
    const wasDrag = moved; down = null;
    if (dragging) { dragging = false; redraw(); }
    if (!wasDrag && ev.target === canvas) select(pick(ev.offsetX, ev.offsetY));
  });
  canvas.addEventListener("mousemove", ev => {
    if (down) {
      const dx = ev.offsetX - down[0], dy = ev.offsetY - down[1];
      if (Math.abs(dx) + Math.abs(dy) > 3) { moved = true; dragging = true; }
      if (moved) { tx = down[2] + dx; ty = down[3] + dy; userMoved = true; redraw(); }
      return;
    }
    const i = pick(ev.offsetX, ev.offsetY);
    if (i < 0) { tip.style.display = "none"; return; }
    tip.style.display = "block"; tip.style.left = (ev.offsetX + 12) + "px"; tip.style.top = (ev.offsetY + 12) + "px";
    tip.innerHTML = "";
    el("b", "", tip).textContent = String(nodes.label[i]);
    const info = infoOf(i);
    if (info) for (const k of Object.keys(info).slice(0, 6)) el("div", "", tip).textContent = k + ": " + info[k];
  });
  canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  canvas.addEventListener("dblclick", ev => { const i = pick(ev.offsetX, ev.offsetY); if (i >= 0) toggle(i); });
  canvas.addEventListener("wheel", ev => {
    ev.preventDefault();
    const f = Math.exp(-ev.deltaY * 0.0015);
    tx = ev.offsetX - (ev.offsetX - tx) * f; ty = ev.offsetY - (ev.offsetY - ty) * f; scale *= f;
    dragging = true; userMoved = true; redraw();
    clearTimeout(canvas._wheelEnd); canvas._wheelEnd = setTimeout(() => { dragging = false; redraw(); }, 150);
  }, {passive: false});
  search.addEventListener("change", () => {
    const q = search.value.trim();
    if (!q) return;
    let i = nodes.label.findIndex(l => String(l) === q);
    if (focus && focus.search(q)) return;
    if (i < 0) i = nodes.label.findIndex(l => String(l).toLowerCase().includes(q.toLowerCase()));
    if (i < 0) { status.textContent = "no node " + JSON.stringify(q); return; }
    if (parent) { for (let p = parent[i]; p >= 0; p = parent[p]) collapsed[p] = 0; relayout(false); }
    if (stepOf && stepOf[i] > current) setStep(stepOf[i]);
    select(i); scale = Math.max(scale, 1); tx = W / 2 - px[i] * scale; ty = H / 2 - py[i] * scale;
    userMoved = true; redraw();
  });
  // a notebook lays the widget out after its first frame (and resizes it with the panel):
  // until the user pans or zooms, every resize fits the graph to the new size again
  const onResize = () => { resize(); if (!userMoved) fit(); redraw(); };
  window.addEventListener("resize", onResize);

  function toggle(i) {  // expanding opens one level: the children start collapsed
    if (!parent || !kids[i].length) return;
    if (collapsed[i]) { collapsed[i] = 0; for (const c of kids[i]) if (kids[c].length) collapsed[c] = 1; }
    else collapsed[i] = 1;
    relayout(false); select(i);
  }
  function relayout(refit = true) { applyVisibility(); if (refit) fit(); redraw(); }
  function setStep(s) {
    current = Math.max(0, Math.min(data.steps.length - 1, s));
    stepInput.value = current; stepCaption.textContent = `step ${current} of ${data.steps.length - 1}: ${data.steps[current]}`;
    root.dataset.step = current;
    applyVisibility(); redraw();
  }
  let groupMembers = [];
  function select(i) {
    selected = i; root.dataset.selected = i;
    groupMembers = [];
    if (i >= 0 && nodes.group) for (let o = 0; o < n; o++) if (nodes.group[o] === nodes.group[i]) groupMembers.push(o);
    root.dataset.groupRinged = groupMembers.length;
    redraw();
    detail.innerHTML = "";
    if (i < 0) { detail.textContent = "click a node"; return; }
    el("div", "ga-detail-label", detail).innerHTML = "<b></b>";
    detail.firstChild.firstChild.textContent = String(nodes.label[i]);
    const table = el("table", "", detail);
    const row = (k, v) => { const tr = el("tr", "", table); el("td", "", tr).textContent = k; el("td", "", tr).textContent = v; };
    row("kind", cats[catOf[i]].name);
    const info = infoOf(i);
    if (info) for (const k of Object.keys(info)) row(k, String(info[k]));
    const byCat = new Map();
    for (const e of edgesOf(i)) {
      const other = src[e] === i ? dst[e] : src[e];
      const name = ecats[ecat[e]].name;
      if (!byCat.has(name)) byCat.set(name, []);
      byCat.get(name).push(String(nodes.label[other]));
    }
    for (const [name, list] of byCat) row(name + " (" + list.length + ")", list.slice(0, 60).join(", ") + (list.length > 60 ? ", …" : ""));
    if (parent && kids[i].length) button(detail, collapsed[i] ? "expand" : "collapse", () => toggle(i)).className = "ga-toggle";
    if (focus) focus.onSelect(i);
  }

  // ----- legend -----
  const catCount = new Int32Array(cats.length); for (let i = 0; i < n; i++) catCount[catOf[i]]++;
  cats.forEach((c, j) => {
    const row = el("div", "", legend); const sw = el("span", "ga-sw", row); sw.style.background = c.color;
    if (c.cross) sw.textContent = "×";
    el("span", "", row).textContent = `${c.name} (${catCount[j]})`;
  });
  const ecatCount = new Int32Array(ecats.length); for (let e = 0; e < m; e++) ecatCount[ecat[e]]++;
  ecats.forEach((c, j) => {
    if (!ecatCount[j]) return;
    const row = el("div", "", legend); const sw = el("span", "ga-line", row); sw.style.background = c.color;
    el("span", "", row).textContent = `${c.name} (${ecatCount[j]})${c.on_select ? " — of the selected node" : ""}`;
  });

  // ----- detail on demand (overviews): data.focus -----
  // {kind: "candidates", n, k, ring, order, bins, ids: {i32} | {text}, succ?, chosen?, chosen_name?, chosen_note?}: bins along the
  // cyclic order are the drawn nodes; a record's candidate rows are computed here on demand.
  // {kind: "blocks", ...}: COAT's constraint blocks; a block's constraints and their items drawn on click (blockFocus).
  // {kind: "classes", ...}: the relational classes of a relational release; a class's rows and cut on click (classFocus).
  const focusKinds = {candidates: candidateFocus, blocks: blockFocus, classes: classFocus};
  const focus = data.focus ? focusKinds[data.focus.kind](data.focus) : null;
  function decode(b64) {
    const s = atob(b64), u = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return new Int32Array(u.buffer);
  }
  // {u8 | i8 | u16 | i16 | u24 | i32 | f32 | f64: base64}: a typed array of that type (u24: 3 bytes each);
  // {d: typed}: the running sum of the differences; {runs: typed, lengths: typed}: each value repeated;
  // {counts: typed}: 0, 1, .. each repeated its count (sorted numbers);
  // {q16: base64, lo, step}: 16-bit steps from lo (views/core.py: _typed, _packed)
  function decodeTyped(x) {
    if (x.d) { const d = decodeTyped(x.d), out = new Int32Array(d.length); let a = 0; for (let i = 0; i < d.length; i++) out[i] = a += d[i]; return out; }
    if (x.counts) {
      const c = decodeTyped(x.counts); let total = 0; for (const k of c) total += k;
      const out = new Int32Array(total); let p = 0; for (let v = 0; v < c.length; v++) { out.fill(v, p, p + c[v]); p += c[v]; }
      return out;
    }
    if (x.runs) {
      const v = decodeTyped(x.runs), len = decodeTyped(x.lengths); let total = 0; for (const l of len) total += l;
      const out = new Int32Array(total); let p = 0; for (let r = 0; r < v.length; r++) { out.fill(v[r], p, p + len[r]); p += len[r]; }
      return out;
    }
    if (x.q16 !== undefined) { const q = bytes(x.q16), v = new Uint16Array(q.buffer), out = new Float64Array(v.length); for (let i = 0; i < v.length; i++) out[i] = x.lo + v[i] * x.step; return out; }
    const key = Object.keys(x)[0], u = bytes(x[key]);
    if (key === "u24") { const out = new Int32Array(u.length / 3); for (let i = 0; i < out.length; i++) out[i] = u[3 * i] | (u[3 * i + 1] << 8) | (u[3 * i + 2] << 16); return out; }
    const types = {u8: Uint8Array, i8: Int8Array, u16: Uint16Array, i16: Int16Array, i32: Int32Array, f32: Float32Array, f64: Float64Array};
    return new types[key](u.buffer);
  }
  function bytes(b64) { const s = atob(b64), u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return u; }
  function decodeNarrow(x) {  // {u8 | u16 | i32: base64}: whole numbers in the narrowest type that holds them
    if (typeof x === "string") return decode(x);
    const key = Object.keys(x)[0], s = atob(x[key]), u = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return key === "u8" ? u : key === "u16" ? new Uint16Array(u.buffer) : new Int32Array(u.buffer);
  }
  // the detail panel over the overview: a small graph of its own (same renderer), with a close button
  let focusPanel = null;
  function openFocus(graph, started, mark) {
    if (!focusPanel) focusPanel = el("div", "ga-focus", main);
    focusPanel.style.display = "flex";
    focusPanel.innerHTML = "";
    button(focusPanel, "close", () => {
      focusPanel.style.display = "none"; delete root.dataset.focusRecord; delete root.dataset.focusNode;
    }).className = "ga-focus-close";
    const holder = el("div", "ga-focus-view", focusPanel);
    const inner = graphanonView(holder, graph, {register: false});
    Object.assign(root.dataset, mark);
    root.dataset.focusMs = (performance.now() - started).toFixed(1);
    return inner;
  }
  function detailRow(k, v) {
    const table = detail.querySelector("table");
    const tr = el("tr", "", table); el("td", "", tr).textContent = k; el("td", "", tr).textContent = v;
  }
  function columnY(count, total) { return q => (q + (total - count) / 2) * 30; }  // rows 30 px apart, centred
  function blockFocus(f) {
    // constraints: flat item indices (cflat) with lengths (clen); per block its constraints (bstart/blist)
    const cflat = decode(f.flat), clen = decode(f.lengths), bstart = decode(f.block_start), blist = decode(f.block_list);
    const cstart = new Int32Array(clen.length + 1); for (let c = 0; c < clen.length; c++) cstart[c + 1] = cstart[c] + clen[c];
    const shown = f.shown, anchors = decode(f.anchors);
    return {
      search() { return false; },
      onSelect(i) {
        const b = i - f.first_block;
        if (b < 0 || b >= bstart.length - 1) return;
        const t = performance.now();
        const cons = Array.from(blist.subarray(bstart[b], Math.min(bstart[b + 1], bstart[b] + shown)));
        const itemNode = new Map(), label = [], x = [], y = [], cat = [], info = [], es = [], ed = [];
        const order = [];
        for (const c of cons) for (let p = cstart[c]; p < cstart[c + 1]; p++) if (!itemNode.has(cflat[p])) { itemNode.set(cflat[p], -1); order.push(cflat[p]); }
        const cy = columnY(cons.length, Math.max(cons.length, order.length)), iy = columnY(order.length, Math.max(cons.length, order.length));
        cons.forEach((c, q) => {
          const its = Array.from(cflat.subarray(cstart[c], cstart[c + 1])).map(j => String(nodes.label[j]));
          label.push(`constraint ${c + 1}`); x.push(0); y.push(cy(q)); cat.push(0); info.push({items: its.join(", ")});
        });
        order.forEach((j, q) => {
          itemNode.set(j, label.length);
          label.push(String(nodes.label[j])); x.push(320); y.push(iy(q)); cat.push(j === anchors[b] ? 2 : 1);
          info.push(infoOf(j) || {});
        });
        cons.forEach((c, q) => { for (let p = cstart[c]; p < cstart[c + 1]; p++) { es.push(q); ed.push(itemNode.get(cflat[p])); } });
        const total = bstart[b + 1] - bstart[b];
        detailRow("drawn", `${cons.length} of its ${total} constraints and their ${order.length} items`);
        openFocus({
          title: `block "${nodes.label[i]}": ${cons.length === total ? "its" : `${cons.length} of its`} ${total} privacy constraint${total === 1 ? "" : "s"} and their items`,
          subtitle: "A privacy constraint: an itemset COAT must make appear 0 or at least k times. Click a constraint or an item for its detail.",
          nodes: {label, x, y, cat, info},
          categories: [{name: "privacy constraint", color: "#dd8452"}, {name: "item", color: "#4c72b0"}, {name: "the block's rarest item", color: "#e31a1c"}],
          edges: {src: es, dst: ed, cat: new Array(es.length).fill(0)},
          edge_categories: [{name: "item of the constraint", color: "#999999"}], label_room: 160}, t, {focusNode: String(i)});
      },
    };
  }
  function classFocus(f) {
    // per class: published item counts (cstart/citem/ccount), distinct published item sets (sstart per class;
    // per set: its rows (srows) and items (slen/iflat)); records only with the private link (rstart/rlist/ridText)
    const cstart = decode(f.class_start), citem = decodeNarrow(f.class_item), ccount = decodeNarrow(f.class_count);
    const sstart = decode(f.set_start), srows = decodeNarrow(f.set_rows), slen = decodeNarrow(f.set_lengths);
    const iflat = decodeNarrow(f.set_items), ipos = new Int32Array(slen.length + 1);
    for (let s = 0; s < slen.length; s++) ipos[s + 1] = ipos[s] + slen[s];
    const itemLabels = f.items.split("\n"), itemMembers = f.members.split("\n");
    const rstart = f.record_start ? decode(f.record_start) : null, rlist = f.record_list ? decode(f.record_list) : null;
    const ridText = f.record_ids ? f.record_ids.split("\n") : null;
    return {
      search() { return false; },
      onSelect(i) {
        if (i < 0 || i >= cstart.length - 1) return;
        const t = performance.now();
        const size = infoOf(i).rows;
        const items = [];
        for (let p = cstart[i]; p < cstart[i + 1]; p++) items.push([citem[p], ccount[p]]);
        items.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
        detailRow(`published items (${items.length})`, items.slice(0, 60).map(([g, c]) => `${itemLabels[g]} (${c})`).join(", ") + (items.length > 60 ? ", …" : ""));
        const nsets = sstart[i + 1] - sstart[i];
        detailRow("distinct published item sets", String(f.set_total[i]) + (f.set_total[i] > nsets ? ` (the ${nsets} most frequent drawn)` : ""));
        if (rstart) {
          const recs = Array.from(rlist.subarray(rstart[i], rstart[i + 1])).map(r => ridText[r]);
          detailRow(`${f.record_name} (${recs.length})`, recs.slice(0, 200).join(", ") + (recs.length > 200 ? ", …" : ""));
        }
        // the small graph: the class's distinct item sets (rows sharing one) on the left, its published items on the right
        const drawnItems = items.slice(0, f.max_items), itemNode = new Map();
        const label = [], x = [], y = [], cat = [], info = [], es = [], ed = [];
        const tall = Math.max(nsets, drawnItems.length), sy = columnY(nsets, tall), iy = columnY(drawnItems.length, tall);
        for (let s = sstart[i], q = 0; s < sstart[i + 1]; s++, q++) {
          const its = Array.from(iflat.subarray(ipos[s], ipos[s + 1])).map(g => itemLabels[g]);
          label.push(`${srows[s]} row${srows[s] === 1 ? "" : "s"}: ${its.length ? its.join(" ") : "(no item)"}`);
          x.push(0); y.push(sy(q)); cat.push(its.length ? 0 : 1); info.push({rows: srows[s], items: its.length});
        }
        drawnItems.forEach(([g, c], q) => {
          itemNode.set(g, label.length);
          label.push(`${itemLabels[g]} (${c} of ${size})`); x.push(420); y.push(iy(q)); cat.push(2);
          info.push({"rows holding it": c, "stands for": itemMembers[g]});
        });
        for (let s = sstart[i], q = 0; s < sstart[i + 1]; s++, q++) {
          for (let p = ipos[s]; p < ipos[s + 1]; p++) if (itemNode.has(iflat[p])) { es.push(q); ed.push(itemNode.get(iflat[p])); }
        }
        openFocus({
          title: `class ${nodes.label[i]}: ${size} rows, ${items.length} published items`,
          subtitle: (rstart ? f.record_note + " " : "") + "Left: the rows, grouped by their published item set; right: the items the class publishes (its cut), with their counts in the class.",
          nodes: {label, x, y, cat, info},
          categories: [{name: "rows with one published item set", color: "#4c72b0"}, {name: "rows publishing no item", color: "#bbbbbb"},
                       {name: "published item", color: "#dd8452"}],
          edges: {src: es, dst: ed, cat: new Array(es.length).fill(0)},
          edge_categories: [{name: "item of the set", color: "#999999"}], label_room: 220}, t, {focusNode: String(i)});
      },
    };
  }
  function candidateFocus(f) {
    const N = f.n, K = f.k, order = decode(f.order), start = decode(f.bins);
    const succ = f.succ ? decode(f.succ) : null, chosen = f.chosen ? decode(f.chosen) : null;
    const pos = new Int32Array(N); for (let p = 0; p < N; p++) pos[order[p]] = p;
    const idNum = f.ids.i32 ? decode(f.ids.i32) : null, idText = f.ids.text !== undefined ? f.ids.text.split("\n") : null;
    const idOf = r => idNum ? String(idNum[r]) : idText[r];
    let byId = null, preStart = null, preList = null;
    function successors(r) {
      const out = [];
      for (let t = 0; t < K; t++) out.push(succ ? succ[r * K + t] : order[(pos[r] + t) % N]);
      return out;
    }
    function preimages(j) {
      if (!succ) { const out = []; for (let t = K - 1; t >= 0; t--) out.push(order[(pos[j] - t + N) % N]); return out; }
      if (!preStart) {  // the inverse lists, once
        preStart = new Int32Array(N + 1); for (let e = 0; e < N * K; e++) preStart[succ[e] + 1]++;
        for (let j2 = 0; j2 < N; j2++) preStart[j2 + 1] += preStart[j2];
        const fill = preStart.slice(0, N); preList = new Int32Array(N * K);
        for (let e = 0; e < N * K; e++) preList[fill[succ[e]]++] = Math.floor(e / K);
      }
      return Array.from(preList.subarray(preStart[j], preStart[j + 1]));
    }
    function binOf(r) {  // the bin holding position pos[r]: binary search on the bin starts
      let a = 0, b = start.length - 2; const p = pos[r];
      while (a < b) { const c = (a + b + 1) >> 1; if (start[c] <= p) a = c; else b = c - 1; }
      return a;
    }
    function show(r) {
      const t = performance.now();
      select(binOf(r));
      const rows = successors(r), others = [];
      const seen = new Set([r]);
      for (const j of rows) for (const o of preimages(j)) if (!seen.has(o)) { seen.add(o); others.push(o); }
      others.sort((a, b) => ((pos[a] - pos[r] + N) % N) - ((pos[b] - pos[r] + N) % N));
      const table = detail.querySelector("table");
      const row = (k, v) => { const tr = el("tr", "", table); el("td", "", tr).textContent = k; el("td", "", tr).textContent = v; };
      row("record", idOf(r));
      row("position in the order", String(pos[r]));
      row(`candidate (may be published as) (${rows.length})`, rows.map(j => "published " + idOf(j)).join(", "));
      row(`other records these rows may stand for (${others.length})`, others.map(idOf).join(", "));
      if (chosen) row(f.chosen_name, "published " + idOf(chosen[r]));
      // the small graph: the record and the other records on the left, the candidate rows on the right
      const recs = [r, ...others], label = [], x = [], y = [], cat = [], info = [], es = [], ed = [], ec = [];
      recs.forEach((o, q) => {
        label.push("record " + idOf(o)); x.push(0); y.push(q * 34); cat.push(o === r ? 0 : 1);
        info.push({"position in the order": pos[o], "candidates": successors(o).map(j => idOf(j)).join(", ")});
      });
      const rowIndex = new Map();
      rows.forEach((j, q) => {
        rowIndex.set(j, recs.length + q);
        label.push("published " + idOf(j)); x.push(300); y.push((q + (recs.length - rows.length) / 2) * 34); cat.push(2);
        info.push({"may stand for": preimages(j).map(idOf).join(", ")});
      });
      recs.forEach((o, q) => successors(o).forEach(j => {
        if (rowIndex.has(j)) { es.push(q); ed.push(rowIndex.get(j)); ec.push(o === r ? 0 : 1); }
      }));
      const ecats = [{name: "candidate of the record", color: "#4c72b0"}, {name: "candidate of another record", color: "#bbbbbb"}];
      if (chosen) {
        const j = chosen[r];
        es.push(0); ed.push(rowIndex.get(j)); ec.push(2);
        ecats.push({name: f.chosen_name, color: "#e31a1c"});
      }
      openFocus({
        title: `record ${idOf(r)}: its ${rows.length} candidate rows and the ${others.length} other records they may stand for`,
        subtitle: chosen ? f.chosen_note : "Without the private link every candidate row is equally likely.",
        nodes: {label, x, y, cat, info},
        categories: [{name: "the record", color: "#e31a1c"}, {name: "other record", color: "#4c72b0"}, {name: "candidate row", color: "#dd8452"}],
        edges: {src: es, dst: ed, cat: ec}, edge_categories: ecats, label_room: 150}, t, {focusRecord: String(r)});
      return true;
    }
    return {
      show, idOf, binOf,
      search(q) {
        if (!byId) { byId = new Map(); for (let r = 0; r < N; r++) byId.set(idOf(r), r); }
        const r = byId.get(q.replace(/^(record|published)\s+/, ""));
        return r === undefined ? false : show(r);
      },
      onSelect(b) {  // a bin: its records, each a link to its detail
        const list = el("div", "ga-bin-records", detail);
        el("h4", "", list).textContent = `records of this bin (${start[b + 1] - start[b]})`;
        for (let p = start[b]; p < start[b + 1]; p++) {
          const a = el("a", "ga-record", list); a.href = "#"; a.textContent = idOf(order[p]); a.dataset.record = order[p];
          a.onclick = ev => { ev.preventDefault(); show(order[p]); };
          list.appendChild(document.createTextNode(" "));
        }
      },
    };
  }

  // ----- start -----
  root.dataset.nodeCount = n; root.dataset.edgeCount = m;
  resize();
  if (stepOf && data.steps) setStep(data.steps.length - 1); else applyVisibility();
  fit(); draw();
  root.dataset.loadMs = (performance.now() - t0).toFixed(1);
  const api = {root, data, select, pick: (x, y) => pick(x, y), toggle, setStep, redraw,
    screenPosition: i => [px[i] * scale + tx, py[i] * scale + ty], isVisible: i => !!visible[i],
    drawnLabels: () => labelBoxes.map(l => ({node: l.node, text: l.text, box: l.box.slice()})),
    get selected() { return selected; }, get frames() { return frames; }};
  if (focus) api.focus = focus;
  if (typeof window !== "undefined" && !(options && options.register === false)) (window.graphanonViews = window.graphanonViews || []).push(api);
  root.graphanonView = api;
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(onResize).observe(box);
  return api;
}
