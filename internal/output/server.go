package output

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Server is --pprof-addr: the running guest's profile served at
// http://Addr/debug/pprof/profile?seconds=N, as Go's net/http/pprof
// serves a Go program's, for go tool pprof, Pyroscope or Parca to pull.
// A request takes the samples of the next N seconds (default 30), or
// until the guest ends. Listening says the address listened on, once it
// is.
type Server struct {
	Addr      string
	Listening func(addr string)
	srv       *http.Server
}

// Open does nothing: the server listens once the run can be watched.
func (*Server) Open(context.Context, Opening) error { return nil }

// Watch serves l.
func (s *Server) Watch(l Live) error {
	if err := l.Watchable(); err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) { serveProfile(w, r, l) })
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	if s.Listening != nil {
		s.Listening(ln.Addr().String())
	}
	return nil
}

// serveProfile answers one request for l's profile.
func serveProfile(w http.ResponseWriter, r *http.Request, l Live) {
	seconds := 30
	if v := r.URL.Query().Get("seconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			http.Error(w, "seconds: want a positive integer", http.StatusBadRequest)
			return
		}
		seconds = n
	}
	take := l.Window()
	select {
	case <-time.After(time.Duration(seconds) * time.Second):
	case <-l.Done():
	case <-r.Context().Done():
	}
	prof, err := take()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="profile"`)
	jsprofile.Write(w, prof)
}

// Write stops the server once the requests waiting for the guest's end
// have their profile.
func (s *Server) Write(context.Context, Result) error {
	s.Discard()
	return nil
}

// Discard stops the server, letting requests waiting for the guest's end
// write their profile (for 10 s at most).
func (s *Server) Discard() {
	if s.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	s.srv = nil
}
