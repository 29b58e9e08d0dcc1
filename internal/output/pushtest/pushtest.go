package pushtest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	pushv1 "github.com/grafana/pyroscope/api/gen/proto/go/push/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/push/v1/pushv1connect"
	"github.com/stretchr/testify/assert"
)

// Server is a Pyroscope server's push API, serving until its test ends.
type Server struct {
	// URL is the server's base URL, as --push takes it.
	URL string
	// refuse, when not nil, is every push's answer.
	refuse *connect.Error

	mu     sync.Mutex
	pushes []Push
}

// Push is one push received.
type Push struct {
	// Authorization is the request's Authorization header.
	Authorization string
	// Series are the push's series, in order.
	Series []Series
}

// Series is one series of a push: its labels, and its one profile parsed.
type Series struct {
	Labels  map[string]string
	Profile *profile.Profile
}

// Total is the sum of the series' profile's first sample value (the
// Wasm instructions of a jsprof profile).
func (s Series) Total() int64 {
	var total int64
	for _, sample := range s.Profile.Sample {
		total += sample.Value[0]
	}
	return total
}

// New starts a server that takes every push, or, with refuse, answers
// every push with it.
func New(t testing.TB, refuse *connect.Error) *Server {
	t.Helper()
	s := &Server{refuse: refuse}
	mux := http.NewServeMux()
	mux.Handle(pushv1connect.NewPusherServiceHandler(&handler{s: s, t: t}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Pushes are the pushes received so far, in order (refused ones too).
func (s *Server) Pushes() []Push {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Push(nil), s.pushes...)
}

// Series are the series of every push taken, in order.
func (s *Server) Series() []Series {
	if s.refuse != nil {
		return nil
	}
	var all []Series
	for _, p := range s.Pushes() {
		all = append(all, p.Series...)
	}
	return all
}

// handler is the PusherService of a Server.
type handler struct {
	s *Server
	t testing.TB
}

// Push keeps the push, each series' one profile parsed, and answers it.
// A series that is not one pprof profile with labels named once fails
// the test (assert: this runs on the server's goroutine) and the push.
func (h *handler) Push(_ context.Context, req *connect.Request[pushv1.PushRequest]) (*connect.Response[pushv1.PushResponse], error) {
	p := Push{Authorization: req.Header().Get("Authorization")}
	for _, series := range req.Msg.Series {
		labels := map[string]string{}
		for _, l := range series.Labels {
			_, twice := labels[l.Name]
			assert.False(h.t, twice, "label %s given twice", l.Name)
			labels[l.Name] = l.Value
		}
		if !assert.Len(h.t, series.Samples, 1, "one profile a series") {
			return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("want one profile a series"))
		}
		prof, err := profile.ParseData(series.Samples[0].RawProfile)
		if !assert.NoError(h.t, err, "the pushed profile is a pprof profile") {
			return nil, connect.NewError(connect.CodeInvalidArgument, err)
		}
		p.Series = append(p.Series, Series{Labels: labels, Profile: prof})
	}
	h.s.mu.Lock()
	h.s.pushes = append(h.s.pushes, p)
	h.s.mu.Unlock()
	if h.s.refuse != nil {
		return nil, h.s.refuse
	}
	return connect.NewResponse(&pushv1.PushResponse{}), nil
}
