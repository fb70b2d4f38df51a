package connlimit_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// tick is the deadlines' sweep of these tests.
const tick = 20 * time.Millisecond

// pipeConn is a server connection through a Listener sweeping every
// every, and its client end.
func pipeConn(t *testing.T, every time.Duration) (server, client net.Conn) {
	t.Helper()
	_, server, client = pipeConnOf(t, every)
	return server, client
}

// pipeConnOf is pipeConn and its Listener.
func pipeConnOf(t *testing.T, every time.Duration) (_ *connlimit.Listener, server, client net.Conn) {
	t.Helper()
	p := newPipeListener(1)
	l := connlimit.Wrap(p, connlimit.Options{Max: 10, Busy: httpapi.Busy, DeadlineTick: every})
	t.Cleanup(func() { l.Close() })
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	p.conns <- a
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return l, c, b
}

// A deadline due sooner than two ticks goes on the socket at once: the
// live stream's 2 ms write deadline is not stretched to the sweep's tick.
func TestShortDeadlineAtOnce(t *testing.T) {
	c, peer := pipeConn(t, time.Hour) // no sweep in the test's time
	if took, err := readUnder(t, c, 30*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) || took < 30*time.Millisecond {
		t.Fatalf("read: %v after %v, want the deadline exceeded at 30 ms", err, took)
	}
	go func() { peer.Read(make([]byte, 1)) }()
	c.SetWriteDeadline(time.Now().Add(30 * time.Millisecond))
	if _, _, err := connlimit.Within(t, "write", func() (int, error) { return c.Write([]byte("abc")) }); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write: %v, want the deadline exceeded", err)
	}
}

// Deadlines still fire after the listener is closed (a server shutting
// down), while its connections are open.
func TestDeadlinesAfterClose(t *testing.T) {
	l, c, _ := pipeConnOf(t, tick)
	l.Close()
	time.Sleep(3 * tick)
	// A deadline beyond two ticks: the sweep's.
	if took, err := readUnder(t, c, time.Second); !errors.Is(err, os.ErrDeadlineExceeded) || took < time.Second {
		t.Fatalf("read after Close: %v after %v, want the deadline exceeded at 1 s", err, took)
	}
}

// readUnder sets c's read deadline d from now and reads one byte; it
// returns the error and how long after the deadline was set the read
// ended, so a read ended before d is one whose deadline fired early
// however long the setting itself took.
func readUnder(t *testing.T, c net.Conn, d time.Duration) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(d))
	_, err := readAfter(t, c)
	return time.Since(start), err
}

// writeAfter writes b to peer d from now, and returns now: a read of it
// ends no sooner than d after.
func writeAfter(peer net.Conn, d time.Duration, b string) time.Time {
	start := time.Now()
	go func() {
		time.Sleep(d)
		peer.Write([]byte(b))
	}()
	return start
}

// readAfter reads one byte from c and returns how long it took and the
// error; it fails t if that takes more than 5 seconds.
func readAfter(t *testing.T, c net.Conn) (time.Duration, error) {
	t.Helper()
	_, took, err := connlimit.Within(t, "read", func() (int, error) { return c.Read(make([]byte, 1)) })
	return took, err
}

// A read deadline fires once it has passed, not before, and within a few
// ticks after.
func TestReadDeadlineFires(t *testing.T) {
	c, _ := pipeConn(t, tick)
	took, err := readUnder(t, c, 150*time.Millisecond)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v, want the deadline exceeded", err)
	}
	if took < 150*time.Millisecond || took > 150*time.Millisecond+time.Second {
		t.Fatalf("the deadline fired after %v, want 150 ms and at most a few ticks more", took)
	}
	// Passed, it stays passed: the next read fails at once.
	if _, err := readAfter(t, c); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after the deadline: %v", err)
	}
}

// A deadline moved later before it passes keeps the read going: the
// earlier one never fires.
func TestReadDeadlineMovedLater(t *testing.T) {
	c, peer := pipeConn(t, tick)
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	sent := writeAfter(peer, 300*time.Millisecond, "x")
	if _, err := readAfter(t, c); err != nil || time.Since(sent) < 300*time.Millisecond {
		t.Fatalf("read: %v after %v, want the byte sent at 300 ms", err, time.Since(sent))
	}
	// Cleared, none fires.
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	c.SetReadDeadline(time.Time{})
	sent = writeAfter(peer, 300*time.Millisecond, "y")
	if _, err := readAfter(t, c); err != nil || time.Since(sent) < 300*time.Millisecond {
		t.Fatalf("read with no deadline: %v after %v", err, time.Since(sent))
	}
}

// A deadline in the past aborts a read in progress at once, as net/http
// does to end its background read; clearing it lets the next read wait
// for data again.
func TestPastDeadlineAbortsAtOnce(t *testing.T) {
	c, peer := pipeConn(t, time.Hour) // no sweep in the test's time
	go func() {
		time.Sleep(50 * time.Millisecond)
		c.SetReadDeadline(time.Unix(1, 0))
	}()
	if _, err := readAfter(t, c); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("aborted read: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	sent := writeAfter(peer, 100*time.Millisecond, "z")
	if _, err := readAfter(t, c); err != nil || time.Since(sent) < 100*time.Millisecond {
		t.Fatalf("read after clearing: %v after %v", err, time.Since(sent))
	}
}

// A write deadline fires on a peer that does not read, with what was
// written counted.
func TestWriteDeadlineFires(t *testing.T) {
	c, peer := pipeConn(t, tick)
	go func() { peer.Read(make([]byte, 3)) }() // reads three bytes, then none
	// took counts from before the setting, as readUnder does for reads.
	start := time.Now()
	c.SetWriteDeadline(start.Add(150 * time.Millisecond))
	n, _, err := connlimit.Within(t, "write", func() (int, error) { return c.Write([]byte("abcdef")) })
	took := time.Since(start)
	if !errors.Is(err, os.ErrDeadlineExceeded) || n != 3 {
		t.Fatalf("write: %d, %v; want 3 written and the deadline exceeded", n, err)
	}
	if took < 150*time.Millisecond || took > 150*time.Millisecond+time.Second {
		t.Fatalf("the deadline fired after %v", took)
	}
}

// A socket deadline left in the past by a sweep that raced a later
// deadline is not a timeout: the read clears it and goes on.
func TestSweepRacingLaterDeadline(t *testing.T) {
	c, peer := pipeConn(t, tick)
	for range 50 {
		c.SetReadDeadline(time.Now().Add(tick / 2)) // passes between sweeps
		time.Sleep(tick * 3 / 2)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		go peer.Write([]byte("x"))
		if _, err := readAfter(t, c); err != nil {
			t.Fatalf("read under a later deadline: %v", err)
		}
	}
}

// countingListener counts the deadlines set on the sockets it accepts.
type countingListener struct {
	net.Listener
	sets *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{c, l.sets}, err
}

type countingConn struct {
	net.Conn
	sets *atomic.Int64
}

func (c countingConn) SetReadDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.Conn.SetReadDeadline(t)
}

func (c countingConn) SetWriteDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.Conn.SetWriteDeadline(t)
}

func (c countingConn) SetDeadline(t time.Time) error {
	c.sets.Add(2)
	return c.Conn.SetDeadline(t)
}

// TestDeadlinesPerRequest: a keep-alive request to a server with every
// timeout sets no deadline on its socket, where net/http asks for eight
// (net/http's background read ends at once, so that it aborts none).
// The timeouts still hold: a request that never ends its headers is cut.
func TestDeadlinesPerRequest(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var sets atomic.Int64
	l := connlimit.Wrap(countingListener{inner, &sets}, connlimit.Options{Max: 10, Busy: httpapi.Busy, DeadlineTick: tick})
	srv := &http.Server{Handler: ok, ConnState: l.ConnState, ReadHeaderTimeout: 300 * time.Millisecond,
		ReadTimeout: time.Second, WriteTimeout: time.Second, IdleTimeout: time.Minute}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	c, br, st := dial(t, "127.0.0.1", inner.Addr().String(), true)
	if st != 200 {
		t.Fatalf("first request: %d", st)
	}
	const n = 50
	before := sets.Load()
	for i := range n {
		if st := roundTrip(t, c, br); st != 200 {
			t.Fatalf("request %d: %d", i, st)
		}
	}
	if per := float64(sets.Load()-before) / n; per > 0.2 {
		t.Errorf("%.2f deadlines set on the socket a request, want none", per)
	}
	// Half a request's headers, then nothing: cut at the header timeout.
	start := time.Now()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, err := io.ReadAll(br)
	if took := time.Since(start); err != nil || took < 300*time.Millisecond || took > 3*time.Second {
		t.Fatalf("a request without its headers' end: %q, %v after %v; want the connection closed after 300 ms",
			rest, err, took)
	}
	if len(rest) > 0 && !strings.HasPrefix(string(rest), "HTTP/1.1 408") {
		t.Fatalf("answered %q", rest)
	}
}

// Requests sent together (pipelined), and requests with bodies of every
// size around the server's read buffer, chunked in pieces around it, and
// after 100 Continue, are each answered in turn on one connection, its
// background reads answered at once (see conn.Read).
func TestPipelinedAndBodies(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := connlimit.Wrap(inner, connlimit.Options{Max: 10, Busy: httpapi.Busy, DeadlineTick: tick})
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fmt.Fprintf(w, "%s %d", r.URL.Path, len(b))
	})
	srv := &http.Server{Handler: echo, ConnState: l.ConnState, ReadHeaderTimeout: time.Second,
		ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	c, br, _ := dial(t, "127.0.0.1", inner.Addr().String(), false)
	c.SetDeadline(time.Now().Add(20 * time.Second))
	var reqs, want []string
	for i, size := range []int{0, 1, 0, 4095, 4096, 4097, 0, 10000, 0} {
		path := fmt.Sprintf("/r%d", i)
		if size == 0 {
			reqs = append(reqs, fmt.Sprintf("GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path))
		} else {
			reqs = append(reqs, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s",
				path, size, strings.Repeat("b", size)))
		}
		want = append(want, fmt.Sprintf("%s %d", path, size))
	}
	// A chunked body in pieces around the buffer's size, then one that
	// waits for 100 Continue (sent together here, as a client may).
	var chunked strings.Builder
	for _, n := range []int{1, 4090, 7, 4096, 3} {
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", n, strings.Repeat("c", n))
	}
	reqs = append(reqs, "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"+chunked.String()+"0\r\n\r\n",
		"POST /continue HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"+strings.Repeat("d", 5000))
	want = append(want, "/chunked 8197", "/continue 5000")
	answer := func(round, i int) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		for err == nil && resp.StatusCode == http.StatusContinue {
			resp, err = http.ReadResponse(br, nil) // the interim 100 Continue
		}
		if err != nil {
			t.Fatalf("round %d, answer %d: %v", round, i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want[i] {
			t.Fatalf("round %d, answer %d: %q, want %q", round, i, b, want[i])
		}
	}
	// All in one write (pipelined), then each after the last one's answer.
	io.WriteString(c, strings.Join(reqs, ""))
	for i := range want {
		answer(0, i)
	}
	for i, r := range reqs {
		io.WriteString(c, r)
		answer(1, i)
	}
}
