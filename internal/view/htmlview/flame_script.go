package htmlview

// flameScript draws the flame graph of the HTML pages (an icicle: the
// root on top) from the JSON of Flame.flameJSON, and makes it zoomable
// (click a frame; the breadcrumb or Escape goes back) and searchable. It
// is plain inline JS: no framework, nothing loaded. The fragment
// #zoom=N&search=TEXT&wasm=all (N: a node's preorder index in the tree
// shown) is applied on load and kept up to date, so that a zoomed view can
// be linked to.
//
// The runs of Wasm frames above the first JS frame (the engine's way from
// _start to the interpreter: eight rows of wasm-function[N] in a stripped
// engine's exact profile) are collapsed into one node by default; a click
// on it, or the "every Wasm frame" box, shows them. A diff's page draws
// the base's graph beside new's, from the same tree (the union of both
// runs' paths), zoomed and searched together.
//
// The page sets data-ready on #flame once drawn, and data-render-ms to the
// time decoding and drawing took.
const flameScript = `(function () {
"use strict";
var box = document.getElementById("flame");
var data = document.getElementById("flame-data");
if (!box || !data) return;
var t0 = performance.now();
var D = JSON.parse(data.textContent);
var F = D.frames, FOLDED = D.folded;
// A tree is the graph's nodes in preorder (index 0 the root): frame (an
// index in F; -1 the root, -2 (other), -3 a run of Wasm frames collapsed),
// values, parent and children, and src, the node of the tree as written
// that a node stands for (its heaviest, when it merges several).
function decode() {
  var A = D.nodes, n = A.length / 5, T = tree(n), open = [], left = [];
  var gone = {};
  (D.not_in_new || []).forEach(function (i) { gone[i] = true; });
  for (var i = 0; i < n; i++) {
    T.frame[i] = A[5 * i]; T.val[i] = A[5 * i + 1]; T.exe[i] = A[5 * i + 2]; T.cal[i] = A[5 * i + 3];
    if (T.base) { T.base[i] = D.base[i]; T.gone[i] = gone[i] ? 1 : 0; }
    T.src[i] = i;
    var c = A[5 * i + 4];
    if (open.length) {
      var p = open[open.length - 1];
      T.parent[i] = p; T.kids[p].push(i);
      left[left.length - 1]--;
    } else {
      T.parent[i] = -1;
    }
    if (c > 0) { open.push(i); left.push(c); }
    while (open.length && left[left.length - 1] === 0) { open.pop(); left.pop(); }
  }
  return T;
}
function tree(n) {
  var T = { n: n, frame: new Int32Array(n), val: new Float64Array(n), exe: new Float64Array(n), cal: new Float64Array(n),
    base: D.diff ? new Float64Array(n) : null, gone: D.diff ? new Uint8Array(n) : null,
    parent: new Int32Array(n), kids: new Array(n), src: new Int32Array(n), run: {} };
  for (var i = 0; i < n; i++) T.kids[i] = [];
  return T;
}
var T0 = decode();
function kindIn(T, i) { return i === 0 ? "r" : T.frame[i] === -2 ? "x" : T.frame[i] === -3 ? "w" : F[T.frame[i]][0]; }
// collapse is T0 with each run of Wasm frames above the first JS frame
// (only the root, phases and Wasm frames above them, JS under them) made
// one node: the first screen shows the JS, not the engine's way to it.
// The runs' children merge by frame; T0 itself when there is no run.
function collapse(T) {
  var n = T.n, below = new Uint8Array(n), open = new Uint8Array(n), fold = new Uint8Array(n), any = false, i;
  for (i = n - 1; i > 0; i--) {
    var k = kindIn(T, i);
    if (k === "j" || k === "o" || k === "n" || below[i]) below[T.parent[i]] = 1;
  }
  open[0] = 1;
  for (i = 1; i < n; i++) {
    var p = T.parent[i], kp = kindIn(T, p);
    open[i] = open[p] && (p === 0 || kp === "b" || kp === "w") ? 1 : 0;
    if (kindIn(T, i) === "w" && open[i] && below[i]) { fold[i] = 1; any = true; }
  }
  if (!any) return T;
  var frame = [], val = [], exe = [], cal = [], base = [], gone = [], parent = [], kids = [], src = [], run = {};
  var map0 = new Int32Array(n);
  // The nodes are made in preorder from a stack of what is to be made
  // (its sources, frame and parent), not by recursion: a stack thousands
  // of frames deep would exceed the browser's call stack.
  var todo = [[[0], -1, -1]];
  while (todo.length) {
    var task = todo.pop(), srcs = task[0], fr = task[1], par = task[2];
    var u = frame.length, v = 0, e = 0, c = 0, b = -1, g = 1, best = srcs[0];
    srcs.forEach(function (s) {
      v += T.val[s]; e += T.exe[s]; c += T.cal[s];
      if (T.base) { if (T.base[s] >= 0) b = Math.max(b, 0) + T.base[s]; g = g && T.gone[s]; }
      if (T.val[s] + (T.base ? Math.max(T.base[s], 0) : 0) > T.val[best] + (T.base ? Math.max(T.base[best], 0) : 0)) best = s;
      map0[s] = u;
    });
    frame.push(fr); val.push(v); exe.push(e); cal.push(c); base.push(b); gone.push(g ? 1 : 0);
    parent.push(par); kids.push([]); src.push(best);
    if (par >= 0) kids[par].push(u);
    var groups = {}, order = [], names = [];
    var put = function (key, s) {
      if (!groups[key]) { groups[key] = []; order.push(key); }
      groups[key].push(s);
    };
    // gather groups the children of s by frame; inside a run (inRun), a
    // folded child is part of it: its children are gathered in its
    // place, before the next child of s.
    var gather = function (s0, inRun0) {
      var stack = [[s0, inRun0, 0]];
      while (stack.length) {
        var top = stack[stack.length - 1], s = top[0], inRun = top[1];
        if (top[2] >= T.kids[s].length) { stack.pop(); continue; }
        var ch = T.kids[s][top[2]++];
        if (!fold[ch]) put(T.frame[ch], ch);
        else if (!inRun) put(-3, ch);
        else {
          map0[ch] = u;
          if (names.indexOf(F[T.frame[ch]][1]) < 0) names.push(F[T.frame[ch]][1]);
          stack.push([ch, true, 0]);
        }
      }
    };
    srcs.forEach(function (s) {
      if (fr === -3 && names.indexOf(F[T.frame[s]][1]) < 0) names.push(F[T.frame[s]][1]);
      gather(s, fr === -3);
    });
    if (fr === -3) run[u] = names;
    var sums = {};
    order.forEach(function (key) { sums[key] = groups[key].reduce(function (a, s) { return a + T.val[s]; }, 0); });
    order.sort(function (a, b) { return (a === -2) - (b === -2) || sums[b] - sums[a]; });
    for (var q = order.length - 1; q >= 0; q--) todo.push([groups[order[q]], +order[q], u]);
  }
  var U = tree(frame.length);
  for (i = 0; i < U.n; i++) {
    U.frame[i] = frame[i]; U.val[i] = val[i]; U.exe[i] = exe[i]; U.cal[i] = cal[i]; U.parent[i] = parent[i];
    U.kids[i] = kids[i]; U.src[i] = src[i];
    if (U.base) { U.base[i] = base[i]; U.gone[i] = gone[i]; }
  }
  U.run = run;
  U.map0 = map0;
  return U;
}
var T1 = collapse(T0);
var all = false; // every Wasm frame shown
var T = T1;
var KINDS = { r: "all", j: "JS function", o: "JS opcode", n: "native", w: "Wasm function", b: "bucket", x: "frames too small to show" };
function kind(i) { return kindIn(T, i); }
function isRun(i) { return T.frame[i] === -3; }
function name(i) {
  if (i === 0) return "all";
  if (T.frame[i] === -2) return "(other)";
  if (isRun(i)) {
    var r = T.run[i];
    if (r.length === 1 && r[0] === FOLDED) return r[0];
    return "Wasm: " + (r.length <= 3 ? r.join(" › ") : r[0] + " › " + r[1] + " › … › " + r[r.length - 1]) + (r.length > 1 ? " (" + r.length + " frames)" : "");
  }
  return F[T.frame[i]][1];
}
function where(i) { return T.frame[i] >= 0 ? F[T.frame[i]][2] : ""; }
function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }
function human(v) {
  if (v < 1e4) return String(v);
  if (v < 1e6) return (v / 1e3).toFixed(1) + "k";
  if (v < 1e9) return (v / 1e6).toFixed(2) + "M";
  return (v / 1e9).toFixed(2) + "G";
}
function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(1) + "%" : "-"; }
// Colours of a diff: red more in new, green fewer, grey the same; a stack
// only one run has, dark red (new's only) or dark green (the base's), in
// white, so that it is not read as a large change.
var ONLY_NEW = "hsl(0, 85%, 36%)", ONLY_BASE = "hsl(145, 75%, 26%)";
// The values a graph draws: new's (the only run's), or the base's.
function newVal(i) { return T.val[i]; }
function baseVal(i) { return Math.max(T.base[i], 0); }
function self(i, V) { var s = V(i); for (var k = 0; k < T.kids[i].length; k++) s -= V(T.kids[i][k]); return s; }
function diffColour(i) {
  var b = T.base[i];
  if (b < 0) return ONLY_NEW;
  if (T.gone[i]) return ONLY_BASE;
  var v = T.val[i], r = b > 0 ? (v - b) / b : (v > 0 ? 1 : 0);
  if (Math.abs(r) < 0.01) return "hsl(220, 8%, 78%)";
  var t = Math.min(1, Math.abs(r));
  return r > 0 ? "hsl(0, " + Math.round(40 + 40 * t) + "%, " + Math.round(82 - 22 * t) + "%)"
    : "hsl(145, " + Math.round(35 + 35 * t) + "%, " + Math.round(80 - 24 * t) + "%)";
}
var ROW = 18, zoom = 0, query = "", re = null;
var crumbs = document.getElementById("flame-crumbs"), info = document.getElementById("flame-info"),
  input = document.getElementById("flame-search"), found = document.getElementById("flame-found"),
  toggle = document.getElementById("flame-wasm");
// The graphs: the base's beside new's in a diff, else the one.
var views = [{ box: box, V: newVal }];
var baseBox = document.getElementById("flame-base");
if (D.diff && baseBox) views.unshift({ box: baseBox, V: baseVal });
function matches(i) {
  if (re === null || i === 0) return false;
  if (re.test(name(i)) || (where(i) !== "" && re.test(where(i)))) return true;
  return isRun(i) && T.run[i].some(function (s) { return re.test(s); });
}
function setQuery(q) {
  query = q;
  re = null;
  if (q !== "") {
    var m = /^\/(.+)\/$/.exec(q);
    try { re = new RegExp(m ? m[1] : q.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"); } catch (e) { re = null; }
  }
}
// matched sums the nodes that match and have no matching ancestor under
// i (a walk with a stack of its own, as every walk of the tree here).
function matched(i, V) {
  var s = 0, stack = [i];
  while (stack.length) {
    var n = stack.pop();
    if (matches(n)) { s += V(n); continue; }
    for (var k = 0; k < T.kids[n].length; k++) stack.push(T.kids[n][k]);
  }
  return s;
}
function drawView(view, anc) {
  var b = view.box, V = view.V, W = b.clientWidth || 1200, out = [], d0 = anc.length - 1;
  function node(i, x, w, d, cls) {
    var k = kind(i), style = "left:" + x.toFixed(1) + "px;width:" + Math.max(w - 1, 1).toFixed(1) + "px;top:" + (d * ROW) + "px";
    if (T.base) style += ";background-color:" + diffColour(i) + (T.base[i] < 0 || T.gone[i] ? ";color:#fff" : "");
    var c = "f k-" + k + cls + (isRun(i) ? " run" : "") + (matches(i) ? " m" : "");
    out.push('<div class="' + c + '" data-i="' + i + '" data-o="' + T.src[i] + '" data-kind="' + k + '" data-name="' + esc(name(i)) + '" style="' + style + '">' +
      (w > 28 ? esc(name(i)) : "") + "</div>");
  }
  for (var j = 0; j < d0; j++) node(anc[j], 0, W, j, " anc");
  var deepest = d0;
  if (V(zoom) > 0) {
    var lay = [[zoom, 0, W, d0]]; // nodes to lay out, in preorder
    while (lay.length) {
      var it = lay.pop(), i = it[0], x = it[1], w = it[2], d = it[3];
      node(i, x, w, d, i === zoom ? " zroot" : "");
      if (d > deepest) deepest = d;
      var cx = x, cs = T.kids[i], next = [];
      for (var k = 0; k < cs.length; k++) {
        var cw = w * V(cs[k]) / V(i);
        if (cw >= 1) next.push([cs[k], cx, cw, d + 1]);
        cx += cw;
      }
      for (var q = next.length - 1; q >= 0; q--) lay.push(next[q]);
    }
  } else {
    out.push('<div class="f none zroot" data-i="' + zoom + '" style="left:0;width:' + W + 'px;top:' + (d0 * ROW) + 'px">' +
      esc(name(zoom)) + ": not in this run</div>");
  }
  b.innerHTML = out.join("");
  b.style.height = ((deepest + 1) * ROW) + "px";
  b.className = "flame" + (re ? " searching" : "");
}
function draw() {
  var anc = [];
  for (var a = zoom; a >= 0; a = T.parent[a]) anc.unshift(a);
  views.forEach(function (v) { drawView(v, anc); });
  var path = [];
  for (var m = 0; m < anc.length; m++) {
    path.push('<a href="#zoom=' + anc[m] + '" data-i="' + anc[m] + '">' + esc(name(anc[m])) + "</a>");
  }
  crumbs.innerHTML = path.join(" › ");
  if (re) {
    var s = matched(zoom, newVal);
    found.textContent = "matched: " + pct(s, T.val[zoom]) + " of this view" + (zoom ? " (" + pct(s, T.val[0]) + " of all)" : "") + ", " + human(s) + " instructions";
    if (T.base) {
      var sb = matched(zoom, baseVal);
      found.textContent += (views.length > 1 ? " in new; " : "; base ") + pct(sb, baseVal(zoom)) + (views.length > 1 ? " in base" : "") + ", " + human(sb);
    }
  } else {
    found.textContent = "";
  }
  if (toggle) toggle.checked = all;
  describe(zoom);
}
function describe(i) {
  var s = "<b>" + esc(name(i)) + "</b>" + (where(i) ? " <span class=\"where\">" + esc(where(i)) + "</span>" : "") +
    " · " + (isRun(i) ? "Wasm frames above the JS, collapsed: click to expand" : KINDS[kind(i)]);
  if (T.base && views.length > 1) {
    s += " · new " + (T.gone[i] ? "-, not in new" : human(T.val[i]) + ", " + pct(T.val[i], T.val[0]) + " of all") +
      " · base " + (T.base[i] < 0 ? "-, not in base" : human(T.base[i]) + ", " + pct(T.base[i], baseVal(0)) + " of all");
    if (T.base[i] >= 0 && !T.gone[i]) s += " · change " + (T.val[i] >= T.base[i] ? "+" : "-") + human(Math.abs(T.val[i] - T.base[i])) + " (" + (T.base[i] > 0 ? (T.val[i] >= T.base[i] ? "+" : "") + (100 * (T.val[i] - T.base[i]) / T.base[i]).toFixed(1) + "%" : "new") + ")";
  } else {
    s += " · " + human(T.val[i]) + " Wasm instructions, " + pct(T.val[i], T.val[0]) + " of all" +
      (zoom && i !== zoom ? ", " + pct(T.val[i], T.val[zoom]) + " of this view" : "") + " · self " + human(self(i, newVal));
    if (T.exe[i] > 0) s += " · " + human(T.exe[i]) + " opcode executions";
    if (T.cal[i] > 0) s += " · " + human(T.cal[i]) + " calls";
    if (T.base) s += T.base[i] < 0 ? " · not in base" : " · base " + human(T.base[i]) + " (" + (T.val[i] >= T.base[i] ? "+" : "-") + human(Math.abs(T.val[i] - T.base[i])) + ")";
  }
  if (isRun(i)) s += " · " + esc(T.run[i].join(" › "));
  info.innerHTML = s;
}
function fragment() {
  var h = [];
  if (zoom) h.push("zoom=" + zoom);
  if (query) h.push("search=" + encodeURIComponent(query));
  if (all && T1 !== T0) h.push("wasm=all");
  var url = location.pathname + location.search + (h.length ? "#" + h.join("&") : "");
  history.replaceState(null, "", url);
}
function setZoom(i) {
  zoom = i >= 0 && i < T.n ? i : 0;
  draw();
  fragment();
}
// setAll shows every Wasm frame, or collapses them again; the zoomed node
// stays in view (a collapsed run's place, its parent's).
function setAll(on) {
  if (on === all || T1 === T0) return;
  if (on) {
    zoom = isRun(zoom) ? T1.src[T1.parent[zoom]] : T1.src[zoom];
    T = T0;
  } else {
    zoom = T1.map0[zoom];
    T = T1;
  }
  all = on;
  draw();
  fragment();
}
function fromFragment() {
  var h = location.hash.slice(1);
  if (!/(^|&)(zoom|search|wasm)=/.test(h)) return false;
  var z = 0, q = "", w = false;
  h.split("&").forEach(function (kv) {
    var p = kv.split("=");
    if (p[0] === "zoom") z = parseInt(p[1], 10) || 0;
    if (p[0] === "search") q = decodeURIComponent(p.slice(1).join("="));
    if (p[0] === "wasm") w = p[1] === "all";
  });
  all = w && T1 !== T0;
  T = all ? T0 : T1;
  zoom = z >= 0 && z < T.n ? z : 0;
  setQuery(q);
  input.value = q;
  return true;
}
views.forEach(function (v) {
  v.box.addEventListener("click", function (e) {
    var t = e.target.closest("[data-i]");
    if (!t) return;
    var i = +t.getAttribute("data-i");
    if (isRun(i)) {
      zoom = i;
      setAll(true);
    } else {
      setZoom(i);
    }
  });
  v.box.addEventListener("mouseover", function (e) {
    var t = e.target.closest("[data-i]");
    if (t) describe(+t.getAttribute("data-i"));
  });
  v.box.addEventListener("mouseleave", function () { describe(zoom); });
});
crumbs.addEventListener("click", function (e) {
  var t = e.target.closest("[data-i]");
  if (t) { e.preventDefault(); setZoom(+t.getAttribute("data-i")); }
});
document.getElementById("flame-reset").addEventListener("click", function () {
  input.value = ""; setQuery(""); setZoom(0);
});
if (toggle) {
  if (T1 !== T0) {
    toggle.parentNode.hidden = false;
    document.querySelectorAll(".flame-wasm-note").forEach(function (e) { e.hidden = false; });
  }
  toggle.addEventListener("change", function () { setAll(toggle.checked); });
}
input.addEventListener("input", function () { setQuery(input.value); draw(); fragment(); });
document.addEventListener("keydown", function (e) {
  if (e.key === "Escape" && zoom) setZoom(T.parent[zoom] >= 0 ? T.parent[zoom] : 0);
});
window.addEventListener("hashchange", function () { if (fromFragment()) draw(); });
var resized = 0;
window.addEventListener("resize", function () {
  clearTimeout(resized);
  resized = setTimeout(draw, 100);
});
fromFragment();
draw();
box.setAttribute("data-render-ms", (performance.now() - t0).toFixed(1));
box.setAttribute("data-nodes", String(T.n));
box.setAttribute("data-ready", "1");
})();
`
