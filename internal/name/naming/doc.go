// Package naming names the JS functions the meter measured, which it
// knows only by their bytecode buffer's address: each is matched to a
// function of the program's serialized bytecode (package bytecode) by its
// code, or, for functions the program does not hold (eval, new Function,
// the engine's own), read from the engine's memory once its structure
// layout is calibrated on the matched ones. It also gives each pc its
// source line, and checks each measurement against the engine's own
// data (Check: the opcode dispatched at each pc is the code's, at an
// instruction's start).
//
// It reads guest memory as untrusted input and never writes it; it does
// not build profiles (package stacks takes its Identity).
package naming
