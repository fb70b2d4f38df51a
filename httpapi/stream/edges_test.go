package stream

import (
	"bufio"
	"io"
	"net"
	"net/http/httputil"
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

// A client that keeps reading, only slower than events come, is ended as
// too_slow, and reads whole events and then the end event before the
// close, as the contract says: the write in progress when the stream
// ended finishes its event (each event is a chunk of its own) and drops
// the rest, within endWrite of the end.
func TestSlowReaderGetsEndTooSlow(t *testing.T) {
	for _, c := range []struct {
		chunked bool
		rate    int // bytes a second
	}{{true, 400 << 10}, {false, 400 << 10}} {
		chunked := c.chunked
		h, st, in := testHub(t, 2000, Options{Buffer: 4, Heartbeat: time.Hour})
		s, err := h.Open("k1", nil, "")
		if err != nil {
			t.Fatal(err)
		}
		client, server := tcpPair(t, 8<<10)
		done := make(chan []string, 1)
		go func() { // the events' names, and a read error
			var body io.Reader = throttled{client, c.rate}
			if chunked {
				body = httputil.NewChunkedReader(body)
			}
			var evs []string
			for ev := range readEvents(body) {
				if i := strings.Index(ev, "event: "); i >= 0 {
					evs = append(evs, strings.SplitN(ev[i:], "\n", 2)[0])
				} else if strings.HasPrefix(ev, "error: ") {
					evs = append(evs, ev)
				}
			}
			done <- evs
		}()
		s.Start(server, chunked)
		all := every(in)
		// ~60 KB an event, 50 a second: 3 MB/s against a 400 KB/s reader.
		for i := 0; i < 400 && h.Len() == 1; i++ {
			vote(t, st, in, all...)
			time.Sleep(20 * time.Millisecond)
		}
		var evs []string
		select {
		case evs = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the stream did not end")
		}
		if len(evs) < 2 || evs[len(evs)-1] != "event: end" || h.Ended(ReasonTooSlow) != 1 {
			t.Errorf("chunked %v, %d B/s: ended too_slow %d; the client read %d events, the last three %q, want whole events and the end",
				chunked, c.rate, h.Ended(ReasonTooSlow), len(evs), evs[max(0, len(evs)-3):])
		}
	}
}

// A stream ended too_slow whose client reads nothing: its write in
// progress is cut and its end tried within endWrite of its end (plus
// endReserve), not endWrite after the cut, so a Close that comes
// meanwhile returns with no stream left (before: 2 s and more, past
// closeWait).
func TestCloseAfterATooSlowEnd(t *testing.T) {
	h, st, in := testHub(t, 2000, Options{Buffer: 4, Heartbeat: time.Hour})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, server := tcpPair(t, 8<<10)
	s.Start(server, true)
	all := every(in)
	ended := func() string { s.c.mu.Lock(); defer s.c.mu.Unlock(); return s.c.ended }
	for i := 0; i < 100 && ended() == ""; i++ {
		vote(t, st, in, all...)
		time.Sleep(5 * time.Millisecond)
	}
	if ended() != ReasonTooSlow {
		t.Fatalf("the stream ended %q, want too_slow", ended())
	}
	h.Close()
	if n := h.Len(); n != 0 {
		t.Errorf("Close returned with %d streams open", n)
	}
}
