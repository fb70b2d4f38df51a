package httpapi_test

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

// A client that stops reading is ended as too slow, never waited for:
// another stream keeps getting every event, and what the hub queues stays
// within the per-stream bound meanwhile. Its connection goes when it
// leaves.
func TestStreamSlowReaderEnded(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	const buffer = 4
	s := e.streamAPI(httpapi.Options{StreamBuffer: buffer, StreamWriteTimeout: time.Minute})
	// Flags enough for big events: each swap changes the votes of all.
	const n = 2000
	in := make([]memstore.FlagInput, n)
	for i := range in {
		in[i] = memstore.FlagInput{ID: fmt.Sprintf("slow%05d", i), Slug: fmt.Sprintf("slow-%05d", i), Approved: true,
			Category: "SOCIAL", Text: [memstore.NumLangs]string{"a", "b", "c", "d"}, Red: 1}
	}
	swap := func() {
		t.Helper()
		next, err := memstore.Build(e.store.Snapshot(), memstore.Change{Flags: in, LoadedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		e.store.SetSnapshot(next)
	}
	swap()

	// The slow client: a raw connection with a small receive buffer that
	// reads the headers, then nothing.
	u, _ := url.Parse(s.srv.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(conn, "GET /api/public/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", e.key)
	br := bufio.NewReader(conn)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("slow client: %q %v", status, err)
	}
	fast := e.openStream(s, "/api/public/stream?slug=slow-00007")
	fast.next(streamWait, "ready")

	maxPending := 0
	swaps := 0
	for s.api.StreamsEnded("too_slow") == 0 && swaps < 400 {
		for i := range in {
			in[i].Red++
		}
		swap()
		swaps++
		ev := decodeVotes(t, fast.next(streamWait, "votes"))
		if len(ev.Flags) != 1 || ev.Flags[0].Votes.Red != in[7].Red {
			t.Fatalf("swap %d: the other stream got %+v, want slow-00007 at %d red", swaps, ev.slugs(), in[7].Red)
		}
		maxPending = max(maxPending, s.api.StreamStats().PendingBytes)
	}
	// Ended, the stream waits (for the write timeout at most) for its
	// client to take the rest of the event in progress and the end; the
	// client leaves instead.
	conn.Close()
	waitFor(t, func() bool { return s.api.Streams() == 1 })
	// Each event is about n * 80 bytes: the queue never held more than
	// buffer events of it.
	if limit := buffer * n * 100; maxPending > limit {
		t.Errorf("the hub queued %d bytes for the slow stream, over %d", maxPending, limit)
	}
	if got := s.api.StreamsEnded("too_slow"); got != 1 {
		t.Errorf("%d streams ended as too slow, want 1 (after %d swaps)", got, swaps)
	}
	// The other stream goes on.
	in[7].Red += 10
	swap()
	if ev := decodeVotes(t, fast.next(streamWait, "votes")); ev.Flags[0].Votes.Red != in[7].Red {
		t.Errorf("after the slow one ended: %+v", ev)
	}
}
