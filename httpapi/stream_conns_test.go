package httpapi_test

import (
	"net"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// recording is a listener that keeps the connections it accepts, before
// any wrapper.
type recording struct {
	net.Listener
	mu       sync.Mutex
	accepted []net.Conn
}

func (l *recording) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.accepted = append(l.accepted, c)
		l.mu.Unlock()
	}
	return c, err
}

// boundedStreamAPI is streamAPI served as serve serves it: the wire
// errors and the connection bounds of bounds around the listener, and
// the server's ConnState and ConnContext hooks set. It returns the
// recording listener under them.
func (e *env) boundedStreamAPI(opt httpapi.Options, bounds connlimit.Options) (*streamAPI, *recording) {
	e.t.Helper()
	opt.Store = e.store
	api, err := httpapi.New(opt)
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(api.Handler())
	rec := &recording{Listener: srv.Listener}
	bounds.Busy = httpapi.Busy
	ln := connlimit.Wrap(httpapi.WireErrors(rec), bounds)
	srv.Listener = ln
	srv.Config.ConnState, srv.Config.ConnContext = ln.ConnState, ln.ConnContext
	srv.Start()
	s := &streamAPI{api: api, srv: srv}
	e.t.Cleanup(func() { api.CloseStreams(); srv.Close(); api.Close() })
	return s, rec
}

// Past the connection bounds' share of streams (three quarters of 4
// connections: 3), a stream is refused with the documented 503 problem,
// and other requests are still answered.
func TestStreamShareOfConnections(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s, _ := e.boundedStreamAPI(httpapi.Options{}, connlimit.Options{Max: 4})
	for range 3 {
		e.openStream(s, "/api/public/stream").next(streamWait, "ready")
	}
	r := e.streamGet(s, "/api/public/stream")
	mustStatus(t, r, 503, "unavailable")
	if r.header.Get("Retry-After") == "" {
		t.Errorf("503 headers %v, want Retry-After", r.header)
	}
	mustStatus(t, e.streamGet(s, "/api/public/categories"), 200, "")
	if n := s.api.Streams(); n != 3 {
		t.Errorf("%d streams open, want 3", n)
	}
}
