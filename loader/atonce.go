package loader

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/flagpole/flagpole/memstore"
	"github.com/lib/pq"
)

// An incremental load on PostgreSQL asks the server twice: the position
// (which must come before the load's snapshot, see position), then every
// read in one message of the simple protocol, BEGIN to COMMIT, the
// position's stamps written into the statements as literals (queries.
// atOnce). Asked one statement at a time, as on SQLite and for the loads
// this one does not cover, a load took eight round trips, each waking
// flagpole and a PostgreSQL backend: at 200 votes a second, with loads
// swapping in 38 snapshots a second, that was most of what the loads cost
// either process (bench/README.md, "one message a load").
//
// A load that finds in what it read that it needs more (rows of
// data_changes: a bulk write, a daily snapshot, users deleted; tables
// with new storage; another server) reads the long way instead:
// readAtOnce reports it did not load, and read runs the statements one by
// one. The message counts the users only when one was added since the
// last load (migration 00006); the long way always counts them.

// errMore is readAtOnce's: the load needs more than one message reads.
var errMore = errors.New("the load needs the long way")

// coversAtOnce is whether read may try readAtOnce: an incremental load on
// PostgreSQL after one that read something, whose trend history (if it
// loads trends) and vote windows are there to update.
func (l *Loader) coversAtOnce(prev *memstore.Snapshot, full, withTrends bool, now time.Time) bool {
	return l.db.Dialect == Postgres && !full && prev != nil && !l.pos.zero() &&
		(!withTrends || prev.Trends != nil) && !l.rebuildsWindows(false, now)
}

// readAtOnce is read's incremental load in one message (see above); it
// returns errMore, having changed nothing, when the load needs more.
func (l *Loader) readAtOnce(ctx context.Context, prev *memstore.Snapshot, withTrends bool, now time.Time) (*loadResult, int, error) {
	conn, prefix, err := l.keptConn(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	prepared := prefix != ""
	if !prepared {
		defer conn.Close()
	}
	pos, moved, r, err := l.readBoth(ctx, conn, prefix, now)
	if err != nil {
		if prepared {
			l.dropKept()
		} else {
			// The message may have left its transaction open, or
			// failed: the connection is not given back to the pool.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		if prepared && lostPrepared(err) {
			l.kept.off = true
			l.opt.Log.Warn("the load's prepared statements were gone on the connection that prepared them (a pooler in transaction mode?): from now on each load plans its statements", "err", err)
			return l.readAtOnce(ctx, prev, withTrends, now)
		}
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	if moved {
		return nil, 0, errMore
	}
	pos.tables = r.tables
	if (l.pos.tables != "" && l.pos.tables != r.tables) || len(r.changes) > 0 {
		return nil, 0, errMore
	}
	if testHookAfterFlags != nil {
		testHookAfterFlags()
	}
	var trends *memstore.Trends
	if withTrends {
		trends = prev.Trends.Update(nil, memstore.DayOf(now)-(memstore.TrendDays-1))
	}
	if len(r.votes.needWhole(prev, r.flags, l.votes, now)) > 0 {
		// A flag new to the snapshot, or whose votes the windows cannot
		// follow by its fresh votes and removals: the long way reads its
		// votes whole.
		return nil, 0, errMore
	}
	users := prev.Stats().UsersTotal // no user added: the count prev was built with
	if r.users.Valid {
		users = r.users.Int64
	}
	agg := l.aggregates(false, users, r.flags, r.votes, now)
	snap, err := memstore.Build(prev, memstore.Change{Flags: r.flags, Trends: trends, Aggregates: agg, LoadedAt: now})
	if err != nil {
		l.votes = nil // see aggregates
		return nil, 0, fmt.Errorf("build snapshot: %w", err)
	}
	return &loadResult{Snapshot: snap, pos: pos, flagRows: len(r.flags), again: r.votes.again}, len(r.flags) + r.votes.rows, nil
}

// message is what readMessage read.
type message struct {
	tables  string
	changes []change
	flags   []memstore.FlagInput
	users   sql.NullInt64 // counted only when a user was added
	votes   *loadVotes    // the fresh votes, the flags read whole and the removals
}

// readBoth asks the position, then, unless the server moved, sends the
// message: the statements prepared with the names prefix (prepared.go),
// or queries.atOnce ("").
func (l *Loader) readBoth(ctx context.Context, conn *sql.Conn, prefix string, now time.Time) (position, bool, *message, error) {
	pos, moved, err := l.db.pgPosition(ctx, conn, l.pos, prefix)
	if err != nil || moved {
		return pos, moved, nil, err
	}
	if testHookAfterPosition != nil {
		testHookAfterPosition()
	}
	r, err := l.readMessage(ctx, conn, prefix, pos, now)
	return pos, false, r, err
}

// readMessage sends the load's reads from l.pos in one message and reads
// its result sets in order: queries.atOnce, or the same statements
// prepared with the names prefix.
func (l *Loader) readMessage(ctx context.Context, conn *sql.Conn, prefix string, pos position, now time.Time) (*message, error) {
	var query string
	cut := tsText(now.Add(-voteWindow))
	if p := prefix; p != "" {
		a := l.db.preparedArgs(l.pos)
		query = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; " + genericPlans + "; EXECUTE " + p + "tables; " +
			"EXECUTE " + p + "changes(" + a + "); EXECUTE " + p + "flags(" + a + "); " +
			"EXECUTE " + p + "users(" + a + "); EXECUTE " + p + "votes(" + a + "); " +
			"EXECUTE " + p + "whole(" + a + ", " + pq.QuoteLiteral(cut) + "); EXECUTE " + p + "removed(" + a + "); COMMIT"
	} else {
		next, running := l.db.unseenArgs(l.pos)
		query = literally(l.db.q.atOnce, next, running, next, running, next, running, next, running, cut, next, running, next, running,
			next, running)
	}
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := &message{votes: newLoadVotes()}
	var tables sql.NullString
	var xmax int64
	sets := []func() error{
		func() error { return scanOne(rows, &tables, &xmax) },
		func() (err error) { m.changes, err = scanChanges(rows); return err },
		func() (err error) { m.flags, err = scanFlags(rows); return err },
		func() error { return scanOne(rows, &m.users) },
		func() error {
			return voteScan{into: m.votes.fresh, pos: &pos, below: uint64(xmax), skip: l.counted, v: m.votes}.rows(rows)
		},
		func() error { return voteScan{into: m.votes.whole, v: m.votes}.rows(rows) },
		func() error { return l.removed(m.votes, &pos, uint64(xmax)).rows(rows) },
	}
	for i, scan := range sets {
		if i > 0 && !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("the load's message returned %d result sets, want %d", i, len(sets))
		}
		if err := scan(); err != nil {
			return nil, err
		}
	}
	if err := rows.Close(); err != nil { // reads to the COMMIT's end
		return nil, err
	}
	m.tables = tables.String
	return m, nil
}

// scanOne scans the one row of the current result set into dest.
func scanOne(rows *sql.Rows, dest ...any) error {
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	for rows.Next() {
	}
	return rows.Err()
}
