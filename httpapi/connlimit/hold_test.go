package connlimit_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
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
// where net/http makes two: one writev on a connection that has it, else
// one write up to 32 KB; every size around the buffer's, the answer of
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
		if !vec && n > 32<<10 {
			want = 2 // beyond the copy's bound: the held part, then the rest
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
