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

// An idle stream gets a comment line within every Heartbeat, the
// contract's bound, though the hub reaches many streams in turn after
// each tick.
func TestHeartbeatGapWithinBound(t *testing.T) {
	const beat = 300 * time.Millisecond
	h, _, _ := testHub(t, 10, Options{Heartbeat: beat, MaxPerKey: 1000})
	const n = 200
	clients := make([]net.Conn, n)
	for i := range clients {
		s, err := h.Open("k1", nil, "")
		if err != nil {
			t.Fatal(err)
		}
		c, server := tcpPair(t, 0)
		s.Start(server, false)
		clients[i] = c
	}
	gaps := make(chan time.Duration, n)
	for _, c := range clients {
		go func() {
			r := bufio.NewReader(c)
			var last time.Time
			var worst time.Duration
			for deadline := time.Now().Add(5 * beat); time.Now().Before(deadline); {
				line, err := r.ReadString('\n')
				if err != nil {
					break
				}
				if line == ": ping\n" {
					now := time.Now()
					if !last.IsZero() {
						worst = max(worst, now.Sub(last))
					}
					last = now
				}
			}
			gaps <- worst
		}()
	}
	var worst time.Duration
	for range n {
		worst = max(worst, <-gaps)
	}
	if worst == 0 || worst > beat {
		t.Errorf("the longest gap between two comment lines of %d idle streams: %s, want (0, %s]", n, worst, beat)
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
