package ratelimit_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

func TestLocalPeek(t *testing.T) {
	l := ratelimit.NewLocal()
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d, _ := l.Peek(ctx, "k", 3, t0); d.Remaining != 3 || d.Used != 0 || !d.Allowed {
		t.Fatalf("fresh: %+v", d)
	}
	if l.Len() != 0 {
		t.Error("a peek remembered a key")
	}
	for i := 0; i < 3; i++ {
		l.Allow(ctx, "k", 3, t0.Add(time.Duration(i)*time.Second))
	}
	for i := 0; i < 5; i++ {
		d, _ := l.Peek(ctx, "k", 3, t0.Add(10*time.Second))
		if d.Remaining != 0 || d.Used != 3 || d.Allowed || !d.Reset.Equal(t0.Add(time.Minute)) {
			t.Fatalf("spent: %+v", d)
		}
	}
	if d, _ := l.Allow(ctx, "k", 3, t0.Add(time.Minute)); !d.Allowed {
		t.Fatalf("peeks spent budget: %+v", d)
	}
}

// TestRedisLocalRefusal: once Redis refuses a key, the key is refused
// without a round trip until its reset time; Redis cut meanwhile changes
// nothing, and peeks answer from the refusal too.
func TestRedisLocalRefusal(t *testing.T) {
	url := loadertest.RedisURL(t)
	host := strings.TrimPrefix(url, "redis://")
	host, _, _ = strings.Cut(host, "/")
	proxy := loadertest.NewProxy(t, host)
	r, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: "redis://" + proxy.Addr(), Prefix: prefix(), Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	now := time.Now()
	for i := 0; i < 3; i++ {
		if d, err := r.Allow(ctx, "k", 3, now); err != nil || !d.Allowed {
			t.Fatalf("%d: %+v %v", i, d, err)
		}
	}
	d, err := r.Allow(ctx, "k", 3, now)
	if err != nil || d.Allowed {
		t.Fatalf("4th: %+v %v", d, err)
	}
	proxy.Cut()
	for i := 0; i < 100; i++ {
		got, err := r.Allow(ctx, "k", 3, now.Add(time.Second))
		if err != nil || got.Allowed || got.Remaining != 0 || !got.Reset.Equal(d.Reset) {
			t.Fatalf("refusal %d asked Redis or changed: %+v %v", i, got, err)
		}
	}
	if p, err := r.Peek(ctx, "k", 3, now.Add(time.Second)); err != nil || p.Remaining != 0 || p.Used != 3 {
		t.Fatalf("peek of a refused key: %+v %v", p, err)
	}
	if r.LocalRefusals() != 100 {
		t.Errorf("%d local refusals, want 100", r.LocalRefusals())
	}
	// Past the reset, Redis is asked again (and is down here: an error).
	if _, err := r.Allow(ctx, "k", 3, d.Reset); err == nil {
		t.Error("after the reset the key was still refused locally")
	}
	// A key whose limit changed is asked again too.
	if _, err := r.Allow(ctx, "k", 4, now.Add(time.Second)); err == nil {
		t.Error("a new limit was refused from the old refusal")
	}
	r.Sweep(d.Reset)
	proxy.Restore()
}

func TestRedisPeek(t *testing.T) {
	r, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: loadertest.RedisURL(t), Prefix: prefix(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if d, err := r.Peek(ctx, "k", 5, time.Now()); err != nil || d.Used != 0 || d.Remaining != 5 {
		t.Fatalf("fresh: %+v %v", d, err)
	}
	for i := 0; i < 2; i++ {
		r.Allow(ctx, "k", 5, time.Now())
	}
	for i := 0; i < 3; i++ {
		d, err := r.Peek(ctx, "k", 5, time.Now())
		if err != nil || d.Used != 2 || d.Remaining != 3 || time.Until(d.Reset) < 50*time.Second {
			t.Fatalf("after 2: %+v %v", d, err)
		}
	}
}

// TestAddrs: a burst of limit, then one request every minute/limit; each
// address on its own; refusals logged LogSample times a minute, the rest
// counted and reported once; sweep forgets full buckets.
func TestAddrs(t *testing.T) {
	a := ratelimit.NewAddrs(6, 1000) // one every 10 s
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	x, y := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for i := 0; i < 6; i++ {
		if r := a.Allow(x, t0); r.Refused {
			t.Fatalf("burst %d refused", i)
		}
	}
	logged := 0
	for i := 0; i < 50; i++ {
		r := a.Allow(x, t0.Add(time.Second))
		if !r.Refused || r.RetryAfter != 9*time.Second {
			t.Fatalf("over: %+v", r)
		}
		if r.Log {
			logged++
		}
	}
	if logged != ratelimit.LogSample {
		t.Errorf("%d refusals marked to log, want %d", logged, ratelimit.LogSample)
	}
	if r := a.Allow(y, t0.Add(time.Second)); r.Refused {
		t.Error("another address refused")
	}
	if r := a.Allow(x, t0.Add(10*time.Second)); r.Refused {
		t.Errorf("after 10 s one more must fit: %+v", r)
	}
	// The next minute's first refusal carries the count of the last one
	// (the bucket holds 5 more by then: 50 s of its 60).
	for i := 0; i < 5; i++ {
		a.Allow(x, t0.Add(time.Minute))
	}
	r := a.Allow(x, t0.Add(time.Minute))
	if !r.Refused || r.Unlogged != 50-ratelimit.LogSample || !r.Log {
		t.Errorf("next minute: %+v, want Unlogged %d", r, 50-ratelimit.LogSample)
	}
	var mu sync.Mutex
	reported := map[netip.Addr]uint32{}
	a.Sweep(t0.Add(10*time.Minute), func(addr netip.Addr, n uint32) { mu.Lock(); reported[addr] += n; mu.Unlock() })
	if a.Len() != 0 {
		t.Errorf("%d addresses remembered after their buckets filled again", a.Len())
	}
	if len(reported) != 0 {
		t.Errorf("reported %v; the one refusal of the second minute was logged", reported)
	}
}

// TestAddrsBounded: past its bound the limiter forgets full buckets to
// make room and never grows beyond it.
func TestAddrsBounded(t *testing.T) {
	a := ratelimit.NewAddrs(2, 64*4)
	t0 := time.Now()
	for i := 0; i < 10000; i++ {
		b := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		a.Allow(b, t0)
	}
	if n := a.Len(); n > 64*4 {
		t.Errorf("%d addresses remembered, bound %d", n, 64*4)
	}
}

// TestRedisLogger: go-redis's own messages become lines of the JSON log.
func TestRedisLogger(t *testing.T) {
	var buf lockedBuffer
	ratelimit.SetRedisLogger(slog.New(slog.NewJSONHandler(&buf, nil)))
	// A Redis that refuses connections, and a duration go-redis rounds up:
	// both make go-redis write.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: 0, DialTimeout: 100 * time.Millisecond})
	c.Set(context.Background(), "k", "v", 500*time.Microsecond)
	c.Close()
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("go-redis wrote %q, not a JSON log line", line)
		}
		msgs = append(msgs, m["msg"].(string))
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "minimal supported value") || !strings.Contains(all, "failed to dial") {
		t.Errorf("go-redis's messages missing from the log: %q", all)
	}
}

type lockedBuffer = loadertest.Buffer

// TestAddrsRollingMinute: the keyless limit's real bound, as the documents
// state it: a burst of limit, then one every minute/limit, so 2·limit−1
// in a rolling minute at most, and limit a minute sustained.
func TestAddrsRollingMinute(t *testing.T) {
	a := ratelimit.NewAddrs(120, 1000)
	addr := netip.MustParseAddr("192.0.2.9")
	t0 := time.Date(2026, 5, 25, 10, 0, 0, 0, time.UTC)
	allowed := 0
	for ms := 0; ms < 60_000; ms += 100 { // ten tries a second for a minute
		for range 200 {
			if a.Allow(addr, t0.Add(time.Duration(ms)*time.Millisecond)).Refused {
				break
			}
			allowed++
		}
	}
	if allowed != 239 {
		t.Errorf("%d allowed in the first 60 s, want 239 (a burst of 120, then 119 at one every 0.5 s)", allowed)
	}
	sustained := 0
	for ms := 60_000; ms < 180_000; ms += 100 {
		if !a.Allow(addr, t0.Add(time.Duration(ms)*time.Millisecond)).Refused {
			sustained++
		}
	}
	if sustained != 240 {
		t.Errorf("%d allowed in the next two minutes, want 240 (120 a minute)", sustained)
	}
}
