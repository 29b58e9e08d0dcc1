// Calls that naming's CallName names from the caller's bytecode: natives
// and JS functions reached through name paths, nested calls in arguments,
// calls in branches and loops, and callees no name path gives. Javy.IO
// and ShopifyFunction are stubbed where the engine has none.
if (typeof Javy === "undefined") globalThis.Javy = { IO: { readSync: (fd, buf) => 0 } };
if (typeof ShopifyFunction === "undefined") {
  globalThis.ShopifyFunction = { readInput: () => ({ v: 2 }), writeOutput: (o) => undefined };
}
const obj = { a: { b: { method(x, y, z) { return x + y + z; } } } };
const g = { h(x) { return x * 3; } };
function f(x) { return x * 2; }
function fn() { return 1; }
function readAll() {
  const buf = new Uint8Array(16);
  const n = Javy.IO.readSync(0, buf);
  return new TextDecoder().decode(buf.subarray(0, Math.max(n, 0)));
}
function pick(cond) {
  const a = () => "a", b = () => "b";
  const r = (cond ? a : b)();
  return r;
}
function loop(items) {
  let out = 0;
  for (const s of items) {
    if (s.length > 1) out += JSON.parse(s).v;
    else out += fn();
  }
  return out;
}
class Counter {
  constructor() { this.n = 0; }
  bump(k) { this.n += k; return this.n; }
  twice(k) { this.bump(k); return this.bump(k); }
}
function more(list, key) {
  const maker = () => f;
  const parse = JSON.parse;
  let total = parse("2") + Math.max(...list) + g[key](1) + maker()(1) + (g?.h(1) ?? 0);
  try {
    total += fn();
    if (total < 0) throw new Error("negative");
  } catch (e) {
    total += f(1);
  } finally {
    total += g.h(2);
  }
  for (let i = 0; i < 2; i++) total += new Counter().twice(i);
  return total;
}
const text = readAll();
const o = JSON.parse('{"v": 1}');
const s = JSON.stringify(o);
const sum = obj.a.b.method(1, f(2), g.h(3));
ShopifyFunction.writeOutput(ShopifyFunction.readInput());
console.log(more([1, 2], "h"), text.length, s, sum, pick(true), pick(false), loop(['{"v":2}', "x"]), fn());
