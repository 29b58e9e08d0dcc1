// A plain Javy program, minified before it is built.
function fibonacci(n) {
  if (n < 2) return n;
  return fibonacci(n - 1) + fibonacci(n - 2);
}

function sumOfSquares(limit) {
  let total = 0;
  for (let i = 0; i < limit; i++) {
    total += i * i;
  }
  return total;
}

console.log(fibonacci(16), sumOfSquares(3000));
