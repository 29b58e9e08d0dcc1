// An uncaught error thrown three calls deep (tests of the throw's report).
function inner(x) {
  if (x > 2) {
    throw new Error("boom at " + x);
  }
  return inner(x + 1);
}
function outer() {
  return inner(0);
}
outer();
