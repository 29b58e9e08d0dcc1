// An exception that escapes: Javy prints it and traps.
function inner(n) {
  if (n === 0) throw new Error("escaped from inner");
  return inner(n - 1);
}
console.log("before");
inner(5);
console.log("never printed");
