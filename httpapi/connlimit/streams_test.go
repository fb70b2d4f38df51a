package connlimit_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// streamHandler claims its request's connection (twice, which counts
// once) and, when claimed, takes it over and holds it open, as the live
// stream does; refused, it answers 503.
var streamHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if !connlimit.Claim(r.Context()) {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if !connlimit.Claim(r.Context()) { // again: counted once
		panic("a claimed connection's second claim was refused")
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") // then the stream would follow
	go func() {                                                          // the stream: until the client leaves
		io.Copy(io.Discard, conn)
		conn.Close()
	}()
})

// serveStreams is serve with the server's ConnContext set, so that
// handlers can claim their connections.
func serveStreams(t *testing.T, opt connlimit.Options, h http.Handler) (*connlimit.Listener, string) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opt.Busy = httpapi.Busy
	l := connlimit.Wrap(inner, opt)
	srv := &http.Server{Handler: h, ConnState: l.ConnState, ConnContext: l.ConnContext, IdleTimeout: time.Minute}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, inner.Addr().String()
}

// TestStreamsKeepAReserve: connections claimed for streams take at most
// their share (three quarters of Max by default); a claim past it is
// refused, and the reserve still answers other requests on new
// connections; a closed stream's connection gives its claim back.
func TestStreamsKeepAReserve(t *testing.T) {
	l, addr := serveStreams(t, connlimit.Options{Max: 8}, streamHandler)
	var streams []net.Conn
	for i := range 6 {
		c, _, st := dial(t, "127.0.0.1", addr, true)
		if st != 200 {
			t.Fatalf("stream %d: %d, want 200", i+1, st)
		}
		streams = append(streams, c)
	}
	if s := l.Stats(); s.Streams != 6 || s.Open != 6 {
		t.Fatalf("stats %+v with 6 streams, want 6 open, 6 claimed", s)
	}
	for i := range 3 { // past the share: refused, each on a new connection, again and again
		if _, _, st := dial(t, "127.0.0.1", addr, true); st != http.StatusServiceUnavailable {
			t.Fatalf("claim %d past the share of 6: %d, want 503", i+1, st)
		}
	}
	if s := l.Stats(); s.Streams != 6 || s.RefusedStreams != 3 || s.RefusedTotal != 0 {
		t.Errorf("stats %+v, want 6 claimed, 3 claims refused, no connection refused", s)
	}
	streams[0].Close()
	waitFor(t, func() bool { return l.Stats().Streams == 5 })
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 200 {
		t.Errorf("a claim after a stream closed: %d, want 200", st)
	}
}

// Streams set explicitly are the share; a context of no listener's
// connection claims nothing and is never refused.
func TestStreamsOption(t *testing.T) {
	l, addr := serveStreams(t, connlimit.Options{Max: 8, Streams: 1}, streamHandler)
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 200 {
		t.Fatalf("the one stream: %d", st)
	}
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != http.StatusServiceUnavailable {
		t.Errorf("a second stream of Streams 1: %d, want 503", st)
	}
	if !connlimit.Claim(context.Background()) {
		t.Error("a claim without a connection was refused")
	}
	if got := l.Stats().Streams; got != 1 {
		t.Errorf("%d claimed, want 1", got)
	}
	if got := []int{connlimit.StreamShare(1), connlimit.StreamShare(10), connlimit.StreamShare(connlimit.CeilingMax)}; got[0] != 0 || got[1] != 7 || got[2] != 12288 {
		t.Errorf("shares of 1, 10 and the ceiling: %v, want [0 7 12288]", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
	}
}
