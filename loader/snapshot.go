package loader

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// snapshotLock is the PostgreSQL advisory lock key of the daily snapshot.
const snapshotLock = 0x666c6167 // "flag"

// recordChange announces a bulk write to the loaders, inside its
// transaction. day is YYYY-MM-DD for a snapshot, empty otherwise.
func (db *DB) recordChange(ctx context.Context, tx *sqlx.Tx, kind, day string) error {
	var d any
	if day != "" {
		d = day
	}
	_, err := tx.ExecContext(ctx, db.Rebind("INSERT INTO data_changes (kind, day) VALUES (?, "+dayParam(db.Dialect)+")"), kind, d)
	return err
}

// SnapshotDayExclusive records every flag's counters as of now under day,
// once: the first writer of a day wins and later runs write nothing, so
// running it from cron on several hosts is safe. On PostgreSQL it also
// takes an advisory lock for the transaction and, when another instance
// holds it, writes nothing and reports skipped; SQLite serialises writers
// itself. It returns the rows written.
func (db *DB) SnapshotDayExclusive(ctx context.Context, day time.Time) (n int64, skipped bool, err error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("snapshot: %w", err)
	}
	defer tx.Rollback()
	if db.Dialect == Postgres {
		var got bool
		if err := tx.GetContext(ctx, &got, "SELECT pg_try_advisory_xact_lock($1)", snapshotLock); err != nil {
			return 0, false, fmt.Errorf("snapshot: %w", err)
		}
		if !got {
			return 0, true, nil
		}
	}
	d := day.UTC().Format(time.DateOnly)
	res, err := tx.ExecContext(ctx, db.q.snapshotDay, d)
	if err != nil {
		return 0, false, fmt.Errorf("snapshot: %w", err)
	}
	if n, _ = res.RowsAffected(); n > 0 {
		if err := db.recordChange(ctx, tx, "snapshot", d); err != nil {
			return 0, false, fmt.Errorf("snapshot: %w", err)
		}
	}
	return n, false, tx.Commit()
}

// SnapshotDay is SnapshotDayExclusive without the report of a skip.
func (db *DB) SnapshotDay(ctx context.Context, day time.Time) (int64, error) {
	n, _, err := db.SnapshotDayExclusive(ctx, day)
	return n, err
}
