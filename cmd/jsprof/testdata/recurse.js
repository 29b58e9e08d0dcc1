function f(n) { return n ? f(n - 1) + 1 : 0; } console.log(f(500));
