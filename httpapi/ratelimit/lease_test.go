package ratelimit

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// leasing makes n limiters sharing one prefix, as n instances, whose
// leases last leaseTime, their unspent slots given back every quarter of it.
func leasing(t *testing.T, n int, leaseTime time.Duration) []*Redis {
	return leasingEvery(t, n, leaseTime, leaseTime/4)
}

// leasingEvery is leasing with the give-backs every returnEvery.
func leasingEvery(t *testing.T, n int, leaseTime, returnEvery time.Duration) []*Redis {
	t.Helper()
	url := loadertest.RedisURL(t)
	p := testRedis(t, url, time.Second).prefix
	out := make([]*Redis, n)
	for i := range out {
		r, err := newRedis(RedisOptions{URL: url, Prefix: p, Timeout: 2 * time.Second}, leaseTime, returnEvery)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		out[i] = r
	}
	return out
}

// windowStamps is the stamps of key's window as Redis holds them.
func windowStamps(t *testing.T, r *Redis, key string) []int64 {
	t.Helper()
	ss, err := r.client.LRange(context.Background(), r.windowKey(key), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(ss))
	for i, s := range ss {
		out[i], _ = strconv.ParseInt(s, 10, 64)
	}
	return out
}

// TestLeaseGrant: a request asking for a lease gets its own slot stamped
// now and the lease's stamped a lease's time later; grants stop at three
// quarters of the limit, after which a request gets only its own slot,
// and a full window grants nothing.
func TestLeaseGrant(t *testing.T) {
	r := leasing(t, 1, 300*time.Millisecond)[0]
	ask := func(want int) *call {
		c := &call{key: "k", limit: 400, want: want, now: time.Now(), queued: time.Now(), decided: make(chan struct{}, 1)}
		r.batch.run([]*call{c}, nil)
		if c.err != nil {
			t.Fatal(c.err)
		}
		return c
	}
	c := ask(50)
	if c.granted != 50 || c.count != 50 || !c.d.Allowed || c.d.Used != 1 || c.d.Remaining != 399 {
		t.Fatalf("first ask: granted %d count %d %+v, want 50 slots, one of them spent", c.granted, c.count, c.d)
	}
	st := windowStamps(t, r, "k")
	if len(st) != 50 {
		t.Fatalf("window holds %d stamps, want 50", len(st))
	}
	for _, s := range st[1:] {
		if s != c.stamp {
			t.Fatalf("a lease's slot stamped %d, want the lease's stamp %d", s, c.stamp)
		}
	}
	if d := c.stamp - st[0]; d != 301 {
		t.Errorf("the lease's slots are stamped %d ms after the request's own, want the lease's 300 ms and one", d)
	}
	// The window outlives its newest stamp by 60 s.
	if ttl := r.client.PTTL(context.Background(), r.windowKey("k")).Val(); ttl <= Window {
		t.Errorf("the window expires in %v, want past %v (a lease's slots are stamped 300 ms ahead)", ttl, Window)
	}
	for _, want := range []struct{ ask, granted, count int }{
		{200, 200, 250}, // up to 300 (three quarters of 400)
		{100, 50, 300},
		{100, 1, 301}, // past three quarters: its own slot only
		{1, 1, 302},
	} {
		if c := ask(want.ask); c.granted != want.granted || c.count != want.count {
			t.Errorf("asking %d: granted %d, count %d; want %d, %d", want.ask, c.granted, c.count, want.granted, want.count)
		}
	}
	for range 98 {
		ask(5)
	}
	if c := ask(5); c.granted != 0 || c.d.Allowed || c.count != 400 {
		t.Errorf("a full window granted %d (count %d, %+v)", c.granted, c.count, c.d)
	}
}

// held is the slots r holds for key, unspent.
func held(r *Redis, key string, limit int) int {
	l := r.leaseOf(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.unspent(limit, time.Now())
}

// TestLeaseExact: instances spending one key's budget as fast as they
// can, from leases, never allow more than the limit, while a third holds
// a lease it does not spend; once the leases' time is up and their unspent
// slots are back, the key has spent exactly its limit, no more, no less.
func TestLeaseExact(t *testing.T) {
	const limit = 1280 // leases of up to 20
	rs := leasing(t, 3, 300*time.Millisecond)
	var allowed atomic.Int64
	for range 5 {
		if d, err := rs[2].Allow(context.Background(), "hot", limit, time.Now()); err != nil || !d.Allowed {
			t.Fatalf("%+v %v", d, err)
		}
		allowed.Add(1)
	}
	idle := held(rs[2], "hot", limit)
	if idle == 0 {
		t.Fatal("no slot held after 5 quick requests")
	}
	var wg sync.WaitGroup
	for g := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rs[g%2]
			for {
				d, err := r.Allow(context.Background(), "hot", limit, time.Now())
				if err != nil {
					t.Error(err)
					return
				}
				if !d.Allowed {
					return
				}
				if n := allowed.Add(1); n > limit {
					t.Errorf("%d allowed, over the limit of %d", n, limit)
				}
				if d.Used < 1 || d.Used > limit || d.Remaining != limit-d.Used {
					t.Errorf("allowed with %+v", d)
				}
			}
		}()
	}
	wg.Wait()
	var leased int64
	for _, r := range rs {
		leased += r.Leased()
	}
	if leased == 0 {
		t.Fatal("no request was allowed from a lease")
	}
	t.Logf("%d allowed in the rush, %d of them from leases; %d held idle then %d", allowed.Load(), leased, idle, held(rs[2], "hot", limit))
	// The slots still held come back within a lease's time and a tick.
	deadline := time.Now().Add(5 * time.Second)
	for allowed.Load() < limit && time.Now().Before(deadline) {
		d, err := rs[0].Allow(context.Background(), "hot", limit, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed.Add(1)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if n := allowed.Load(); n != limit {
		t.Fatalf("%d allowed in all, want exactly %d", n, limit)
	}
	if d, _ := rs[1].Allow(context.Background(), "hot", limit, time.Now()); d.Allowed {
		t.Errorf("one more than the limit allowed: %+v", d)
	}
}

// TestLeaseOneInstanceCounts: on one instance a key's requests one after
// the other see their exact count whether a lease or Redis decided them,
// also right after a lease ended with slots unspent (given back by the
// next ask, before any background return), and Peek does not count the
// slots held but unspent.
func TestLeaseOneInstanceCounts(t *testing.T) {
	r := leasingEvery(t, 1, 100*time.Millisecond, time.Hour)[0]
	const limit = 1000
	n := 0
	run := func(k int) {
		t.Helper()
		for range k {
			n++
			d, err := r.Allow(context.Background(), "seq", limit, time.Now())
			if err != nil || !d.Allowed || d.Used != n || d.Remaining != limit-n {
				t.Fatalf("request %d: %+v %v, want used %d", n, d, err, n)
			}
		}
	}
	run(300)
	if r.Leased() < 200 {
		t.Errorf("%d of 300 requests allowed from leases, want most", r.Leased())
	}
	time.Sleep(150 * time.Millisecond) // the lease ends with slots unspent
	if held(r, "seq", limit) != 0 {
		t.Fatal("slots still spendable after the lease's end")
	}
	run(100)
	h := held(r, "seq", limit)
	if h == 0 {
		t.Skip("no slot held after a run of requests (a slow machine): Peek's subtraction not seen")
	}
	if p, err := r.Peek(context.Background(), "seq", limit, time.Now()); err != nil || p.Used != n || p.Remaining != limit-n {
		t.Errorf("peek: %+v %v, want %d used (%d more held)", p, err, n, h)
	}
}

// TestLeaseTimeUp: a lease's unspent slots go back to the window after
// its time, and Close gives back what is held.
func TestLeaseTimeUp(t *testing.T) {
	rs := leasing(t, 2, 200*time.Millisecond)
	r, other := rs[0], rs[1]
	const limit = 6400
	spend := func(n int) {
		for range n {
			if d, err := r.Allow(context.Background(), "k", limit, time.Now()); err != nil || !d.Allowed {
				t.Fatalf("%+v %v", d, err)
			}
		}
	}
	// other holds no lease of k: its peek is Redis's count.
	used := func() int {
		p, err := other.Peek(context.Background(), "k", limit, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return p.Used
	}
	spend(50)
	if held(r, "k", limit) == 0 {
		t.Fatal("no slot held after 50 quick requests")
	}
	if u := used(); u <= 50 {
		t.Fatalf("Redis counts %d, want the held slots too", u)
	}
	deadline := time.Now().Add(5 * time.Second)
	for used() != 50 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if u := used(); u != 50 {
		t.Fatalf("Redis counts %d after the lease's time, want the 50 spent only", u)
	}
	spend(40)
	if held(r, "k", limit) == 0 {
		t.Fatal("no slot held after 40 quick requests")
	}
	r.Close()
	if u := used(); u != 90 {
		t.Errorf("after Close Redis counts %d, want the 90 spent only", u)
	}
}

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

// TestLeaseDone: a grant's slots last a lease's time from before the
// request was sent, not from its answer; a grant of the request's own slot
// only, or a failed ask, leaves the lease as it was.
func TestLeaseDone(t *testing.T) {
	r := leasing(t, 1, time.Hour)[0]
	l := r.leaseOf("k")
	sent := time.Now().Add(-300 * time.Millisecond)
	l.mu.Lock()
	l.asking = true
	l.mu.Unlock()
	l.done(r, 1000, answer{granted: 6, count: 20, stamp: 123, queued: sent}, nil)
	check := func(what string, left int, stamp int64) {
		t.Helper()
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.asking || l.left != left || l.stamp != stamp || !l.until.Equal(sent.Add(time.Hour)) {
			t.Errorf("%s: asking %v, %d held of stamp %d until %v; want %d of %d until an hour after sending",
				what, l.asking, l.left, l.stamp, l.until, left, stamp)
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
	_, ok, a, _ := l.take(1000, time.Second)
	if ok || a.want < 1 || a.back != (back{stamp: 42, n: 7}) || l.left != 0 || !l.asking {
		t.Fatalf("after the lease's end: ok %v, ask %+v, %d left, asking %v; want an ask giving back 7 of stamp 42", ok, a, l.left, l.asking)
	}
	if _, ok, a, _ := l.take(1000, time.Second); ok || a.want != 0 {
		t.Errorf("while another asks: ok %v, ask %+v, want no ask", ok, a)
	}
	l = &lease{limit: 1000, left: 3, stamp: 43, until: now.Add(time.Hour)}
	if _, ok, a, _ := l.take(2000, time.Second); ok || a.back != (back{stamp: 43, n: 3}) {
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
	if _, _, _, gone := old.take(6400, time.Second); !gone {
		t.Error("the swept lease can still be taken")
	}
	if d, err := r.Allow(context.Background(), "idle", 6400, time.Now()); err != nil || !d.Allowed || d.Used != 1 {
		t.Errorf("after the sweep: %+v %v", d, err)
	}
}
