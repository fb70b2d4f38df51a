package loader

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// reader is what a load reads through: the database or a transaction.
type reader interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readFlags runs a flag query and converts its rows.
func (db *DB) readFlags(ctx context.Context, r reader, query string, args ...any) ([]memstore.FlagInput, error) {
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := scanFlags(rows)
	if err != nil {
		return nil, err
	}
	return out, rows.Err()
}

// scanFlags converts the rows of a flag query (its current result set).
func scanFlags(rows *sql.Rows) ([]memstore.FlagInput, error) {
	var out []memstore.FlagInput
	for rows.Next() {
		f, err := scanFlagRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f.FlagInput)
	}
	return out, rows.Err()
}

func splitContexts(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// readAggregates counts the users and, from the vote windows (rebuilt on
// a full load, else updated with what changed: votes.go), the votes of
// the last 24 hours, 7 and 30 days; it says how many vote rows it read
// and which stamps the next load skips.
func (l *Loader) readAggregates(ctx context.Context, ld *load, full bool, prev *memstore.Snapshot, flags []memstore.FlagInput, now time.Time) (memstore.Aggregates, *loadVotes, error) {
	var users int64
	if err := ld.QueryRowContext(ctx, l.db.q.users).Scan(&users); err != nil {
		return memstore.Aggregates{}, nil, err
	}
	v, err := l.readVotes(ctx, ld, l.rebuildsWindows(full, now), prev, flags, now)
	if err != nil {
		return memstore.Aggregates{}, nil, err
	}
	return l.aggregates(full, users, flags, v, now), v, nil
}

// rebuildsWindows is whether a load reads the vote times of every flag
// and makes the vote windows anew: a full load, or windows that no
// longer cover now.
func (l *Loader) rebuildsWindows(full bool, now time.Time) bool {
	return full || l.votes == nil || !l.votes.covers(now)
}

// aggregates are the statistics of a load that counted users and read
// the votes v (all of them when rebuildsWindows, else what changed of
// flags, the flags it read). A load that fails after this must forget
// the windows (l.votes = nil): they count votes that its position has
// not seen.
func (l *Loader) aggregates(full bool, users int64, flags []memstore.FlagInput, v *loadVotes, now time.Time) memstore.Aggregates {
	a := memstore.Aggregates{Users: users}
	w := l.votes
	if l.rebuildsWindows(full, now) {
		w = newVoteWindows(now)
		for id, ts := range v.all {
			w.setFlag(id, ts)
		}
	} else {
		v.update(w, flags)
	}
	l.votes = w
	a.VotesLast24h, a.Last7d, a.Last30d = w.since(now.Add(-24*time.Hour)), w.since(now.Add(-7*24*time.Hour)), w.since(now.Add(-voteWindow))
	return a
}

// ReadKeys reads the active API keys.
func (db *DB) ReadKeys(ctx context.Context) ([][32]byte, []memstore.Key, error) {
	rows, err := db.QueryContext(ctx, db.q.activeKeys)
	if err != nil {
		return nil, nil, fmt.Errorf("read keys: %w", err)
	}
	defer rows.Close()
	var hashes [][32]byte
	var keys []memstore.Key
	for rows.Next() {
		var k memstore.Key
		var h string
		if err := rows.Scan(&k.ID, &h, &k.Limit); err != nil {
			return nil, nil, fmt.Errorf("read keys: %w", err)
		}
		var sum [32]byte
		if n, err := hex.Decode(sum[:], []byte(h)); err != nil || n != 32 {
			continue // not a hash this service wrote; it can match no key
		}
		hashes = append(hashes, sum)
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read keys: %w", err)
	}
	return hashes, keys, nil
}

// readAllTrends streams the trend rows of query (every day from oldest,
// in key order) into a compact Trends, without holding the rows.
func (db *DB) readAllTrends(ctx context.Context, r reader, query string, oldest int32) (*memstore.Trends, int, error) {
	rows, err := r.QueryContext(ctx, query, dayText(oldest))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	b := memstore.NewTrendBuilder(oldest)
	var id, day sql.RawBytes
	var red, green int64
	n := 0
	for rows.Next() {
		if err := rows.Scan(&id, &day, &red, &green); err != nil {
			return nil, 0, err
		}
		d, err := parseDay(day)
		if err != nil {
			return nil, 0, err
		}
		b.Add(id, d, red, green)
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return b.Done(), n, nil
}

// readTrendDay reads every flag's row of one day (YYYY-MM-DD).
func (db *DB) readTrendDay(ctx context.Context, r reader, day string) ([]memstore.TrendRow, error) {
	rows, err := r.QueryContext(ctx, db.q.trendsDay, day)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memstore.TrendRow
	var d sql.RawBytes
	for rows.Next() {
		var t memstore.TrendRow
		if err := rows.Scan(&t.FlagID, &d, &t.Red, &t.Green); err != nil {
			return nil, err
		}
		if t.Day, err = parseDay(d); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// change is one row of data_changes.
type change struct {
	kind string
	day  string
}

// readChanges returns the rows of data_changes (the bulk writes of
// flagpole's own commands, and what no stamp shows) that a load at from
// has not seen. A first load reads everything anyway: none.
func (db *DB) readChanges(ctx context.Context, r reader, from position) ([]change, error) {
	if from.zero() {
		return nil, nil
	}
	next, running := db.unseenArgs(from)
	rows, err := r.QueryContext(ctx, db.q.unseenChanges, next, running)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanChanges(rows)
}

// scanChanges converts the rows of a data_changes query (its current
// result set).
func scanChanges(rows *sql.Rows) ([]change, error) {
	var out []change
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.kind, &c.day); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// parseDay reads a day as a database returns it: days since the epoch
// (PostgreSQL, computed) or YYYY-MM-DD (SQLite, as stored).
func parseDay(b []byte) (int32, error) {
	if len(b) == 10 && b[4] == '-' && b[7] == '-' {
		num := func(s []byte) int {
			n := 0
			for _, c := range s {
				n = n*10 + int(c-'0')
			}
			return n
		}
		t := time.Date(num(b[:4]), time.Month(num(b[5:7])), num(b[8:10]), 0, 0, 0, 0, time.UTC)
		return memstore.DayOf(t), nil
	}
	n := 0
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, fmt.Errorf("day %q", b)
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("day %q", b)
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return int32(n), nil
}
