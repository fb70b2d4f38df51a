package loader

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations
var migrations embed.FS

// Migrate brings the schema up to date. It is safe when several processes
// start at once: on PostgreSQL they queue on an advisory lock, on SQLite on
// a lock file beside the database, and only the first applies anything.
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
	var opts []goose.ProviderOption
	dialect := goose.DialectSQLite3
	if db.Dialect == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	} else {
		unlock, err := lockFile(db.Path + ".migrate-lock")
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		defer unlock()
	}
	p, err := goose.NewProvider(dialect, db.DB.DB, dir, opts...)
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

// lockFile takes an exclusive lock on path, waiting for other holders.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
