// cart_discount.js for the JSON providers (javy_quickjs_provider_v1):
// the input read with Javy.IO and JSON.parse, the output written as JSON.
function readInput() {
  let bytes = new Uint8Array(0);
  for (;;) {
    const buf = new Uint8Array(1 << 16);
    const n = Javy.IO.readSync(0, buf);
    if (n <= 0) return JSON.parse(new TextDecoder().decode(bytes));
    const joined = new Uint8Array(bytes.length + n);
    joined.set(bytes);
    joined.set(buf.subarray(0, n), bytes.length);
    bytes = joined;
  }
}
const input = readInput();
const items = input.cart.lines.reduce((n, l) => n + l.quantity, 0);
const output = {
  discountApplicationStrategy: "FIRST",
  discounts: items >= 10 ? [{
    value: { percentage: { value: "10.0" } },
    targets: input.cart.lines.map((l) => ({ cartLine: { id: l.id } })),
  }] : [],
};
Javy.IO.writeSync(1, new TextEncoder().encode(JSON.stringify(output)));
