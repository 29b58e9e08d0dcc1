// Package term is what jsprof knows of the terminal it writes to and of
// the build it is: whether stderr shows colour (UseColor, IsTerminal),
// how a message is coloured there (Paint), and the version line of the
// build (Version). It writes nothing itself: messages are cmd/jsprof's.
package term
