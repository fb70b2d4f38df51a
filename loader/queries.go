package loader

import (
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// queries holds the statements whose text differs between dialects; they
// are written with ? placeholders and rebound once for the dialect.
type queries struct {
	allApproved   string
	unseenFlags   string // the flags a position has not seen (unseenWhere)
	trendsFrom    string
	trendsDay     string
	unseenChanges string // the rows of data_changes a position has not seen
	users         string
	voteTimes     string // every vote of an approved flag since ?
	voteTimesOf   string // the votes since ? of some flags: IN (?) expanded by sqlx.In
	unseenVotes   string // the votes a position has not seen, of any age (votes.go)
	wholeVotes    string // the votes since ? of the flags to read whole (reread_stamp) a position has not seen
	removedVotes  string // the kept removals of the flags a position has not seen (votes.go)
	// atOnce is an incremental load's reads on PostgreSQL as one message
	// (see Loader.readAtOnce), its ? to be filled by literally: the
	// unseenArgs four times, the vote window's edge, the unseenArgs three
	// times.
	atOnce      string
	loadCols    string // the columns of a flag the loads read (prepared.go)
	activeKeys  string
	snapshotDay string
	allFlags    string // every flag whatever its status, by id in byte order (export)
}

// ms is the dialect's expression for a timestamp column in Unix
// milliseconds; day for a DATE column in days since the epoch.
func msExpr(d Dialect, col string) string {
	if d == Postgres {
		return fmt.Sprintf("(extract(epoch FROM %s) * 1000)::bigint", col)
	}
	// julianday, not unixepoch(col, 'subsec'): the triggers of migration
	// 00006 compute the same in the voting application's SQLite, which
	// may be older than 3.42 ('subsec'). Exact: SQLite keeps whole ms.
	return fmt.Sprintf("CAST(round((julianday(%s) - 2440587.5) * 86400000) AS INTEGER)", col)
}

func dayExpr(d Dialect, col string) string {
	if d == Postgres {
		return fmt.Sprintf("(%s - DATE '1970-01-01')", col)
	}
	return fmt.Sprintf("CAST(julianday(%s) - 2440587.5 AS INTEGER)", col)
}

// bindOf is the dialect's placeholder style for sqlx.Rebind.
func bindOf(d Dialect) int {
	if d == Postgres {
		return sqlx.DOLLAR
	}
	return sqlx.QUESTION
}

// byteOrder is the dialect's ORDER BY suffix that sorts text byte by
// byte, as Go compares strings, whatever the database's collation.
func byteOrder(d Dialect) string {
	if d == Postgres {
		return ` COLLATE "C"`
	}
	return ""
}

// dayTextExpr is the dialect's expression for a DATE column as YYYY-MM-DD.
func dayTextExpr(d Dialect, col string) string {
	if d == Postgres {
		return "to_char(" + col + ", 'YYYY-MM-DD')"
	}
	return col
}

// tsParam is the dialect's expression for a timestamp parameter given in
// the text form tsText returns.
func tsParam(d Dialect) string {
	if d == Postgres {
		return "CAST(? AS TIMESTAMPTZ)"
	}
	return "?"
}

func dayParam(d Dialect) string {
	if d == Postgres {
		return "CAST(? AS DATE)"
	}
	return "?"
}

// literally fills the ? of query, in order, with args as SQL string
// literals, for a statement sent without parameters (the simple
// protocol, which alone runs several statements in one message). Only
// for text this process formats (numbers, the position's arrays, times).
func literally(query string, args ...string) string {
	var b strings.Builder
	for _, a := range args {
		i := strings.IndexByte(query, '?')
		if i < 0 {
			panic("literally: more arguments than placeholders")
		}
		b.WriteString(query[:i])
		b.WriteString(pq.QuoteLiteral(a))
		query = query[i+1:]
	}
	if strings.IndexByte(query, '?') >= 0 {
		panic("literally: more placeholders than arguments")
	}
	b.WriteString(query)
	return b.String()
}

// tsText formats t as both dialects compare it: SQLite stores this exact
// text, PostgreSQL parses it.
func tsText(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// dayText formats a day number as YYYY-MM-DD.
func dayText(day int32) string { return time.Unix(int64(day)*86400, 0).UTC().Format(time.DateOnly) }

// unseenVotes is the query of the votes not seen, of any age: unseen is
// the condition on their stamp.
func unseenVotes(d Dialect, unseen string) string {
	return "SELECT flag_id, " + msExpr(d, "created_at") + ", stamp FROM votes WHERE " + unseen
}

// wholeVotes is the query of the votes since ts (the window's edge) of the
// flags to read whole: changed (the condition on f.stamp) and with a
// reread_stamp not seen (on f.reread_stamp). A flag with none in the
// window, or not approved, gives one row of NULLs.
func wholeVotes(d Dialect, ts, changed, reread string) string {
	return "SELECT f.id, " + msExpr(d, "v.created_at") + ", v.stamp FROM flags f LEFT JOIN votes v ON v.flag_id = f.id AND v.created_at >= " +
		ts + " AND f.status = 'APPROVED' WHERE " + changed + " AND " + reread
}

// removedVotes is the query of the kept removals (removed_votes, as
// comma-separated numbers) of the flags whose stamp meets unseen.
func removedVotes(d Dialect, unseen string) string {
	if d == Postgres {
		return "SELECT id, array_to_string(removed_votes, ',') FROM flags WHERE " + unseen + " AND cardinality(removed_votes) > 0"
	}
	return "SELECT id, trim(removed_votes, '[]') FROM flags WHERE " + unseen + " AND removed_votes <> '[]'"
}

func queriesFor(d Dialect) *queries {
	cols := "id, slug, status, category, COALESCE(region, '') AS region, " +
		"text_tr, text_en, text_de, text_es, description_tr, description_en, description_de, description_es, " +
		"contexts, red_count, green_count, " + msExpr(d, "created_at") + " AS created_ms, " +
		msExpr(d, "updated_at") + " AS updated_ms"
	// The full read returns the day as stored (text on SQLite, parsed in
	// Go) and walks the primary key in order: no sort, no per-row lookups.
	fullDay, notIndexed := dayExpr(d, "day"), ""
	if d == SQLite {
		fullDay, notIndexed = "day", " NOT INDEXED"
	}
	ts, day := tsParam(d), dayParam(d)
	q := &queries{
		allApproved: "SELECT " + cols + " FROM flags" + notIndexed + " WHERE status = 'APPROVED'",
		unseenFlags: "SELECT " + cols + " FROM flags WHERE " + unseenWhere(d),
		trendsFrom: "SELECT flag_id, " + fullDay + ", red, green FROM flag_snapshots" + notIndexed + " WHERE day >= " + day +
			" ORDER BY flag_id, day",
		unseenChanges: "SELECT kind, COALESCE(" + dayTextExpr(d, "day") + ", '') FROM data_changes WHERE " + unseenWhere(d) +
			" ORDER BY stamp",
		trendsDay: "SELECT flag_id, " + fullDay + ", red, green FROM flag_snapshots WHERE day = " + day +
			" ORDER BY flag_id, day",
		users: "SELECT count(*) FROM users",
		voteTimes: "SELECT v.flag_id, " + msExpr(d, "v.created_at") + ", v.stamp FROM votes v JOIN flags f ON f.id = v.flag_id " +
			"AND f.status = 'APPROVED' WHERE v.created_at >= " + ts,
		voteTimesOf: "SELECT flag_id, " + msExpr(d, "created_at") + ", stamp FROM votes WHERE created_at >= " + ts +
			" AND flag_id IN (?)",
		unseenVotes:  unseenVotes(d, unseenWhere(d)),
		wholeVotes:   wholeVotes(d, ts, unseenOf(d, "f.stamp"), unseenOf(d, "f.reread_stamp")),
		removedVotes: removedVotes(d, unseenWhere(d)),
		activeKeys:   "SELECT id, key_hash, COALESCE(rate_limit, 0) AS rate_limit FROM api_keys WHERE revoked_at IS NULL",
		allFlags:     "SELECT " + cols + " FROM flags ORDER BY id" + byteOrder(d),
		snapshotDay: "INSERT INTO flag_snapshots (flag_id, day, red, green) " +
			"SELECT id, " + day + ", red_count, green_count FROM flags WHERE true ON CONFLICT (flag_id, day) DO NOTHING",
	}
	if d == Postgres {
		unseen := unseenWhere(d)
		q.atOnce = strings.Join([]string{
			"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
			pgTables,
			"SELECT kind, COALESCE(" + dayTextExpr(d, "day") + ", '') FROM data_changes WHERE " + unseen + " ORDER BY stamp",
			"SELECT " + cols + " FROM flags WHERE " + unseen,
			// NULL unless a user was added since (migration 00006).
			"SELECT CASE WHEN EXISTS (SELECT 1 FROM users WHERE " + unseen + ") THEN (SELECT count(*) FROM users) END",
			q.unseenVotes,
			q.wholeVotes,
			q.removedVotes,
			"COMMIT",
		}, ";\n")
		q.loadCols = cols
	}
	bind := bindOf(d)
	for _, p := range []*string{&q.allApproved, &q.unseenFlags, &q.trendsFrom, &q.trendsDay, &q.unseenChanges,
		&q.users, &q.voteTimes, &q.unseenVotes, &q.wholeVotes, &q.removedVotes, &q.activeKeys, &q.snapshotDay} {
		*p = sqlx.Rebind(bind, *p)
	}
	return q
}
