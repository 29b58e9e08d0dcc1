// A function for the ShopifyFunction providers (shopify_functions_javy_v2
// over WASI, v3 and v4 in memory): the input decoded, the output encoded,
// console for the logs.
const input = ShopifyFunction.readInput();
console.error("lines: " + input.cart.lines.length);
ShopifyFunction.writeOutput({
  hello: input.hello + " output",
  total: input.cart.lines.reduce((sum, l) => sum + l.quantity, 0),
  ids: input.cart.lines.map((l) => l.merchandise.id),
});
