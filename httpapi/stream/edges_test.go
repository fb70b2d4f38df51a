package stream

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// closeCounting counts the Close calls of a connection.
type closeCounting struct {
	*net.TCPConn
	closed *atomic.Int32
}

func (c closeCounting) Close() error { c.closed.Add(1); return c.TCPConn.Close() }

// A stream opened before the hub closed and started after it (a handler
// between Open and Start while the server stops) is told shutdown, and
// its connection is closed once the client has read that: no descriptor
// or connection slot is left behind.
func TestLateStartClosesConn(t *testing.T) {
	h, _, _ := testHub(t, 10, Options{})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	client, server := tcpPair(t, 0)
	var closed atomic.Int32
	s.Start(closeCounting{server, &closed}, false)
	body, _ := io.ReadAll(client) // the opening, the end event, then the server's FIN
	client.Close()
	if !strings.Contains(string(body), "event: end\ndata: {\"reason\":\"shutdown\"}") {
		t.Errorf("a late stream read %q, want the shutdown end", body)
	}
	for deadline := time.Now().Add(5 * time.Second); closed.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if closed.Load() == 0 {
		t.Error("the server side of a late stream was never closed")
	}
}

// The hub asks every stream for a comment line every two thirds of
// Heartbeat, the contract's bound, which leaves the writers a third to
// deliver it (the time they take is the fan-out delay BenchmarkStreams
// measures); each time, every idle stream gets one, however many streams
// the writers reach in turn.
func TestHeartbeatReachesEveryStream(t *testing.T) {
	const beat = time.Hour // the ticker never fires: the test asks itself
	h, _, _ := testHub(t, 10, Options{Heartbeat: beat, MaxPerKey: 1000})
	if got := h.beatEvery(); got != beat*2/3 {
		t.Errorf("the hub asks for heartbeats every %s, want two thirds of %s", got, beat)
	}
	const n = 200
	readers := make([]*bufio.Reader, n)
	next := func(i int) string { // the next line of client i
		t.Helper()
		line, err := readers[i].ReadString('\n')
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		return line
	}
	for i := range readers {
		s, err := h.Open("k1", nil, "")
		if err != nil {
			t.Fatal(err)
		}
		c, server := tcpPair(t, 0)
		c.SetReadDeadline(time.Now().Add(time.Minute)) // a fail-safe
		s.Start(server, false)
		readers[i] = bufio.NewReader(c)
		for next(i) != "event: ready\n" {
		}
		next(i) // its data
		next(i) // and the blank line after it
	}
	for round := range 3 {
		h.heartbeats()
		for i := range readers {
			if a, b := next(i), next(i); a != ": ping\n" || b != "\n" {
				t.Fatalf("round %d, client %d: %q %q, want the comment line", round, i, a, b)
			}
		}
	}
}

// A stream resuming from long ago is sent what it missed only when that
// fits a stream's queue (BufferBytes); more gets resync, so a burst of
// reconnects (as too_slow asks of its clients) holds no more than
// streams that never left.
func TestResumeWithinBufferBound(t *testing.T) {
	h, st, in := testHub(t, 500, Options{MaxPerKey: 100, BufferBytes: 64 << 10})
	first := h.positionNow()
	all := every(in)
	vote(t, st, in, all...) // one event, ~15 KB: resumed
	s, err := h.Open("k1", nil, first)
	if err != nil {
		t.Fatal(err)
	}
	if o := string(s.opening); !strings.Contains(o, "event: votes") || strings.Contains(o, "resync") {
		t.Errorf("a resume of one event: %.200q", o)
	}
	s.Close()
	for range 10 { // ~150 KB missed: resync
		vote(t, st, in, all...)
	}
	s, err = h.Open("k1", nil, first)
	if err != nil {
		t.Fatal(err)
	}
	if o := string(s.opening); strings.Contains(o, "event: votes") || !strings.Contains(o, "event: resync") || len(o) > 1<<10 {
		t.Errorf("a resume past the buffer: %d bytes, %.200q", len(o), o)
	}
	s.Close()
}

// A stream ended too_slow whose client reads nothing, its write in
// progress waiting on the client: Close cuts that write too and returns
// with no stream left (Close waits for no stream past endWrite).
func TestCloseAfterATooSlowEnd(t *testing.T) {
	h, _, _ := testHub(t, 1, Options{Buffer: 4, Heartbeat: time.Hour})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, server := tcpPair(t, 8<<10)
	s.Start(server, true)
	fanOut(h, padded(0, 60<<10)) // more than the socket buffers take
	waitFor(t, s.c.took)
	for i := 1; s.c.endReason() == ""; i++ {
		fanOut(h, padded(i, 60<<10))
	}
	if s.c.endReason() != ReasonTooSlow {
		t.Fatalf("the stream ended %q, want too_slow", s.c.endReason())
	}
	h.Close()
	if n := h.Len(); n != 0 {
		t.Errorf("Close returned with %d streams open", n)
	}
}
