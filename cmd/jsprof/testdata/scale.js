// A long run at a constant memory footprint: N calls of a small function,
// about 1,570 Wasm instructions each with the newer Javy plugin (the call
// and the loop's opcodes), so N = 1,000,000 executes about 1.6e9 Wasm
// instructions. scale_test.go rewrites N. Nothing is allocated per
// iteration: what grows with N would be the profiler's.
const N = 1000000;

function step(x, i) {
  return (x * 31 + i) % 1000003;
}

let x = 0;
for (let i = 0; i < N; i++) x = step(x, i);
console.log("x = " + x);
