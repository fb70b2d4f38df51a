// Package loader is everything that talks SQL: opening PostgreSQL or the
// embedded SQLite file through sqlx, migrating the schema, the scheduled
// loads that fill memstore, and the writes of the command line (seed,
// import, export, snapshot, keys). The dialect differences stay here.
package loader

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"  // PostgreSQL driver
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
}

// ParseURL tells the dialect of a database URL and the driver's data source.
// "sqlite:FILE" (or "sqlite://FILE") selects the embedded SQLite file;
// "postgres://" or "postgresql://" selects PostgreSQL.
func ParseURL(raw string) (Dialect, string, error) {
	switch {
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		if _, err := url.Parse(raw); err != nil {
			return "", "", fmt.Errorf("database URL: %w", err)
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

// Redact hides the password of a database URL, for errors and logs.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// Open opens the database at raw without touching its schema.
func Open(ctx context.Context, raw string) (*DB, error) {
	dialect, src, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	db := &DB{Dialect: dialect}
	switch dialect {
	case SQLite:
		db.Path = src
		dsn := "file:" + src + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)" +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		db.DB, err = sqlx.Open("sqlite", dsn)
		if err == nil {
			db.DB.SetMaxOpenConns(4)
		}
	case Postgres:
		db.DB, err = sqlx.Open("postgres", src)
		if err == nil {
			db.DB.SetMaxOpenConns(8)
			db.DB.SetConnMaxIdleTime(5 * time.Minute)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dialect, err)
	}
	db.q = queriesFor(dialect)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s database %s: %w", dialect, Redact(raw), err)
	}
	return db, nil
}

// OpenMigrated opens the database and brings its schema up to date.
func OpenMigrated(ctx context.Context, raw string) (*DB, error) {
	db, err := Open(ctx, raw)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
