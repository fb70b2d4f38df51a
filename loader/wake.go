package loader

import (
	"context"
	"database/sql"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// notifyChannel is the channel the migrations' triggers notify on; the
// payload is "keys" for a change of api_keys, "flags" for the rest.
const notifyChannel = "flagpole_changes"

// sqlitePoll is how often SQLite's change counter is read: a statement of
// a few microseconds on a connection of its own.
const sqlitePoll = 100 * time.Millisecond

// wakes are the two loads' doorbells. Each holds at most one ring: a
// load in flight plus one pending, however many changes arrive meanwhile.
// It counts the rings by load and source, for the operator to see what
// keeps the data fresh.
type wakes struct {
	flags, keys chan struct{}
	rings       [2][numSources]atomic.Int64 // by load (flags, keys) and source
}

// Source is what rang a load.
type Source int

// The sources of a load's rings: the database (a notification, SQLite's
// change counter, the listener's start or return), the polling while the
// listener is down, the schedules.
const (
	ByDatabase Source = iota
	ByPolling
	BySchedule
	numSources
)

// String is the source's name, as the metrics label it.
func (s Source) String() string {
	return [numSources]string{"database", "polling", "schedule"}[s]
}

func newWakes() *wakes {
	return &wakes{flags: make(chan struct{}, 1), keys: make(chan struct{}, 1)}
}

// knock leaves a wake-up in c unless one is pending there.
func knock(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default: // one is pending already: it will read this change too
	}
}

func (w *wakes) wakeFlags(s Source) { w.rings[0][s].Add(1); knock(w.flags) }
func (w *wakes) wakeKeys(s Source)  { w.rings[1][s].Add(1); knock(w.keys) }
func (w *wakes) wakeAll(s Source)   { w.wakeFlags(s); w.wakeKeys(s) }

// by returns f bound to s.
func by(f func(Source), s Source) func() { return func() { f(s) } }

// watcher tells whether the database's change feed is up.
type watcher struct {
	up atomic.Bool
	// fell is set once the feed has gone down (not before it first
	// connects): from then, while it is not up, the primary may not answer.
	fell       atomic.Bool
	reconnects atomic.Int64
	notes      atomic.Int64  // notifications (PostgreSQL) or counter changes (SQLite) seen
	lost       chan struct{} // one slot: the feed went down (see Loader.poll)
}

// down marks the feed down. When it was not down already (it was up, or
// this is its first failure, at the start) it tells the loads, which poll
// until it is back. A feed that stays down fails again and again (the
// listener dials about once a second): those failures tell nothing, or
// each would start both loads at once.
func (w *watcher) down() {
	wasUp := w.up.Swap(false)
	first := !w.fell.Swap(true)
	if (wasUp || first) && w.lost != nil {
		knock(w.lost)
	}
}

// outageLogEvery is how often a feed that stays down is logged again.
const outageLogEvery = time.Minute

// outage is what a feed's log says of its time down: one warning when it
// goes down, then one a minute at most however often it fails (the
// listener dials about once a second), with the failures and the time
// down since, and how it ended. Not safe for concurrent use: one
// goroutine tells it of the feed's events.
type outage struct {
	since    time.Time // zero: up
	told     time.Time // when it was last logged
	failures int       // since it was last logged
	total    int       // since it went down
}

// begin starts the outage at now, unless one is under way.
func (o *outage) begin(now time.Time) {
	if o.since.IsZero() {
		o.since, o.failures, o.total = now, 0, 0
	}
}

// fell notes that the feed went down at now and warned of it.
func (o *outage) fell(now time.Time) {
	o.begin(now)
	o.told = now
}

// failed notes a failure at now, and returns the attributes to log it
// with, or false when it is not to be logged (the outage was logged less
// than outageLogEvery ago).
func (o *outage) failed(now time.Time) (args []any, log bool) {
	o.begin(now)
	o.failures++
	o.total++
	if !o.told.IsZero() && now.Sub(o.told) < outageLogEvery {
		return nil, false
	}
	args = []any{"failures", o.failures, "down_ms", now.Sub(o.since).Milliseconds()}
	o.told, o.failures = now, 0
	return args, true
}

// back notes that the feed is up at now, and returns the attributes to
// log that with (none when it was not down).
func (o *outage) back(now time.Time) []any {
	if o.since.IsZero() {
		return nil
	}
	args := []any{"failures", o.total, "down_ms", now.Sub(o.since).Milliseconds()}
	*o = outage{}
	return args
}

// watch wakes the loads when db changes, until ctx ends: on PostgreSQL
// through LISTEN, a notification of the flags going through the settler
// (see settler); on SQLite by reading the file's change counter.
func (l *Loader) watch(ctx context.Context, db *DB, w *wakes) {
	if db.Dialect != Postgres {
		l.pollDataVersion(ctx, db, w)
		return
	}
	var replica *DB
	if l.db != db {
		replica = l.db
	}
	s := newSettler(db, replica, l.gate, by(w.wakeFlags, ByDatabase), l.logErr)
	l.settler.Store(s)
	settled := make(chan struct{})
	go func() {
		defer close(settled)
		s.run(ctx)
	}()
	defer func() { <-settled }()
	l.listen(ctx, db, s.notified, by(w.wakeKeys, ByDatabase))
}

// listen holds one LISTEN connection (lib/pq's Listener, which reconnects
// by itself) and rings the loads on each notification. A connection that
// comes back rings both loads, as notifications sent while it was away are
// lost. The connection is silent while nothing changes, so its reads have
// no deadline; instead, when no notification has come for a listener
// timeout, a ping must be answered within one, or the connection is
// dropped and dialled again: a stall (a partition, a frozen server) is
// found within two timeouts (10 s by default, the poll interval the loads
// fall back to meanwhile), at the cost of an empty statement every
// timeout while nothing changes.
func (l *Loader) listen(ctx context.Context, db *DB, wakeFlags, wakeKeys func()) {
	timeout := l.opt.ListenTimeout
	dialer := newPGDialer(timeout)
	dialer.quietReads = true
	// lib/pq calls this from one goroutine, the listener's, so out needs
	// no lock. While the listener stays down it fails to connect about
	// once a second: the first warning says it is down, the next come a
	// minute apart (out), and the loads poll meanwhile (Loader.poll).
	var out outage
	ln := pq.NewDialListener(dialer, listenerDSN(db.dsn), 50*time.Millisecond, time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventConnected: // the first connection, late when it failed first
			if args := out.back(time.Now()); args != nil {
				l.opt.Log.Info("change listener connected", args...)
			}
		case pq.ListenerEventReconnected:
			l.watcher.up.Store(true)
			l.watcher.reconnects.Add(1)
			l.opt.Log.Info("change listener reconnected", out.back(time.Now())...)
		case pq.ListenerEventDisconnected:
			if ctx.Err() == nil {
				l.watcher.down()
				out.fell(time.Now())
				l.opt.Log.Warn("change listener disconnected; reconnecting", "err", db.Explain(err))
			}
		case pq.ListenerEventConnectionAttemptFailed:
			l.watcher.down()
			if ctx.Err() != nil {
				return
			}
			if args, log := out.failed(time.Now()); log {
				l.logErr(db.Explain(err), "change listener cannot connect; retrying", args...)
			}
		}
	})
	// The sockets first: a ping or a handshake in flight holds the
	// listener's lock, which Close takes, until its socket fails.
	stop := context.AfterFunc(ctx, func() {
		dialer.abort()
		ln.Close()
	})
	defer stop()
	go func() {
		if err := ln.Listen(notifyChannel); err != nil {
			if ctx.Err() == nil {
				l.logErr(err, "LISTEN failed; the loads poll on their schedules")
			}
			return
		}
		l.watcher.up.Store(true)
		wakeFlags() // what changed before LISTEN took effect
		wakeKeys()
	}()
	go l.ping(ctx, ln, dialer)
	for n := range ln.NotificationChannel() {
		if n != nil {
			l.watcher.notes.Add(1)
		}
		switch {
		case n == nil: // reconnected: what was sent meanwhile is lost
			wakeFlags()
			wakeKeys()
		case n.Extra == "keys":
			wakeKeys()
		default:
			wakeFlags()
		}
	}
}

// ping checks the listener's connection when it has been quiet for a
// timeout: a ping unanswered within one drops the connection, which the
// listener then dials again (and rings both loads).
func (l *Loader) ping(ctx context.Context, ln *pq.Listener, dialer *pgDialer) {
	timeout := l.opt.ListenTimeout
	t := time.NewTicker(timeout)
	defer t.Stop()
	last := l.watcher.notes.Load()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n := l.watcher.notes.Load(); n != last {
			last = n // notifications came: the connection reads
			continue
		}
		done := make(chan error, 1)
		go func() { done <- ln.Ping() }()
		select {
		case <-ctx.Done():
			return
		case <-done: // answered, or no connection: the listener is dialling
		case <-time.After(timeout):
			l.opt.Log.Warn("change listener did not answer a ping; reconnecting", "timeout_ms", timeout.Milliseconds())
			l.watcher.down()
			dialer.drop()
		}
	}
}

// ListenerName is the application_name of the listener's connection, so
// that pg_stat_activity tells it from the loads' (unless the URL names
// one itself).
const ListenerName = "flagpole-listener"

// listenerDSN is the database URL with the listener's application_name.
func listenerDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	if q.Get("application_name") == "" {
		q.Set("application_name", ListenerName)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// pollDataVersion reads SQLite's PRAGMA data_version on a connection of
// its own every sqlitePoll: its value moves when another connection (any
// process) commits, so `flagpole keys revoke` or an import shows at once.
// The value means something only on the connection that read it: a new
// connection starts over, and rings both loads, as it cannot tell what
// changed meanwhile.
func (l *Loader) pollDataVersion(ctx context.Context, db *DB, w *wakes) {
	t := time.NewTicker(sqlitePoll)
	defer t.Stop()
	d := &dataVersion{db: db}
	defer d.close()
	opened := false
	var out outage // a failing read warns once, then once a minute
	for {
		moved, fresh, err := d.read(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				l.watcher.down()
				if args, log := out.failed(time.Now()); log {
					l.logErr(err, "reading the database's change counter failed", args...)
				}
			}
		case fresh:
			if opened {
				l.watcher.reconnects.Add(1)
			}
			opened = true
			l.watcher.up.Store(true)
			if args := out.back(time.Now()); args != nil {
				l.opt.Log.Info("reading the database's change counter again", args...)
			}
			w.wakeAll(ByDatabase)
		case moved:
			l.watcher.notes.Add(1)
			w.wakeAll(ByDatabase)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dataVersion is SQLite's change counter as one connection reads it.
type dataVersion struct {
	db   *DB
	conn *sql.Conn
	last int64
}

// read reads the counter: moved when it moved since the last read, fresh
// when the connection is new (what changed before it is unknown). A
// failed read drops the connection; the next one opens another.
func (d *dataVersion) read(ctx context.Context) (moved, fresh bool, err error) {
	if d.conn == nil {
		if d.conn, err = d.db.Conn(ctx); err != nil {
			return false, false, err
		}
		fresh = true
	}
	var v int64
	if err := d.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		d.close()
		return false, false, err
	}
	moved, d.last = v != d.last, v
	return moved, fresh, nil
}

func (d *dataVersion) close() {
	if d.conn != nil {
		d.conn.Close()
		d.conn = nil
	}
}
