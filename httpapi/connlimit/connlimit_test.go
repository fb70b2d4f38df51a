package connlimit_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// serve runs an HTTP server on a bounded loopback listener.
func serve(t *testing.T, opt connlimit.Options, h http.Handler) (*connlimit.Listener, string) {
	t.Helper()
	return serveOn(t, "127.0.0.1:0", opt, h)
}

// serveOn is serve on the local address at.
func serveOn(t *testing.T, at string, opt connlimit.Options, h http.Handler) (*connlimit.Listener, string) {
	t.Helper()
	inner, err := net.Listen("tcp", at)
	if err != nil {
		t.Fatal(err)
	}
	opt.Busy = httpapi.Busy
	l := connlimit.Wrap(inner, opt)
	srv := &http.Server{Handler: h, ConnState: l.ConnState, IdleTimeout: time.Minute}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, inner.Addr().String()
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })

// dial opens a connection from the local address from and, when request
// is set, sends one keep-alive request and reads the answer's status.
func dial(t *testing.T, from, addr string, request bool) (net.Conn, *bufio.Reader, int) {
	if from != "127.0.0.1" {
		loadertest.OtherLoopbacks(t)
	}
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	br := bufio.NewReader(c)
	if !request {
		return c, br, 0
	}
	return c, br, roundTrip(t, c, br)
}

func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader) int {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// waitIdle waits until n of l's connections are idle (the server marks a
// connection idle only after the client has read its answer).
func waitIdle(t *testing.T, l *connlimit.Listener, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Idle != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d idle connections, want %d", l.Stats().Idle, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// closed reports whether the server has closed the connection c (read
// through br).
func closed(c net.Conn, br *bufio.Reader) bool {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	_, err := br.ReadByte()
	return err == io.EOF || (err != nil && !errors.Is(err, os.ErrDeadlineExceeded))
}

// TestPerAddr: one address holds at most PerAddr connections; the next
// closes that address's connection idle the longest, not an older idle
// one of another address, and is served.
func TestPerAddr(t *testing.T) {
	l, addr := serve(t, connlimit.Options{Max: 100, PerAddr: 3}, ok)
	other, otherR, st := dial(t, "127.0.0.2", addr, true)
	if st != 200 {
		t.Fatalf("another address: %d", st)
	}
	waitIdle(t, l, 1)
	var conns []net.Conn
	var readers []*bufio.Reader
	for i := 0; i < 3; i++ {
		c, br, st := dial(t, "127.0.0.1", addr, true)
		if st != 200 {
			t.Fatalf("connection %d: %d", i, st)
		}
		conns, readers = append(conns, c), append(readers, br)
		waitIdle(t, l, i+2)
	}
	// Make connection 0 its address's youngest idle one: 1 is the oldest.
	if roundTrip(t, conns[0], readers[0]) != 200 {
		t.Fatal("reuse of connection 0")
	}
	waitIdle(t, l, 4)
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 200 {
		t.Errorf("the 4th connection of one address, its others idle: %d, want 200", st)
	}
	if !closed(conns[1], readers[1]) {
		t.Error("the address's oldest idle connection is still open")
	}
	for _, i := range []int{0, 2} {
		if roundTrip(t, conns[i], readers[i]) != 200 {
			t.Errorf("a younger idle connection (%d) of the address was closed", i)
		}
	}
	if roundTrip(t, other, otherR) != 200 {
		t.Error("another address's older idle connection was closed")
	}
	if s := l.Stats(); s.EvictedAddr != 1 || s.Evicted != 0 || s.RefusedAddr != 0 || s.Open != 4 {
		t.Errorf("stats %+v", s)
	}
}

// TestPerAddrNoneIdle: with an address's PerAddr connections all busy,
// its next one is answered 503 and closed at once; another address is
// served.
func TestPerAddrNoneIdle(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
	})
	l, addr := serve(t, connlimit.Options{Max: 100, PerAddr: 2}, slow)
	for i := 0; i < 2; i++ {
		c, _, _ := dial(t, "127.0.0.1", addr, false)
		io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	deadline := time.Now().Add(5 * time.Second)
	for s := l.Stats(); (s.Open != 2 || s.Idle != 0) && time.Now().Before(deadline); s = l.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 503 {
		t.Errorf("the 3rd connection of one address, none idle: %d, want 503", st)
	}
	if _, _, st := dial(t, "127.0.0.2", addr, true); st != 200 {
		t.Errorf("another address: %d", st)
	}
	if s := l.Stats(); s.RefusedAddr != 1 || s.EvictedAddr != 0 || s.Open != 3 {
		t.Errorf("stats %+v", s)
	}
}

// TestOldestIdleFirst: at Max, a new connection closes the connection
// idle the longest, and is served.
func TestOldestIdleFirst(t *testing.T) {
	l, addr := serve(t, connlimit.Options{Max: 5}, ok)
	// Each is waited for idle, so that they idle in the order dialled.
	var conns []net.Conn
	var readers []*bufio.Reader
	for i := 0; i < 5; i++ {
		c, br, st := dial(t, "127.0.0.1", addr, true)
		if st != 200 {
			t.Fatalf("connection %d: %d", i, st)
		}
		conns, readers = append(conns, c), append(readers, br)
		waitIdle(t, l, i+1)
	}
	// Make connection 0 the youngest idle one: 1 is now the oldest.
	if roundTrip(t, conns[0], readers[0]) != 200 {
		t.Fatal("reuse of connection 0")
	}
	waitIdle(t, l, 5)
	if _, _, st := dial(t, "127.0.0.2", addr, true); st != 200 {
		t.Fatalf("a new client at the bound: %d", st)
	}
	conns[1].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := readers[1].ReadByte(); err == nil {
		t.Error("the oldest idle connection is still open")
	}
	if roundTrip(t, conns[0], readers[0]) != 200 {
		t.Error("a younger idle connection was closed")
	}
	if s := l.Stats(); s.Evicted != 1 || s.Open != 5 {
		t.Errorf("stats %+v", s)
	}
}

// TestNoneIdle: at Max with every connection busy, a new one is refused.
func TestNoneIdle(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release })
	l, addr := serve(t, connlimit.Options{Max: 2}, slow)
	for i := 0; i < 2; i++ {
		c, _, _ := dial(t, "127.0.0.1", addr, false)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	// Both accepted and busy (before its Accept a connection is not
	// counted at all, so Idle 0 alone does not say it).
	deadline := time.Now().Add(5 * time.Second)
	for s := l.Stats(); (s.Open != 2 || s.Idle != 0) && time.Now().Before(deadline); s = l.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	c, br, _ := dial(t, "127.0.0.2", addr, false)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := br.ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 503") {
		t.Errorf("over the bound with none idle: %q, want a 503", line)
	}
	if s := l.Stats(); s.RefusedTotal != 1 || s.Open != 2 {
		t.Errorf("stats %+v", s)
	}
}

// TestPressure: past three quarters of Max, idle connections are closed
// after PressureIdle, down to the three quarters.
func TestPressure(t *testing.T) {
	const idle = time.Second
	l, addr := serve(t, connlimit.Options{Max: 8, PressureIdle: idle}, ok)
	start := time.Now()
	for i := 0; i < 8; i++ {
		dial(t, "127.0.0.1", addr, true)
	}
	// Two sweeps (every quarter of PressureIdle) later, none has idled for
	// PressureIdle yet, unless this machine stalled that long.
	time.Sleep(idle / 2)
	if s := l.Stats(); time.Since(start) < idle && s.Open != 8 {
		t.Errorf("stats %+v after %v: closed before idling for %v", s, time.Since(start), idle)
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.Stats().Open > 6 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if s := l.Stats(); s.Open != 6 || s.Pressured != 2 {
		t.Errorf("stats %+v, want 6 open after 2 closed under pressure", s)
	}
}

func TestDefaultMax(t *testing.T) {
	if m := connlimit.DefaultMax(); m < 64 || m > connlimit.CeilingMax {
		t.Errorf("DefaultMax %d", m)
	}
}

func TestMaxFor(t *testing.T) {
	for nofile, want := range map[int]int{0: 1024, 100: 64, 1024: 768, 4096: 3687, 20000: 16384} {
		if got := connlimit.MaxFor(nofile); got != want {
			t.Errorf("maxFor(%d) = %d, want %d", nofile, got, want)
		}
	}
}

// TestPerAddrReleased: a closed connection frees its place in its
// address's count, no more; once an address has no connection left, the
// listener forgets it.
func TestPerAddrReleased(t *testing.T) {
	l, addr := serve(t, connlimit.Options{Max: 100, PerAddr: 2}, ok)
	first, _, st1 := dial(t, "127.0.0.1", addr, true)
	_, _, st2 := dial(t, "127.0.0.1", addr, true)
	other, _, st3 := dial(t, "127.0.0.2", addr, true)
	if st1 != 200 || st2 != 200 || st3 != 200 || l.Addrs() != 2 {
		t.Fatalf("statuses %d %d %d, %d addresses", st1, st2, st3, l.Addrs())
	}
	first.Close()
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Open > 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 200 {
		t.Fatalf("a connection in the place of a closed one: %d", st)
	}
	waitIdle(t, l, 3)
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 200 {
		t.Errorf("a third connection of one address, two idle: %d, want 200", st)
	}
	if s := l.Stats(); s.EvictedAddr != 1 || s.Open != 3 {
		t.Errorf("stats %+v after the third, want the address's oldest idle closed", s)
	}
	other.Close()
	for l.Stats().Open > 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := l.Addrs(); n != 1 {
		t.Errorf("%d addresses counted with one address's connections open, want 1", n)
	}
}

// TestPressureIdleDefault: PressureIdle defaults to 5 s, and a value
// given is kept.
func TestPressureIdleDefault(t *testing.T) {
	for given, want := range map[time.Duration]time.Duration{0: 5 * time.Second, -1: 5 * time.Second, time.Millisecond: time.Millisecond} {
		inner, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		l := connlimit.Wrap(inner, connlimit.Options{PressureIdle: given, Busy: httpapi.Busy})
		if got := l.PressureIdle(); got != want {
			t.Errorf("PressureIdle %v: %v, want %v", given, got, want)
		}
		if l.Max() != 1 {
			t.Errorf("Max 0 became %d, want 1", l.Max())
		}
		l.Close()
	}
}

// TestHijackedCounts: a connection a handler hijacks (the live stream)
// counts against both bounds, is never closed as idle, and is counted out
// when the handler closes it.
func TestHijackedCounts(t *testing.T) {
	taken := make(chan net.Conn, 1)
	hijack := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
		taken <- c
	})
	l, addr := serve(t, connlimit.Options{Max: 1, PerAddr: 1}, hijack)
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 200 {
		t.Fatalf("hijacked: %d", st)
	}
	server := <-taken
	if s := l.Stats(); s.Open != 1 || s.Idle != 0 {
		t.Errorf("with the hijacked connection open: %+v", s)
	}
	if _, _, st := dial(t, "127.0.0.1", addr, true); st != 503 {
		t.Errorf("past the bound beside a hijacked connection: %d, want 503", st)
	}
	server.Close()
	if s := l.Stats(); s.Open != 0 {
		t.Errorf("after the handler closed it: %+v", s)
	}
}
