// Constants and definitions of every kind the parser must read.
export const big = 123456789012345678901234567890n * -2n + 0n;
export const small = 7n;
export const pi = 3.141592653589793;
export const neg = -0.5e-300;
const re = /(?<word>\w+)\s*=\s*(\d+)/giu;
const tag = (strings, ...values) => strings.raw.join("|") + values.join(",");
const tagged = tag`a${1}b${2}c\n`;
const wide = "héllo wörld ✓ 🎉";
const obj = {
  plain() { return 1; },
  get value() { return 2; },
  set value(v) { this.v = v; },
  arrow: () => 3,
  ["comp" + "uted"]() { return 4; },
  [Symbol.toPrimitive]() { return 5; },
  async am() { return 6; },
  *gen() { yield 7; },
  async *agen() { yield 8; },
};
class Base {
  #secret = 1;
  static count = 0;
  field = () => this.#secret;
  static #hidden() { return 9; }
  static peek() { return Base.#hidden(); }
  get secret() { return this.#secret; }
}
class Derived extends Base {
  constructor() { super(); Derived.count++; }
  method() { return super.secret; }
}
export default function () { return "default"; }
export function named(a = 1, { b, c } = {}, ...rest) { return a + (b ?? 0) + (c ?? 0) + rest.length; }
const d = new Derived();
let out = [big, small, pi, neg, re.exec("x = 42").groups.word, tagged, wide.length, obj.plain(), obj.value, obj.arrow(),
  obj.computed(), +obj, d.method(), Base.peek(), d.field(), named(1, { b: 2 }, 3, 4)];
out.push(Derived.count, 0x7fffffff + 1, -2147483648, 1e21, 2 ** 53);
console.log(out.map(String).join(" "));
