package stream

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http/httputil"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/memstore"
)

func TestParseFollow(t *testing.T) {
	f, err := ParseFollow("b,a,b,c")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.slugs, ","); got != "a,b,c" || f.key != "a,b,c" {
		t.Errorf("slugs %q key %q, want a,b,c", got, f.key)
	}
	for _, bad := range []string{"", ",", "a,", ",a", "a,,b", strings.Repeat("x", 201), "a\x00", "\xff"} {
		if _, err := ParseFollow(bad); err == nil {
			t.Errorf("ParseFollow(%q) accepted", bad)
		}
	}
	many := make([]string, MaxFollow+1)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	if _, err := ParseFollow(strings.Join(many, ",")); err == nil {
		t.Errorf("%d slugs accepted", len(many))
	}
	if _, err := ParseFollow(strings.Join(many[:MaxFollow], ",") + ",0"); err != nil {
		t.Errorf("%d distinct slugs refused: %v", MaxFollow, err)
	}
	// Each slug twice: 200 parts, 100 distinct, is a valid list; one part
	// more is refused before the slugs are compared.
	twice := strings.Join(many[:MaxFollow], ",") + "," + strings.Join(many[:MaxFollow], ",")
	if f, err := ParseFollow(twice); err != nil || len(f.slugs) != MaxFollow {
		t.Errorf("%d slugs given twice: %v", MaxFollow, err)
	}
	if _, err := ParseFollow(twice + ",0"); err == nil {
		t.Errorf("%d parts accepted", 2*MaxFollow+1)
	}
	if _, err := ParseFollow(strings.Repeat("x", maxSlugBytes)); err != nil {
		t.Errorf("a slug of %d bytes refused: %v", maxSlugBytes, err)
	}
}

func item(b []byte, f *memstore.Flag) []byte {
	return fmt.Appendf(b, `{"slug":%q,"red":%d}`, f.Slug(), f.Red)
}
func str(b []byte, s string) []byte { return fmt.Appendf(b, "%q", s) }

// testHub is a hub over a store holding flags f0..f(n-1), all with 1 red
// vote, and the active key k1.
func testHub(t *testing.T, n int, opt Options) (*Hub, *memstore.Store, []memstore.FlagInput) {
	t.Helper()
	st := &memstore.Store{}
	in := make([]memstore.FlagInput, n)
	for i := range in {
		in[i] = memstore.FlagInput{ID: fmt.Sprintf("f%03d", i), Slug: fmt.Sprintf("s%d", i), Approved: true,
			Category: "SOCIAL", Red: 1}
	}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: in})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	st.SetKeys(memstore.NewKeySet([][sha256.Size]byte{{1}}, []memstore.Key{{ID: "k1"}}, time.Now()))
	opt.Item, opt.String = item, str
	h := New(st, opt)
	t.Cleanup(h.Close)
	return h, st, in
}

// vote gives the flags at idx one more red vote and swaps the snapshot in.
func vote(t *testing.T, st *memstore.Store, in []memstore.FlagInput, idx ...int) {
	t.Helper()
	var ch []memstore.FlagInput
	for _, i := range idx {
		in[i].Red++
		ch = append(ch, in[i])
	}
	s, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: ch})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
}

// Streams following the same flags share one frame of an event, and each
// gets only its flags, in the event's order, whether the event is indexed
// by slug or not.
func TestFanOutByFollowSet(t *testing.T) {
	for _, changed := range []int{3, indexMin + 10} {
		h, st, in := testHub(t, 100, Options{})
		fa, _ := ParseFollow("s2,s1,s99")
		fb, _ := ParseFollow("s1,s2,s99")
		a, err := h.Open("k1", fa, "")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := h.Open("k1", fb, "")
		all, _ := h.Open("k1", nil, "")
		idx := make([]int, changed)
		for i := range idx {
			idx[i] = i
		}
		vote(t, st, in, idx...)
		qa, _ := a.c.take()
		qb, _ := b.c.take()
		qall, _ := all.c.take()
		if len(qa) != 1 || len(qb) != 1 || &qa[0][0] != &qb[0][0] {
			t.Fatalf("%d changed: streams following the same flags got %d and %d frames, not one shared", changed, len(qa), len(qb))
		}
		if want := `"flags":[{"slug":"s1","red":2},{"slug":"s2","red":2}]}`; !strings.Contains(string(qa[0]), want) {
			t.Errorf("%d changed: frame %q, want %s", changed, qa[0], want)
		}
		if len(qall) != 1 || strings.Count(string(qall[0]), `"slug"`) != changed {
			t.Errorf("%d changed: the stream of every flag got %q", changed, qall)
		}
	}
}

// Streams that follow the same slugs, however written, hold one Follow;
// the hub lets it go with the last of them. A Follow keeps none of the
// query it was parsed from.
func TestFollowSetsShared(t *testing.T) {
	h, _, _ := testHub(t, 10, Options{MaxPerKey: 10})
	var streams []*Stream
	for _, q := range []string{"s2,s1", "s1,s2,s1", "s3"} {
		f, err := ParseFollow(q)
		if err != nil {
			t.Fatal(err)
		}
		s, err := h.Open("k1", f, "")
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, s)
	}
	if streams[0].c.follow != streams[1].c.follow || streams[0].c.follow == streams[2].c.follow {
		t.Errorf("streams following s1,s2 hold different sets, or one following s3 holds theirs")
	}
	if len(h.follows) != 2 {
		t.Errorf("the hub holds %d follow sets for 2 distinct ones", len(h.follows))
	}
	for _, s := range streams {
		s.Close()
	}
	h.mu.Lock()
	n := len(h.follows)
	h.mu.Unlock()
	if n != 0 || len(h.byKey) != 0 || len(h.clients) != 0 {
		t.Errorf("after every stream closed the hub holds %d follow sets, %d keys' sets, %d streams", n, len(h.byKey), len(h.clients))
	}
	raw := strings.Repeat("x", 150) + ",y"
	f, _ := ParseFollow(raw)
	if unsafe.StringData(f.slugs[0]) != unsafe.StringData(f.key) {
		t.Errorf("a slug is not a piece of the Follow's own key")
	}
	if unsafe.StringData(f.key) == unsafe.StringData(raw) {
		t.Errorf("the Follow keeps the query it was parsed from")
	}
}

// A stream whose queue is full is ended as too slow, the others not; what
// it holds stays within the bound.
func TestFullQueueEnds(t *testing.T) {
	h, st, in := testHub(t, 10, Options{Buffer: 3})
	slow, _ := h.Open("k1", nil, "")
	fast, _ := h.Open("k1", nil, "")
	for range 5 {
		vote(t, st, in, 0)
		fast.c.take()
		if n := len(slow.c.queue); n > 3 {
			t.Fatalf("the slow stream holds %d events, over 3", n)
		}
	}
	if _, why := slow.c.take(); why != ReasonTooSlow {
		t.Errorf("slow stream ended %q, want too_slow", why)
	}
	if _, why := fast.c.take(); why != "" {
		t.Errorf("fast stream ended %q", why)
	}
}

// The history keeps the latest events: an id within it resumes, one before
// its oldest event gets resync.
func TestResumeWithinRing(t *testing.T) {
	h, st, in := testHub(t, 10, Options{History: 2})
	first := h.positionNow()
	vote(t, st, in, 1)
	mid := h.positionNow()
	vote(t, st, in, 2)
	vote(t, st, in, 3)
	s, _ := h.Open("k1", nil, mid)
	if o := string(s.opening); strings.Contains(o, "resync") || !strings.Contains(o, `"s2"`) || !strings.Contains(o, `"s3"`) {
		t.Errorf("resuming after %s: %q", mid, o)
	}
	s, _ = h.Open("k1", nil, first)
	if o := string(s.opening); !strings.Contains(o, "event: resync") || strings.Contains(o, "votes") {
		t.Errorf("resuming after an evicted event: %q", o)
	}
}

func (h *Hub) positionNow() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return positionID(h.epoch, h.gen)
}

// A snapshot that skips a generation (built from one the hub never saw)
// tells every stream to re-read, whatever it follows, and a position from
// before it can no longer be resumed.
func TestSkippedGenerationResyncs(t *testing.T) {
	h, st, in := testHub(t, 10, Options{})
	before := h.positionNow()
	f, _ := ParseFollow("s1")
	some, _ := h.Open("k1", f, "")
	all, _ := h.Open("k1", nil, "")
	in[5].Red++
	unseen, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{in[5]}})
	if err != nil {
		t.Fatal(err)
	}
	in[6].Red++
	next, err := memstore.Build(unseen, memstore.Change{Flags: []memstore.FlagInput{in[6]}})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(next)
	for name, s := range map[string]*Stream{"following s1": some, "following every flag": all} {
		q, ended := s.c.take()
		if len(q) != 1 || !strings.Contains(string(q[0]), "event: resync\ndata: {}\n\n") || ended != "" {
			t.Errorf("stream %s got %q (ended %q), want one resync", name, q, ended)
		}
	}
	resumed, err := h.Open("k1", nil, before)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resumed.opening), "event: resync") {
		t.Errorf("resumed from before the skip: opening %q, want a resync", resumed.opening)
	}
	vote(t, st, in, 1) // the generation after the skip: votes again
	if q, _ := some.c.take(); len(q) != 1 || !strings.Contains(string(q[0]), "event: votes") {
		t.Errorf("after the skip the next snapshot sent %q, want its votes", q)
	}
}

// A key swap that drops a key ends its streams; a key's streams are
// bounded; a closed hub refuses.
func TestKeysAndBounds(t *testing.T) {
	h, st, _ := testHub(t, 1, Options{MaxPerKey: 2})
	a, _ := h.Open("k1", nil, "")
	if _, err := h.Open("k1", nil, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Open("k1", nil, ""); err != ErrKeyBusy {
		t.Errorf("third stream of a key: %v, want ErrKeyBusy", err)
	}
	if _, err := h.Open("k2", nil, ""); err != ErrRevoked {
		t.Errorf("stream of an unknown key: %v, want ErrRevoked", err)
	}
	st.SetKeys(memstore.NewKeySet(nil, nil, time.Now()))
	if _, why := a.c.take(); why != ReasonRevoked {
		t.Errorf("after the key swap the stream ended %q, want revoked", why)
	}
	h.Close()
	if _, err := h.Open("k1", nil, ""); err != ErrClosed {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

// A client that reads slowly, so that writes wait and the stream goes to
// a goroutine of its own and back, still gets every event whole and in
// order, in valid chunks, then the end event and the last chunk.
func TestSlowReaderGetsEverything(t *testing.T) {
	reg := prometheus.NewRegistry()
	h, st, in := testHub(t, 200, Options{Heartbeat: time.Hour, Metrics: reg})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	server, client := net.Pipe() // every write waits for the reader
	defer client.Close()
	events := readEvents(httputil.NewChunkedReader(throttled{client, 512 << 10}))
	s.Start(server, true)
	all := every(in)
	const votes = 10
	for range votes {
		vote(t, st, in, all...) // each event names 200 flags: ~5 KB
	}
	var got []string
	for ev := range events {
		if strings.Contains(ev, "event: votes") {
			got = append(got, ev)
			if len(got) == votes {
				h.Close()
			}
		} else if strings.Contains(ev, "event: end") || strings.HasPrefix(ev, "error") {
			got = append(got, ev)
		}
	}
	if len(got) != votes+1 || !strings.Contains(got[votes], `{"reason":"shutdown"}`) {
		t.Fatalf("got %d events, the last %q; want %d votes events and the end", len(got), got[len(got)-1], votes)
	}
	for i, ev := range got[:votes] {
		if want := fmt.Sprintf(`{"slug":"s0","red":%d}`, i+2); !strings.Contains(ev, want) {
			t.Errorf("votes event %d lacks %s", i, want)
		}
	}
	if n := h.Ended(ReasonShutdown); n != 1 {
		t.Errorf("%d streams ended for shutdown, want 1", n)
	}
	if counted(t, reg, "flagpole_stream_handoffs_total") == 0 {
		t.Error("no write waited (flagpole_stream_handoffs_total 0): the test did not test the slow path")
	}
}

// throttled reads at most rate bytes a second.
type throttled struct {
	r    io.Reader
	rate int
}

func (t throttled) Read(p []byte) (int, error) {
	n := min(len(p), t.rate/100)
	time.Sleep(10 * time.Millisecond)
	return t.r.Read(p[:n])
}

// readEvents reads body's events (the text before each blank line) into
// the channel it returns, which it closes at the body's end; a read error
// other than the end comes as "error: ...".
func readEvents(body io.Reader) <-chan string {
	events := make(chan string, 100)
	go func() {
		defer close(events)
		r := bufio.NewReader(body)
		var ev strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if err != io.EOF {
					events <- "error: " + err.Error()
				}
				return
			}
			if line == "\n" {
				events <- ev.String()
				ev.Reset()
				continue
			}
			ev.WriteString(line)
		}
	}()
	return events
}

// tcpPair is a loopback connection's two ends, with socket buffers of buf
// bytes when buf > 0 (the client's receive, the server's send) and an
// Ethernet path's segments, the client's closed at the test's end.
func tcpPair(t *testing.T, buf int) (client, server *net.TCPConn) {
	t.Helper()
	lc := net.ListenConfig{Control: ethernetSegments}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Control: ethernetSegments}
	c, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	client = c.(*net.TCPConn)
	t.Cleanup(func() { client.Close() })
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	server = sc.(*net.TCPConn)
	if buf > 0 {
		client.SetReadBuffer(buf)
		server.SetWriteBuffer(buf)
	}
	return client, server
}

// every is the indexes of in.
func every(in []memstore.FlagInput) []int {
	all := make([]int, len(in))
	for i := range all {
		all[i] = i
	}
	return all
}

// A snapshot of the next generation built from another one than the hub
// saw last (another lineage given to the store) resyncs too: its changes
// are against a snapshot the streams never followed.
func TestOtherBaseResyncs(t *testing.T) {
	h, st, in := testHub(t, 10, Options{})
	all, _ := h.Open("k1", nil, "")
	in[5].Red++
	other, err := memstore.Build(nil, memstore.Change{Full: true, Flags: in}) // generation 1 of another lineage
	if err != nil {
		t.Fatal(err)
	}
	in[6].Red++
	next, err := memstore.Build(other, memstore.Change{Flags: []memstore.FlagInput{in[6]}})
	if err != nil {
		t.Fatal(err)
	}
	if next.Gen != st.Snapshot().Gen+1 {
		t.Fatalf("generation %d after %d: the test needs the next", next.Gen, st.Snapshot().Gen)
	}
	st.SetSnapshot(next)
	if q, ended := all.c.take(); len(q) != 1 || !strings.Contains(string(q[0]), "event: resync\ndata: {}\n\n") || ended != "" {
		t.Errorf("after a snapshot of another base: %q (ended %q), want one resync", q, ended)
	}
}

// The history's events hold copies of the slugs they name: a flag's own is
// part of its record, which an event would keep alive, with the chunk of
// other flags it was carved from, for as long as the history holds it.
func TestEventSlugsAreCopies(t *testing.T) {
	h, st, in := testHub(t, 40, Options{})
	vote(t, st, in, 1, 2, 3)
	in[5].Approved = false // removed
	s, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{in[5]}})
	if err != nil {
		t.Fatal(err)
	}
	removed, _, _ := st.Snapshot().FlagBySlug(in[5].Slug)
	st.SetSnapshot(s)
	h.mu.Lock()
	events := slices.Clone(h.history)
	h.mu.Unlock()
	if len(events) != 2 || len(events[0].flags) != 3 || len(events[1].removed) != 1 || events[1].slug(events[1].removed[0]) != removed.Slug() {
		t.Fatalf("a history of %d events", len(events))
	}
	text := func(s string) *byte { return unsafe.StringData(s) }
	mine := map[*byte]bool{text(removed.Slug()): true}
	for f := range s.Flags() {
		mine[text(f.Slug())] = true
	}
	for _, e := range events {
		for _, p := range append(slices.Clone(e.flags), e.removed...) {
			if sl := e.slug(p); mine[text(sl)] || text(sl) != text(e.text[p.slug.from:]) {
				t.Errorf("the event's slug %q is not a piece of its own text", sl)
			}
		}
		if mine[text(e.text)] {
			t.Errorf("the event's slugs are a flag's own string")
		}
	}
}

// counted is the value of the counter name in reg, 0 when absent.
func counted(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}
