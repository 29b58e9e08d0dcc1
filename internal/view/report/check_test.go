package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestReportCheckFailures: a function the run's self-check failed is
// marked in every view, and the text says why; the negative control, the
// same profile checked clean, marks nothing.
func TestReportCheckFailures(t *testing.T) {
	failure := jsprofile.CheckFailure{Function: "js:fib@0x10100", Why: "pc 0: the interpreter dispatched get_arg0, the code holds invalid"}
	comment, err := json.Marshal(failure)
	require.NoError(t, err)
	for _, tt := range []struct {
		name     string
		comments []string
		failed   bool
	}{
		{"clean", []string{"jsprof.check.functions=3"}, false},
		{"failed", []string{"jsprof.check.functions=3", "jsprof.check.failed=" + string(comment)}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := reporttest.BaseFixture
			fx.ExtraComments = tt.comments
			d := tablesOf(t, fx.Build(t))
			assert.Equal(t, 3, d.CheckedFunctions)
			var fib FunctionStats
			for _, f := range d.Functions {
				if f.Name == "fib" {
					fib = f
				}
			}
			r, err := NewReport(d, ReportOptions{By: ByFunction})
			require.NoError(t, err)
			var text, doc bytes.Buffer
			require.NoError(t, r.WriteText(&text))
			require.NoError(t, r.WriteJSON(&doc))
			if !tt.failed {
				assert.Empty(t, fib.CheckFailed)
				assert.NotContains(t, text.String(), CheckMark)
				assert.NotContains(t, doc.String(), "check_failed")
				return
			}
			assert.Equal(t, []jsprofile.CheckFailure{failure}, d.CheckFailures)
			assert.Equal(t, failure.Why, fib.CheckFailed)
			assert.Equal(t, "! fib (function.mjs:1)", fib.Label())
			assert.Contains(t, text.String(), "! self-check: the engine contradicts the measurement of 1 of 3 JS functions")
			assert.Contains(t, text.String(), "\n! fib (function.mjs:1) ")
			assert.Contains(t, doc.String(), `"check_failed": "pc 0: the interpreter dispatched get_arg0, the code holds invalid"`)
		})
	}
}
