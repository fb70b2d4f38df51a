package ratelimit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// testClock is a clock a test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// at is a clock stopped at t.
func at(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestLeaseClock drives a lease by the limiter's clock alone: its slots
// are spent until its end, not at it; until then Peek counts them as
// unspent and the give-back leaves them; from then on the give-back
// returns them to the window.
func TestLeaseClock(t *testing.T) {
	const limit, leaseTime = 6400, 250 * time.Millisecond
	url := loadertest.RedisURL(t)
	clock := &testClock{t: time.Now()}
	r, err := newRedis(RedisOptions{URL: url, Prefix: testRedis(t, url, time.Second).prefix, Timeout: 2 * time.Second},
		leaseTime, time.Hour, clock.Now) // no give-back but the test's own
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	allow := func() {
		t.Helper()
		if d, err := r.Allow(context.Background(), "k", limit, time.Now()); err != nil || !d.Allowed {
			t.Fatalf("%+v %v", d, err)
		}
	}
	inWindow := func() int { return len(windowStamps(t, r, "k")) }
	used := func() int {
		t.Helper()
		p, err := r.Peek(context.Background(), "k", limit, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return p.Used
	}
	allow() // its own slot; the next asks for a lease at the rate seen since
	allow()
	h := held(r, "k", limit)
	if h < 10 {
		t.Fatalf("%d slots held after two asks on a stopped clock, want a lease", h)
	}
	granted := inWindow()
	for range h / 2 {
		allow()
	}
	clock.Add(leaseTime - time.Nanosecond)
	allow()
	spent, left := 2+h/2+1, h-h/2-1
	if r.Leased() != int64(spent-2) || held(r, "k", limit) != left || inWindow() != granted {
		t.Fatalf("before the lease's end: %d leased, %d held, %d in the window; want %d, %d, %d",
			r.Leased(), held(r, "k", limit), inWindow(), spent-2, left, granted)
	}
	r.giveBackExpired(clock.Now(), false)
	if n, u := inWindow(), used(); n != granted || u != spent {
		t.Errorf("give-back before the lease's end: %d in the window, peek %d; want %d and %d", n, u, granted, spent)
	}
	clock.Add(time.Nanosecond)
	if h, u := held(r, "k", limit), used(); h != 0 || u != granted {
		t.Errorf("at the lease's end: %d held, peek %d; want 0 and the %d granted", h, u, granted)
	}
	r.giveBackExpired(clock.Now(), false)
	if n := inWindow(); n != spent {
		t.Errorf("give-back at the lease's end: %d in the window, want the %d spent", n, spent)
	}
}

// flaky is a shared limiter that fails while fail is set.
type flaky struct {
	fail  atomic.Bool
	calls atomic.Int64
}

func (f *flaky) Allow(_ context.Context, _ string, limit int, now time.Time) (Decision, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return Decision{}, errors.New("down")
	}
	return Decision{Allowed: true, Limit: limit, Remaining: limit - 1, Used: 1, Reset: now}, nil
}

func (f *flaky) Peek(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	return f.Allow(ctx, key, limit, now)
}

// TestFallbackClock: after a failure the shared limiter is left alone
// for the pause, on the fallback's clock, and asked again at its end.
func TestFallbackClock(t *testing.T) {
	shared := &flaky{}
	shared.fail.Store(true)
	clock := &testClock{t: time.Now()}
	f := NewFallback(shared, slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.now = clock.Now
	allow := func() {
		t.Helper()
		if d, err := f.Allow(context.Background(), "k", 60, clock.Now()); err != nil || !d.Allowed {
			t.Fatalf("%+v %v", d, err)
		}
	}
	allow()
	shared.fail.Store(false)
	allow()
	clock.Add(time.Second - time.Nanosecond)
	allow()
	if n := shared.calls.Load(); n != 1 || !f.Degraded() || f.Fallbacks() != 3 {
		t.Fatalf("within the pause: %d shared calls, degraded %v, %d fallbacks; want 1, true, 3", n, f.Degraded(), f.Fallbacks())
	}
	clock.Add(time.Nanosecond)
	allow()
	if n := shared.calls.Load(); n != 2 || f.Degraded() || f.Fallbacks() != 3 {
		t.Errorf("at the pause's end: %d shared calls, degraded %v, %d fallbacks; want 2, false, 3", n, f.Degraded(), f.Fallbacks())
	}
}
