package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// The tests below seed a key's window in Redis with stamps older than
// the tests themselves, to exercise what no other test lives long
// enough to see: stamps leaving the window, and the key's expiry.

// redisMS is Redis's clock (TIME) in whole milliseconds, as the
// scripts read it.
func redisMS(t *testing.T, r *Redis) int64 {
	t.Helper()
	tm, err := r.client.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return tm.UnixMilli()
}

// seedWindow appends stamps to key's window as the script writes them
// (decimal Unix milliseconds, oldest at the head), without an expiry.
func seedWindow(t *testing.T, r *Redis, key string, stamps ...int64) {
	t.Helper()
	vals := make([]any, len(stamps))
	for i, s := range stamps {
		vals[i] = strconv.FormatInt(s, 10)
	}
	if err := r.client.RPush(context.Background(), r.windowKey(key), vals...).Err(); err != nil {
		t.Fatal(err)
	}
}

// checkReset fails unless d's reset is the stamp oldest plus a window,
// on Redis's clock: now plus what was left of oldest's window when the
// script ran, between seeded (Redis's time before the seeding) and
// seeded plus the milliseconds elapsed since then.
func checkReset(t *testing.T, d Decision, now time.Time, oldest, seeded int64, since time.Time) {
	t.Helper()
	late := time.Since(since).Milliseconds() + 1
	want := oldest + Window.Milliseconds() - seeded // ms after now, at the latest
	got := d.Reset.Sub(now).Milliseconds()
	if got > want || got < want-late {
		t.Errorf("reset %d ms after now, want the oldest stamp's end: %d ms (less up to %d ms)", got, want, late)
	}
}

// TestRedisWindowTrimsOld: stamps older than the window neither count
// nor stay: 59 stamps 61 to 70 s old and 3 recent ones leave a key of
// 60 a minute 57 requests, not none; the old ones leave the list, and
// the reset is the oldest recent stamp's plus 60 s.
func TestRedisWindowTrimsOld(t *testing.T) {
	r := testRedis(t, loadertest.RedisURL(t), time.Second)
	ctx := context.Background()
	const key, limit = "old", 60
	start := time.Now()
	t0 := redisMS(t, r)
	var stamps []int64
	for i := range 59 { // 70 s old up to 61 s, oldest first
		stamps = append(stamps, t0-70_000+int64(i)*9_000/58)
	}
	recent := []int64{t0 - 10_000, t0 - 5_000, t0 - 1_000}
	stamps = append(stamps, recent...)
	seedWindow(t, r, key, stamps...)

	now := time.Now()
	p, err := r.Peek(ctx, key, limit, now)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Allowed || p.Used != 3 || p.Remaining != 57 {
		t.Errorf("peek: allowed %v, used %d, remaining %d; want allowed, 3 used, 57 remaining", p.Allowed, p.Used, p.Remaining)
	}
	checkReset(t, p, now, recent[0], t0, start)

	now = time.Now()
	d, err := r.Allow(ctx, key, limit, now)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allowed || d.Used != 4 || d.Remaining != 56 {
		t.Errorf("allow: allowed %v, used %d, remaining %d; want allowed, 4 used, 56 remaining", d.Allowed, d.Used, d.Remaining)
	}
	checkReset(t, d, now, recent[0], t0, start)

	got := windowStamps(t, r, key)
	if len(got) != 4 || got[0] != recent[0] || got[1] != recent[1] || got[2] != recent[2] || got[3] < t0 {
		t.Errorf("window after the request %v, want the 3 recent stamps %v and one at or after %d", got, recent, t0)
	}

	// The 56 left are allowed, and not one more.
	for i := range 56 {
		if d, err = r.Allow(ctx, key, limit, time.Now()); err != nil || !d.Allowed {
			t.Fatalf("request %d of the 56 left: allowed %v, err %v", i+1, d.Allowed, err)
		}
	}
	now = time.Now()
	if d, err = r.Allow(ctx, key, limit, now); err != nil || d.Allowed || d.Remaining != 0 || d.Used != limit {
		t.Fatalf("request past the limit: allowed %v, used %d, remaining %d, err %v; want refused, %d used", d.Allowed, d.Used, d.Remaining, err, limit)
	}
	checkReset(t, d, now, recent[0], t0, start)
}

// TestRedisWindowBoundary: a stamp 59.5 s old still counts, one 60.5 s
// old does not, on Redis's clock: a key of 3 a minute holding both and
// one 30 s old is allowed one more request, then refused until the 59.5
// s old stamp leaves, half a second on, and allowed again after.
func TestRedisWindowBoundary(t *testing.T) {
	r := testRedis(t, loadertest.RedisURL(t), time.Second)
	ctx := context.Background()
	const key, limit = "edge", 3
	start := time.Now()
	t0 := redisMS(t, r)
	in := t0 - 59_500
	seedWindow(t, r, key, t0-60_500, in, t0-30_000)

	now := time.Now()
	d, err := r.Allow(ctx, key, limit, now)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 300*time.Millisecond {
		t.Skip("Redis too slow: the 59.5 s old stamp may have left the window before the request")
	}
	if !d.Allowed || d.Used != 3 || d.Remaining != 0 {
		t.Errorf("allow: allowed %v, used %d, remaining %d; want allowed, 3 used (59.5 s old counts, 60.5 s does not), 0 remaining",
			d.Allowed, d.Used, d.Remaining)
	}
	checkReset(t, d, now, in, t0, start)
	if got := windowStamps(t, r, key); len(got) != 3 || got[0] != in {
		t.Errorf("window after the request %v, want 3 stamps from %d on", got, in)
	}

	now = time.Now()
	if d, err = r.Allow(ctx, key, limit, now); err != nil || d.Allowed {
		t.Fatalf("request past the limit: allowed %v, err %v; want refused", d.Allowed, err)
	}
	checkReset(t, d, now, in, t0, start)

	// Past the reset the 59.5 s old stamp has left: one more is allowed.
	time.Sleep(min(time.Until(d.Reset), time.Second) + 20*time.Millisecond) // bounded: a wrong reset fails above
	if d, err = r.Allow(ctx, key, limit, time.Now()); err != nil || !d.Allowed || d.Used != 3 {
		t.Fatalf("request past the reset: allowed %v, used %d, err %v; want allowed, 3 used", d.Allowed, d.Used, err)
	}
	if got := windowStamps(t, r, key); len(got) != 3 || got[0] != t0-30_000 {
		t.Errorf("window past the reset %v, want 3 stamps from %d on", got, t0-30_000)
	}
}

// TestRedisWindowExpires: a request sets the key's expiry to a window
// and a lease's time, so an idle key is forgotten; a refused request,
// which appends nothing, does not move it.
func TestRedisWindowExpires(t *testing.T) {
	r := testRedis(t, loadertest.RedisURL(t), time.Second)
	ctx := context.Background()
	const key, limit = "ttl", 2
	t0 := redisMS(t, r)
	seedWindow(t, r, key, t0-70_000, t0-20_000)
	ttl := Window.Milliseconds() + leaseMS(leaseFor)
	pttl := func() int64 {
		t.Helper()
		ms, err := r.client.Do(ctx, "PTTL", r.windowKey(key)).Int64() // -1: no expiry
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	if p := pttl(); p >= 0 {
		t.Fatalf("seeded key's PTTL %d ms, want none", p)
	}

	if d, err := r.Allow(ctx, key, limit, time.Now()); err != nil || !d.Allowed {
		t.Fatalf("allow: allowed %v, err %v", d.Allowed, err)
	}
	p := pttl()
	if p <= ttl-1_000 || p > ttl {
		t.Fatalf("PTTL after a request %d ms, want about %d (a window and a lease)", p, ttl)
	}

	time.Sleep(50 * time.Millisecond)
	if d, err := r.Allow(ctx, key, limit, time.Now()); err != nil || d.Allowed {
		t.Fatalf("request past the limit: allowed %v, err %v; want refused", d.Allowed, err)
	}
	if q := pttl(); q > p-40 {
		t.Errorf("PTTL after a refused request %d ms, was %d 50 ms before: a refusal moved the expiry", q, p)
	}
}
