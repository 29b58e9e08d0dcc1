package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/output/pushtest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestRunPush: jsprof run --push sends a Shopify Function's profile to a
// Pyroscope server built from Pyroscope's generated handler: one series
// for one input, one per input for two (labelled with the input's file
// name), each labelled with the run's facts and the --push-label pairs
// and holding the very profile written locally (the same total as -o, or
// as --out-dir's file of its input); the merged -o is written all the
// same. A server that is down is one warning line, the profile written
// and exit 0; a push to a server is said by nothing.
func TestRunPush(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "spin.js"))
	inputs := t.TempDir()
	small, large := spinInput(t, inputs, 3), spinInput(t, inputs, 500)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct {
		name    string
		inputs  []string
		down    bool
		warning string // the one warning line's regexp; "": none
	}{
		{"one input", []string{small}, false, ""},
		{"two inputs", []string{small, large}, false, ""},
		{"server down", []string{small}, true, `^jsprof: warning: --push ` + regexp.QuoteMeta(down.URL) + `: profile not sent: unavailable: .*connection refused.*; the local profile is written all the same$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := pushtest.New(t, nil)
			url := srv.URL
			if tt.down {
				url = down.URL
			}
			out := t.TempDir()
			prof, each := filepath.Join(out, "jsprof.pb.gz"), filepath.Join(out, "each")
			args := []string{"run", "-q", "--plugin", dir, "-o", prof, "--push", url, "--push-label", "env=ci", "--push-label", "team=checkout"}
			for _, in := range tt.inputs {
				args = append(args, "--input", in)
			}
			if len(tt.inputs) > 1 {
				args = append(args, "--out-dir", each)
			}
			got := jsprof(t, "", append(args, module)...)
			require.Equal(t, 0, got.code, got.stderr)
			local, err := jsprofile.ReadFile(prof)
			require.NoError(t, err, "the profile is written")

			warnings := regexp.MustCompile(`(?m)^.*warning.*$`).FindAllString(got.stderr, -1)
			if tt.warning == "" {
				assert.Empty(t, warnings)
			} else {
				require.Len(t, warnings, 1, got.stderr)
				assert.Regexp(t, tt.warning, warnings[0])
				assert.Empty(t, srv.Pushes(), "nothing reached the server that is up")
				return
			}

			series := srv.Series()
			require.Len(t, series, len(tt.inputs), "a series per input")
			var sum int64
			for i, s := range series {
				want := local
				if len(tt.inputs) > 1 {
					name := filepath.Base(tt.inputs[i])
					assert.Equal(t, name, s.Labels["input"])
					want, err = jsprofile.ReadFile(filepath.Join(each, strings.TrimSuffix(name, ".json")+".pb.gz"))
					require.NoError(t, err)
				} else {
					assert.NotContains(t, s.Labels, "input")
				}
				m := want.Meta
				assert.Equal(t, int64(m.TotalInstructions), s.Total(), "the local profile's total")
				for name, value := range map[string]string{"__name__": "wasm_instructions", "service_name": "function", "mode": "exact", "cost_model": m.CostModel,
					"engine": m.Engine.Family, "provider": "shopify_functions_javy_v4", "export": m.Run.Export, "env": "ci", "team": "checkout"} {
					assert.NotEmpty(t, value, name)
					assert.Equal(t, value, s.Labels[name], name)
				}
				sum += s.Total()
			}
			assert.Equal(t, int64(local.Meta.TotalInstructions), sum, "-o: the merged profile")
		})
	}
}

// TestRunPushUsage: --push and --push-label that cannot be followed are
// one line and exit 2, before the guest runs: nothing is written or sent.
func TestRunPushUsage(t *testing.T) {
	t.Parallel()
	srv := pushtest.New(t, nil)
	module := buildJS(t, filepath.Join("testdata", "fib20.js"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad label", []string{"--push", srv.URL, "--push-label", "env"}, "jsprof: --push-label env: want NAME=VALUE"},
		{"reserved label", []string{"--push", srv.URL, "--push-label", "__name__=cpu"}, "jsprof: --push-label __name__: names starting __ are Pyroscope's own"},
		{"label without --push", []string{"--push-label", "env=ci"}, "jsprof: --push-label labels what --push sends: give --push URL"},
		{"mode off", []string{"--mode", "off", "--push", srv.URL}, "jsprof: --push sends the profile: it needs a profiling --mode"},
		{"not a URL", []string{"--push", "localhost:4040"}, "jsprof: --push localhost:4040: want the server's http:// or https:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prof := filepath.Join(t.TempDir(), "jsprof.pb.gz")
			args := []string{"run"}
			if !unprofiled(tt.args) {
				args = append(args, "-o", prof)
			}
			got := jsprof(t, "", append(append(args, tt.args...), module)...)
			assert.Equal(t, cli.ExitUsage, got.code, got.stderr)
			assert.Regexp(t, `^`+regexp.QuoteMeta(tt.want)+`[^\n]*\n$`, got.stderr, "one line")
			assert.Empty(t, got.stdout, "the guest did not run")
			assert.NoFileExists(t, prof)
		})
	}
	t.Cleanup(func() { assert.Empty(t, srv.Pushes()) })
}
