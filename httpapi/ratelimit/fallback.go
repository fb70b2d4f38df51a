package ratelimit

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

var (
	_ Limiter = (*Fallback)(nil)
	_ Sweeper = (*Fallback)(nil)
	_ Sweeper = (*Redis)(nil)
	_ Sweeper = (*Local)(nil)
)

// Fallback asks a shared limiter and, when it fails, decides with an
// in-process one instead, so requests are still served and still limited.
// After a failure it leaves the shared limiter alone for a short pause
// (so a dead Redis costs no timeout per request), then tries again:
// shared limiting resumes by itself. The local windows see every request,
// so a fallback starts from this instance's recent traffic.
type Fallback struct {
	shared Limiter
	local  *Local
	log    *slog.Logger
	pause  time.Duration
	now    func() time.Time // the pause's clock: time.Now but in tests

	downUntil atomic.Int64 // Unix ns; 0 when the shared limiter is up
	fallbacks atomic.Int64
}

// NewFallback wraps shared with an in-process fallback.
func NewFallback(shared Limiter, log *slog.Logger) *Fallback {
	return &Fallback{shared: shared, local: NewLocal(), log: log, pause: time.Second, now: time.Now}
}

// Fallbacks counts the decisions made locally because the shared limiter
// failed or was paused.
func (f *Fallback) Fallbacks() int64 { return f.fallbacks.Load() }

// Degraded reports whether decisions are being made locally now.
func (f *Fallback) Degraded() bool { return f.downUntil.Load() != 0 }

// Sweep forgets the idle keys of the local limiter and of the shared one
// when it keeps any.
func (f *Fallback) Sweep(now time.Time) {
	f.local.Sweep(now)
	if s, ok := f.shared.(Sweeper); ok {
		s.Sweep(now)
	}
}

// Peek reads the budget from the shared limiter, or locally while it is
// down; it spends nothing.
func (f *Fallback) Peek(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	if f.down() {
		return f.local.Peek(ctx, key, limit, now)
	}
	d, err := f.shared.Peek(ctx, key, limit, now)
	if err != nil {
		f.fail(err)
		return f.local.Peek(ctx, key, limit, now)
	}
	return d, nil
}

// Down records that the shared limiter does not answer, as a failed
// decision would (found at start, before any request): decisions are
// local, and Degraded reports it, until a request finds it answering.
func (f *Fallback) Down(err error) { f.fail(err) }

// down reports whether the shared limiter is paused after a failure.
func (f *Fallback) down() bool {
	until := f.downUntil.Load()
	return until != 0 && f.now().UnixNano() < until
}

// fail pauses the shared limiter, logging the first failure of an outage.
func (f *Fallback) fail(err error) {
	if f.downUntil.Swap(f.now().Add(f.pause).UnixNano()) == 0 {
		f.log.Warn("shared rate limiter failed; limiting in-process until it answers again", "err", err)
	}
}

// Allow decides with the shared limiter, or locally while it is down.
func (f *Fallback) Allow(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	if f.down() {
		f.fallbacks.Add(1)
		return f.local.Allow(ctx, key, limit, now)
	}
	d, err := f.shared.Allow(ctx, key, limit, now)
	if err != nil {
		f.fail(err)
		f.fallbacks.Add(1)
		return f.local.Allow(ctx, key, limit, now)
	}
	// Read first: while the shared limiter answers, a request writes
	// nothing here (a swap on every request took the cache line from the
	// other cores each time).
	if f.downUntil.Load() != 0 && f.downUntil.Swap(0) != 0 {
		f.log.Info("shared rate limiter answers again; limits are shared across instances")
	}
	if d.Allowed {
		f.local.Allow(ctx, key, limit, now) // keep the local view of this instance's traffic
	}
	return d, nil
}
