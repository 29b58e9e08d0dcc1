// Math.random: the 1.7.0 plugin seeds it from its host's env.random_seed,
// which jsprof provides (internal/run/runner); with --deterministic the seed is
// fixed (determinism_test.go).
let s = 0;
for (let i = 0; i < 1000; i++) s += Math.random() < 0.5 ? 1 : 0;
console.log(s > 300 && s < 700 ? "random ok" : "random skewed " + s);
