package loader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/memstore"
)

// Options tune a Loader.
type Options struct {
	// Overlap is how far before the previous load's start (on the
	// database's clock) a load reads updated flags again, so that a
	// transaction that commits late is not missed: at most once every
	// OverlapEvery; the loads between read back shortOverlap (or Overlap,
	// if shorter). Woken by every change, loads come many times a second
	// under votes, and each reading back 30 s would read every flag voted
	// on in those 30 s, with its vote times, again and again.
	Overlap time.Duration
	// OverlapEvery is how often at most a load reads back the whole
	// Overlap (0: 5 seconds).
	OverlapEvery time.Duration
	// FullEvery forces a full reload of the flags this often (0: never
	// after the first), a safety net under the incremental loads.
	FullEvery time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	Log *slog.Logger
	// OnLoad, when set, is told of every load: its job ("flags" or
	// "keys"), duration, rows read and error.
	OnLoad func(job string, took time.Duration, rows int, err error)
	// Listen wakes the loads when the database changes (see Run); off,
	// they run on their schedules alone.
	Listen bool
	// ListenDB is the database whose changes wake the loads: the primary
	// when the loader reads a replica (nil: the database it reads).
	ListenDB *DB
	// ListenTimeout is the PostgreSQL listener's ping period: after
	// three quiet periods it pings, and a ping unanswered within one drops
	// the connection (0: 10 seconds).
	ListenTimeout time.Duration
	// LoadGap is the least time between the starts of two flag loads
	// (0: 25 ms; negative: none). Woken by every change, loads under a
	// steady stream of votes would otherwise run back to back, each
	// bringing a vote or two at the full fixed cost of a load (its
	// statements, a build, a swap, a stream event): the instance, its
	// database and every live stream then do several times the work for
	// the same votes, and under that load every change shows later. A
	// change that comes after a quiet spell loads at once.
	LoadGap time.Duration
}

// Loader fills a memstore.Store from the database: flags, trends and the
// statistics on one schedule, API keys on another.
type Loader struct {
	db    *DB
	store *memstore.Store
	opt   Options

	mu       sync.Mutex // one flag load at a time
	flagWM   int64      // the database's clock at the start of the last read (see pgWatermark), Unix ms
	changes  changeLog  // the bulk writes already read
	lastFull time.Time
	// lastLong is when the last load that read back the whole Overlap
	// started (a full load reads everything).
	lastLong time.Time
	votes    *voteWindows // the vote times behind /stats' windows
	flagRows int          // flag rows the last load read whole

	statsMu sync.Mutex
	stats   Status

	watcher watcher     // the change feed that wakes the loads
	writing atomic.Bool // the last flag load saw a write still open
	sched   schedules   // the loads' schedules, which Reschedule changes
}

// Status says how the loads are going, for /readyz and the metrics.
type Status struct {
	Loads, Failures int64
	KeyFailures     int64
	LastDuration    time.Duration
	LastRows        int
	// LastFlagRows is the number of flag rows the last load read whole (a
	// long read back reads most of its rows as versions only).
	LastFlagRows   int
	LastFull       bool
	LastSuccess    time.Time
	LastError      string
	LastErrorAt    time.Time
	KeyLastError   string
	KeyLastErrorAt time.Time
	// Listening is whether the change feed that wakes the loads is up
	// (false with listening off); ListenReconnects counts its returns, and
	// Notifications the changes it reported.
	Listening        bool
	ListenReconnects int64
	Notifications    int64
}

// New makes a loader reading db into store.
func New(db *DB, store *memstore.Store, opt Options) *Loader {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Overlap == 0 {
		opt.Overlap = 30 * time.Second
	}
	if opt.OverlapEvery <= 0 {
		opt.OverlapEvery = 5 * time.Second
	}
	if opt.ListenDB == nil {
		opt.ListenDB = db
	}
	if opt.ListenTimeout <= 0 {
		opt.ListenTimeout = 10 * time.Second
	}
	if opt.LoadGap == 0 {
		opt.LoadGap = 25 * time.Millisecond
	}
	return &Loader{db: db, store: store, opt: opt}
}

// Status returns a copy of the load status.
func (l *Loader) Status() Status {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	st := l.stats
	st.Listening = l.watcher.up.Load()
	st.ListenReconnects = l.watcher.reconnects.Load()
	st.Notifications = l.watcher.notes.Load()
	return st
}

// LoadFlags reads what changed since the last tick (everything on the
// first), builds a new snapshot and swaps it in. On error the old snapshot
// keeps serving.
func (l *Loader) LoadFlags(ctx context.Context) error { return l.load(ctx, true) }

// LoadFlagsOnly is the first load of a starting server: flags and
// statistics without the trend history, whose snapshot says so (Trends
// is nil); the next LoadFlags reads the history.
func (l *Loader) LoadFlagsOnly(ctx context.Context) error { return l.load(ctx, false) }

func (l *Loader) load(ctx context.Context, withTrends bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := time.Now()
	rows, full, err := l.loadFlags(ctx, withTrends)
	if err != nil {
		err = l.failed(err)
	}
	if l.opt.OnLoad != nil {
		l.opt.OnLoad("flags", time.Since(start), rows, err)
	}
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	l.stats.Loads++
	if err != nil {
		l.stats.Failures++
		l.stats.LastError = err.Error()
		l.stats.LastErrorAt = time.Now()
		return err
	}
	l.stats.LastDuration = time.Since(start)
	l.stats.LastRows = rows
	l.stats.LastFlagRows = l.flagRows
	l.stats.LastFull = full
	l.stats.LastSuccess = time.Now()
	l.stats.LastError = ""
	return nil
}

func (l *Loader) loadFlags(ctx context.Context, withTrends bool) (int, bool, error) {
	now := l.opt.Now()
	prev := l.store.Snapshot()
	full := prev == nil || (l.opt.FullEvery > 0 && now.Sub(l.lastFull) >= l.opt.FullEvery)
	snap, rows, err := l.read(ctx, prev, full, withTrends, now)
	if err != nil {
		return 0, full, err
	}
	if !full && snap.Len() != snap.approvedInDB {
		// Something changed that the watermark cannot see (a deleted row,
		// a clock step): read everything again.
		full = true
		snap, rows, err = l.read(ctx, prev, true, withTrends, now)
		if err != nil {
			return 0, full, err
		}
	}
	if full = snap.full; full {
		l.lastFull = now
	}
	if full || snap.long {
		l.lastLong = now
	}
	l.flagWM, l.changes = snap.flagWM, snap.changes
	l.flagRows = snap.flagRows
	l.writing.Store(snap.writing)
	historyArrived := prev != nil && prev.Trends == nil && snap.Trends != nil
	l.store.SetSnapshot(snap.Snapshot)
	if full || historyArrived {
		// A big load leaves much garbage; give it back to the system now
		// rather than let the heap sit at twice its live size.
		debug.FreeOSMemory()
	}
	return rows, full, nil
}

// testHookAfterFlags, when set by a test, runs between a load's read of
// the flags and its count of them.
var testHookAfterFlags func()

// loadResult is what one load read: the snapshot built and what the
// next load needs to know of it.
type loadResult struct {
	*memstore.Snapshot
	approvedInDB int
	flagWM       int64
	writing      bool // another client held a write open (see pgWriting)
	changes      changeLog
	full         bool // every approved flag was read
	long         bool // the flags changed within the whole Overlap were read
	flagRows     int  // flag rows read whole
}

// shortOverlap is how far back a load reads between the loads that read
// back the whole Overlap: a write stamped this much before it commits
// shows at once, a later one within Options.OverlapEvery (on PostgreSQL
// the watermark holds back to the start of a write still open, where the
// role may see it; see pgWatermark).
const shortOverlap = 250 * time.Millisecond

// heldBack is how far back from now (the loader's clock) a short load's
// window may start and still be read whole; one that starts further back,
// its watermark held back by an open write (or the database's clock
// behind the loader's), reads the versions first (readUnheld).
const heldBack = 2 * time.Second

// read runs one load's queries in one read transaction (DB.BeginRead),
// so that flags, trends and aggregates agree.
func (l *Loader) read(ctx context.Context, prev *memstore.Snapshot, full, withTrends bool, now time.Time) (*loadResult, int, error) {
	// The watermark first, outside the load's transaction: a write still
	// open now is counted in it (see pgWatermark), and one that commits
	// from now on is in the transaction's snapshot, taken later.
	b := &loadResult{}
	if err := l.db.QueryRowContext(ctx, l.db.q.watermark).Scan(&b.flagWM, &b.writing); err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	if p := l.opt.ListenDB; l.opt.Listen && p != l.db && p.Dialect == Postgres && l.watcher.up.Load() {
		// A standby's sessions hold no transaction ids: the writes that
		// may commit after this load are open on the primary. Asked only
		// while the primary's feed is up, and a failure is no open write:
		// the loads from the replica never wait on the primary.
		if err := p.QueryRowContext(ctx, p.q.writing).Scan(&b.writing); err != nil {
			b.writing = false
		}
	}
	tx, err := l.db.BeginRead(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	defer tx.Rollback()
	var r reader = tx
	unseen, log, err := l.db.readChanges(ctx, r, l.changes)
	if err != nil {
		return nil, 0, fmt.Errorf("load changes: %w", err)
	}
	b.changes = log
	trendsFull := prev == nil || prev.Trends == nil
	var snapshotDays []string
	for _, c := range unseen {
		if c.kind == "snapshot" {
			snapshotDays = append(snapshotDays, c.day)
		} else {
			full, trendsFull = true, true // an import or a seed: read everything again
		}
	}
	var flags []memstore.FlagInput
	versions := 0 // version rows read (readUnheld)
	switch {
	case full:
		flags, err = l.db.readFlags(ctx, r, l.db.q.allApproved)
	default:
		overlap := min(l.opt.Overlap, shortOverlap)
		if now.Sub(l.lastLong) >= l.opt.OverlapEvery {
			b.long, overlap = true, l.opt.Overlap
		}
		since := time.UnixMilli(l.flagWM).Add(-overlap)
		if b.long || now.Sub(since) > heldBack {
			// A long read back, or a window an open write holds back
			// (see pgWatermark), up to minutes: whole, every flag changed
			// in it would be read again by every load.
			flags, versions, err = l.db.readUnheld(ctx, r, prev, since)
		} else {
			flags, err = l.db.readFlags(ctx, r, l.db.q.changedSince, tsText(since))
		}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("load flags: %w", err)
	}
	b.flagRows = len(flags)
	if testHookAfterFlags != nil {
		testHookAfterFlags()
	}
	if err := r.QueryRowContext(ctx, l.db.q.approvedN).Scan(&b.approvedInDB); err != nil {
		return nil, 0, fmt.Errorf("count flags: %w", err)
	}

	today := memstore.DayOf(now)
	oldest := today - (memstore.TrendDays - 1)
	var trends *memstore.Trends
	var trendRows int
	switch {
	case !withTrends:
		// The first load: ready on flags; the history follows (see Run).
	case trendsFull:
		trends, trendRows, err = l.db.readAllTrends(ctx, r, l.db.q.trendsFrom, oldest)
		if err != nil {
			return nil, 0, fmt.Errorf("load trends: %w", err)
		}
	default:
		var rows []memstore.TrendRow
		for _, day := range snapshotDays {
			got, err := l.db.readTrendDay(ctx, r, day)
			if err != nil {
				return nil, 0, fmt.Errorf("load trends of %s: %w", day, err)
			}
			rows = append(rows, got...)
		}
		trends = prev.Trends.Update(rows, oldest)
		trendRows = len(rows)
	}

	// The vote times of a flag the snapshot already holds as read are in
	// the windows: a vote moves its flag's counts and updated_at. Most of
	// the flags a long read back reads again are such.
	voted := flags
	if !full && prev != nil {
		voted = nil
		for i := range flags {
			if !prev.Holds(&flags[i]) {
				voted = append(voted, flags[i])
			}
		}
	}
	agg, voteRows, err := l.readAggregates(ctx, r, full, voted, now)
	if err != nil {
		return nil, 0, fmt.Errorf("load stats: %w", err)
	}
	snap, err := memstore.Build(prev, memstore.Change{Full: full, Flags: flags, Trends: trends, Aggregates: agg, LoadedAt: now})
	if err != nil {
		return nil, 0, fmt.Errorf("build snapshot: %w", err)
	}
	b.Snapshot = snap
	b.full = full
	return b, versions + len(flags) + trendRows + voteRows, nil
}

// LoadKeys reads the active API keys and swaps the key set in.
func (l *Loader) LoadKeys(ctx context.Context) error {
	start := time.Now()
	hashes, keys, err := l.readKeys(ctx)
	if err != nil {
		err = l.failed(err)
	}
	if l.opt.OnLoad != nil {
		l.opt.OnLoad("keys", time.Since(start), len(keys), err)
	}
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	if err != nil {
		l.stats.KeyFailures++
		l.stats.KeyLastError = err.Error()
		l.stats.KeyLastErrorAt = time.Now()
		return err
	}
	l.store.SetKeys(memstore.NewKeySet(hashes, keys, time.Now()))
	l.stats.KeyLastError = ""
	return nil
}

// readKeys reads the active keys from the primary when the flags are read
// from a replica (ListenDB is the primary then): the primary notifies a
// revocation at its commit, and a replica that has not replayed it yet
// would keep the key a second longer, past the contract's 250 ms. The
// table is small. When the primary cannot be read, the replica is.
func (l *Loader) readKeys(ctx context.Context) ([][32]byte, []memstore.Key, error) {
	if p := l.opt.ListenDB; p != l.db {
		hashes, keys, err := p.ReadKeys(ctx)
		if err == nil || ctx.Err() != nil {
			return hashes, keys, err
		}
		l.opt.Log.Warn("key load from the primary failed; reading the replica", "err", err)
	}
	return l.db.ReadKeys(ctx)
}

// Run keeps the store loaded until ctx ends. The key load and the flag
// load run on their own, neither waiting for the other: a key revoked
// while the trend history loads is refused all the same. Each load runs
// when the database says something changed (with Options.Listen), on each
// tick of its schedule (parsed by package config: the safety net), and
// again at once after a failure of its first load; at most one of each is
// in flight and one pending, whatever the rate of changes. ready is
// called once both first loads have succeeded (the flags without their
// trend history, which follows).
func (l *Loader) Run(ctx context.Context, fs, ks cron.Schedule, ready func()) error {
	w := newWakes()
	if l.opt.Listen {
		watching := make(chan struct{})
		go func() {
			defer close(watching)
			l.watch(ctx, l.opt.ListenDB, w)
		}()
		defer func() { <-watching }()
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
	follow := followUp{wake: wake}
	defer follow.stop()
	var last time.Time // the start of the last load
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
		if wait := l.opt.LoadGap - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			select {
			case <-wake: // rung while waiting: the load that starts now reads it
			default:
			}
		}
		last = time.Now()
		err := withTimeout(ctx, 5*time.Minute, l.LoadFlags)
		l.logErr(err, "flag load failed")
		follow.after(l.opt.Listen && err == nil && l.writing.Load())
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
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// failed explains a load's error and drops the pooled connections, so
// that the next load starts on a fresh one.
func (l *Loader) failed(err error) error {
	l.db.DropIdle()
	return l.db.Explain(err)
}

// withTimeout runs a load under a deadline, so that a database that stops
// answering mid-query cannot stall the schedule for good.
func withTimeout(ctx context.Context, d time.Duration, load func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return load(ctx)
}

func (l *Loader) logErr(err error, msg string, args ...any) {
	if err != nil && !errors.Is(err, context.Canceled) {
		l.opt.Log.Warn(msg, append(args, "err", err)...)
	}
}
