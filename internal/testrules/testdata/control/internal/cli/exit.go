// Package cli is the control's owner of exit codes: defining them here
// breaks no rule.
package cli

const (
	ExitFailure = 1
	ExitLimit   = 124
	ExitTrap    = 134
)
