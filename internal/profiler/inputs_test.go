package profiler

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/internal/cli"
)

// TestInputFactsExitCodes: an input's row has its run's exit code; one a
// signal kept from starting has the signal's (128+n), as a single run
// interrupted before its guest has, not 1.
func TestInputFactsExitCodes(t *testing.T) {
	tests := []struct {
		name string
		run  InputRun
		want int
	}{
		{"ran", InputRun{Done: &Done{ExitCode: 3}}, 3},
		{"failed", InputRun{Err: errors.New("invalid input JSON")}, cli.ExitFailure},
		{"kept from starting by SIGINT", InputRun{Err: cli.Interrupted{Sig: syscall.SIGINT}}, 130},
		{"kept from starting by SIGTERM, wrapped", InputRun{Err: fmt.Errorf("input a.json: %w", cli.Interrupted{Sig: syscall.SIGTERM})}, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, inputFact(tt.run).ExitCode)
		})
	}
}
