// A cart discount that looks at the lines' quantities and ids only, for
// the ShopifyFunction providers (shopify_functions_javy_v3, v4): 10% off
// every line from 10 items up. It never reads a line's merchandise.
const input = ShopifyFunction.readInput();
const items = input.cart.lines.reduce((n, l) => n + l.quantity, 0);
ShopifyFunction.writeOutput({
  discountApplicationStrategy: "FIRST",
  discounts: items >= 10 ? [{
    value: { percentage: { value: "10.0" } },
    targets: input.cart.lines.map((l) => ({ cartLine: { id: l.id } })),
  }] : [],
});
