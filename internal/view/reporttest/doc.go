// Package reporttest holds what the tests of packages report, diff and
// htmlview share: the fixture profiles (fib.js on two engines, described
// here and written to testdata with -update), the real profiles of
// testdata/real, the hand-made profiles with Wasm frames and natives, the
// golden files' check, and a headless Chromium driven over its DevTools
// protocol to render the HTML pages and take the screenshots of docs/img.
//
// Only tests import it; it imports none of the packages it serves, so
// that their in-package tests can.
package reporttest
