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
		r, err := newRedis(RedisOptions{URL: url, Prefix: p, Timeout: 2 * time.Second}, leaseTime, returnEvery, time.Now)
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
	return l.unspent(limit, r.now())
}

// spendUntilHeld spends key's requests on r, one after the other, until r
// holds a lease's slots unspent, and says how many it spent. How many a
// lease holds follows the key's rate, so a fixed number of requests may
// happen to spend a lease's last slot; and a slow machine may need a few
// asks before the rate it measures earns a lease. A limiter that never
// leases fails the test.
func spendUntilHeld(t *testing.T, r *Redis, key string, limit int) int {
	t.Helper()
	for n := 1; n <= 500; n++ {
		if d, err := r.Allow(context.Background(), key, limit, time.Now()); err != nil || !d.Allowed {
			t.Fatalf("request %d: %+v %v", n, d, err)
		}
		if n >= 2 && held(r, key, limit) > 0 {
			return n
		}
	}
	t.Fatalf("no slot of %s held after 500 requests one after the other", key)
	return 0
}

// TestLeaseExact: instances spending one key's budget as fast as they
// can, from leases, never allow more than the limit, while a third holds
// a lease it does not spend; once the leases' time is up and their unspent
// slots are back, the key has spent exactly its limit, no more, no less.
func TestLeaseExact(t *testing.T) {
	const limit = 1280 // leases of up to 20
	rs := leasing(t, 3, 300*time.Millisecond)
	var allowed atomic.Int64
	allowed.Add(int64(spendUntilHeld(t, rs[2], "hot", limit)))
	idle := held(rs[2], "hot", limit)
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
// slots held but unspent. How many requests a lease serves follows the
// machine's speed, so the test spends requests until a lease is held
// rather than counting on a run of them to leave one held.
func TestLeaseOneInstanceCounts(t *testing.T) {
	r := leasingEvery(t, 1, 100*time.Millisecond, time.Hour)[0]
	const limit = 1000
	n := 0
	allow := func() {
		t.Helper()
		n++
		d, err := r.Allow(context.Background(), "seq", limit, time.Now())
		if err != nil || !d.Allowed || d.Used != n || d.Remaining != limit-n {
			t.Fatalf("request %d: %+v %v, want used %d", n, d, err, n)
		}
	}
	run := func(k int) {
		t.Helper()
		for range k {
			allow()
		}
	}
	// untilHeld spends requests until r holds slots of the key unspent,
	// and says how many it holds.
	untilHeld := func() int {
		t.Helper()
		for range 500 {
			allow()
			if h := held(r, "seq", limit); h > 0 {
				return h
			}
		}
		t.Fatalf("no slot held after %d requests one after the other", n)
		return 0
	}
	run(300)
	h := untilHeld()
	if r.Leased() == 0 {
		t.Fatal("no request allowed from a lease")
	}
	// The lease ends with its slots unspent.
	deadline := time.Now().Add(5 * time.Second)
	for held(r, "seq", limit) != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if held(r, "seq", limit) != 0 {
		t.Fatalf("%d slots still spendable long after the lease's end", h)
	}
	// The next ask gives them back: the counts stay exact.
	run(100)
	// Slots still held after a peek were held during it: not counted. (A
	// lease whose time ran out between the two, on a machine that stalled
	// for a lease's time, is tried again.)
	for try := 1; ; try++ {
		untilHeld()
		p, err := r.Peek(context.Background(), "seq", limit, time.Now())
		if h := held(r, "seq", limit); h > 0 {
			if err != nil || p.Used != n || p.Remaining != limit-n {
				t.Errorf("peek: %+v %v, want %d used (%d more held)", p, err, n, h)
			}
			break
		}
		if try == 5 {
			t.Fatal("every lease's time ran out between its last request and a peek")
		}
	}
}

// TestLeaseTimeUp: a lease's unspent slots go back to the window after
// its time, and Close gives back what is held.
func TestLeaseTimeUp(t *testing.T) {
	const leaseTime = time.Second // long beside a stall of a busy machine
	rs := leasing(t, 2, leaseTime)
	r, other := rs[0], rs[1]
	const limit = 6400
	// other holds no lease of k: its peek is Redis's count.
	used := func() int {
		p, err := other.Peek(context.Background(), "k", limit, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return p.Used
	}
	// Slots still held after a peek were held during it: counted. (A
	// lease whose time ran out between the two, on a machine that
	// stalled for a second, is tried again.)
	spent := 0
	for try := 1; ; try++ {
		spent += spendUntilHeld(t, r, "k", limit)
		u := used()
		if h := held(r, "k", limit); h > 0 {
			if u != spent+h {
				t.Fatalf("Redis counts %d, want the %d spent and the %d held", u, spent, h)
			}
			break
		}
		if try == 5 {
			t.Fatal("every lease's time ran out between its last request and a peek")
		}
	}
	deadline := time.Now().Add(leaseTime + 5*time.Second)
	for used() != spent && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if u := used(); u != spent {
		t.Fatalf("Redis counts %d after the lease's time, want the %d spent only", u, spent)
	}
	spent += spendUntilHeld(t, r, "k", limit)
	r.Close()
	if u := used(); u != spent {
		t.Errorf("after Close Redis counts %d, want the %d spent only", u, spent)
	}
}
