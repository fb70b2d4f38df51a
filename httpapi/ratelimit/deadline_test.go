package ratelimit

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// slowProxy forwards to Redis and holds each of Redis's answers for the
// delay set before passing it on: a slow Redis, or a slow network, whose
// commands still run at once. The delay starts at 0.
func slowProxy(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	url := loadertest.RedisURL(t)
	target, _, _ := strings.Cut(strings.TrimPrefix(url, "redis://"), "/")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	delay := new(atomic.Int64)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, client, server)
			mu.Unlock()
			go io.Copy(server, client)
			go delayCopy(client, server, delay)
		}
	}()
	return "redis://" + ln.Addr().String(), delay
}

// slowRedis is a limiter of timeout behind a slowProxy whose answers take
// delay, with the scripts loaded and a few connections open before.
func slowRedis(t *testing.T, timeout, delay time.Duration) *Redis {
	t.Helper()
	url, d := slowProxy(t)
	r := testRedis(t, url, timeout)
	if err := r.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	d.Store(int64(20 * time.Millisecond))
	var wg sync.WaitGroup
	for range 4 { // four connections in the pool, each made without delay
		wg.Go(func() { r.client.Ping(context.Background()) })
	}
	wg.Wait()
	d.Store(int64(delay))
	return r
}

// delayCopy copies from src to dst, each chunk delay after it was read.
func delayCopy(dst, src net.Conn, delay *atomic.Int64) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	ch := make(chan chunk, 1024)
	go func() {
		defer close(ch)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				ch <- chunk{buf[:n], time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range ch {
		time.Sleep(time.Until(c.at.Add(time.Duration(delay.Load()))))
		if _, err := dst.Write(c.b); err != nil {
			return
		}
	}
	dst.Close()
}

// TestBatchOwnDeadlines: a batch whose oldest request has little of its
// time left is answered for the others: the round trip waits as long as
// the newest request may, not as short as the oldest may.
func TestBatchOwnDeadlines(t *testing.T) {
	r := slowRedis(t, 300*time.Millisecond, 60*time.Millisecond)
	batch := newCalls("old", "fresh", "fresh", "other")
	batch[0].queued = time.Now().Add(-260 * time.Millisecond) // 40 ms left, the answer takes 60
	r.batch.run(batch, nil)
	for i, c := range batch[1:] {
		if c.err != nil || !c.d.Allowed {
			t.Errorf("request %d (%s), queued just now: %+v %v, want its answer", i+1, c.key, c.d, c.err)
		}
	}
	if batch[2].d.Used != 2 {
		t.Errorf("the second request of fresh: used %d, want 2", batch[2].d.Used)
	}
}

// TestDecideOwnDeadline: a request whose answer is slower than its
// timeout fails at its own deadline, not much later, even when the batch
// it went in waits longer for the requests queued after it.
func TestDecideOwnDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	r := slowRedis(t, timeout, 600*time.Millisecond)
	start := time.Now()
	_, err := r.batch.decide("k", 60, 1, unspent{}, time.Now())
	if err == nil {
		t.Fatal("an answer slower than the timeout decided")
	}
	if took := time.Since(start); took > timeout+150*time.Millisecond {
		t.Errorf("failed after %v, want about the timeout %v", took, timeout)
	}
}

// TestBatchFailedGiveBack: an ask that fails carries an ended lease's
// unspent slots it was to give back; they stay counted in their window,
// and GiveBackFailures counts them.
func TestBatchFailedGiveBack(t *testing.T) {
	url := loadertest.RedisURL(t)
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "redis://"), "/")
	proxy := loadertest.NewProxy(t, host)
	r := testRedis(t, "redis://"+proxy.Addr(), 200*time.Millisecond)
	if err := r.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	defer proxy.Restore()
	if _, err := r.batch.decide("k", 6400, 10, unspent{stamp: 123, n: 7}, time.Now()); err == nil {
		t.Fatal("an ask through a cut connection decided")
	}
	if _, err := r.batch.decide("j", 6400, 10, unspent{stamp: 124, n: 5}, time.Now()); err == nil {
		t.Fatal("an ask through a cut connection decided")
	}
	// A request gives up at its deadline; its batch may fail later.
	for end := time.Now().Add(3 * time.Second); r.GiveBackFailures() < 12 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := r.GiveBackFailures(); got != 12 {
		t.Errorf("GiveBackFailures %d after failed asks giving back 7 and 5, want 12", got)
	}
}

// TestDecideQueuedOwnDeadline: a request that waits in the queue while
// both senders are on slow round trips still fails at its own deadline,
// not a round trip after it; the requests in flight get their answers.
func TestDecideQueuedOwnDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	r := slowRedis(t, timeout, 250*time.Millisecond)
	// Redis read past the slow proxy: a request whose slot it holds is on
	// its sender's round trip, waiting for the held answer.
	direct := testRedis(t, loadertest.RedisURL(t), time.Second)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, key := range []string{"a", "b"} { // one per sender
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.batch.decide(key, 60, 1, unspent{}, time.Now())
		}()
		deadline := time.Now().Add(5 * time.Second)
		for direct.client.LLen(context.Background(), r.windowKey(key)).Val() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("request %q not in Redis within 5 s", key)
			}
			time.Sleep(time.Millisecond)
		}
	}
	start := time.Now()
	_, err := r.batch.decide("c", 60, 1, unspent{}, time.Now())
	took := time.Since(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d in flight: %v", i, err)
		}
	}
	if err == nil || took > timeout+100*time.Millisecond {
		t.Errorf("the queued request: %v after %v, want its timeout's error after about %v", err, took, timeout)
	}
}

// TestDecideAbandonedLeaseGivenBack: a request that gave up at its own
// deadline while its batch, kept open by a newer request, was still
// answered leaves no lease slots in its window: the slots granted to it
// are given back.
func TestDecideAbandonedLeaseGivenBack(t *testing.T) {
	// Redis answers in 600 ms, a request waits 1 s. Two requests keep both
	// senders busy until 600 ms; "c" is queued at 20 ms (gives up at
	// 1020), "d" at 450 ms; both are sent at 600, answered at 1200.
	const timeout = time.Second
	r := slowRedis(t, timeout, 600*time.Millisecond)
	start := time.Now()
	at := func(d time.Duration) { time.Sleep(time.Until(start.Add(d))) }
	var wg sync.WaitGroup
	errs := make(map[string]error)
	var mu sync.Mutex
	ask := func(key string, want int, when time.Duration) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at(when)
			_, err := r.batch.decide(key, 6400, want, unspent{}, time.Now())
			mu.Lock()
			errs[key] = err
			mu.Unlock()
		}()
	}
	ask("a", 1, 0)
	ask("b", 1, 5*time.Millisecond)
	ask("c", 50, 20*time.Millisecond)
	ask("d", 1, 450*time.Millisecond)
	wg.Wait()
	if errs["a"] != nil || errs["b"] != nil || errs["d"] != nil {
		t.Fatalf("requests within their time: %v", errs)
	}
	if errs["c"] == nil {
		t.Fatal("the request answered after its deadline decided")
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := len(windowStamps(t, r, "c"))
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("c's window holds %d slots, want its own only: the lease's were not given back", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
