package loader

import (
	"context"
	"database/sql"
)

// SetHookAfterFlags sets the function a load runs between its read of the
// flags and its count of them (nil: none); a load in one message (on
// PostgreSQL) runs it once every read is done.
func SetHookAfterFlags(f func()) { testHookAfterFlags = f }

// SetHookAfterPosition sets the function a PostgreSQL load runs between
// its question of its position and its snapshot (nil: none).
func SetHookAfterPosition(f func()) { testHookAfterPosition = f }

// Barrier passes the barrier before a load on primary as a woken load
// would, with each lock waited for at most 500 ms.
func Barrier(ctx context.Context, primary *DB) error {
	_, err := newSettler(primary, nil, newGate(0), func() {}, func(error, string, ...any) {}).barrier(ctx)
	return err
}

// PrepareScript is what the loads' kept connection runs once on db
// (prepared.go), its statements' names beginning with prefix.
func PrepareScript(db *DB, prefix string) string { return prepareScript(prefix, db.q.loadCols) }

// GenericPlans is what each of the load's transactions on the kept
// connection runs first.
const GenericPlans = genericPlans

// KeptPrefix is how the names of l's prepared statements begin ("": it
// keeps none).
func KeptPrefix(l *Loader) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kept.conn == nil {
		return ""
	}
	return l.kept.prefix
}

// PreparedArgs are the prepared statements' arguments of the unseen rows
// from next, the open stamps running below it.
func PreparedArgs(db *DB, next uint64, running ...uint64) string {
	return db.preparedArgs(position{next: next, running: running})
}

// KeptConn runs f on the connection l keeps for its prepared statements
// (false: it keeps none).
func KeptConn(l *Loader, f func(*sql.Conn) error) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kept.conn == nil {
		return false, nil
	}
	return true, f(l.kept.conn)
}

// Unprepared reports whether l has given up preparing its statements.
func Unprepared(l *Loader) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept.off
}

// AgeKept makes l's kept connection as old as keptFor, as if prepared
// that long ago.
func AgeKept(l *Loader) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.kept.since = l.kept.since.Add(-keptFor)
}

// CountedStamps is how many stamps of votes l's last load counted that
// its position has not seen (the next load skips their votes).
func CountedStamps(l *Loader) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.counted)
}
