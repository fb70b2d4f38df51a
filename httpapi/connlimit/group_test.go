package connlimit_test

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// pipeListener hands out the server ends of in-memory connections that
// claim to come from any address the test names: the loopback interface
// holds one IPv6 address only, so hosts of one /64 cannot be dialled from.
// Closing conns, or the listener (as Server.Close and Shutdown do, which
// wait for a waiting Accept to end), ends Accept.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// newPipeListener makes a pipeListener whose conns holds n connections.
func newPipeListener(n int) *pipeListener {
	return &pipeListener{conns: make(chan net.Conn, n), done: make(chan struct{})}
}

func (p *pipeListener) Accept() (net.Conn, error) {
	select {
	case c, ok := <-p.conns:
		if ok {
			return c, nil
		}
	case <-p.done:
	}
	return nil, net.ErrClosed
}
func (p *pipeListener) Close() error   { p.once.Do(func() { close(p.done) }); return nil }
func (p *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv6loopback, Port: 80} }

// fromConn is a connection whose peer is remote.
type fromConn struct {
	net.Conn
	remote *net.TCPAddr
}

func (c fromConn) RemoteAddr() net.Addr { return c.remote }

// offerer returns a function that offers the listener of opt one
// connection from ip and reports whether it was admitted (a refused one
// must have been answered 503). An admitted connection is marked active
// (answering a request) at once, so none is idle to make room.
func offerer(t *testing.T, opt connlimit.Options) func(ip string) bool {
	t.Helper()
	inner := newPipeListener(0)
	opt.Busy = httpapi.Busy
	l := connlimit.Wrap(inner, opt)
	accepted := make(chan net.Conn)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			l.ConnState(c, http.StateActive)
			accepted <- c
		}
	}()
	t.Cleanup(func() { close(inner.conns); l.Close() })
	return func(ip string) bool {
		t.Helper()
		srv, cli := net.Pipe()
		t.Cleanup(func() { cli.Close(); srv.Close() })
		inner.conns <- fromConn{srv, &net.TCPAddr{IP: net.ParseIP(ip), Port: 4711}}
		refused := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(cli)
			refused <- string(b)
		}()
		select {
		case <-accepted:
			return true
		case b := <-refused:
			if !strings.Contains(b, " 503 ") {
				t.Errorf("a connection from %s closed with %q, want a 503", ip, b)
			}
			return false
		case <-time.After(5 * time.Second):
			t.Fatalf("a connection from %s neither admitted nor refused", ip)
			return false
		}
	}
}

// TestPerAddrGroupsIPv6: PerAddr counts an IPv6 client by its /64, as the
// keyless limit does, so one host holding a /64 cannot take every
// connection by using a new address for each; an IPv4 client is counted
// by its address, and an IPv4-mapped IPv6 address as the IPv4 one.
func TestPerAddrGroupsIPv6(t *testing.T) {
	offer := offerer(t, connlimit.Options{Max: 100, PerAddr: 2})
	for _, c := range []struct {
		ip   string
		want bool
	}{
		{"2001:db8:1:2::1", true},
		{"2001:db8:1:2::2", true},
		{"2001:db8:1:2:ffff::3", false}, // the same /64, full
		{"2001:db8:1:3::1", true},       // the next /64
		{"192.0.2.1", true},
		{"::ffff:192.0.2.1", true},
		{"192.0.2.1", false},
		{"::ffff:192.0.2.1", false},
		{"192.0.2.2", true},
	} {
		if got := offer(c.ip); got != c.want {
			t.Errorf("a connection from %s admitted %v, want %v", c.ip, got, c.want)
		}
	}
}

// TestPerAddrExemptIPv6: an exempt address (a trusted proxy) is exempt by
// itself, not its /64: its connections count against no neighbour, and a
// neighbour in its /64 is capped.
func TestPerAddrExemptIPv6(t *testing.T) {
	proxy := netip.MustParseAddr("2001:db8::7")
	offer := offerer(t, connlimit.Options{Max: 100, PerAddr: 1, Exempt: func(a netip.Addr) bool { return a == proxy }})
	for i := range 3 {
		if !offer("2001:db8::7") {
			t.Fatalf("the proxy's connection %d refused", i)
		}
	}
	if !offer("2001:db8::8") {
		t.Error("a neighbour of the proxy refused: the proxy's connections counted against it")
	}
	if offer("2001:db8::9") {
		t.Error("a second connection of the neighbour's /64 admitted")
	}
}

// TestPerAddrIPv6Loopback: over real sockets, an IPv6 client is counted
// under its /64 (::1 under ::), and is capped there: its third connection
// closes its oldest idle one.
func TestPerAddrIPv6Loopback(t *testing.T) {
	inner, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	inner.Close()
	l, addr := serveOn(t, "[::1]:0", connlimit.Options{Max: 100, PerAddr: 2}, ok)
	for i := range 2 {
		if _, _, st := dial(t, "::1", addr, true); st != 200 {
			t.Fatalf("connection %d: %d", i, st)
		}
	}
	waitIdle(t, l, 2)
	if _, _, st := dial(t, "::1", addr, true); st != 200 {
		t.Errorf("the 3rd connection of one /64: %d, want 200", st)
	}
	if s := l.Stats(); s.EvictedAddr != 1 || s.Open != 2 {
		t.Errorf("stats %+v, want the /64's oldest idle connection closed", s)
	}
	if g := l.Groups(); len(g) != 1 || g[0] != netip.MustParseAddr("::") {
		t.Errorf("counted under %v, want [::] (the /64 of ::1)", g)
	}
}
