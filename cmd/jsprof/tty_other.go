//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package main

import "os"

// isTerminal: no colour where jsprof cannot tell a terminal.
func isTerminal(*os.File) bool { return false }
