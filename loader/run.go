package loader

import (
	"context"
	"time"

	"github.com/robfig/cron/v3"
)

// Run keeps the store loaded until ctx ends. The key load and the flag
// load run on their own, neither waiting for the other: a key revoked
// while the trend history loads is refused all the same. Each load runs
// when the database says something changed (with Options.Listen), on each
// tick of its schedule (parsed by package config: the safety net), every
// Options.PollEvery while the listener is down, and again at once after a
// failure of its first load; at most one of each is in flight and one
// pending, whatever the rate of changes. ready is called once both first
// loads have succeeded (the flags without their trend history, which
// follows).
func (l *Loader) Run(ctx context.Context, fs, ks cron.Schedule, ready func()) error {
	defer l.CloseConn() // last, once the loads have stopped
	w := newWakes()
	l.wakes.Store(w)
	if l.opt.Listen {
		l.watcher.lost = make(chan struct{}, 1)
		watching := make(chan struct{})
		go func() {
			defer close(watching)
			l.watch(ctx, l.opt.Primary, w)
		}()
		polling := make(chan struct{})
		go func() {
			defer close(polling)
			l.poll(ctx, w)
		}()
		defer func() { <-watching; <-polling }()
	}
	defer l.startSchedules(w, fs, ks)()

	keysFirst, flagsFirst := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-keysFirst:
		}
		select {
		case <-ctx.Done():
		case <-flagsFirst:
			if ready != nil {
				ready()
			}
		}
	}()
	keysDone := make(chan struct{})
	go func() {
		defer close(keysDone)
		l.runKeys(ctx, w.keys, keysFirst)
	}()
	err := l.runFlags(ctx, w.flags, flagsFirst)
	<-keysDone
	return err
}

// poll rings the loads while the listener is down: both at once when it
// goes down, then the flags every PollEvery and the keys every half of
// it from then, as with listening off, until it is back. With listening
// on the schedules are a backstop a minute apart. The listener's failed
// reconnections while it stays down (about one a second) do not ring:
// watcher.down tells lost only when it goes down.
func (l *Loader) poll(ctx context.Context, w *wakes) {
	half := l.opt.PollEvery / 2
	t := time.NewTicker(half)
	defer t.Stop()
	n := 0 // the ticks since the listener went down
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.watcher.lost:
			w.wakeAll(ByPolling)
			// The next ticks count from this load, not from the
			// ticker's start: keys in half a PollEvery, flags in one.
			t.Reset(half)
			n = 0
		case <-t.C:
			if l.watcher.up.Load() {
				continue
			}
			n++
			w.wakeKeys(ByPolling)
			if n%2 == 0 {
				w.wakeFlags(ByPolling)
			}
		}
	}
}

// runKeys loads the keys until it succeeds, closes first, then loads
// them on each ring until ctx ends.
func (l *Loader) runKeys(ctx context.Context, wake <-chan struct{}, first chan<- struct{}) {
	if retry(ctx, func() error { return withTimeout(ctx, time.Minute, l.LoadKeys) },
		func(err error, wait time.Duration) {
			l.logErr(err, "first key load failed; retrying", "in_ms", wait.Milliseconds())
		}) != nil {
		return
	}
	l.opt.Log.Info("keys loaded", "keys", l.store.Keys().Len())
	close(first)
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
			l.logErr(withTimeout(ctx, time.Minute, l.LoadKeys), "key load failed")
		}
	}
}

// runFlags loads the flags without their trend history until it
// succeeds, closes first, loads the history until that succeeds, then
// loads what changed on each ring until ctx ends.
func (l *Loader) runFlags(ctx context.Context, wake chan struct{}, first chan<- struct{}) error {
	if err := retry(ctx, func() error { return withTimeout(ctx, 5*time.Minute, l.LoadFlagsOnly) },
		func(err error, wait time.Duration) {
			l.logErr(err, "first load failed; retrying", "in_ms", wait.Milliseconds())
		}); err != nil {
		return err
	}
	st := l.Status()
	l.opt.Log.Info("first load done", "flags", l.store.Snapshot().Len(),
		"duration_ms", st.LastDuration.Milliseconds())
	close(first)
	if err := retry(ctx, func() error { return withTimeout(ctx, 5*time.Minute, l.LoadFlags) },
		func(err error, wait time.Duration) {
			l.logErr(err, "trend history load failed; retrying", "in_ms", wait.Milliseconds())
		}); err != nil {
		return err
	}
	st = l.Status()
	l.opt.Log.Info("trend history loaded", "trend_points", l.store.Snapshot().Trends.Rows(),
		"trend_bytes", l.store.Snapshot().Trends.Bytes(), "duration_ms", st.LastDuration.Milliseconds())
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
		// No load runs: this loop starts them. (-1 when the settler rang:
		// it found the gap passed, and no load started since.)
		if d := l.gate.untilOpen(); d > 0 {
			if !sleep(ctx, d) {
				return nil
			}
			select {
			case <-wake: // rung while waiting: the load that starts now reads it
			default:
			}
		}
		l.gate.start()
		err := withTimeout(ctx, 5*time.Minute, l.LoadFlags)
		l.gate.end()
		l.logErr(err, "flag load failed")
	}
}

// retry runs load until it succeeds, waiting between tries from 200 ms
// doubling to 10 s (a change in the database does not cut the wait short:
// a failing first load would run once per change); it returns ctx's error
// if ctx ends first.
func retry(ctx context.Context, load func() error, failed func(error, time.Duration)) error {
	for wait := 200 * time.Millisecond; ; wait = min(wait*2, 10*time.Second) {
		err := load()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		failed(err, wait)
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// withTimeout runs a load under a deadline, so that a database that stops
// answering mid-query cannot stall the schedule for good.
func withTimeout(ctx context.Context, d time.Duration, load func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return load(ctx)
}
