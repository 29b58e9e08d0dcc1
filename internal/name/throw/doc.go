// Package throw reads the uncaught JS error an engine told before it
// trapped: a Tail keeps the last of what the guest writes on stderr while
// passing it on, Uncaught reads the error's message and backtrace from it
// in the forms Javy's plugins and providers print, and Find places it in
// the run's own profile (jsprofile.Throw, the JS stack at the throw read
// from the profile's stacks).
//
// It owns reading that text, which a guest chooses: a message is clipped
// and made printable. It must not decide what is said of the error or
// how the run ends: the pipeline and the command do.
package throw
