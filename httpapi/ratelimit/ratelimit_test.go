package ratelimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

func TestLocalRollingWindow(t *testing.T) {
	l := ratelimit.NewLocal()
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// 60 requests spread over 30 s.
	for i := 0; i < 60; i++ {
		d, _ := l.Allow(ctx, "k", 60, t0.Add(time.Duration(i)*500*time.Millisecond))
		if !d.Allowed || d.Remaining != 59-i {
			t.Fatalf("request %d: %+v", i, d)
		}
		if want := t0.Add(time.Minute); !d.Reset.Equal(want) {
			t.Fatalf("reset %v, want %v", d.Reset, want)
		}
	}
	d, _ := l.Allow(ctx, "k", 60, t0.Add(59999*time.Millisecond))
	if d.Allowed || d.Remaining != 0 || d.RetryAfter(t0.Add(59999*time.Millisecond)) != time.Second {
		t.Fatalf("61st: %+v", d)
	}
	// At exactly 60 s the first request leaves the window: one more fits.
	if d, _ := l.Allow(ctx, "k", 60, t0.Add(time.Minute)); !d.Allowed {
		t.Fatalf("at 60 s: %+v", d)
	}
	if d, _ := l.Allow(ctx, "k", 60, t0.Add(time.Minute)); d.Allowed {
		t.Fatalf("the second at 60 s must wait for the request of 0.5 s: %+v", d)
	}
	if d, _ := l.Allow(ctx, "other", 60, t0); !d.Allowed || d.Remaining != 59 {
		t.Fatalf("keys share a budget: %+v", d)
	}
	l.Sweep(t0.Add(time.Hour))
	if d, _ := l.Allow(ctx, "k", 60, t0.Add(time.Hour)); !d.Allowed || d.Remaining != 59 {
		t.Fatalf("after sweep: %+v", d)
	}
}

func TestLocalConcurrent(t *testing.T) {
	l := ratelimit.NewLocal()
	var ok atomic.Int64
	var wg sync.WaitGroup
	now := time.Now()
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, _ := l.Allow(context.Background(), "k", 60, now); d.Allowed {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 60 {
		t.Fatalf("%d allowed, want exactly 60", ok.Load())
	}
}

func prefix() string {
	var b [6]byte
	rand.Read(b[:])
	return "flagpole-test-" + hex.EncodeToString(b[:]) + ":"
}

func TestRedisShared(t *testing.T) {
	url := loadertest.RedisURL(t)
	p := prefix()
	// Two limiters, as two instances: one budget.
	a, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: url, Prefix: p, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, _ := ratelimit.NewRedis(ratelimit.RedisOptions{URL: url, Prefix: p, Timeout: time.Second})
	defer b.Close()
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			l := a
			if i%2 == 1 {
				l = b
			}
			d, err := l.Allow(context.Background(), "k", 60, time.Now())
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				ok.Add(1)
			} else if d.Remaining != 0 || d.RetryAfter(time.Now()) < time.Second || d.RetryAfter(time.Now()) > time.Minute {
				t.Errorf("refusal %+v", d)
			}
		}(i)
	}
	wg.Wait()
	if ok.Load() != 60 {
		t.Fatalf("%d allowed across two instances, want exactly 60", ok.Load())
	}
	d, _ := a.Allow(context.Background(), "fresh", 5, time.Now())
	if !d.Allowed || d.Remaining != 4 || d.Limit != 5 {
		t.Fatalf("fresh key: %+v", d)
	}
}

// TestFallback cuts Redis under a running limiter: decisions go on
// locally, are counted, and sharing resumes when Redis returns.
func TestFallback(t *testing.T) {
	url := loadertest.RedisURL(t)
	host := strings.TrimPrefix(url, "redis://")
	host, _, _ = strings.Cut(host, "/")
	proxy := loadertest.NewProxy(t, host)
	shared, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: "redis://" + proxy.Addr(), Prefix: prefix(),
		Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	f := ratelimit.NewFallback(shared, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if d, err := f.Allow(ctx, "k", 60, time.Now()); err != nil || !d.Allowed {
			t.Fatalf("up: %+v %v", d, err)
		}
	}
	if f.Degraded() || f.Fallbacks() != 0 {
		t.Fatal("degraded while Redis is up")
	}
	proxy.Cut()
	start := time.Now()
	allowed := 0
	for i := 0; i < 60; i++ {
		d, err := f.Allow(ctx, "k", 60, time.Now())
		if err != nil {
			t.Fatalf("down: %v", err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("60 decisions with Redis down took %v: a dead Redis must not cost a timeout each", took)
	}
	if !f.Degraded() || f.Fallbacks() == 0 {
		t.Fatal("not degraded with Redis down")
	}
	if allowed != 50 {
		t.Errorf("%d allowed locally, want 50 (the local window saw the 10 before the cut)", allowed)
	}
	proxy.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for f.Degraded() && time.Now().Before(deadline) {
		f.Allow(ctx, "other", 60, time.Now())
		time.Sleep(50 * time.Millisecond)
	}
	if f.Degraded() {
		t.Fatal("sharing did not resume after Redis returned")
	}
}

// TestRedisThreeInstances: three limiters sharing Redis, as three
// instances, under concurrent load over three keys (so batches mix keys
// and repeat them): each key gets exactly its limit, no more, no less.
func TestRedisThreeInstances(t *testing.T) {
	url := loadertest.RedisURL(t)
	p := prefix()
	var ls []*ratelimit.Redis
	for i := 0; i < 3; i++ {
		l, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: url, Prefix: p, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ls = append(ls, l)
	}
	keys := []string{"x", "y", "z"}
	limits := []int{50, 1, 120}
	var ok [3]atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 600; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			k := (i / 3) % 3
			d, err := ls[i%3].Allow(context.Background(), keys[k], limits[k], time.Now())
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				ok[k].Add(1)
			} else if d.Remaining != 0 || d.Used != limits[k] {
				t.Errorf("refusal of %s: %+v", keys[k], d)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	for k := range keys {
		if ok[k].Load() != int64(limits[k]) {
			t.Errorf("key %s: %d allowed across three instances, want exactly %d", keys[k], ok[k].Load(), limits[k])
		}
	}
}
