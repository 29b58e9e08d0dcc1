package output

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/output/pushtest"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// functionMeta is the facts of a Shopify Function's exact run of total
// instructions.
func functionMeta(total uint64) jsprofile.Meta {
	return jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: total, CostModel: jsprofile.CostFuel, Module: "function.wasm",
		Engine: jsprofile.EngineInfo{Family: "quickjs", Releases: []string{"2024-01-13", "2024-02-14"}},
		Run:    jsprofile.RunInfo{Export: "run", Provider: "shopify_functions_javy_v1", Codec: "json"}}
}

// functionLabels are the labels of functionMeta's series, with more set.
func functionLabels(more ...string) map[string]string {
	labels := map[string]string{"__name__": "wasm_instructions", "service_name": "function", "mode": "exact", "cost_model": "fuel",
		"engine": "quickjs", "engine_release": "2024-01-13,2024-02-14", "provider": "shopify_functions_javy_v1", "codec": "json", "export": "run"}
	for i := 0; i+1 < len(more); i += 2 {
		labels[more[i]] = more[i+1]
	}
	return labels
}

// pushed is a series as the test wants it: its labels and total.
type pushed struct {
	labels map[string]string
	total  int64
}

// TestPush: a push crosses Pyroscope's own Connect API into a server
// built from its generated handler: one series for a run, one per input
// that made a profile with several inputs (labelled with the input's
// file name, or its path when two share one), each the profile's facts
// as labels and its whole profile (the same total); the user's labels
// come last and may replace service_name; user information in the URL
// is sent as basic auth. Nothing is said.
func TestPush(t *testing.T) {
	t.Parallel()
	prof := func(total uint64) *profile.Profile { return testProfile(t, functionMeta(total)) }
	sample := functionMeta(500)
	sample.Mode, sample.SampleEvery, sample.Module, sample.Run, sample.Engine = jsprofile.ModeSample, 10, "dir/app.wasm", jsprofile.RunInfo{}, jsprofile.EngineInfo{}
	tests := []struct {
		name     string
		result   Result
		each     []*profile.Profile // by input: nil for one that made none
		labels   []string
		userinfo string
		want     []pushed
	}{
		{"one run", Result{Profile: prof(1000)}, nil, []string{"env=ci"}, "",
			[]pushed{{functionLabels("env", "ci"), 1000}}},
		{"service_name replaced", Result{Profile: prof(1000)}, nil, []string{"service_name=checkout", "mode=mine"}, "",
			[]pushed{{functionLabels("service_name", "checkout", "mode", "mine"), 1000}}},
		{"facts the profile has", Result{Profile: testProfile(t, sample)}, nil, nil, "",
			[]pushed{{map[string]string{"__name__": "wasm_instructions", "service_name": "app", "mode": "sample", "cost_model": "fuel"}, 500}}},
		{"several inputs", Result{Profile: prof(1000), Inputs: []report.InputRun{{Input: "in/a.json"}, {Input: "in/b.json"}}}, []*profile.Profile{prof(300), prof(700)}, []string{"env=ci"}, "",
			[]pushed{{functionLabels("input", "a.json", "env", "ci"), 300}, {functionLabels("input", "b.json", "env", "ci"), 700}}},
		{"an input without a profile", Result{Profile: prof(700), Inputs: []report.InputRun{{Input: "in/a.json"}, {Input: "in/b.json"}}}, []*profile.Profile{nil, prof(700)}, nil, "",
			[]pushed{{functionLabels("input", "b.json"), 700}}},
		{"inputs of one name", Result{Profile: prof(1000), Inputs: []report.InputRun{{Input: "x/in.json"}, {Input: "y/in.json"}}}, []*profile.Profile{prof(300), prof(700)}, nil, "",
			[]pushed{{functionLabels("input", "x/in.json"), 300}, {functionLabels("input", "y/in.json"), 700}}},
		{"basic auth", Result{Profile: prof(1000)}, nil, nil, "user:secret",
			[]pushed{{functionLabels(), 1000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := pushtest.New(t, nil)
			url := srv.URL
			if tt.userinfo != "" {
				url = strings.Replace(url, "://", "://"+tt.userinfo+"@", 1)
			}
			var warnings []error
			p := &Push{URL: url, Labels: tt.labels, Warn: func(err error) { warnings = append(warnings, err) }}
			require.NoError(t, p.Open(context.Background(), Opening{}))
			for i, prof := range tt.each {
				if prof != nil {
					writeEach(t, p, i, prof)
				}
			}
			assert.Empty(t, srv.Pushes(), "Open and WriteEach send nothing")
			require.NoError(t, p.Write(context.Background(), tt.result))
			assert.Empty(t, warnings)

			pushes := srv.Pushes()
			require.Len(t, pushes, 1, "one push a run")
			var got []pushed
			for _, s := range srv.Series() {
				got = append(got, pushed{s.Labels, s.Total()})
				assert.Equal(t, jsprofile.SampleTypes()[0].Type, s.Profile.SampleType[0].Type)
			}
			assert.Equal(t, tt.want, got)
			wantAuth := ""
			if tt.userinfo != "" {
				wantAuth = "Basic " + base64.StdEncoding.EncodeToString([]byte(tt.userinfo))
			}
			assert.Equal(t, wantAuth, pushes[0].Authorization)
		})
	}
}

// TestPushFails: a push that fails, however, is one printable warning
// line naming the server (its password redacted), and Write returns nil:
// the run's other outputs and exit code are its own. An interrupted run
// sends nothing, and says so. A push taken (the negative control, in
// TestPush) says nothing.
func TestPushFails(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	notPyroscope := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notPyroscope.Close)
	refusing := pushtest.New(t, connect.NewError(connect.CodePermissionDenied, errors.New("tenant \x1b[31mnobody\n")))
	one := Result{Profile: testProfile(t, functionMeta(1000))}
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	t.Cleanup(func() { // once the parallel subtests have ended
		assert.Len(t, refusing.Pushes(), 1, "the refused push reached the server; the run without a profile sent none")
	})
	tests := []struct {
		name   string
		url    string
		result Result
		ctx    context.Context
		want   []string // in the warning
	}{
		{"refused", refusing.URL, one, context.Background(), []string{"--push " + refusing.URL + ": profile not sent: permission_denied: tenant  [31mnobody"}},
		{"down", down.URL, one, context.Background(), []string{"--push " + down.URL + ": profile not sent: unavailable:", "connection refused"}},
		{"not Pyroscope", notPyroscope.URL, one, context.Background(), []string{"--push " + notPyroscope.URL + ": profile not sent: unimplemented"}},
		{"password redacted", strings.Replace(down.URL, "://", "://user:secret@", 1), one, context.Background(), []string{"--push " + strings.Replace(down.URL, "://", "://user:xxxxx@", 1)}},
		{"no profile", refusing.URL, Result{}, context.Background(), []string{"profile not sent: the run made no profile"}},
		{"interrupted", refusing.URL, one, interrupted, []string{"profile not sent: canceled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var warnings []string
			p := &Push{URL: tt.url, Warn: func(err error) { warnings = append(warnings, err.Error()) }}
			require.NoError(t, p.Open(context.Background(), Opening{}))
			require.NoError(t, p.Write(tt.ctx, tt.result), "a failed push is not the run's error")
			require.Len(t, warnings, 1, "one warning")
			for _, w := range tt.want {
				assert.Contains(t, warnings[0], w)
			}
			assert.NotContains(t, warnings[0], "secret")
			assert.NotContains(t, warnings[0], "\x1b")
			assert.NotContains(t, warnings[0], "\n")
		})
	}
}

// TestPushOpen: Open refuses a URL that is not a server's http(s) URL and
// labels that are not NAME=VALUE, or that would replace __name__, a name
// Pyroscope reserves or the input label, naming the flag; a good one
// opens.
func TestPushOpen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		url    string
		labels []string
		want   string // "": opened
	}{
		{"good", "http://localhost:4040", []string{"env=ci", "service_name=checkout", "team_2=a=b"}, ""},
		{"https", "https://profiles.example.com/pyroscope", nil, ""},
		{"no scheme", "localhost:4040", nil, "--push localhost:4040: want the server's http:// or https:// URL"},
		{"not http", "ftp://localhost", nil, "--push ftp://localhost: want"},
		{"no host", "http://", nil, "--push http://: want"},
		{"empty", "", nil, "--push : want"},
		{"not k=v", "http://localhost:4040", []string{"env"}, "--push-label env: want NAME=VALUE"},
		{"empty value", "http://localhost:4040", []string{"env="}, "--push-label env=: want NAME=VALUE"},
		{"digit first", "http://localhost:4040", []string{"1env=ci"}, "--push-label 1env=ci: want NAME=VALUE"},
		{"not a name", "http://localhost:4040", []string{"a-b=c"}, "--push-label a-b=c: want NAME=VALUE"},
		{"__name__", "http://localhost:4040", []string{"__name__=cpu"}, "--push-label __name__: names starting __ are Pyroscope's own (__name__ is wasm_instructions)"},
		{"reserved", "http://localhost:4040", []string{"__delta__=false"}, "--push-label __delta__: names starting __"},
		{"input", "http://localhost:4040", []string{"input=a.json"}, "--push-label input: jsprof labels each input's series"},
		{"twice", "http://localhost:4040", []string{"env=a", "env=b"}, "--push-label env: given twice"},
		{"unprintable", "http://localhost:4040", []string{"\x1b[2J"}, "--push-label  [2J: want"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &Push{URL: tt.url, Labels: tt.labels, Warn: func(err error) { t.Errorf("warned: %v", err) }}
			err := p.Open(context.Background(), Opening{})
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
