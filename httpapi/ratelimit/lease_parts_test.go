package ratelimit

// The mechanics of one lease: who leases, how much, spending, ending,
// giving back, batching and sweeping. lease_test.go has the whole
// limiter across instances.

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestLeaseOnlyHighLimits: a key below twice leaseShare a minute (the
// default 60 among them) is decided request by request.
func TestLeaseOnlyHighLimits(t *testing.T) {
	r := leasing(t, 1, time.Second)[0]
	for _, c := range []struct {
		limit  int
		leases bool
	}{{60, false}, {2*leaseShare - 1, false}, {2 * leaseShare, true}} {
		before := r.Leased()
		key := "k" + strconv.Itoa(c.limit)
		for range 40 {
			if d, err := r.Allow(context.Background(), key, c.limit, time.Now()); err != nil || !d.Allowed {
				t.Fatalf("limit %d: %+v %v", c.limit, d, err)
			}
		}
		if got := r.Leased() > before; got != c.leases {
			t.Errorf("limit %d: leased %v, want %v", c.limit, got, c.leases)
		}
	}
}

// TestLeaseExtra: a lease asks for the key's rate here since the last ask
// over a lease's time, within a 64th of the limit and maxLease.
func TestLeaseExtra(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		seen  int
		since time.Duration
		limit int
		want  int
	}{
		{10, 250 * time.Millisecond, 64000, 10},
		{10, 500 * time.Millisecond, 64000, 5},
		{10, 25 * time.Millisecond, 64000, 100},
		{10, 25 * time.Millisecond, 3200, 50},
		{10, 0, 1 << 30, maxLease},
		{0, time.Second, 64000, 0},
	} {
		l := &lease{seen: c.seen, asked: now.Add(-c.since)}
		if got := l.extra(c.limit, now, 250*time.Millisecond); got != c.want {
			t.Errorf("%d seen in %v, limit %d: extra %d, want %d", c.seen, c.since, c.limit, got, c.want)
		}
	}
	if got := (&lease{seen: 10}).extra(64000, now, time.Second); got != 0 {
		t.Errorf("first ask: extra %d, want 0", got)
	}
}

// TestLeaseSpend: a slot is spent only for the limit it was granted
// under, before the lease's end, while any is left; each counts as the
// next of the window.
func TestLeaseSpend(t *testing.T) {
	now := time.Now()
	fresh := func() *lease {
		return &lease{limit: 500, left: 2, until: now.Add(time.Second), count: 10, reset: now.Add(time.Minute)}
	}
	if _, ok := fresh().spend(400, now); ok {
		t.Error("spent under another limit")
	}
	if _, ok := fresh().spend(500, now.Add(time.Second)); ok {
		t.Error("spent at the lease's end")
	}
	l := fresh()
	for i, want := range []int{9, 10} {
		d, ok := l.spend(500, now)
		if !ok || !d.Allowed || d.Used != want || d.Remaining != 500-want || !d.Reset.Equal(l.reset) {
			t.Errorf("spend %d: %+v %v, want used %d", i, d, ok, want)
		}
	}
	if _, ok := l.spend(500, now); ok {
		t.Error("spent a third slot of two")
	}
}

// TestLeaseDone: a grant's slots last a lease's time from the ask, before
// the request was sent, not from its answer; a grant of the request's own
// slot only, or a failed ask, leaves the lease as it was.
func TestLeaseDone(t *testing.T) {
	r := leasing(t, 1, time.Hour)[0]
	l := r.leaseOf("k")
	sent := time.Now().Add(-300 * time.Millisecond)
	l.mu.Lock()
	l.askPending, l.asked = true, sent
	l.mu.Unlock()
	l.done(r, 1000, answer{granted: 6, count: 20, stamp: 123}, nil)
	check := func(what string, left int, stamp int64) {
		t.Helper()
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.askPending || l.left != left || l.stamp != stamp || !l.until.Equal(sent.Add(time.Hour)) {
			t.Errorf("%s: asking %v, %d held of stamp %d until %v; want %d of %d until an hour after sending",
				what, l.askPending, l.left, l.stamp, l.until, left, stamp)
		}
	}
	check("a grant of 6", 5, 123)
	l.done(r, 1000, answer{granted: 1, count: 31}, nil)
	check("a grant of its own slot", 5, 123)
	l.done(r, 1000, answer{}, errRefused)
	check("a failed ask", 5, 123)
}

// TestLeaseTakeGivesBack: the request that asks after a lease ended with
// slots unspent carries them, to be given back in its own call; a request
// of another limit too; a request while another asks asks for nothing.
func TestLeaseTakeGivesBack(t *testing.T) {
	now := time.Now()
	l := &lease{limit: 1000, left: 7, stamp: 42, until: now.Add(-time.Millisecond), asked: now.Add(-time.Second)}
	_, ok, a, _ := l.take(1000, time.Second, at(now))
	if ok || a.want < 1 || a.giveBack != (unspent{stamp: 42, n: 7}) || l.left != 0 || !l.askPending {
		t.Fatalf("after the lease's end: ok %v, ask %+v, %d left, asking %v; want an ask giving back 7 of stamp 42", ok, a, l.left, l.askPending)
	}
	if _, ok, a, _ := l.take(1000, time.Second, at(now)); ok || a.want != 0 {
		t.Errorf("while another asks: ok %v, ask %+v, want no ask", ok, a)
	}
	l = &lease{limit: 1000, left: 3, stamp: 43, until: now.Add(time.Hour)}
	if _, ok, a, _ := l.take(2000, time.Second, at(now)); ok || a.giveBack != (unspent{stamp: 43, n: 3}) {
		t.Errorf("another limit: ok %v, ask %+v, want the 3 held given back", ok, a)
	}
	if got := leaseMS(250 * time.Millisecond); got != 251 {
		t.Errorf("leaseMS(250 ms) = %d, want 251", got)
	}
	if got := leaseMS(250*time.Millisecond + time.Microsecond); got != 252 {
		t.Errorf("leaseMS(250.001 ms) = %d, want 252", got)
	}
}

// TestLeaseBatchStamps: in a batch of several requests each lease gets
// the batch's stamp, and its window holds the lease's slots under it.
func TestLeaseBatchStamps(t *testing.T) {
	r := leasing(t, 1, time.Second)[0]
	var batch []*call
	for _, k := range []string{"a", "b", "c"} {
		batch = append(batch, &call{key: k, limit: 6400, want: 5, now: time.Now(), queued: time.Now(), decided: make(chan struct{}, 1)})
	}
	r.batch.run(batch, nil)
	for _, c := range batch {
		if c.err != nil || c.granted != 5 {
			t.Fatalf("%s: granted %d, %v", c.key, c.granted, c.err)
		}
		st := windowStamps(t, r, c.key)
		if len(st) != 5 || st[4] != c.stamp || st[1] != c.stamp || st[0] == c.stamp {
			t.Errorf("%s: window %v, lease stamp %d", c.key, st, c.stamp)
		}
	}
}

// TestLeaseRefusalShort: after a 429 a key that leases is refused locally
// for two leases' time (slots may come back sooner than the window
// frees them), a key that does not lease until its reset; Peek of a full
// window refuses.
func TestLeaseRefusalShort(t *testing.T) {
	r := leasing(t, 1, time.Second)[0]
	for _, limit := range []int{2 * leaseShare, 2*leaseShare - 1} {
		key := "full" + strconv.Itoa(limit)
		for range limit {
			if d, err := r.Allow(context.Background(), key, limit, time.Now()); err != nil || !d.Allowed {
				t.Fatalf("limit %d: %+v %v", limit, d, err)
			}
		}
		now := time.Now()
		d, err := r.Allow(context.Background(), key, limit, now)
		if err != nil || d.Allowed {
			t.Fatalf("limit %d: one over: %+v %v", limit, d, err)
		}
		v, ok := r.refused.Load(key)
		if !ok {
			t.Fatalf("limit %d: no local refusal", limit)
		}
		want := d.Reset
		if limit >= 2*leaseShare {
			want = now.Add(2 * time.Second)
		}
		if got := v.(*refusal).until; !got.Equal(want) {
			t.Errorf("limit %d: refused locally until %v after the 429, want %v", limit, got.Sub(now), want.Sub(now))
		}
		r.refused.Clear()
		if p, err := r.Peek(context.Background(), key, limit, time.Now()); err != nil || p.Allowed || p.Remaining != 0 || p.Used != limit {
			t.Errorf("limit %d: peek of a full window: %+v %v", limit, p, err)
		}
	}
}

// TestLeaseSweep: a key not asked for a window's time loses its lease
// object; a request holding the old one takes the new one.
func TestLeaseSweep(t *testing.T) {
	r := leasing(t, 1, time.Second)[0]
	old := r.leaseOf("idle")
	old.mu.Lock()
	old.asked = time.Now().Add(-Window - time.Second)
	old.mu.Unlock()
	busy := r.leaseOf("busy")
	busy.mu.Lock()
	busy.asked = time.Now()
	busy.mu.Unlock()
	r.Sweep(time.Now())
	if r.leaseOf("idle") == old {
		t.Error("the idle key's lease was kept")
	}
	if r.leaseOf("busy") != busy {
		t.Error("the busy key's lease was swept")
	}
	if _, _, _, gone := old.take(6400, time.Second, time.Now); !gone {
		t.Error("the swept lease can still be taken")
	}
	if d, err := r.Allow(context.Background(), "idle", 6400, time.Now()); err != nil || !d.Allowed || d.Used != 1 {
		t.Errorf("after the sweep: %+v %v", d, err)
	}
}
