package ratelimit

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"
)

// naiveWindow is the rolling window as the contract states it: every
// allowed request's millisecond, and a request is allowed while fewer than
// limit of them lie in the last 60 s.
type naiveWindow struct{ ms []int64 }

func (nw *naiveWindow) decide(limit int, now int64, spend bool) (bool, int, int64) {
	kept := nw.ms[:0]
	for _, m := range nw.ms {
		if m > now-Window.Milliseconds() {
			kept = append(kept, m)
		}
	}
	nw.ms = kept
	ok := len(nw.ms) < limit
	if ok && spend {
		nw.ms = append(nw.ms, now)
	}
	reset := now
	if len(nw.ms) > 0 {
		reset = nw.ms[0] + Window.Milliseconds()
	}
	return ok, max(limit-len(nw.ms), 0), reset
}

// The ring window decides as the naive one, request by request and peek
// by peek: bursts
// within a millisecond, pauses longer than the window, a key busy without
// a quiet minute for 30 days, and limits from 1 to thousands.
func TestWindowAsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for run := range 6 {
		l := NewLocal()
		var nw naiveWindow
		limit := []int{1, 3, 60, 1000, 5000, 20}[run]
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		steps, gap := 20_000, int64(40)
		busy := run == 5
		if busy {
			steps, gap = 150_000, 50_000 // a request every ~25 s (never a minute without) for 30 days
		}
		for i := range steps {
			switch r := rng.IntN(100); {
			case r < 30: // the same millisecond
			case r < 31 && !busy:
				now += 2 * Window.Milliseconds() // a pause longer than the window
			default:
				now += rng.Int64N(gap)
			}
			spend := rng.IntN(10) > 0 // a peek now and then
			d := l.decide("k", limit, time.UnixMilli(now), spend)
			ok, remaining, reset := nw.decide(limit, now, spend)
			if d.Allowed != ok || d.Remaining != remaining || d.Reset.UnixMilli() != reset {
				t.Fatalf("run %d step %d: got %v %d %d, want %v %d %d", run, i, d.Allowed, d.Remaining,
					d.Reset.UnixMilli(), ok, remaining, reset)
			}
		}
	}
}

// A window's memory follows its key's request rate: a minute at 10,000
// requests a minute takes a ring of 16,384 stamps at most; quiet
// minutes after it give it back but for a few.
func TestWindowFollowsRate(t *testing.T) {
	l := NewLocal()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		l.decide("k", 1<<30, t0.Add(time.Duration(i)*6*time.Millisecond), true)
	}
	w := l.shardOf("k").keys["k"]
	if w.count != 10_000 || w.n != 10_000 || len(w.ring) != 16_384 {
		t.Fatalf("busy: %d requests in %d stamps, ring of %d; want 10000, 10000, 16384", w.count, w.n, len(w.ring))
	}
	for i := range 120 { // two minutes at one a second
		l.decide("k", 1<<30, t0.Add(time.Minute+time.Duration(i)*time.Second), true)
	}
	if w.count != 60 || len(w.ring) > 128 {
		t.Fatalf("quiet: %d requests, ring of %d; want 60 in at most 128", w.count, len(w.ring))
	}
	burst := t0.Add(time.Hour)
	for range 1000 { // one millisecond's requests are one stamp
		l.decide("k", 1<<30, burst, true)
	}
	if w.count != 1000 || w.n != 1 {
		t.Fatalf("burst: %d requests in %d stamps, want 1000 in 1", w.count, w.n)
	}
	for range 70_000 { // more than a stamp counts: a second stamp of the same millisecond
		l.decide("k", 1<<30, burst, true)
	}
	if d := l.decide("k", 1<<30, burst.Add(time.Minute-time.Millisecond), false); w.count != 71_000 || w.n != 2 ||
		d.Used != 71_000 || !d.Reset.Equal(burst.Add(time.Minute)) {
		t.Fatalf("burst: %d requests in %d stamps, %+v; want 71000 in 2", w.count, w.n, d)
	}
	if d := l.decide("k", 1<<30, burst.Add(time.Minute), false); d.Used != 0 || w.n != 0 {
		t.Fatalf("a minute after the burst: %+v, %d stamps", d, w.n)
	}
}

// Sweep forgets the keys with no request in the last minute and keeps the
// others with their budgets.
func TestSweepKeepsActiveKeys(t *testing.T) {
	l := NewLocal()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 3 {
		l.decide("idle", 10, t0, true)
	}
	for range 4 {
		l.decide("busy", 10, t0.Add(50*time.Second), true)
	}
	l.Sweep(t0.Add(70 * time.Second))
	if n := l.Len(); n != 1 {
		t.Fatalf("%d keys after the sweep, want the busy one", n)
	}
	if d := l.decide("busy", 10, t0.Add(70*time.Second), false); d.Used != 4 || d.Remaining != 6 {
		t.Fatalf("the busy key after the sweep: %+v, want 4 used", d)
	}
}

// The limiter keeps a copy of a key it first sees, not the caller's
// string, which may be part of a larger string or object that the map
// would otherwise keep alive.
func TestLocalKeepsKeyCopy(t *testing.T) {
	l := NewLocal()
	text := []byte("secret-bytes|key-id")
	key := unsafe.String(&text[13], 6)
	if _, err := l.Allow(context.Background(), key, 10, time.Now()); err != nil {
		t.Fatal(err)
	}
	sh := l.shardOf(key)
	for k := range sh.keys {
		if k == key && unsafe.StringData(k) == unsafe.StringData(key) {
			t.Fatal("the limiter's map holds the caller's string")
		}
	}
	if len(sh.keys) != 1 {
		t.Fatalf("%d windows, want 1", len(sh.keys))
	}
}
