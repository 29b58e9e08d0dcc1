// Unbounded recursion: QuickJS in Wasm exhausts its stack and traps.
function down(n) {
  return 1 + down(n + 1);
}
console.log("depth " + down(0));
