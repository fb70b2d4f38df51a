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
type wakes struct {
	flags, keys chan struct{}
}

func newWakes() *wakes {
	return &wakes{flags: make(chan struct{}, 1), keys: make(chan struct{}, 1)}
}

func ring(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default: // one is pending already: it will read this change too
	}
}

func (w *wakes) wakeFlags() { ring(w.flags) }
func (w *wakes) wakeKeys()  { ring(w.keys) }
func (w *wakes) wakeAll()   { w.wakeFlags(); w.wakeKeys() }

// How long after a notification the flag load runs once more: trailing
// for a vote that committed just after the notifying one, replicaEcho
// for a loader that reads a replica, which may not have replayed the
// change yet.
const (
	trailing    = 50 * time.Millisecond
	replicaEcho = time.Second
)

// echo returns ring, which also rings once more d later; at most one such
// second ring is pending.
func echo(ring func(), d time.Duration) func() {
	var pending atomic.Bool
	return func() {
		ring()
		if pending.CompareAndSwap(false, true) {
			time.AfterFunc(d, func() {
				pending.Store(false)
				ring()
			})
		}
	}
}

// followUp rings the flag load again while the database has writes open
// after a load: a transaction that did not notify (migration 00004) is
// one of them until it commits. The delay doubles from 20 ms to 1 s while
// writes stay open, and starts over once a load finds none.
type followUp struct {
	wake  chan struct{}
	delay time.Duration
	timer *time.Timer
}

// after is told, after each load, whether writes were open.
func (f *followUp) after(open bool) {
	if !open {
		f.delay = 0
		return
	}
	f.delay = min(max(2*f.delay, 20*time.Millisecond), time.Second)
	f.stop()
	f.timer = time.AfterFunc(f.delay, func() { ring(f.wake) })
}

func (f *followUp) stop() {
	if f.timer != nil {
		f.timer.Stop()
	}
}

// watcher tells whether the database's change feed is up.
type watcher struct {
	up         atomic.Bool
	reconnects atomic.Int64
	notes      atomic.Int64 // notifications (PostgreSQL) or counter changes (SQLite) seen
}

// watch wakes the loads when db changes, until ctx ends: on PostgreSQL
// through LISTEN, on SQLite by reading the file's change counter.
func (l *Loader) watch(ctx context.Context, db *DB, w *wakes) {
	if db.Dialect == Postgres {
		l.listen(ctx, db, w)
	} else {
		l.pollDataVersion(ctx, db, w)
	}
}

// listen holds one LISTEN connection (lib/pq's Listener, which reconnects
// by itself) and rings the loads on each notification. A connection that
// comes back rings both loads, as notifications sent while it was away are
// lost. The connection is silent while nothing changes, so its reads have
// no deadline; instead, when no notification has come for three listener
// timeouts, a ping must be answered within one, or the connection is
// dropped and dialled again: a stall (a partition, a frozen server) is
// found within four timeouts, at the cost of one statement every three.
func (l *Loader) listen(ctx context.Context, db *DB, w *wakes) {
	timeout := l.opt.ListenTimeout
	dialer := newPGDialer(timeout)
	dialer.quietReads = true
	ln := pq.NewDialListener(dialer, listenerDSN(db.dsn), 50*time.Millisecond, time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventReconnected:
			l.watcher.up.Store(true)
			l.watcher.reconnects.Add(1)
			l.opt.Log.Info("change listener reconnected")
		case pq.ListenerEventDisconnected:
			if ctx.Err() == nil {
				l.watcher.up.Store(false)
				l.opt.Log.Warn("change listener disconnected; reconnecting", "err", db.Explain(err))
			}
		case pq.ListenerEventConnectionAttemptFailed:
			l.watcher.up.Store(false)
			l.logErr(db.Explain(err), "change listener cannot connect; retrying")
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
		w.wakeAll() // what changed before LISTEN took effect
	}()
	go l.ping(ctx, ln, dialer)
	wakeFlags, wakeKeys := echo(w.wakeFlags, trailing), w.wakeKeys
	if db != l.db {
		// The loads read a replica, which may not have replayed the
		// change yet: ring again a little later.
		wakeFlags, wakeKeys = echo(wakeFlags, replicaEcho), echo(w.wakeKeys, replicaEcho)
	}
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

// ping checks the listener's connection when it has been quiet for three
// timeouts: a ping unanswered within one drops the connection, which the
// listener then dials again (and rings both loads).
func (l *Loader) ping(ctx context.Context, ln *pq.Listener, dialer *pgDialer) {
	timeout := l.opt.ListenTimeout
	t := time.NewTicker(3 * timeout)
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
			l.watcher.up.Store(false)
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
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	var last int64
	opened := false
	for {
		var err error
		if conn == nil {
			if conn, err = db.Conn(ctx); err == nil {
				err = conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&last)
				if err == nil {
					if opened {
						l.watcher.reconnects.Add(1)
					}
					opened = true
					l.watcher.up.Store(true)
					w.wakeAll()
				}
			}
		} else {
			var v int64
			if err = conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err == nil && v != last {
				l.watcher.notes.Add(1)
				last = v
				w.wakeAll()
			}
		}
		if err != nil && ctx.Err() == nil {
			l.watcher.up.Store(false)
			l.logErr(err, "reading the database's change counter failed")
			if conn != nil {
				conn.Close()
				conn = nil
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
