// Reads the clock: what the engine executes depends on the time it reads
// (formatting the date, a loop that waits for the clock to move), so two
// runs count the same instructions only with deterministic guest clocks
// (determinism_test.go).
const start = Date.now();
let spins = 0;
while (Date.now() - start < 5) spins++;
const d = new Date(start);
console.log(d.toISOString().length, String(start).length, spins > 0);
