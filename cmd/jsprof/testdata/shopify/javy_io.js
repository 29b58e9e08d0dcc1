// A function for the JSON providers (javy_quickjs_provider_v1-v3,
// shopify_functions_javy_v1): input on stdin and output on stdout through
// Javy.IO, logs on stderr.
function readAll() {
  const chunks = [];
  let total = 0;
  for (;;) {
    const buf = new Uint8Array(4096);
    const n = Javy.IO.readSync(0, buf);
    if (n <= 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) { all.set(c, off); off += c.length; }
  return JSON.parse(new TextDecoder().decode(all));
}
const input = readAll();
console.error("lines: " + input.cart.lines.length);
const output = {
  hello: input.hello + " output",
  total: input.cart.lines.reduce((sum, l) => sum + l.quantity, 0),
  ids: input.cart.lines.map((l) => l.merchandise.id),
};
Javy.IO.writeSync(1, new TextEncoder().encode(JSON.stringify(output)));
