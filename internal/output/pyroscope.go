package output

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	pushv1 "github.com/grafana/pyroscope/api/gen/proto/go/push/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/push/v1/pushv1connect"
	typesv1 "github.com/grafana/pyroscope/api/gen/proto/go/types/v1"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// PushName is the __name__ of every series Push sends: what its
// profile's first (default) sample type counts, Wasm instructions.
// Pyroscope names a profile type __name__:type:unit:period_type:
// period_unit, so a jsprof profile is wasm_instructions:
// wasm_instructions:count:: (exact) or wasm_instructions:
// wasm_instructions:count:wasm_instructions:count (sample), beside the
// opcode_executions and calls types of the same series.
const PushName = "wasm_instructions"

// PushTimeout bounds one push: connecting, sending every series and
// reading the answer.
const PushTimeout = 30 * time.Second

// pushInputLabel labels each input's series, with several inputs.
const pushInputLabel = "input"

// pushMessageMax bounds, in bytes, what the warning quotes of the
// server's answer.
const pushMessageMax = 300

// Push is --push: the run's profile sent to a Pyroscope server by its
// Connect API (push.v1.PusherService/Push), one series for the run, or
// one per input with several inputs (labelled input=FILE), each the same
// pprof profile -o and --out-dir write. A series is labelled __name__
// (PushName), service_name (the module's file name without .wasm), the
// run's facts (mode, cost_model, engine, engine_release, and for a
// Shopify Function provider, codec and export), then Labels, which may
// replace any of these but __name__ and input. A push that fails (the
// server down or refusing it) is one warning (Warn), and Write returns
// nil: the local profile and the exit code are the run's own.
type Push struct {
	// URL is the server's base URL (http://localhost:4040); user
	// information in it is sent as basic auth and never said.
	URL string
	// Labels are the user's, each NAME=VALUE (PushLabels).
	Labels []string
	// Warn says, in one line, that the push failed.
	Warn func(error)
	// Client sends the push; nil: one with PushTimeout.
	Client *http.Client

	client pushv1connect.PusherServiceClient
	labels []*typesv1.LabelPair
	shown  string // URL, its password redacted
	// each is, with several inputs, each input's series as its run
	// ended (WriteEach), by index, its input label not yet given.
	each map[int]*pushv1.RawProfileSeries
}

// Open checks the URL and the labels and readies the client: nothing is
// sent before Write.
func (p *Push) Open(context.Context, Opening) error {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--push %s: want the server's http:// or https:// URL", printable.String(p.URL))
	}
	if p.labels, err = PushLabels(p.Labels); err != nil {
		return fmt.Errorf("--push-label %w", err)
	}
	client := p.Client
	if client == nil {
		client = &http.Client{Timeout: PushTimeout}
	}
	p.shown = u.Redacted()
	p.client = pushv1connect.NewPusherServiceClient(client, p.URL)
	return nil
}

// Write pushes r's profile, or each input's; a failure is said (Warn),
// not returned.
func (p *Push) Write(ctx context.Context, r Result) error {
	series, err := p.series(r)
	if err == nil {
		_, err = p.client.Push(ctx, connect.NewRequest(&pushv1.PushRequest{Series: series}))
	}
	if err != nil {
		p.Warn(fmt.Errorf("--push %s: profile not sent: %s; the local profile is written all the same", p.shown, pushFailure(err)))
	}
	return nil
}

// Discard does nothing: Open holds nothing but the client.
func (p *Push) Discard() {}

// WriteEach keeps input i's series, sent with the others by Write.
func (p *Push) WriteEach(_ context.Context, i int, prof *profile.Profile, raw []byte) error {
	s, err := p.one(prof, raw)
	if err != nil {
		return fmt.Errorf("--push: %w", err)
	}
	if p.each == nil {
		p.each = map[int]*pushv1.RawProfileSeries{}
	}
	p.each[i] = s
	return nil
}

// series are the series of r: the run's, or each input's that made a
// profile (WriteEach), labelled with its input.
func (p *Push) series(r Result) ([]*pushv1.RawProfileSeries, error) {
	if len(r.Inputs) == 0 {
		if r.Profile == nil {
			return nil, errors.New("the run made no profile")
		}
		var raw bytes.Buffer
		if err := jsprofile.Write(&raw, r.Profile); err != nil {
			return nil, err
		}
		s, err := p.one(r.Profile, raw.Bytes())
		if err != nil {
			return nil, err
		}
		for _, l := range p.labels {
			s.Labels = setLabel(s.Labels, l)
		}
		return []*pushv1.RawProfileSeries{s}, nil
	}
	names := inputLabels(r.Inputs)
	var series []*pushv1.RawProfileSeries
	for i, name := range names {
		if s := p.each[i]; s != nil {
			s.Labels = setLabel(s.Labels, &typesv1.LabelPair{Name: pushInputLabel, Value: name})
			for _, l := range p.labels {
				s.Labels = setLabel(s.Labels, l)
			}
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return nil, errors.New("no input made a profile")
	}
	return series, nil
}

// one is the series of profile prof, raw as jsprofile.Write writes it,
// labelled with its facts (series adds the input's and the user's).
func (p *Push) one(prof *profile.Profile, raw []byte) (*pushv1.RawProfileSeries, error) {
	// Read makes the profile's strings printable in place: a copy keeps
	// what the other outputs write as the run made it.
	read, err := jsprofile.Read(prof.Copy())
	if err != nil {
		return nil, err
	}
	return &pushv1.RawProfileSeries{Labels: factLabels(read.Meta), Samples: []*pushv1.RawSample{{RawProfile: raw}}}, nil
}

// factLabels are the labels of a profile's facts (m), __name__ and
// service_name first; a fact the profile does not have is left out.
func factLabels(m jsprofile.Meta) []*typesv1.LabelPair {
	service := strings.TrimSuffix(filepath.Base(m.Module), ".wasm")
	if m.Module == "" {
		service = "jsprof"
	}
	facts := [][2]string{
		{"__name__", PushName},
		{"service_name", service},
		{"mode", m.Mode},
		{"cost_model", m.CostModel},
		{"engine", m.Engine.Family},
		{"engine_release", strings.Join(m.Engine.Releases, ",")},
		{"provider", m.Run.Provider},
		{"codec", m.Run.Codec},
		{"export", m.Run.Export},
	}
	var labels []*typesv1.LabelPair
	for _, f := range facts {
		if f[1] != "" {
			labels = append(labels, &typesv1.LabelPair{Name: f[0], Value: f[1]})
		}
	}
	return labels
}

// setLabel sets l in labels: in place of the label of its name, or
// added.
func setLabel(labels []*typesv1.LabelPair, l *typesv1.LabelPair) []*typesv1.LabelPair {
	for i, have := range labels {
		if have.Name == l.Name {
			labels[i] = l
			return labels
		}
	}
	return append(labels, l)
}

// inputLabels are the input labels of several inputs, in order: each
// file's name, or, when two inputs share one, the paths as given.
func inputLabels(inputs []report.InputRun) []string {
	names := make([]string, len(inputs))
	seen := map[string]bool{}
	for i, in := range inputs {
		names[i] = filepath.Base(in.Input)
		if seen[names[i]] {
			for j, in := range inputs {
				names[j] = in.Input
			}
			return names
		}
		seen[names[i]] = true
	}
	return names
}

// PushLabels reads the user's labels, each NAME=VALUE: NAME a Prometheus
// label name ([a-zA-Z_][a-zA-Z0-9_]*), not one Pyroscope reserves (__*)
// nor input, VALUE not empty, no NAME twice. Errors name the label.
func PushLabels(given []string) ([]*typesv1.LabelPair, error) {
	var labels []*typesv1.LabelPair
	seen := map[string]bool{}
	for _, g := range given {
		name, value, ok := strings.Cut(g, "=")
		switch {
		case !ok || value == "" || !labelName(name):
			return nil, fmt.Errorf("%s: want NAME=VALUE, NAME letters, digits and _, not starting with a digit", printable.String(g))
		case strings.HasPrefix(name, "__"):
			return nil, fmt.Errorf("%s: names starting __ are Pyroscope's own (__name__ is %s)", name, PushName)
		case name == pushInputLabel:
			return nil, fmt.Errorf("%s: jsprof labels each input's series with its file", name)
		case seen[name]:
			return nil, fmt.Errorf("%s: given twice", name)
		}
		seen[name] = true
		labels = append(labels, &typesv1.LabelPair{Name: name, Value: value})
	}
	return labels, nil
}

// labelName says whether s is a Prometheus label name.
func labelName(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// pushFailure says why a push failed, in one printable line: the
// server's answer is quoted, cut to pushMessageMax bytes.
func pushFailure(err error) string {
	msg := err.Error()
	if len(msg) > pushMessageMax {
		msg = strings.ToValidUTF8(msg[:pushMessageMax], "") + "…"
	}
	return printable.String(msg)
}
