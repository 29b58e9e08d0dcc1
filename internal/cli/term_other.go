//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package cli

import "os"

// IsTerminal: no colour where jsprof cannot tell a terminal.
func IsTerminal(*os.File) bool { return false }
