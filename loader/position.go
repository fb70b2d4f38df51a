package loader

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/lib/pq"
)

// position is what the loads have seen of the writes, in the stamps that
// the triggers give every row they write to flags and data_changes
// (migrations 00005 on PostgreSQL, 00004 on SQLite): every write stamped
// below next has been read, except those of the transactions in running,
// which were still open. The next load reads the rows stamped at or above
// next, or by a transaction in running: all it has not seen, whatever the
// commit order or the length of a transaction, and hardly anything else.
//
// On PostgreSQL a stamp is the writing transaction's id. Before a load
// begins its transaction, its connection asks the server which of the ids
// the last position left open, and which of the ids assigned since, are
// still running (pg_xact_status, which answers "committed" only once a
// snapshot taken afterwards sees the commit, on a primary or a standby
// alike); the load's transaction, begun next, sees every one of the
// others that committed. On SQLite one writing transaction runs at a
// time: the stamp is a counter in commit order, and running is empty.
type position struct {
	next    uint64
	running []uint64
	// tables names the storage of the tables a load reads (PostgreSQL:
	// their oids and relfilenodes, as the load's snapshot sees them). A
	// TRUNCATE, or a table dropped and created again by a restore (whose
	// rows keep the dump's stamps: pg_restore creates the triggers after
	// the data), gives a table new storage: the next load then reads
	// everything.
	tables string
}

// zero is whether the position is a first load's: it has seen nothing.
func (p position) zero() bool { return p.next == 0 && len(p.running) == 0 }

// pgTables reads the storage of the tables a load reads, under the
// load's snapshot (pg_class is read like any table; the regclass
// functions would see the catalog as it is now), and the cluster's
// system identifier: another cluster (a restore into a new one) is
// another world of transaction ids. And the snapshot's xmax (see xmaxNow).
const pgTables = `SELECT (SELECT system_identifier FROM pg_control_system())::text || ',' ||
string_agg(c.relname || ':' || c.oid || ':' || c.relfilenode, ',' ORDER BY c.relname), ` + xmaxNow + `
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname IN ('flags', 'votes', 'flag_snapshots', 'data_changes', 'users')`

// xmaxNow is the first transaction id the load's snapshot does not see.
// No transaction of this cluster that the snapshot sees has an id at or
// above it, so a row stamped there is stamped by another cluster's: a
// dump restored here (pg_restore writes the rows before it creates the
// triggers), whose ids may run ahead of this cluster's for a long time.
// The restore gave the tables new storage, which made a load read
// everything; the loads after it treat such stamps as seen (unseenWhere),
// or they would read those rows again, every load, until this cluster's
// ids passed them.
const xmaxNow = "pg_snapshot_xmax(pg_current_snapshot())::text::bigint"

// maxChecked bounds the transaction ids one load asks the status of: the
// ids past it stay unchecked, at or above next, and so are read again
// until a later load checks them. A database whose cluster assigns more
// ids between two loads (another busy database on the same server, a
// loader idle for a minute) catches up over several loads.
const maxChecked = 50_000

// pgPosition asks the server, before the load's snapshot, which
// transactions it must still treat as unseen. It returns the new
// position and the snapshot's xmax, which is below prev.next only when
// the server is not the one prev was read from (a failover, a restore
// into a new cluster).
const pgPosition = `WITH s AS (SELECT pg_current_snapshot() AS s),
b AS (SELECT pg_snapshot_xmin(s)::text::bigint AS lo, pg_snapshot_xmax(s)::text::bigint AS hi FROM s),
c AS (SELECT lo, hi, LEAST(hi, GREATEST($1::bigint, lo) + $3::bigint) AS upto FROM b)
SELECT hi, upto, ARRAY(
    SELECT x FROM (SELECT unnest($2::bigint[]) AS x UNION ALL SELECT generate_series(GREATEST($1::bigint, lo), upto - 1)) AS t
     WHERE x >= lo AND x < hi AND pg_xact_status(x::text::xid8) = 'in progress' ORDER BY x)
FROM c`

// load is one load's read transaction and the position it will have seen
// once its reads are done.
type load struct {
	*sql.Tx
	conn *sql.Conn // PostgreSQL: the connection the position was asked on
	pos  position
	// reload is set when something happened that no stamp shows (approved
	// flags deleted, trend rows deleted or rewritten on SQLite; on
	// PostgreSQL a 'reload' row of data_changes says so) or when the
	// database is not the one prev was read from: everything must be read.
	reload bool
	xmax   uint64 // PostgreSQL: the snapshot's xmax (xmaxNow); 0 on SQLite
}

func (ld *load) close() {
	ld.Rollback()
	if ld.conn != nil {
		ld.conn.Close()
	}
}

// beginLoad starts a load after prev: its read transaction (see
// BeginRead) and the position it reaches.
func (db *DB) beginLoad(ctx context.Context, prev position) (*load, error) {
	if db.Dialect != Postgres {
		tx, err := db.BeginRead(ctx)
		if err != nil {
			return nil, err
		}
		var n, reload int64
		if err := tx.QueryRowContext(ctx, "SELECT n, reload FROM change_stamp").Scan(&n, &reload); err != nil {
			tx.Rollback()
			return nil, err
		}
		// A counter behind the last load's: the file was replaced by an
		// older one.
		moved := uint64(n)+1 < prev.next
		return &load{Tx: tx, pos: position{next: uint64(n) + 1},
			reload: !prev.zero() && (moved || uint64(reload) >= prev.next)}, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	pos, moved, err := db.pgPosition(ctx, conn, prev, "")
	if err == nil && moved {
		// Another server: the ids of prev mean nothing here.
		pos, _, err = db.pgPosition(ctx, conn, position{}, "")
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	if testHookAfterPosition != nil {
		testHookAfterPosition()
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		conn.Close()
		return nil, err
	}
	var tables sql.NullString
	var xmax int64
	if err := tx.QueryRowContext(ctx, pgTables).Scan(&tables, &xmax); err != nil {
		tx.Rollback()
		conn.Close()
		return nil, err
	}
	pos.tables = tables.String
	moved = moved || (prev.tables != "" && prev.tables != pos.tables)
	return &load{Tx: tx, conn: conn, pos: pos, reload: moved, xmax: uint64(xmax)}, nil
}

// pgPosition runs pgPosition on conn (or, prepared there with the names
// prefix, its prepared form: prepared.go); moved is whether the server's
// ids are behind prev's.
func (db *DB) pgPosition(ctx context.Context, conn *sql.Conn, prev position, prefix string) (position, bool, error) {
	var hi, upto int64
	var open []int64
	var row *sql.Row
	if prefix != "" {
		next, list := db.unseenArgs(prev)
		row = conn.QueryRowContext(ctx, genericPlans+"; EXECUTE "+prefix+"position("+next+", "+pq.QuoteLiteral(list)+", "+strconv.Itoa(maxChecked)+")")
	} else {
		running := make([]int64, len(prev.running))
		for i, x := range prev.running {
			running[i] = int64(x)
		}
		row = conn.QueryRowContext(ctx, pgPosition, int64(prev.next), pq.Array(running), maxChecked)
	}
	err := row.Scan(&hi, &upto, (*pq.Int64Array)(&open))
	if err != nil {
		return position{}, false, fmt.Errorf("read the transactions' state: %w", err)
	}
	pos := position{next: uint64(upto), running: make([]uint64, len(open))}
	for i, x := range open {
		pos.running[i] = uint64(x)
	}
	return pos, uint64(hi) < prev.next, nil
}

// unseenArgs are the two arguments of a query of the rows not seen from
// p: the least stamp not seen, and the open stamps below it, in the
// dialect's form (PostgreSQL's array text, SQLite's JSON array).
func (db *DB) unseenArgs(p position) (string, string) {
	var b strings.Builder
	open, close := "{", "}"
	if db.Dialect != Postgres {
		open, close = "[", "]"
	}
	b.WriteString(open)
	for i, x := range p.running {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(x, 10))
	}
	b.WriteString(close)
	return strconv.FormatUint(p.next, 10), b.String()
}

// unseenWhere is the dialect's condition on stamp for the rows not seen
// from a position: its two arguments are unseenArgs'. On PostgreSQL a
// stamp at or above the snapshot's xmax is another cluster's (xmaxNow).
func unseenWhere(d Dialect) string { return unseenOf(d, "stamp") }

// unseenOf is unseenWhere on the stamp column col.
func unseenOf(d Dialect, col string) string {
	if d == Postgres {
		return "((" + col + " >= CAST(? AS bigint) AND " + col + " < " + xmaxNow + ") OR " + col + " = ANY(CAST(? AS bigint[])))"
	}
	return "(" + col + " >= CAST(? AS INTEGER) OR " + col + " IN (SELECT value FROM json_each(?)))"
}
