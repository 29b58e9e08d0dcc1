// A discount function, as a Shopify app writes it in TypeScript.
interface CartLine {
  quantity: number;
  cost: { amountPerQuantity: { amount: string } };
}

interface RunInput {
  cart: { lines: CartLine[] };
}

type Tier = { min: number; percent: number };

const TIERS: Tier[] = [
  { min: 10, percent: 15 },
  { min: 5, percent: 10 },
  { min: 2, percent: 5 },
];

export function tierFor(quantity: number): number {
  for (const tier of TIERS) {
    if (quantity >= tier.min) {
      return tier.percent;
    }
  }
  return 0;
}

function lineTotal(line: CartLine): number {
  const price: number = parseFloat(line.cost.amountPerQuantity.amount);
  return price * line.quantity;
}

export function run(input: RunInput) {
  let total = 0;
  let quantity = 0;
  for (let round = 0; round < 200; round++) {
    for (const line of input.cart.lines) {
      total += lineTotal(line);
      quantity += line.quantity;
    }
  }
  const percent = tierFor(quantity / 200);
  return {
    discounts: percent > 0 ? [{ value: { percentage: { value: percent } }, targets: [{ orderSubtotal: { excludedVariantIds: [] } }] }] : [],
    discountApplicationStrategy: "FIRST",
    total,
  };
}

export default run;
