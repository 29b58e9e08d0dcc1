// Keeps the guest busy for a fraction of a second, long enough to fetch its
// profile over HTTP while it runs.
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
console.log("fib(27) = " + fib(27));
