package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

func testRedis(t *testing.T, url string, timeout time.Duration) *Redis {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	r, err := NewRedis(RedisOptions{URL: url, Prefix: "flagpole-test-" + hex.EncodeToString(b[:]) + ":", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func newCalls(keys ...string) []*call {
	out := make([]*call, len(keys))
	for i, k := range keys {
		out[i] = &call{key: k, limit: 3, want: 1, now: time.Now(), queued: time.Now(), decided: make(chan struct{}, 1)}
	}
	return out
}

// TestBatchSameKey: one script call deciding several requests of one key
// admits exactly the limit, in order, each seeing the count the requests
// before it left, and leaves the other keys of the batch alone.
func TestBatchSameKey(t *testing.T) {
	r := testRedis(t, loadertest.RedisURL(t), time.Second)
	batch := newCalls("a", "b", "a", "a", "a", "b", "a")
	r.batch.run(batch, nil)
	want := []struct {
		allowed bool
		used    int
	}{{true, 1}, {true, 1}, {true, 2}, {true, 3}, {false, 3}, {true, 2}, {false, 3}}
	for i, c := range batch {
		if c.err != nil || c.d.Allowed != want[i].allowed || c.d.Used != want[i].used || c.d.Remaining != 3-want[i].used {
			t.Errorf("request %d (%s): %+v %v, want allowed %v used %d", i, c.key, c.d, c.err, want[i].allowed, want[i].used)
		}
		if left := time.Until(c.d.Reset); left < 55*time.Second || left > Window {
			t.Errorf("request %d: reset in %v, want about 60 s", i, left)
		}
	}
	// The next batch sees what this one spent.
	next := newCalls("a", "b", "b")
	r.batch.run(next, nil)
	if next[0].d.Allowed || !next[1].d.Allowed || next[2].d.Allowed || next[1].d.Used != 3 {
		t.Errorf("next batch: %+v %+v %+v", next[0].d, next[1].d, next[2].d)
	}
	if p, err := r.Peek(context.Background(), "b", 3, time.Now()); err != nil || p.Used != 3 || p.Remaining != 0 {
		t.Errorf("peek after the batches: %+v %v", p, err)
	}
}

// TestBatchStale: a request that waited in the queue past the timeout
// fails without being sent: its key's window is untouched.
func TestBatchStale(t *testing.T) {
	r := testRedis(t, loadertest.RedisURL(t), 100*time.Millisecond)
	batch := newCalls("stale", "fresh")
	batch[0].queued = time.Now().Add(-time.Second)
	r.batch.run(batch, nil)
	if batch[0].err == nil || !strings.Contains(batch[0].err.Error(), "no answer within") {
		t.Errorf("stale request: %+v %v, want an error", batch[0].d, batch[0].err)
	}
	if batch[1].err != nil || !batch[1].d.Allowed {
		t.Errorf("fresh request: %+v %v", batch[1].d, batch[1].err)
	}
	if p, err := r.Peek(context.Background(), "stale", 3, time.Now()); err != nil || p.Used != 0 {
		t.Errorf("the stale request was sent: %+v %v", p, err)
	}
}

// TestBatchTimeout: Redis stops answering under a batch; every request of
// it fails (and so falls back), none waits past the timeout by much.
func TestBatchTimeout(t *testing.T) {
	url := loadertest.RedisURL(t)
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "redis://"), "/")
	proxy := loadertest.NewProxy(t, host)
	r := testRedis(t, "redis://"+proxy.Addr(), 200*time.Millisecond)
	if err := r.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	defer proxy.Restore()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.Allow(context.Background(), "k", 60, time.Now())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Errorf("request %d: no error with Redis cut", i)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("40 requests with Redis cut took %v", took)
	}
}

// TestBatchClosed: a limiter closed answers with an error, never hangs.
func TestBatchClosed(t *testing.T) {
	r := testRedis(t, loadertest.RedisURL(t), time.Second)
	r.batch.close()
	done := make(chan error)
	go func() { _, err := r.Allow(context.Background(), "k", 3, time.Now()); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a closed limiter decided")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Allow on a closed limiter hangs")
	}
	r.batch = newBatcher(r) // for the cleanup's Close
}
