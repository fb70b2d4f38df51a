package ratelimit

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// leasing makes n limiters sharing one prefix, as n instances, whose
// leases last leaseTime.
func leasing(t *testing.T, n int, leaseTime time.Duration) []*Redis {
	t.Helper()
	url := loadertest.RedisURL(t)
	p := testRedis(t, url, time.Second).prefix
	out := make([]*Redis, n)
	for i := range out {
		r, err := newRedis(RedisOptions{URL: url, Prefix: p, Timeout: 2 * time.Second}, leaseTime)
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
	if d := c.stamp - st[0]; d != 300 {
		t.Errorf("the lease's slots are stamped %d ms after the request's own, want the lease's 300 ms", d)
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

// TestLeaseOneInstanceCounts: on one instance a key's requests see their
// exact count whether a lease or Redis decided them, and Peek does not
// count the slots held but unspent.
func TestLeaseOneInstanceCounts(t *testing.T) {
	r := leasing(t, 1, time.Second)[0]
	const limit = 1000
	for i := 1; i <= 300; i++ {
		d, err := r.Allow(context.Background(), "seq", limit, time.Now())
		if err != nil || !d.Allowed || d.Used != i || d.Remaining != limit-i {
			t.Fatalf("request %d: %+v %v, want used %d", i, d, err, i)
		}
	}
	if r.Leased() < 200 {
		t.Errorf("%d of 300 requests allowed from leases, want most", r.Leased())
	}
	n := held(r, "seq", limit)
	if n == 0 {
		t.Fatal("no slot held after a run of requests: the test cannot see Peek's subtraction")
	}
	if p, err := r.Peek(context.Background(), "seq", limit, time.Now()); err != nil || p.Used != 300 || p.Remaining != limit-300 {
		t.Errorf("peek: %+v %v, want 300 used (%d more held)", p, err, n)
	}
}

// TestLeaseTimeUp: a lease's slots are not spent after its time; the
// unspent ones go back to the window, and Close gives back what is held.
func TestLeaseTimeUp(t *testing.T) {
	rs := leasing(t, 2, 80*time.Millisecond)
	r, other := rs[0], rs[1]
	const limit = 6400
	spend := func(n int) {
		for range n {
			if d, err := r.Allow(context.Background(), "k", limit, time.Now()); err != nil || !d.Allowed {
				t.Fatalf("%+v %v", d, err)
			}
		}
	}
	spend(50)
	if held(r, "k", limit) == 0 {
		t.Fatal("no slot held after 50 quick requests")
	}
	time.Sleep(120 * time.Millisecond) // past the lease, and a tick of the returns
	before := r.Leased()
	spend(1)
	if r.Leased() != before {
		t.Error("a slot was spent after its lease's time")
	}
	// other holds no lease of k: its peek is Redis's count.
	if p, err := other.Peek(context.Background(), "k", limit, time.Now()); err != nil || p.Used > 51+limit/leaseShare {
		t.Fatalf("peek: %+v %v", p, err)
	}
	time.Sleep(120 * time.Millisecond)
	if p, err := other.Peek(context.Background(), "k", limit, time.Now()); err != nil || p.Used != 51 {
		t.Errorf("after the lease's time: %+v %v, want the 51 spent only", p, err)
	}
	spend(40)
	if held(r, "k", limit) == 0 {
		t.Fatal("no slot held after 40 quick requests")
	}
	r.Close()
	if p, err := other.Peek(context.Background(), "k", limit, time.Now()); err != nil || p.Used != 91 {
		t.Errorf("after Close: %+v %v, want the 91 spent only", p, err)
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
// request was sent, not from its answer; slots of an older lease still
// held when a new one comes are queued to go back.
func TestLeaseDone(t *testing.T) {
	r := leasing(t, 1, time.Second)[0]
	l := r.leaseOf("k")
	sent := time.Now().Add(-300 * time.Millisecond)
	l.asking = true
	l.done(r, 1000, answer{granted: 6, count: 20, stamp: 123, queued: sent}, nil)
	if l.asking || l.left != 5 || l.count != 20 || l.stamp != 123 || !l.until.Equal(sent.Add(time.Second)) {
		t.Fatalf("after a grant of 6: %+v, want 5 held until a second after sending", l)
	}
	l.done(r, 1000, answer{granted: 3, count: 30, stamp: 456, queued: time.Now()}, nil)
	r.hold.Lock()
	back := slices.Clone(r.back)
	r.hold.Unlock()
	if want := []giveBack{{window: r.windowKey("k"), stamp: 123, n: 5}}; !slices.Equal(back, want) {
		t.Errorf("queued to give back %+v, want %+v", back, want)
	}
	if l.left != 2 || l.stamp != 456 {
		t.Errorf("after a second grant: %+v", l)
	}
	l.done(r, 1000, answer{granted: 1, count: 31}, nil)
	l.done(r, 1000, answer{}, errRefused)
	if l.left != 2 || l.stamp != 456 {
		t.Errorf("a grant of its own slot only, or none, changed the lease: %+v", l)
	}
}
