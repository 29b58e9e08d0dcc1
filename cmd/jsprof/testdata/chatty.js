// Writes far more to stdout than a reader that stops early takes
// (jsprof run chatty.wasm | head -c 100).
for (let i = 0; i < 2000; i++) console.log("line " + i + " of a long output that nobody reads to the end");
