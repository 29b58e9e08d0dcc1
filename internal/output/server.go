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
	// Warn says, in one line, that the server answers beyond this
	// machine: it has no authentication.
	Warn func(error)
	srv  *http.Server
}

// Open does nothing: the server listens once the run can be watched.
func (*Server) Open(context.Context, Opening) error { return nil }

// Watch serves l.
func (s *Server) Watch(l Live) error {
	if err := l.Watchable(); err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	network, open := listenOn(s.Addr)
	ln, err := net.Listen(network, s.Addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	if open && s.Warn != nil {
		s.Warn(fmt.Errorf("--pprof-addr %s: the guest's profile is served, without authentication, to anyone who can reach %s (127.0.0.1:PORT keeps it to this machine)", s.Addr, ln.Addr()))
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

// listenOn is the network to listen on at addr: an IPv4 address is
// listened on with IPv4 only (Go listens on 0.0.0.0 with IPv6's every
// address too), an IPv6 one with IPv6 only; and whether addr answers
// beyond this machine (no host, an unspecified or a non-loopback
// address, a name other than localhost).
func listenOn(addr string) (network string, open bool) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "tcp", true
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return "tcp", host != "localhost"
	case ip.To4() != nil:
		return "tcp4", !ip.IsLoopback()
	default:
		return "tcp6", !ip.IsLoopback()
	}
}
