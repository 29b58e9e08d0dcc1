// A function whose cost grows with its cart: `quantity` rounds of a loop
// per cart line, so that tests can put a run of a large cart over 11M
// instructions and under, or over, the limit @scaleLimits scales it to
// (fixtures/shopify/scalelimits: function-runner's own schema and query
// fixtures, tests/fixtures/{schema,query}, v9.2.1).
const input = ShopifyFunction.readInput();
let total = 0;
for (const line of input.cart.lines) {
  for (let round = 0; round < line.quantity; round++) {
    total = (total + round * 7) % 1000003;
  }
}
ShopifyFunction.writeOutput({ total });
