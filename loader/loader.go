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

	"github.com/flagpole/flagpole/memstore"
)

// Options tune a Loader.
type Options struct {
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
	// Primary is the database the writers write, when the loader reads a
	// replica (nil: the database it reads). Its notifications wake the
	// loads, a load waits for the replica to replay what the primary had
	// when it was woken, and the keys are read from it.
	Primary *DB
	// ListenTimeout bounds the listener's silence: a connection that has
	// brought no notification for ListenTimeout is pinged, and a ping
	// unanswered within ListenTimeout drops it (0: 5 seconds). While the
	// listener is down the loads poll every PollEvery.
	ListenTimeout time.Duration
	// PollEvery is how often the flags are loaded while the listener is
	// down, its keys every half of it (0: 10 seconds): with listening on,
	// the schedules are a backstop a minute apart, too slow for a feed
	// that may be lost for a while.
	PollEvery time.Duration
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
	pos      position   // what the loads have seen (see position)
	lastFull time.Time
	votes    *voteWindows // the vote times behind /stats' windows
	// counted is the stamps of votes and removals the last load counted
	// that its position has not seen (loadVotes.again).
	counted  map[uint64]struct{}
	flagRows int  // flag rows the last load read
	kept     kept // PostgreSQL: the connection of the loads' prepared statements

	statsMu sync.Mutex
	stats   Status

	watcher watcher                 // the change feed that wakes the loads
	settler atomic.Pointer[settler] // PostgreSQL with listen: what stands before a woken load
	gate    *gate                   // when the next flag load of Run can start
	wakes   atomic.Pointer[wakes]   // while Run runs
	sched   schedules               // the loads' schedules, which Reschedule changes
}

// Status says how the loads are going, for /readyz and the metrics.
type Status struct {
	Loads, Failures int64
	KeyFailures     int64
	LastDuration    time.Duration
	LastRows        int
	// LastFlagRows is the number of flag rows the last load read.
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
	// Barriers counts the barriers passed before loads that notifications
	// woke (see settler); BarrierWaitedOut the locks in them that another
	// session held past the barrier's wait.
	Barriers, BarrierWaitedOut int64
	// FlagRings and KeyRings count the wake-ups of each load by Source
	// (coalesced: several rings may start one load).
	FlagRings, KeyRings [numSources]int64
}

// New makes a loader reading db into store.
func New(db *DB, store *memstore.Store, opt Options) *Loader {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Primary == nil {
		opt.Primary = db
	}
	if opt.ListenTimeout <= 0 {
		opt.ListenTimeout = 5 * time.Second
	}
	if opt.PollEvery <= 0 {
		opt.PollEvery = 10 * time.Second
	}
	if opt.LoadGap == 0 {
		opt.LoadGap = 25 * time.Millisecond
	}
	return &Loader{db: db, store: store, opt: opt, gate: newGate(opt.LoadGap)}
}

// Status returns a copy of the load status.
func (l *Loader) Status() Status {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	st := l.stats
	st.Listening = l.watcher.up.Load()
	st.ListenReconnects = l.watcher.reconnects.Load()
	st.Notifications = l.watcher.notes.Load()
	if s := l.settler.Load(); s != nil {
		st.Barriers, st.BarrierWaitedOut = s.barriers.Load(), s.waitedOut.Load()
	}
	if w := l.wakes.Load(); w != nil {
		for i := range numSources {
			st.FlagRings[i], st.KeyRings[i] = w.rings[0][i].Load(), w.rings[1][i].Load()
		}
	}
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
		l.dropKept()
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
	if full = snap.full; full {
		l.lastFull = now
	}
	l.pos, l.counted = snap.pos, snap.again
	l.flagRows = snap.flagRows
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
// the flags and its read of the statistics.
var testHookAfterFlags func()

// testHookAfterPosition, when set by a test, runs between a PostgreSQL
// load's question of its position and its snapshot.
var testHookAfterPosition func()

// loadResult is what one load read: the snapshot built and what the
// next load needs to know of it.
type loadResult struct {
	*memstore.Snapshot
	pos      position            // what this load has seen
	full     bool                // every approved flag was read
	flagRows int                 // flag rows read
	again    map[uint64]struct{} // see loadVotes.again
}

// read runs one load's queries in one read transaction (DB.beginLoad),
// so that flags, trends and aggregates agree. An incremental load reads
// the rows the last load's position has not seen (see position); a full
// one every approved flag.
func (l *Loader) read(ctx context.Context, prev *memstore.Snapshot, full, withTrends bool, now time.Time) (*loadResult, int, error) {
	if l.coversAtOnce(prev, full, withTrends, now) {
		if res, n, err := l.readAtOnce(ctx, prev, withTrends, now); !errors.Is(err, errMore) {
			return res, n, err
		}
	}
	ld, err := l.db.beginLoad(ctx, l.pos)
	if err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	defer ld.close()
	unseen, err := l.db.readChanges(ctx, ld, l.pos)
	if err != nil {
		return nil, 0, fmt.Errorf("load changes: %w", err)
	}
	bulk := bulkOf(unseen)
	// What no stamp shows may be trend rows deleted or rewritten (SQLite's
	// reload mark, a truncated or restored flag_snapshots): the history is
	// read again whole too.
	bulk.full = bulk.full || ld.reload
	full = full || bulk.full
	var flags []memstore.FlagInput
	if full {
		flags, err = l.db.readFlags(ctx, ld, l.db.q.allApproved)
	} else {
		next, running := l.db.unseenArgs(l.pos)
		flags, err = l.db.readFlags(ctx, ld, l.db.q.unseenFlags, next, running)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("load flags: %w", err)
	}
	if testHookAfterFlags != nil {
		testHookAfterFlags()
	}
	var trends *memstore.Trends
	trendRows := 0
	if withTrends {
		if trends, trendRows, err = l.readTrends(ctx, ld, prev, bulk, now); err != nil {
			return nil, 0, err
		}
	}
	agg, votes, err := l.readAggregates(ctx, ld, full, prev, flags, now)
	if err != nil {
		return nil, 0, fmt.Errorf("load stats: %w", err)
	}
	snap, err := memstore.Build(prev, memstore.Change{Full: full, Flags: flags, Trends: trends, Aggregates: agg, LoadedAt: now})
	if err != nil {
		l.votes = nil // see aggregates
		return nil, 0, fmt.Errorf("build snapshot: %w", err)
	}
	return &loadResult{Snapshot: snap, pos: ld.pos, full: full, flagRows: len(flags), again: votes.again},
		len(flags) + trendRows + votes.rows, nil
}

// bulk is what the unseen rows of data_changes ask of a load.
type bulk struct {
	full         bool     // an import or a seed, or what no stamp shows: read everything
	snapshotDays []string // days whose trend rows were written
}

func bulkOf(unseen []change) bulk {
	var b bulk
	for _, c := range unseen {
		switch c.kind {
		case "snapshot":
			b.snapshotDays = append(b.snapshotDays, c.day)
		case "users":
			// Users deleted: the long way counts them (see atonce.go).
		default:
			b.full = true
		}
	}
	return b
}

// readTrends reads the trend history: all of it on a first history load
// or when b asks for everything, else the days b names, into prev's.
func (l *Loader) readTrends(ctx context.Context, r reader, prev *memstore.Snapshot, b bulk, now time.Time) (*memstore.Trends, int, error) {
	oldest := memstore.DayOf(now) - (memstore.TrendDays - 1)
	if b.full || prev == nil || prev.Trends == nil {
		trends, n, err := l.db.readAllTrends(ctx, r, l.db.q.trendsFrom, oldest)
		if err != nil {
			return nil, 0, fmt.Errorf("load trends: %w", err)
		}
		return trends, n, nil
	}
	var rows []memstore.TrendRow
	for _, day := range b.snapshotDays {
		got, err := l.db.readTrendDay(ctx, r, day)
		if err != nil {
			return nil, 0, fmt.Errorf("load trends of %s: %w", day, err)
		}
		rows = append(rows, got...)
	}
	return prev.Trends.Update(rows, oldest), len(rows), nil
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
// from a replica: the primary notifies a revocation at its commit, and a
// replica that has not replayed it yet would keep the key past the
// contract's 250 ms. The table is small. While the listener is down after
// it was up (the primary may not answer; not before it first connects, as
// at the start) and when the primary cannot be read within keyTimeout,
// the replica is read.
func (l *Loader) readKeys(ctx context.Context) ([][32]byte, []memstore.Key, error) {
	if p := l.opt.Primary; p != l.db && (!l.opt.Listen || l.watcher.up.Load() || !l.watcher.fell.Load()) {
		pctx, cancel := context.WithTimeout(ctx, keyTimeout)
		hashes, keys, err := p.ReadKeys(pctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return hashes, keys, err
		}
		l.opt.Log.Warn("key load from the primary failed; reading the replica", "err", p.Explain(err))
	}
	return l.db.ReadKeys(ctx)
}

// keyTimeout bounds a key load from the primary before the replica is
// read instead.
const keyTimeout = 2 * time.Second

// failed explains a load's error and drops the pooled connections, so
// that the next load starts on a fresh one.
func (l *Loader) failed(err error) error {
	l.db.DropIdle()
	return l.db.Explain(err)
}

func (l *Loader) logErr(err error, msg string, args ...any) {
	if err != nil && !errors.Is(err, context.Canceled) {
		l.opt.Log.Warn(msg, append(args, "err", err)...)
	}
}
