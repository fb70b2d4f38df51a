package stream

import (
	"fmt"
	"io"
	"net/http/httputil"
	"strings"
	"testing"
	"time"
)

// fanOut queues frame for every open stream, as a snapshot's event is
// queued (Hub.swapped) but without a snapshot: the tests of the writing
// need frames of a given size at once, not the time it takes to build
// and encode snapshots (most of a second each for 2,000 flags under the
// race detector).
func fanOut(h *Hub, frame []byte) {
	h.mu.Lock()
	var wake []*client
	for c := range h.clients {
		wake = h.push(wake, c, frame)
	}
	h.mu.Unlock()
	h.scheduleAll(wake)
}

// padded is a votes event of about n bytes, numbered i.
func padded(i, n int) []byte {
	return fmt.Appendf(nil, "event: votes\ndata: {\"n\":%d,\"pad\":\"%s\"}\n\n", i, strings.Repeat("x", n))
}

// endReason is the stream's end reason, "" while it goes on.
func (c *client) endReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// took reports whether a writer has taken what the stream had queued
// (and is writing it, or has written it).
func (c *client) took() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return (c.state == busy || c.state == idle) && len(c.queue) == 0
}

// waitFor waits until cond holds, failing the test after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 10 s")
		}
	}
}

// slowClient reads the events of a stream's client end at rate bytes a
// second (through the chunked coding when chunked) and sends each to the
// channel it returns, from its event line on, or "error: ..." when the
// body ends without its end.
func slowClient(r io.Reader, rate int, chunked bool) <-chan string {
	var body io.Reader = throttled{r, rate}
	if chunked {
		body = httputil.NewChunkedReader(body)
	}
	out := make(chan string, 1000)
	go func() {
		defer close(out)
		for ev := range readEvents(body) {
			if i := strings.Index(ev, "event: "); i >= 0 {
				out <- strings.TrimSpace(ev[i:])
			} else if strings.HasPrefix(ev, "error: ") {
				out <- ev
			}
		}
	}()
	return out
}

// A client that keeps reading, but slower than a batch of queued events
// can be written within the write timeout, is not cut for it: the
// timeout runs from the last byte it took. It reads every event whole and
// in order, and the end event when the hub closes. (Before, one deadline
// covered the whole batch: the stream was closed in the middle of it,
// without an end event.)
func TestSlowReaderOfABatchIsNotCut(t *testing.T) {
	// The client reads at 400 KB/s: what loopback TCP holds for it (~50
	// KB) in an eighth of a second, a fifth of the write timeout; the 12
	// events of 60 KB queued at once take it three times the timeout.
	const timeout, rate, votes, size = 600 * time.Millisecond, 400 << 10, 12, 60 << 10
	h, _, _ := testHub(t, 1, Options{WriteTimeout: timeout, Heartbeat: time.Hour})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	client, server := tcpPair(t, 4<<10)
	events := slowClient(client, rate, true)
	s.Start(server, true)
	if ev := <-events; !strings.HasPrefix(ev, "event: ready") {
		t.Fatalf("first event %q", ev)
	}
	for i := range votes {
		fanOut(h, padded(i, size))
	}
	for i := range votes {
		if ev, want := <-events, strings.TrimSpace(string(padded(i, size))); ev != want {
			t.Fatalf("event %d is %.80q, want the %d bytes of votes %d (ended: %d write, %d too_slow)",
				i+1, ev, len(want), i, h.Ended("write"), h.Ended(ReasonTooSlow))
		}
	}
	h.Close()
	if ev := <-events; ev != "event: end\ndata: {\"reason\":\"shutdown\"}" {
		t.Errorf("after the votes %q, want the shutdown end", ev)
	}
	if n := h.Ended("write"); n != 0 {
		t.Errorf("%d streams cut", n)
	}
}

// A client that keeps reading, only slower than events come, is ended
// too_slow and reads whole events, then the end event, then the close, as
// the contract says: the event in progress when the stream ended is
// finished at the client's pace (each event is a chunk of its own), the
// rest dropped. That holds when the rest of the event takes the client
// longer than a second to read (before, the end had to be written within
// a second of the end: such a client was cut without it).
func TestSlowReaderGetsEndTooSlow(t *testing.T) {
	for _, c := range []struct {
		chunked     bool
		rate, event int // bytes a second; of an event
	}{
		{true, 400 << 10, 60 << 10},
		{false, 400 << 10, 60 << 10},
		{true, 40 << 10, 120 << 10}, // past the ~50 KB socket buffers, three seconds an event
	} {
		h, _, _ := testHub(t, 1, Options{Buffer: 2, Heartbeat: time.Hour})
		s, err := h.Open("k1", nil, "")
		if err != nil {
			t.Fatal(err)
		}
		client, server := tcpPair(t, 4<<10)
		events := slowClient(client, c.rate, c.chunked)
		s.Start(server, c.chunked)
		fanOut(h, padded(0, c.event))
		waitFor(t, s.c.took) // in progress when the stream ends, unless the client has read it
		for i := 1; s.c.endReason() == ""; i++ {
			fanOut(h, padded(i, c.event))
		}
		var got []string
		for ev := range events {
			got = append(got, ev)
		}
		whole := len(got) >= 2 && got[0] == "event: ready\ndata: {}"
		for i, ev := range got[1 : len(got)-1] {
			whole = whole && ev == strings.TrimSpace(string(padded(i, c.event)))
		}
		if last := got[len(got)-1]; !whole || last != "event: end\ndata: {\"reason\":\"too_slow\"}" || h.Ended(ReasonTooSlow) != 1 {
			t.Errorf("chunked %v, %d B/s, events of %d B: ended too_slow %d, write %d; the client read %d events, whole %v, the last %.80q; want whole events and the too_slow end",
				c.chunked, c.rate, c.event, h.Ended(ReasonTooSlow), h.Ended("write"), len(got), whole, last)
		}
	}
}

// A client that takes no byte for the write timeout is cut (it would read
// nothing more), without an end event, and its connection is closed.
func TestStalledReaderCut(t *testing.T) {
	h, _, _ := testHub(t, 1, Options{WriteTimeout: 200 * time.Millisecond, Heartbeat: time.Hour})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	client, server := tcpPair(t, 4<<10)
	s.Start(server, true)
	for i := range 4 { // more than the socket buffers hold
		fanOut(h, padded(i, 60<<10))
	}
	for h.Len() != 0 {
		time.Sleep(time.Millisecond)
	}
	if n := h.Ended("write"); n != 1 {
		t.Errorf("%d streams cut, want 1", n)
	}
	body, _ := io.ReadAll(client)
	if strings.Contains(string(body), "event: end") {
		t.Errorf("a stalled client was sent the end event")
	}
}

// An ended stream gives its key's slot back before its end event goes
// out: a client that reconnects on reading the end, without waiting the
// retry delay the stream opened with, is not refused for its own old
// stream (the key holds one stream at most here).
func TestSlotFreeWhenTheEndIsRead(t *testing.T) {
	h, _, _ := testHub(t, 1, Options{MaxPerKey: 1, Buffer: 2, Heartbeat: time.Hour})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	client, server := tcpPair(t, 4<<10)
	events := slowClient(client, 400<<10, true)
	s.Start(server, true)
	if _, err := h.Open("k1", nil, ""); err != ErrKeyBusy {
		t.Fatalf("a second stream of the key: %v, want ErrKeyBusy", err)
	}
	for i := 0; s.c.endReason() == ""; i++ {
		fanOut(h, padded(i, 60<<10))
	}
	for ev := range events {
		if strings.HasPrefix(ev, "event: end") {
			break
		}
	}
	again, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatalf("reconnecting on reading the end: %v", err)
	}
	again.Close()
}
