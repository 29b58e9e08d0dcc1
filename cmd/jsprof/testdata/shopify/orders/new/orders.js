// Orders: each order's total, from its lines (jsprof diff's tests: new/
// is this file with a closure moved down two lines and made cheaper,
// slower/ with lineTotal made dearer).
function lineTotal(line) {
  return line.qty * line.price;
}

function run(input) {
  const totals = [];
  for (let i = 0; i < input.n; i++) {
    const lines = [{ qty: i % 5, price: 3 }, { qty: 2, price: i % 7 }, { qty: 1, price: 11 }];
    // Each line's total once: the same as four times over four, for
    // less.
    const perLine = lines.map((l) => {
      let t = 0;
      t += lineTotal(l);
      return t;
    });
    totals.push(perLine.reduce((a, b) => a + b, 0));
  }
  return totals.length;
}

const input = ShopifyFunction.readInput();
ShopifyFunction.writeOutput({ count: run(input) });
