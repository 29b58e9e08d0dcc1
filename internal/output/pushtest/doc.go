// Package pushtest is for tests only: a Pyroscope server as the tests of
// --push need one, built in the test from Pyroscope's own generated
// Connect handler (pushv1connect.NewPusherServiceHandler) on an
// httptest.Server, so that what jsprof sends crosses the real protocol.
// It keeps every push, parses each series' profile with
// github.com/google/pprof/profile, and can refuse every push (the
// negative control of a server that says no).
package pushtest
