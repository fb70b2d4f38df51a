// Package ratelimit decides whether a key may make one more request: an
// exact rolling window of 60 seconds per key. Local keeps the windows in
// this process; a shared implementation keeps one budget for all instances.
package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// Window is the length of the rolling window.
const Window = 60 * time.Second

// Decision is the answer for one request.
type Decision struct {
	Allowed   bool
	Limit     int
	Remaining int
	Used      int // requests of the window that counted
	// Reset is when the oldest request of the window leaves it: the time
	// one more request will be allowed once the budget is spent.
	Reset time.Time
}

// RetryAfter is how long a refused client should wait, at least a second.
func (d Decision) RetryAfter(now time.Time) time.Duration {
	w := d.Reset.Sub(now)
	if w < time.Second {
		w = time.Second
	}
	return w
}

// Limiter counts the requests of each key in a rolling window. A request
// that is refused does not count.
type Limiter interface {
	// Allow spends one request of key's budget when the budget allows.
	Allow(ctx context.Context, key string, limit int, now time.Time) (Decision, error)
	// Peek reports key's budget without spending any of it.
	Peek(ctx context.Context, key string, limit int, now time.Time) (Decision, error)
}

// Sweeper is a limiter whose memory of idle keys must be dropped now and
// then (see Local.Sweep).
type Sweeper interface {
	Sweep(now time.Time)
}

var _ Limiter = (*Local)(nil)

// Local is an exact in-process rolling window per key. Each key keeps the
// times of its allowed requests, grouped by millisecond, so memory follows
// the request rate, not the limit.
type Local struct {
	seed   maphash.Seed
	shards [64]localShard
}

type localShard struct {
	mu   sync.Mutex
	keys map[string]*window
}

type window struct {
	stamps []stamp // oldest first; a ring would save copies, a slice is simpler
	head   int
	count  int
}

type stamp struct {
	ms int64
	n  int32
}

// NewLocal makes an empty in-process limiter.
func NewLocal() *Local {
	l := &Local{seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].keys = map[string]*window{}
	}
	return l
}

// Allow records one request of key at now if fewer than limit requests of
// the last 60 seconds were allowed.
func (l *Local) Allow(_ context.Context, key string, limit int, now time.Time) (Decision, error) {
	return l.decide(key, limit, now, true), nil
}

// Peek reports key's budget at now without spending any of it.
func (l *Local) Peek(_ context.Context, key string, limit int, now time.Time) (Decision, error) {
	return l.decide(key, limit, now, false), nil
}

func (l *Local) decide(key string, limit int, now time.Time, spend bool) Decision {
	sh := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	w := sh.keys[key]
	if w == nil {
		if !spend {
			return Decision{Allowed: limit > 0, Limit: limit, Remaining: max(limit, 0), Reset: now}
		}
		w = &window{}
		sh.keys[key] = w
	}
	nowMS := now.UnixMilli()
	w.expire(nowMS - Window.Milliseconds())
	d := Decision{Limit: limit}
	if w.count < limit {
		if spend {
			w.add(nowMS)
		}
		d.Allowed = true
	}
	d.Remaining, d.Used = max(limit-w.count, 0), w.count
	if w.count > 0 {
		d.Reset = time.UnixMilli(w.stamps[w.head].ms + Window.Milliseconds())
	} else {
		d.Reset = now
	}
	return d
}

// expire drops the requests at or before cutoff.
func (w *window) expire(cutoff int64) {
	for w.head < len(w.stamps) && w.stamps[w.head].ms <= cutoff {
		w.count -= int(w.stamps[w.head].n)
		w.head++
	}
	if w.head == len(w.stamps) {
		w.stamps, w.head = w.stamps[:0], 0
	} else if w.head > 64 && w.head > len(w.stamps)/2 {
		n := copy(w.stamps, w.stamps[w.head:])
		w.stamps, w.head = w.stamps[:n], 0
	}
}

func (w *window) add(ms int64) {
	if n := len(w.stamps); n > w.head && w.stamps[n-1].ms == ms {
		w.stamps[n-1].n++
	} else {
		w.stamps = append(w.stamps, stamp{ms: ms, n: 1})
	}
	w.count++
}

// Len is the number of keys remembered.
func (l *Local) Len() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.keys)
		sh.mu.Unlock()
	}
	return n
}

// Sweep forgets the keys with no request in the window, so that memory
// follows the active keys. The API calls it periodically.
func (l *Local) Sweep(now time.Time) {
	cutoff := now.UnixMilli() - Window.Milliseconds()
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		for k, w := range sh.keys {
			w.expire(cutoff)
			if w.count == 0 {
				delete(sh.keys, k)
			}
		}
		sh.mu.Unlock()
	}
}
