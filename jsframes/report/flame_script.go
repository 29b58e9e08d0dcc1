package report

// flameScript draws the flame graph of the HTML pages (an icicle: the
// root on top) from the JSON of Flame.flameJSON, and makes it zoomable
// (click a frame; the breadcrumb or Escape goes back) and searchable. It
// is plain inline JS: no framework, nothing loaded. The fragment
// #zoom=N&search=TEXT (N: a node's preorder index) is applied on load and
// kept up to date, so that a zoomed view can be linked to.
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
var F = D.frames, A = D.nodes, n = A.length / 5;
var frame = new Int32Array(n), val = new Float64Array(n), exe = new Float64Array(n),
  cal = new Float64Array(n), parent = new Int32Array(n), depth = new Int32Array(n);
var kids = new Array(n), maxDepth = 0;
var base = D.diff ? D.base : null;
(function decode() {
  var open = [], left = [];
  for (var i = 0; i < n; i++) {
    frame[i] = A[5 * i]; val[i] = A[5 * i + 1]; exe[i] = A[5 * i + 2]; cal[i] = A[5 * i + 3];
    var c = A[5 * i + 4];
    kids[i] = [];
    if (open.length) {
      var p = open[open.length - 1];
      parent[i] = p; depth[i] = depth[p] + 1; kids[p].push(i);
      left[left.length - 1]--;
      if (depth[i] > maxDepth) maxDepth = depth[i];
    } else {
      parent[i] = -1;
    }
    if (c > 0) { open.push(i); left.push(c); }
    while (open.length && left[left.length - 1] === 0) { open.pop(); left.pop(); }
  }
})();
var KINDS = { r: "all", j: "JS function", o: "JS opcode", n: "native", w: "Wasm function", b: "bucket", x: "frames too small to show" };
function kind(i) { return i === 0 ? "r" : frame[i] === -2 ? "x" : F[frame[i]][0]; }
function name(i) { return i === 0 ? "all" : frame[i] === -2 ? "(other)" : F[frame[i]][1]; }
function where(i) { return frame[i] >= 0 ? F[frame[i]][2] : ""; }
function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }
function human(v) {
  if (v < 1e4) return String(v);
  if (v < 1e6) return (v / 1e3).toFixed(1) + "k";
  if (v < 1e9) return (v / 1e6).toFixed(2) + "M";
  return (v / 1e9).toFixed(2) + "G";
}
function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(1) + "%" : "-"; }
function self(i) { var s = val[i]; for (var k = 0; k < kids[i].length; k++) s -= val[kids[i][k]]; return s; }
function diffColour(i) {
  var b = base[i];
  if (b < 0) return "hsl(0, 70%, 50%)";
  var r = b > 0 ? (val[i] - b) / b : (val[i] > 0 ? 1 : 0);
  if (Math.abs(r) < 0.01) return "hsl(220, 8%, 78%)";
  var t = Math.min(1, Math.abs(r));
  return r > 0 ? "hsl(0, " + Math.round(40 + 40 * t) + "%, " + Math.round(82 - 30 * t) + "%)"
    : "hsl(145, " + Math.round(35 + 35 * t) + "%, " + Math.round(80 - 32 * t) + "%)";
}
var ROW = 18, zoom = 0, query = "", re = null;
var crumbs = document.getElementById("flame-crumbs"), info = document.getElementById("flame-info"),
  input = document.getElementById("flame-search"), found = document.getElementById("flame-found");
function matches(i) { return re !== null && i > 0 && (re.test(name(i)) || (where(i) !== "" && re.test(where(i)))); }
function setQuery(q) {
  query = q;
  re = null;
  if (q !== "") {
    var m = /^\/(.+)\/$/.exec(q);
    try { re = new RegExp(m ? m[1] : q.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"); } catch (e) { re = null; }
  }
}
// matched sums the nodes that match and have no matching ancestor under i.
function matched(i) {
  if (matches(i)) return val[i];
  var s = 0;
  for (var k = 0; k < kids[i].length; k++) s += matched(kids[i][k]);
  return s;
}
function draw() {
  var W = box.clientWidth || 1200, out = [], anc = [];
  for (var a = zoom; a >= 0; a = parent[a]) anc.unshift(a);
  var d0 = anc.length - 1;
  function node(i, x, w, d, cls) {
    var k = kind(i), style = "left:" + x.toFixed(1) + "px;width:" + Math.max(w - 1, 1).toFixed(1) + "px;top:" + (d * ROW) + "px";
    if (base) style += ";background:" + diffColour(i);
    var c = "f k-" + k + cls + (matches(i) ? " m" : "");
    out.push('<div class="' + c + '" data-i="' + i + '" data-kind="' + k + '" data-name="' + esc(name(i)) + '" style="' + style + '">' +
      (w > 28 ? esc(name(i)) : "") + "</div>");
  }
  for (var j = 0; j < d0; j++) node(anc[j], 0, W, j, " anc");
  var deepest = d0;
  (function lay(i, x, w, d) {
    node(i, x, w, d, i === zoom ? " zroot" : "");
    if (d > deepest) deepest = d;
    if (val[i] <= 0) return;
    var cx = x, cs = kids[i];
    for (var k = 0; k < cs.length; k++) {
      var cw = w * val[cs[k]] / val[i];
      if (cw >= 1) lay(cs[k], cx, cw, d + 1);
      cx += cw;
    }
  })(zoom, 0, W, d0);
  box.innerHTML = out.join("");
  box.style.height = ((deepest + 1) * ROW) + "px";
  box.className = re ? "searching" : "";
  var path = [];
  for (var m = 0; m < anc.length; m++) {
    path.push('<a href="#zoom=' + anc[m] + '" data-i="' + anc[m] + '">' + esc(name(anc[m])) + "</a>");
  }
  crumbs.innerHTML = path.join(" › ");
  if (re) {
    var s = matched(zoom);
    found.textContent = "matched: " + pct(s, val[zoom]) + " of this view" + (zoom ? " (" + pct(s, val[0]) + " of all)" : "") + ", " + human(s) + " instructions";
  } else {
    found.textContent = "";
  }
  describe(zoom);
}
function describe(i) {
  var s = "<b>" + esc(name(i)) + "</b>" + (where(i) ? " <span class=\"where\">" + esc(where(i)) + "</span>" : "") +
    " · " + KINDS[kind(i)] + " · " + human(val[i]) + " Wasm instructions, " + pct(val[i], val[0]) + " of all" +
    (zoom && i !== zoom ? ", " + pct(val[i], val[zoom]) + " of this view" : "") + " · self " + human(self(i));
  if (exe[i] > 0) s += " · " + human(exe[i]) + " opcode executions";
  if (cal[i] > 0) s += " · " + human(cal[i]) + " calls";
  if (base) s += base[i] < 0 ? " · not in base" : " · base " + human(base[i]) + " (" + (val[i] >= base[i] ? "+" : "-") + human(Math.abs(val[i] - base[i])) + ")";
  info.innerHTML = s;
}
function fragment() {
  var h = [];
  if (zoom) h.push("zoom=" + zoom);
  if (query) h.push("search=" + encodeURIComponent(query));
  var url = location.pathname + location.search + (h.length ? "#" + h.join("&") : "");
  history.replaceState(null, "", url);
}
function setZoom(i) {
  zoom = i >= 0 && i < n ? i : 0;
  draw();
  fragment();
}
function fromFragment() {
  var h = location.hash.slice(1);
  if (!/(^|&)(zoom|search)=/.test(h)) return false;
  var z = 0, q = "";
  h.split("&").forEach(function (kv) {
    var p = kv.split("=");
    if (p[0] === "zoom") z = parseInt(p[1], 10) || 0;
    if (p[0] === "search") q = decodeURIComponent(p.slice(1).join("="));
  });
  zoom = z >= 0 && z < n ? z : 0;
  setQuery(q);
  input.value = q;
  return true;
}
box.addEventListener("click", function (e) {
  var t = e.target.closest("[data-i]");
  if (t) setZoom(+t.getAttribute("data-i"));
});
box.addEventListener("mouseover", function (e) {
  var t = e.target.closest("[data-i]");
  if (t) describe(+t.getAttribute("data-i"));
});
box.addEventListener("mouseleave", function () { describe(zoom); });
crumbs.addEventListener("click", function (e) {
  var t = e.target.closest("[data-i]");
  if (t) { e.preventDefault(); setZoom(+t.getAttribute("data-i")); }
});
document.getElementById("flame-reset").addEventListener("click", function () {
  input.value = ""; setQuery(""); setZoom(0);
});
input.addEventListener("input", function () { setQuery(input.value); draw(); fragment(); });
document.addEventListener("keydown", function (e) {
  if (e.key === "Escape" && zoom) setZoom(parent[zoom] >= 0 ? parent[zoom] : 0);
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
box.setAttribute("data-nodes", String(n));
box.setAttribute("data-ready", "1");
})();
`
