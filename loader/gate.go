package loader

import (
	"context"
	"sync"
	"time"
)

// gate says when the next flag load of Run's loop can start: not while
// one runs, nor within the load gap of the last one's start. The settler
// waits at it before it passes its barrier: a barrier passed while the
// load cannot start yet is passed for nothing (the load that starts later
// needs one passed after the last notification before it), and under a
// steady stream of votes the notifications come far more often than the
// loads (at 200 votes a second about three barriers a load, each a call
// of flagpole_barrier on the primary). Waiting, the settler passes one
// barrier a load, just before it: every notification that came before
// the barrier began is covered by it (see settler).
type gate struct {
	gap  time.Duration
	mu   sync.Mutex
	busy bool
	// rung is set by the settler as it wakes the load loop, cleared when
	// the loop starts the load: until then a load is as good as running.
	// Without it the settler, rung again before the loop had started the
	// load it woke, passed a second barrier for that one load.
	rung bool
	last time.Time     // the start of the last load
	done chan struct{} // one slot: a load ended
}

func newGate(gap time.Duration) *gate { return &gate{gap: gap, done: make(chan struct{}, 1)} }

// start notes that a load starts now.
func (g *gate) start() {
	g.mu.Lock()
	g.busy, g.rung, g.last = true, false, time.Now()
	g.mu.Unlock()
}

// ring notes that the settler is about to wake the load loop, which
// starts a load for every wake-up it takes (see rung).
func (g *gate) ring() {
	g.mu.Lock()
	g.rung = true
	g.mu.Unlock()
}

// end notes that the load started last has ended.
func (g *gate) end() {
	g.mu.Lock()
	g.busy = false
	g.mu.Unlock()
	knock(g.done)
}

// untilOpen returns how long until a load could start: 0 when none runs
// and the gap since the last start has passed, -1 while one runs or is
// rung for.
func (g *gate) untilOpen() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy || g.rung {
		return -1
	}
	return max(0, g.gap-time.Since(g.last))
}

// wait returns once a load could start (or ctx ends). The settler is
// its one caller: the load loop, which alone starts loads, waits for the
// gap alone (see sleep) and must not take the signal of a load's end.
func (g *gate) wait(ctx context.Context) {
	for {
		d := g.untilOpen()
		if d == 0 {
			return
		}
		if d > 0 {
			if !sleep(ctx, d) {
				return
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-g.done:
		}
	}
}

// sleep waits for d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
