// A function whose cost its input sets: n rounds of a loop, so that
// tests can put a run under or over function-runner's limits.
function spin(n) {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum = (sum + i * 7) % 1000003;
  }
  return sum;
}
const input = ShopifyFunction.readInput();
ShopifyFunction.writeOutput({ sum: spin(input.n) });
