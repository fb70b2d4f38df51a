// Package ratelimit decides whether a key may make one more request: an
// exact rolling window of 60 seconds per key. Local keeps the windows in
// this process; a shared implementation keeps one budget for all instances.
package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"strings"
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

// window is one key's allowed requests of the last minute, grouped by
// millisecond, oldest first, in a ring whose size follows the key's
// request rate: it doubles when full and halves when a quarter full. A
// stamp is 4 bytes: the milliseconds since the stamp before it (below
// 60,000: every stamp lies within the window of the newest) and a count.
// As 16-byte stamps in a slice that was compacted only when half read,
// 300 keys at ~150 requests a second each held 85 MB; in the ring, a
// sixth of that.
type window struct {
	oldest, newest int64   // the milliseconds of the oldest and newest stamps (n > 0)
	ring           []stamp // empty, or a power of two long
	head           int     // the oldest stamp's index
	n              int     // stamps held
	count          int     // requests held
}

type stamp struct {
	gap uint16 // milliseconds after the stamp before; the oldest's is not read
	n   uint16
}

// minRing is the smallest ring a window keeps once it has one.
const minRing = 8

// at is the i-th stamp from the oldest.
func (w *window) at(i int) *stamp { return &w.ring[(w.head+i)&(len(w.ring)-1)] }

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

func (l *Local) shardOf(key string) *localShard {
	return &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
}

func (l *Local) decide(key string, limit int, now time.Time, spend bool) Decision {
	sh := l.shardOf(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	w := sh.keys[key]
	if w == nil {
		if !spend {
			return Decision{Allowed: limit > 0, Limit: limit, Remaining: max(limit, 0), Reset: now}
		}
		w = &window{}
		// A copy: the window outlives the request, and key may be part
		// of a larger string or object the caller holds, which the map
		// would keep alive as long.
		sh.keys[strings.Clone(key)] = w
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
		d.Reset = time.UnixMilli(w.oldest + Window.Milliseconds())
	} else {
		d.Reset = now
	}
	return d
}

// expire drops the requests at or before cutoff.
func (w *window) expire(cutoff int64) {
	for w.n > 0 && w.oldest <= cutoff {
		w.count -= int(w.ring[w.head].n)
		w.head = (w.head + 1) & (len(w.ring) - 1)
		w.n--
		if w.n > 0 {
			w.oldest += int64(w.ring[w.head].gap)
		}
	}
	if w.n == 0 {
		w.head = 0
	}
	if len(w.ring) > minRing && w.n < len(w.ring)/4 {
		w.resize(len(w.ring) / 2)
	}
}

// add records one request at millisecond ms, just after expire dropped
// every request a minute older: the newest stamp left is less than a
// minute before ms, and its gap fits. A request no later than the newest
// (the clock stepped back) counts at the newest's millisecond and leaves
// the window with it.
func (w *window) add(ms int64) {
	w.count++
	gap := uint16(0)
	switch {
	case w.n == 0:
		w.oldest, w.newest = ms, ms
	case ms > w.newest:
		gap, w.newest = uint16(ms-w.newest), ms
	default:
		if last := w.at(w.n - 1); last.n < math.MaxUint16 {
			last.n++
			return
		}
	}
	if w.n == len(w.ring) {
		w.resize(max(minRing, 2*len(w.ring)))
	}
	*w.at(w.n) = stamp{gap: gap, n: 1}
	w.n++
}

// resize moves the stamps to a ring of size, oldest first.
func (w *window) resize(size int) {
	ring := make([]stamp, size)
	for i := range w.n {
		ring[i] = *w.at(i)
	}
	w.ring, w.head = ring, 0
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
