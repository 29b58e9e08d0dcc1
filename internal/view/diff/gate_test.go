package diff

import (
	"testing"

	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/stretchr/testify/assert"
)

// TestIncomplete: how a run ended, from what its profile records, for
// the cases the command's tests do not run (a signal, a merged profile,
// a guest's own code, an earlier jsprof's profile).
func TestIncomplete(t *testing.T) {
	code := func(c int) *int { return &c }
	tests := []struct {
		name string
		d    report.Tables
		want string
	}{
		{"no exit code recorded", report.Tables{}, ""},
		{"exit 0", report.Tables{ExitCode: code(0)}, ""},
		{"the guest's own code", report.Tables{ExitCode: code(3)}, "the guest exited with code 3, exit 3"},
		{"a signal's trap", report.Tables{ExitCode: code(130), Trap: "interrupted by interrupt"}, "interrupted by interrupt, exit 130"},
		{"merged: a signal", report.Tables{ExitCode: code(143)}, "stopped by terminated, exit 143"},
		{"merged: a limit", report.Tables{ExitCode: code(124)}, "stopped by --timeout or --max-instructions, exit 124"},
		{"merged: a trap", report.Tables{ExitCode: code(134)}, "the guest trapped, exit 134"},
		{"a trap", report.Tables{ExitCode: code(134), Trap: "wasm error: unreachable"}, "the guest trapped: wasm error: unreachable, exit 134"},
		{"a throw", report.Tables{ExitCode: code(134), Trap: "wasm error: unreachable", Throw: &jsprofile.Throw{Message: "Error: boom"}}, "uncaught Error: boom, exit 134"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, incomplete(&tt.d))
		})
	}
}

// TestParseGate: --fail-over's values; not given is no gate, empty is
// refused like any other bad value.
func TestParseGate(t *testing.T) {
	tests := []struct {
		in      string
		given   bool
		want    *Gate
		wantErr string
	}{
		{"", false, nil, ""},
		{"5", true, &Gate{Flag: "5", Percent: 5}, ""},
		{"0.5%", true, &Gate{Flag: "0.5%", Percent: 0.5}, ""},
		{"", true, nil, "--fail-over is empty: want a percentage, 0 or more, such as 5 or 5%"},
		{"-1", true, nil, "--fail-over -1: want a percentage, 0 or more, such as 5 or 5%"},
		{"NaN", true, nil, "--fail-over NaN: want a percentage, 0 or more, such as 5 or 5%"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseGate(tt.in, tt.given, false, 0)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
