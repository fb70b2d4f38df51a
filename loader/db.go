// Package loader is everything that talks SQL: opening PostgreSQL or the
// embedded SQLite file through sqlx, migrating the schema, the scheduled
// loads that fill memstore, and the writes of the command line (seed,
// import, export, snapshot, keys). The dialect differences stay here.
package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	_ "modernc.org/sqlite" // pure-Go SQLite driver
)

// Dialect names a database kind.
type Dialect string

// The two supported databases.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// DB is an open database with its dialect.
type DB struct {
	*sqlx.DB
	Dialect Dialect
	// Path is the SQLite file, empty for PostgreSQL.
	Path string
	q    *queries
	dsn  string // PostgreSQL: the data source, for the listener's own connection
	// reads is SQLite's pool for reads that must agree: its transactions
	// are deferred, so they read one snapshot of the file without taking
	// the write lock (the main pool's begin IMMEDIATE, for writers).
	reads *sqlx.DB

	timeout time.Duration
	dialer  *pgDialer // PostgreSQL only
	stop    func() bool
}

// Option tunes Open.
type Option func(*options)

type options struct {
	timeout time.Duration
	done    context.Context
}

// Timeout bounds every database call: on PostgreSQL each socket read or
// write (connecting included) that waits longer than d for the server
// fails the call and discards its connection. It is a bound on silence,
// not on a query's total time. Zero means DefaultTimeout.
func Timeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// CloseOnDone closes the database's sockets when ctx ends, so that a call
// blocked on a server that does not answer returns at once: a stopping
// program does not wait for the deadline.
func CloseOnDone(ctx context.Context) Option { return func(o *options) { o.done = ctx } }

// ParseURL tells the dialect of a database URL and the driver's data source.
// "sqlite:FILE" (or "sqlite://FILE") selects the embedded SQLite file;
// "postgres://" or "postgresql://" selects PostgreSQL.
func ParseURL(raw string) (Dialect, string, error) {
	switch {
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		// Not url's error: it quotes the URL, password and all. A
		// password with # / or ? unencoded may also parse, as a host
		// and port ("user:123") with the rest cut off, and no user.
		if u, err := url.Parse(raw); err != nil || u.User == nil && hasUserinfo(raw) {
			return "", "", fmt.Errorf("database URL %q is not a valid URL: percent-encode the special characters "+
				"of its user name and password (%%, #, /, ?, @, space)", Redact(raw))
		}
		return Postgres, raw, nil
	case strings.HasPrefix(raw, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(raw, "sqlite:"), "//")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path == "" {
			return "", "", errors.New("database URL: sqlite: needs a file name, as in sqlite:flagpole.db")
		}
		return SQLite, path, nil
	default:
		return "", "", fmt.Errorf("database URL %q: want sqlite:FILE or a postgres:// URL", Redact(raw))
	}
}

// Redact hides the password of a database URL, for errors and logs: the
// user information's (as xxxxx, also in a URL that does not parse) and a
// password= parameter's (of a URL's query or a key=value string).
func Redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		raw = u.Redacted()
	} else if err != nil || hasUserinfo(raw) {
		raw = redactUserinfo(raw)
	}
	return passwordParam.ReplaceAllString(raw, "${1}xxxxx")
}

// passwordParam is a password= parameter and its value, quoted or not.
var passwordParam = regexp.MustCompile(`(?i)(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]*)`)

// hasUserinfo reports whether raw, a URL, has an @ after its scheme: user
// information that url.Parse may have read as something else.
func hasUserinfo(raw string) bool {
	i := strings.Index(raw, "://")
	return i >= 0 && strings.IndexByte(raw[i+3:], '@') >= 0
}

// redactUserinfo hides the password of scheme://user:password@host in a
// URL that url.Parse refused: whatever lies between the first colon after
// the scheme and the last @.
func redactUserinfo(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	rest := raw[i+3:]
	at := strings.LastIndexByte(rest, '@')
	colon := strings.IndexByte(rest, ':')
	if at < 0 || colon < 0 || colon > at {
		return raw
	}
	return raw[:i+3] + rest[:colon+1] + "xxxxx" + rest[at:]
}

// Open opens the database at raw without touching its schema.
func Open(ctx context.Context, raw string, opts ...Option) (*DB, error) {
	dialect, src, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	o := options{timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if o.timeout <= 0 {
		o.timeout = DefaultTimeout
	}
	db := &DB{Dialect: dialect, timeout: o.timeout}
	switch dialect {
	case SQLite:
		db.Path = src
		dsn := "file:" + src + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)" +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		db.DB, err = sqlx.Open("sqlite", dsn)
		if err == nil {
			db.DB.SetMaxOpenConns(4)
			db.reads, err = sqlx.Open("sqlite", strings.Replace(dsn, "_txlock=immediate", "_txlock=deferred", 1))
		}
		if err == nil {
			db.reads.SetMaxOpenConns(2)
		}
	case Postgres:
		// lib/pq reads PGPASSWORD, PGPASSFILE (~/.pgpass) and the other
		// PG* variables for what the URL leaves out.
		var c *pq.Connector
		var cfg pq.Config
		db.dsn = src
		if cfg, err = pq.NewConfig(src); err == nil {
			// A query with parameters in one round trip (Parse, Bind and
			// Execute sent together) instead of two (Parse, then Bind and
			// Execute): a load's queries under votes wait on the network
			// half as often. The URL may still say binary_parameters=no.
			if !strings.Contains(src, "binary_parameters") {
				cfg.BinaryParameters = true
			}
			c, err = pq.NewConnectorConfig(cfg)
		}
		if err == nil {
			db.dialer = newPGDialer(o.timeout)
			c.Dialer(db.dialer)
			db.DB = sqlx.NewDb(sql.OpenDB(c), "postgres")
			db.DB.SetMaxOpenConns(8)
			db.DB.SetConnMaxIdleTime(5 * time.Minute)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dialect, err)
	}
	if o.done != nil && db.dialer != nil {
		db.stop = context.AfterFunc(o.done, db.dialer.abort)
	}
	db.q = queriesFor(dialect)
	pctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := db.ping(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s database %s: %w", dialect, Redact(raw), db.Explain(err))
	}
	return db, nil
}

// openRetry is the pause between two pings of a SQLite file that another
// connection is switching to WAL.
const openRetry = 10 * time.Millisecond

// ping connects. A SQLite connection's first statements switch the file
// to WAL, which SQLite refuses at once with SQLITE_BUSY, without waiting
// out the busy timeout, while another connection (of this process or
// another) does the same to a new file: ping then tries again until ctx
// ends.
func (db *DB) ping(ctx context.Context) error {
	for {
		err := db.PingContext(ctx)
		if err == nil || db.Dialect != SQLite || !isBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(openRetry):
		}
	}
}

// Close closes the database.
func (db *DB) Close() error {
	if db.stop != nil {
		db.stop()
	}
	if db.reads != nil {
		db.reads.Close()
	}
	return db.DB.Close()
}

// sameSnapshot returns a transaction that reads what tx reads: tx itself
// on SQLite, where one connection holds several results open; on
// PostgreSQL a second read transaction on tx's exported snapshot.
func (db *DB) sameSnapshot(ctx context.Context, tx *sql.Tx) (*sql.Tx, error) {
	if db.Dialect != Postgres {
		return tx, nil
	}
	var id string
	if err := tx.QueryRowContext(ctx, "SELECT pg_export_snapshot()").Scan(&id); err != nil {
		return nil, err
	}
	tx2, err := db.BeginRead(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx2.ExecContext(ctx, "SET TRANSACTION SNAPSHOT "+pq.QuoteLiteral(id)); err != nil {
		tx2.Rollback()
		return nil, err
	}
	return tx2, nil
}

// BeginRead starts a transaction whose reads all see one snapshot of the
// data, without blocking writers: repeatable read and read-only on
// PostgreSQL, a deferred transaction on SQLite (WAL), which takes no
// write lock. The caller rolls it back when done.
func (db *DB) BeginRead(ctx context.Context) (*sql.Tx, error) {
	if db.reads != nil {
		return db.reads.BeginTx(ctx, nil)
	}
	return db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
}

// Explain says, of an error that a deadline caused, which setting bounded
// it; other errors are returned as they are.
func (db *DB) Explain(err error) error { return explainTimeout(err, db.timeout) }

// DropIdle closes the pooled idle connections, so that the next call
// after a failure starts on a fresh one rather than on a connection to a
// server that may have gone.
func (db *DB) DropIdle() {
	db.DB.SetMaxIdleConns(0)
	db.DB.SetMaxIdleConns(2) // database/sql's default
}

// Timeouts counts the socket operations that passed their deadline.
func (db *DB) Timeouts() int64 {
	if db.dialer == nil {
		return 0
	}
	return db.dialer.timeouts.Load()
}

// OpenMigrated opens the database and brings its schema up to date.
func OpenMigrated(ctx context.Context, raw string, opts ...Option) (*DB, error) {
	db, err := Open(ctx, raw, opts...)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, db.Explain(err)
	}
	return db, nil
}
