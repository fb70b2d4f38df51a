package connlimit

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"testing"
	"time"
)

// A read that meets a past deadline on the socket while the one asked for
// is later (a sweep that forced the socket's deadline just after a later
// one was set) clears the socket's and reads on.
func TestReadAfterRacingSweep(t *testing.T) {
	l, c, a, b := sweeplessConn(t, 0)
	// The state the race leaves: a later deadline asked for, the socket's
	// set to one that has passed.
	c.rd.want.Store(int64(time.Since(l.base) + time.Minute))
	c.rd.onSocket.Store(true)
	a.SetReadDeadline(time.Unix(1, 0))
	go b.Write([]byte("x"))
	if _, _, err := within(t, "read", func() (int, error) { return c.Read(make([]byte, 1)) }); err != nil {
		t.Fatalf("read: %v, want the byte", err)
	}
	if c.rd.onSocket.Load() {
		t.Error("the socket still holds a deadline, a minute away")
	}
	// Once the deadline asked for has passed, the timeout is the read's.
	c.rd.want.Store(int64(time.Since(l.base) - time.Second))
	c.rd.onSocket.Store(true)
	a.SetReadDeadline(time.Unix(1, 0))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("a read past its deadline succeeded")
	}
}

// nopListener accepts nothing.
type nopListener struct{ net.Listener }

func (nopListener) Close() error { return nil }

// A connection the inner listener hands over after Close, once the sweep
// has ended, is refused: nothing would put its deadlines on the socket.
func TestAdmitAfterSweepEnded(t *testing.T) {
	l := Wrap(nopListener{}, Options{Max: 10, Busy: func() []byte { return nil }, DeadlineTick: 5 * time.Millisecond})
	l.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.swept }() {
		if time.Now().After(deadline) {
			t.Fatal("the sweep did not end after Close with no connection")
		}
		time.Sleep(5 * time.Millisecond)
	}
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	if _, _, ok := l.admit(a, netip.AddrFrom4([4]byte{10, 0, 0, 2})); ok {
		t.Fatal("a connection admitted after the sweep ended")
	}
}

// within runs op (a read or a write, what), returning what it returned
// and how long it took; it fails t if op still waits after 5 seconds.
func within(t testing.TB, what string, op func() (int, error)) (int, time.Duration, error) {
	t.Helper()
	type result struct {
		n   int
		err error
	}
	start := time.Now()
	done := make(chan result, 1)
	go func() {
		n, err := op()
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, time.Since(start), r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("a %s still waits after 5 s", what)
		return 0, 0, nil
	}
}

// A conn judges a deadline near by the last sweep's clock where that is
// enough, and by the monotonic clock where it is not: a short deadline set
// while the sweep is behind (its clock 700 ms old, past two ticks) still
// goes on the socket at once; one far ahead stays off it; a past one,
// with no read waiting, stays off it too, and the next read times out at
// once.
func TestDeadlineWithSweepBehind(t *testing.T) {
	_, c, _, _ := sweeplessConn(t, 700*time.Millisecond)

	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if c.rd.onSocket.Load() {
		t.Fatal("a deadline 5 s ahead went on the socket")
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	if !c.rd.onSocket.Load() {
		t.Fatal("a deadline 30 ms ahead, the sweep's clock 700 ms old, is not on the socket")
	}
	if _, took, err := within(t, "read", func() (int, error) { return c.Read(make([]byte, 1)) }); !errors.Is(err, os.ErrDeadlineExceeded) || took > 2*time.Second {
		t.Fatalf("read: %v after %v, want the deadline exceeded at 30 ms", err, took)
	}
	c.SetReadDeadline(time.Time{})
	if c.rd.onSocket.Load() {
		t.Fatal("a cleared deadline stayed on the socket")
	}
	c.SetReadDeadline(time.Unix(1, 0))
	if c.rd.onSocket.Load() {
		t.Fatal("a past deadline went on the socket with no read waiting")
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v, want the deadline exceeded", err)
	}
}

// A read meeting the socket's deadline while the one asked for is near
// but not passed by the last sweep's clock reads on: the sweep's clock
// tells only that a deadline has passed, never that it has not.
func TestReadNearDeadlineAfterRacingSweep(t *testing.T) {
	l, c, a, b := sweeplessConn(t, time.Second)
	l.clock.Store(int64(time.Since(l.base)))
	c.rd.want.Store(int64(time.Since(l.base) + 150*time.Millisecond))
	c.rd.onSocket.Store(true)
	a.SetReadDeadline(time.Unix(1, 0))
	go b.Write([]byte("x"))
	if _, _, err := within(t, "read", func() (int, error) { return c.Read(make([]byte, 1)) }); err != nil {
		t.Fatalf("read: %v, want the byte (its deadline 150 ms ahead)", err)
	}
}

// The first one-byte read while a request is answered (net/http's
// background read) returns at once with nothing; the next one, and any
// one-byte read while idle, reads the socket.
func TestBackgroundReadAnsweredAtOnce(t *testing.T) {
	l, c, _, b := sweeplessConn(t, 0)
	l.ConnState(c, http.StateActive)
	if n, took, err := within(t, "read", func() (int, error) { return c.Read(make([]byte, 1)) }); n != 0 || err != nil || took > time.Second {
		t.Fatalf("background read: %d, %v after %v; want nothing at once", n, err, took)
	}
	for _, state := range []http.ConnState{http.StateActive, http.StateIdle} {
		if state != http.StateActive {
			l.ConnState(c, state)
		}
		go b.Write([]byte("y"))
		buf := make([]byte, 1)
		if n, _, err := within(t, "read", func() (int, error) { return c.Read(buf) }); n != 1 || err != nil || buf[0] != 'y' {
			t.Fatalf("read after the background read (%v): %d %q, %v; want the byte", state, n, buf, err)
		}
	}
}

// sweeplessConn admits the server end (a) of an in-memory connection (b
// the client's) to a Listener started ago, whose sweep never runs (its
// clock stays at its start) and whose near is 200 ms.
func sweeplessConn(t *testing.T, ago time.Duration) (l *Listener, c *conn, a, b net.Conn) {
	t.Helper()
	l = &Listener{opt: Options{Max: 10}, byAddr: map[netip.Addr]*addrConns{}, conns: map[*conn]struct{}{},
		base: time.Now().Add(-ago), near: int64(200 * time.Millisecond)}
	a, b = net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	c, _, _ = l.admit(a, netip.AddrFrom4([4]byte{10, 0, 0, 1}))
	return l, c, a, b
}
