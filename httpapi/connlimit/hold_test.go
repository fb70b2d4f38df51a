package connlimit_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// writeCounting counts the writes to the sockets it accepts, a vectored
// write (writev) as one when vec is set, else having none.
type writeCounting struct {
	net.Listener
	writes *atomic.Int64
	vec    bool
}

func (l writeCounting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if l.vec {
		return vecCountingConn{writeCountingConn{c, l.writes}}, err
	}
	return writeCountingConn{c, l.writes}, err
}

type vecCountingConn struct{ writeCountingConn }

func (c vecCountingConn) WriteBuffers(bufs *net.Buffers) (int64, error) {
	c.writes.Add(1)
	return bufs.WriteTo(c.Conn) // the TCP socket's writev
}

type writeCountingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c writeCountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// sizedServer answers /N with N bytes of 'a' and counts the writes to its
// sockets.
func sizedServer(t *testing.T, vec bool) (addr string, writes *atomic.Int64) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	writes = new(atomic.Int64)
	l := connlimit.Wrap(writeCounting{inner, writes, vec}, connlimit.Options{Max: 10, Busy: httpapi.Busy, DeadlineTick: tick})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write([]byte(strings.Repeat("a", n)))
	})
	srv := &http.Server{Handler: h, ConnState: l.ConnState, ReadHeaderTimeout: time.Second,
		ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return inner.Addr().String(), writes
}

// read reads one answer of want bytes from br.
func readSized(t *testing.T, br *bufio.Reader, want int) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("answer of %d bytes: %v", want, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(b) != want || strings.Trim(string(b), "a") != "" {
		t.Fatalf("answer of %d bytes: %d bytes, %v", want, len(b), err)
	}
}

// An answer larger than net/http's 4 KB buffer goes out in one write,
// where net/http makes two: one writev on a connection that has it (one
// without it writes the two as net/http does); every size around the buffer's, the answer of
// exactly 4 KB among them (sent when the connection turns idle), is
// answered whole on a keep-alive connection, one by one and pipelined.
func TestLargeAnswerOneWrite(t *testing.T) {
	for _, vec := range []bool{true, false} {
		t.Run(fmt.Sprintf("writev=%v", vec), func(t *testing.T) { largeAnswerOneWrite(t, vec) })
	}
}

func largeAnswerOneWrite(t *testing.T, vec bool) {
	addr, writes := sizedServer(t, vec)
	c, br, _ := dial(t, "127.0.0.1", addr, false)
	c.SetDeadline(time.Now().Add(15 * time.Second))
	for _, n := range []int{5000, 10000, 20000, 60000} {
		before := writes.Load()
		fmt.Fprintf(c, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", n)
		readSized(t, br, n)
		time.Sleep(10 * time.Millisecond) // the server's part after the answer
		want := int64(1)
		if !vec {
			want = 2 // the held part, then the rest, as net/http writes them
		}
		if w := writes.Load() - before; w != want {
			t.Errorf("an answer of %d bytes took %d writes, want %d", n, w, want)
		}
	}
	var all strings.Builder
	for n := 3800; n <= 4200; n++ {
		fmt.Fprintf(c, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", n)
		readSized(t, br, n)
		fmt.Fprintf(&all, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", n)
	}
	io.WriteString(c, all.String())
	for n := 3800; n <= 4200; n++ {
		readSized(t, br, n)
	}
	// Larger than the joined bound: still whole.
	fmt.Fprintf(c, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", 100000)
	readSized(t, br, 100000)
}

// An answer ending the connection (Connection: close) is sent whole
// whatever its size, the held part with it.
func TestLargeAnswerThenClose(t *testing.T) {
	addr, _ := sizedServer(t, true)
	for n := 3900; n <= 4100; n++ {
		c, br, _ := dial(t, "127.0.0.1", addr, false)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET /%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", n)
		readSized(t, br, n)
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("after the answer of %d bytes: %v, want the connection closed", n, err)
		}
		c.Close()
	}
}

// exact4K answers /a with an answer of exactly 4,096 bytes (status line,
// Content-Length, Content-Type, Date and the blank line are 104), whose
// last flush is a full buffer, held; and anything else with "bbbb".
func exact4K(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	if r.URL.Path == "/a" {
		w.Header().Set("Content-Length", strconv.Itoa(4096-104))
		io.WriteString(w, strings.Repeat("a", 4096-104))
		return
	}
	io.WriteString(w, "bbbb")
}

// pipeHTTP serves h through a Listener on one in-memory connection
// (writes wait for the client's reads) and returns the client's end.
func pipeHTTP(t *testing.T, h http.HandlerFunc, writeTimeout time.Duration) (*http.Server, net.Conn) {
	t.Helper()
	p := newPipeListener(1)
	l := connlimit.Wrap(p, connlimit.Options{Max: 10, Busy: httpapi.Busy, DeadlineTick: tick})
	srv := &http.Server{Handler: h, ConnState: l.ConnState, ReadHeaderTimeout: time.Minute,
		ReadTimeout: time.Minute, WriteTimeout: writeTimeout, IdleTimeout: time.Minute}
	a, b := net.Pipe()
	p.conns <- a
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close(); b.Close() })
	return srv, b
}

// The held last 4 KB of an answer goes out under the answer's write
// deadline, before the connection is idle: a client that reads nothing
// past the answer's WriteTimeout gets no answer and a closed connection,
// never the next pipelined request's answer in its place.
func TestHeldAnswerUnderItsDeadline(t *testing.T) {
	_, c := pipeHTTP(t, exact4K, 300*time.Millisecond)
	go io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(time.Second) // past the answer's write deadline, reading nothing
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	if len(got) > 0 {
		t.Fatalf("after its write deadline the server sent %q..., %v; want nothing, the connection closed", got[:min(len(got), 40)], err)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the connection stayed open after its held answer failed to go out")
	}
}

// A handler that answers after WriteTimeout has passed sends nothing, as
// net/http alone does, its held last 4 KB included.
func TestHeldAnswerAfterWriteTimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) { time.Sleep(700 * time.Millisecond); exact4K(w, r) }
	_, c := pipeHTTP(t, slow, 300*time.Millisecond)
	go io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got, _ := io.ReadAll(c); len(got) > 0 {
		t.Fatalf("answered %d bytes after WriteTimeout (300 ms) passed; net/http alone sends none", len(got))
	}
}

// A graceful Shutdown waits for an answer whose last 4 KB is held, as it
// waits for any active connection: the client reading late gets it whole.
func TestHeldAnswerSurvivesShutdown(t *testing.T) {
	srv, c := pipeHTTP(t, exact4K, time.Minute)
	go io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(200 * time.Millisecond) // the answer waits on the client's read
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- srv.Shutdown(ctx)
	}()
	time.Sleep(300 * time.Millisecond)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	if len(got) != 4096 {
		t.Fatalf("a graceful Shutdown cut the answer: %d of 4096 bytes (%v)", len(got), err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// Server.Close does not wait on a client that reads nothing for the part
// an answer holds: the answer is being cut anyway.
func TestServerCloseWithHeldPart(t *testing.T) {
	srv, c := pipeHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10000")
		io.WriteString(w, strings.Repeat("a", 5000)) // a full buffer flushed: held
		time.Sleep(3 * time.Second)
	}, time.Minute)
	go io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	srv.Close()
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Server.Close took %v with a held part and a client reading nothing", took)
	}
}
