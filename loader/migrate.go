package loader

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations
var migrations embed.FS

// Migrate brings the schema up to date. It is safe when several processes
// start at once: on PostgreSQL they queue on an advisory lock; on SQLite
// on the database's own write lock (one BEGIN IMMEDIATE transaction holds
// every pending migration), so no lock file is left beside the database.
// Only the first applies anything; the others find the schema current.
func (db *DB) Migrate(ctx context.Context) error {
	_, err := db.MigrateUp(ctx)
	return err
}

// MigrateUp is Migrate that also tells the versions it applied, oldest
// first; none when the schema was up to date.
func (db *DB) MigrateUp(ctx context.Context) ([]int64, error) {
	dir, err := fs.Sub(migrations, "migrations/"+string(db.Dialect))
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db.migrate(ctx, dir)
}

// migrate applies the migrations of dir (a goose directory of SQL files)
// and tells the versions it applied.
func (db *DB) migrate(ctx context.Context, dir fs.FS) ([]int64, error) {
	var opts []goose.ProviderOption
	if db.Dialect != Postgres {
		target, err := lastVersion(dir)
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		// The locker's transaction holds every migration: goose must not
		// begin one of its own per migration.
		opts = append(opts, goose.WithSessionLocker(&sqliteLocker{target: target}), goose.WithIsolateDDL(true))
	}
	p, err := db.provider(dir, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	applied := make([]int64, len(res))
	for i, r := range res {
		applied[i] = r.Source.Version
	}
	return applied, nil
}

// provider is goose's over dir for db's dialect, with opts; on
// PostgreSQL it holds an advisory lock while it migrates, so that
// instances started together migrate one at a time.
func (db *DB) provider(dir fs.FS, opts ...goose.ProviderOption) (*goose.Provider, error) {
	if db.Dialect != Postgres {
		return goose.NewProvider(goose.DialectSQLite3, db.DB.DB, dir, opts...)
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, db.DB.DB, dir, append(opts, goose.WithSessionLocker(locker))...)
}

// MigrateTo moves the schema up or down to version: for the benchmarks
// that compare what writers pay under two versions of the triggers
// (bench/notifycost), and the tests that take the migrations down and up
// again. Serving needs the latest.
func (db *DB) MigrateTo(ctx context.Context, version int64) error {
	dir, err := fs.Sub(migrations, "migrations/"+string(db.Dialect))
	if err != nil {
		return err
	}
	p, err := db.provider(dir)
	if err != nil {
		return err
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return err
	}
	if current > version {
		_, err = p.DownTo(ctx, version)
	} else {
		_, err = p.UpTo(ctx, version)
	}
	return err
}

// lastVersion is the highest migration version in dir.
func lastVersion(dir fs.FS) (int64, error) {
	names, err := fs.Glob(dir, "*.sql")
	if err != nil {
		return 0, err
	}
	var last int64
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return 0, err
		}
		last = max(last, v)
	}
	return last, nil
}

// sqliteLocker serialises migrations of one SQLite file with SQLite's own
// write lock: SessionLock begins an IMMEDIATE transaction on goose's
// connection (waiting while another connection, in this process or
// another, holds the write lock), the migrations run inside it, and
// SessionUnlock commits only if the schema reached target; otherwise it
// rolls back, so a failed migration leaves the file as it was. The
// operating system drops the lock of a process that dies.
type sqliteLocker struct {
	target int64
}

// lockRetry is how long SessionLock waits between attempts once SQLite's
// busy timeout has run out.
const lockRetry = 100 * time.Millisecond

func (l *sqliteLocker) SessionLock(ctx context.Context, conn *sql.Conn) error {
	for {
		_, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE")
		if err == nil {
			return nil
		}
		if !isBusy(err) {
			return fmt.Errorf("lock: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("lock: %w", context.Cause(ctx))
		case <-time.After(lockRetry):
		}
	}
}

func (l *sqliteLocker) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	var version sql.NullInt64
	err := conn.QueryRowContext(ctx,
		"SELECT MAX(version_id) FROM "+goose.DefaultTablename+" WHERE is_applied").Scan(&version)
	if err == nil && version.Int64 >= l.target {
		if _, err = conn.ExecContext(ctx, "COMMIT"); err == nil {
			return nil
		}
	}
	if _, rerr := conn.ExecContext(ctx, "ROLLBACK"); rerr != nil {
		// Never hand a connection with an open transaction back to the pool.
		conn.Raw(func(any) error { return driver.ErrBadConn })
		return errors.Join(err, rerr)
	}
	return err
}

// isBusy tells SQLite's "database is locked" (SQLITE_BUSY, with its
// extended codes) from other errors.
func isBusy(err error) bool {
	var serr *sqlite.Error
	return errors.As(err, &serr) && serr.Code()&0xff == sqlite3.SQLITE_BUSY
}
