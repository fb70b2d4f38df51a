package loader

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

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

// readVoteTimes reads the creation times of votes since cut, Unix ms,
// by flag: of every approved flag, or of the flags ids when given.
func (db *DB) readVoteTimes(ctx context.Context, r reader, cut time.Time, ids []string) (map[string][]int64, error) {
	out := map[string][]int64{}
	scan := func(query string, args ...any) error {
		rows, err := r.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return scanVoteTimes(rows, out)
	}
	if ids == nil {
		if err := scan(db.q.voteTimes, tsText(cut)); err != nil {
			return nil, err
		}
	}
	const batch = 500 // well under either database's limit on bound values
	for start := 0; start < len(ids); start += batch {
		query, args, err := sqlx.In(db.q.voteTimesOf, tsText(cut), ids[start:min(start+batch, len(ids))])
		if err != nil {
			return nil, err
		}
		if err := scan(db.Rebind(query), args...); err != nil {
			return nil, err
		}
	}
	for _, ts := range out {
		slices.Sort(ts)
	}
	return out, nil
}

// scanVoteTimes adds the rows of a vote-times query (its current result
// set: flag id, Unix ms) to out.
func scanVoteTimes(rows *sql.Rows, out map[string][]int64) error {
	for rows.Next() {
		var id string
		var ms int64
		if err := rows.Scan(&id, &ms); err != nil {
			return err
		}
		out[id] = append(out[id], ms)
	}
	return rows.Err()
}

// readAggregates counts the users and, from the vote windows (rebuilt on
// a full load, else updated with the votes of the flags given), the votes
// of the last 24 hours, 7 and 30 days; and it says how many vote times it
// read.
func (l *Loader) readAggregates(ctx context.Context, r reader, full bool, flags []memstore.FlagInput, now time.Time) (memstore.Aggregates, int, error) {
	var users int64
	if err := r.QueryRowContext(ctx, l.db.q.users).Scan(&users); err != nil {
		return memstore.Aggregates{}, 0, err
	}
	var times map[string][]int64
	if l.rebuildsWindows(full, now) {
		var err error
		if times, err = l.db.readVoteTimes(ctx, r, now.Add(-voteWindow), nil); err != nil {
			return memstore.Aggregates{}, 0, err
		}
	} else if len(flags) > 0 {
		ids := make([]string, len(flags))
		for i := range flags {
			ids[i] = flags[i].ID
		}
		var err error
		if times, err = l.db.readVoteTimes(ctx, r, now.Add(-voteWindow), ids); err != nil {
			return memstore.Aggregates{}, 0, err
		}
	}
	a, read := l.aggregates(full, users, flags, times, now)
	return a, read, nil
}

// rebuildsWindows is whether a load reads the vote times of every flag
// and makes the vote windows anew: a full load, or windows that no
// longer cover now.
func (l *Loader) rebuildsWindows(full bool, now time.Time) bool {
	return full || l.votes == nil || !l.votes.covers(now)
}

// aggregates are the statistics of a load that counted users and read
// times (by flag id: every approved flag's when rebuildsWindows, else
// those of flags and perhaps more), and the number of vote times it used.
func (l *Loader) aggregates(full bool, users int64, flags []memstore.FlagInput, times map[string][]int64, now time.Time) (memstore.Aggregates, int) {
	a := memstore.Aggregates{Users: users}
	read := 0 // vote times
	w := l.votes
	if l.rebuildsWindows(full, now) {
		w = newVoteWindows(now)
		for id, ts := range times {
			read += len(ts)
			w.setFlag(id, ts)
		}
	} else {
		// Idempotent: a tick that fails after this reads the same flags
		// again and sets the same times.
		for i := range flags {
			if flags[i].Approved {
				ts := times[flags[i].ID]
				read += len(ts)
				w.setFlag(flags[i].ID, ts)
			} else {
				w.setFlag(flags[i].ID, nil)
			}
		}
	}
	l.votes = w
	a.VotesLast24h, a.Last7d, a.Last30d = w.since(now.Add(-24*time.Hour)), w.since(now.Add(-7*24*time.Hour)), w.since(now.Add(-voteWindow))
	return a, read
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
