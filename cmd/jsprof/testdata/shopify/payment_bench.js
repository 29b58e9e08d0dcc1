// The shape of Javy's 2022 default benchmark: a static function that
// reads its input in MessagePack on stdin, sorts the payment methods and
// writes its sort_response, in MessagePack, on stdout (here through
// shopify_functions_javy_v2's ShopifyFunction, the same bytes over WASI).
const input = ShopifyFunction.readInput();
const methods = input.paymentMethods.slice().sort((a, b) => a.name.localeCompare(b.name));
ShopifyFunction.writeOutput({
  sort_response: { proposedOrder: methods.map((m) => m.id) },
});
