package loader

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lib/pq"
)

// The incremental load in one message (atonce.go) runs its statements
// prepared, on a connection the loader keeps: planned once, not on every
// load. Planning was about half of what a load cost PostgreSQL
// (bench/README.md, "statements planned once": the loads' backend 3.27 ->
// 1.57 ms a load at 200 votes a second), and the reads are the part of a
// load that the requests sent meanwhile wait on most.
//
// Prepared statements are planned for any value of their parameters (the
// generic plan; each of the load's transactions sets plan_cache_mode so,
// SET LOCAL, or PostgreSQL would plan each run anew, seeing that the
// generic plan costs more than one for the values), and a generic plan
// knows nothing of how many rows "stamp >= $1" reads: it reads all of
// flags. Bounded on both sides ("stamp >= $1 AND stamp < " the snapshot's
// xmax, xmaxNow), the condition is a range, which the planner takes to
// hold a two-hundredth of the rows, and so scans the stamp index
// (TestPreparedPlans checks every plan). The open stamps are bounded the
// same way, between the least of them and the next. The votes of the
// flags to read whole are joined to those flags, found by both stamps,
// through the votes' primary key (TestPreparedPlans: no table read whole).
//
// Behind a pooler in transaction mode (PgBouncer) the session is not the
// loader's alone: its prepared statements are gone on the next
// transaction, or stay on a server session that other clients get. Their
// names are the connection's own (a random part), so that no load runs
// or trips on another's, and the load that finds them gone reads again
// unprepared; the loader plans every load from then on (logged once).
// The kept connection is renewed every keptFor, as the pool renews its
// idle ones, so that it follows the database's address when that moves.

// unseenPrepared is unseenWhere for the prepared statements: $1 the least
// stamp not seen, $2 the open stamps below it, $3 the least open stamp
// (or $1); see above for why the bounds.
const unseenPrepared = "((stamp >= $1 AND stamp < " + xmaxNow + ") OR (stamp >= $3 AND stamp < $1 AND stamp = ANY($2)))"

// unseenPreparedOf is unseenPrepared on the stamp column col.
func unseenPreparedOf(col string) string { return strings.ReplaceAll(unseenPrepared, "stamp", col) }

// genericPlans is what each of the load's transactions on the kept
// connection sets first: the plans made once (see above).
const genericPlans = "SET LOCAL plan_cache_mode = force_generic_plan"

// prepareScript is what a kept connection runs once: the load's
// statements, each named prefix and what it reads (position, tables,
// changes, flags, users, votes, whole, removed).
func prepareScript(prefix, cols string) string {
	unseen := "(bigint, bigint[], bigint)"
	return strings.Join([]string{
		"PREPARE " + prefix + "position(bigint, bigint[], bigint) AS " + pgPosition,
		"PREPARE " + prefix + "tables AS " + pgTables,
		"PREPARE " + prefix + "changes" + unseen + " AS SELECT kind, COALESCE(" + dayTextExpr(Postgres, "day") +
			", '') FROM data_changes WHERE " + unseenPrepared + " ORDER BY stamp",
		"PREPARE " + prefix + "flags" + unseen + " AS SELECT " + cols + " FROM flags WHERE " + unseenPrepared,
		// NULL unless a user was added since (migration 00006). A count,
		// not EXISTS: the generic plan of an EXISTS reads users in order
		// until a row matches, all of them when none does.
		"PREPARE " + prefix + "users" + unseen + " AS SELECT CASE WHEN (SELECT count(*) FROM users WHERE " +
			unseenPrepared + ") > 0 THEN (SELECT count(*) FROM users) END",
		"PREPARE " + prefix + "votes" + unseen + " AS " + unseenVotes(Postgres, unseenPrepared),
		"PREPARE " + prefix + "whole(bigint, bigint[], bigint, timestamptz) AS " +
			wholeVotes(Postgres, "$4", unseenPreparedOf("f.stamp"), unseenPreparedOf("f.reread_stamp")),
		"PREPARE " + prefix + "removed" + unseen + " AS " + removedVotes(Postgres, unseenPrepared),
	}, ";\n")
}

// preparedArgs are the arguments of the unseen statements for position
// p, as SQL text: next, the open stamps (unseenArgs'), the least open
// stamp.
func (db *DB) preparedArgs(p position) string {
	least := p.next
	for _, x := range p.running {
		least = min(least, x)
	}
	next, running := db.unseenArgs(p)
	return fmt.Sprintf("%s, %s, %d", next, pq.QuoteLiteral(running), least)
}

// kept is the connection the loads' prepared statements live on.
type kept struct {
	conn   *sql.Conn // nil until a load needs it, or after it failed
	prefix string    // the statements' names on conn: flagpole_load_<random>_
	since  time.Time // when conn was prepared
	off    bool      // the statements did not stay prepared: plan every load
}

// keptFor is how long a kept connection serves before the next load
// prepares on a new one: the pool's idle connections' time
// (SetConnMaxIdleTime).
const keptFor = 5 * time.Minute

// keptConn returns the connection for an incremental load in one
// message and how the names of its prepared statements begin; a pooled
// connection (the caller closes it) and "" when they cannot be prepared.
// Under Loader.mu.
func (l *Loader) keptConn(ctx context.Context) (*sql.Conn, string, error) {
	if l.kept.off {
		conn, err := l.db.Conn(ctx)
		return conn, "", err
	}
	if l.kept.conn != nil && time.Since(l.kept.since) < keptFor {
		return l.kept.conn, l.kept.prefix, nil
	}
	l.dropKept()
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, "", err
	}
	prefix := fmt.Sprintf("flagpole_load_%016x_", rand.Uint64())
	if _, err := conn.ExecContext(ctx, prepareScript(prefix, l.db.q.loadCols)); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
		return nil, "", fmt.Errorf("prepare the load's statements: %w", err)
	}
	l.kept = kept{conn: conn, prefix: prefix, since: time.Now()}
	return conn, prefix, nil
}

// dropKept closes the kept connection (after an error on it, or when the
// loads end); the next load prepares on a new one. Under Loader.mu.
func (l *Loader) dropKept() {
	if l.kept.conn == nil {
		return
	}
	l.kept.conn.Raw(func(any) error { return driver.ErrBadConn }) // Close then discards it
	l.kept.conn.Close()
	l.kept.conn = nil
}

// CloseConn gives back the connection the loads keep; a load after it
// opens another.
func (l *Loader) CloseConn() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropKept()
}

// lostPrepared reports whether err says a prepared statement does not
// exist: the session was not the kept connection's alone.
func lostPrepared(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && pe.Code == "26000" // invalid_sql_statement_name
}
