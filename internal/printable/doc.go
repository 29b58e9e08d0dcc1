// Package printable makes text that someone else chose — a module's
// custom sections and import names, the names and comments of a profile
// jsprof did not write, a JS file's name — safe to print on a terminal
// or in a line-based format: one function, String, used wherever such
// text meets a reader (jsprof's messages, reports, collapsed stacks).
//
// It owns what counts as unsafe, nothing else.
package printable
