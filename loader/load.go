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

// readUnheld reads the flags changed since the time given that prev does
// not hold as they are now: first the columns that tell a flag's version
// (Snapshot.HoldsVersion), then whole the rows of the flags whose version
// prev does not hold. A long read back (see Options.Overlap) reads again
// thousands of flags that did not change since the load before; this way
// it moves a few bytes of each, not their texts. It also returns the
// number of version rows read.
func (db *DB) readUnheld(ctx context.Context, r reader, prev *memstore.Snapshot, since time.Time) ([]memstore.FlagInput, int, error) {
	rows, err := r.QueryContext(ctx, db.q.versionsSince, tsText(since))
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	n := 0
	for rows.Next() {
		var id, status string
		var red, green, updated int64
		if err := rows.Scan(&id, &status, &red, &green, &updated); err != nil {
			rows.Close()
			return nil, 0, err
		}
		n++
		if !prev.HoldsVersion(id, status == "APPROVED", red, green, updated) {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var out []memstore.FlagInput
	const batch = 500 // well under either database's limit on bound values
	for start := 0; start < len(ids); start += batch {
		query, args, err := sqlx.In(db.q.flagsOf, ids[start:min(start+batch, len(ids))])
		if err != nil {
			return nil, 0, err
		}
		got, err := db.readFlags(ctx, r, db.Rebind(query), args...)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, got...)
	}
	return out, n, nil
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

// readAggregates counts the users and, from the vote windows (rebuilt on
// a full load, else updated with the votes of the flags given), the votes
// of the last 24 hours, 7 and 30 days; and it says how many vote times it
// read.
func (l *Loader) readAggregates(ctx context.Context, r reader, full bool, flags []memstore.FlagInput, now time.Time) (memstore.Aggregates, int, error) {
	var a memstore.Aggregates
	if err := r.QueryRowContext(ctx, l.db.q.users).Scan(&a.Users); err != nil {
		return a, 0, err
	}
	read := 0 // vote times
	count := func(times map[string][]int64) {
		for _, ts := range times {
			read += len(ts)
		}
	}
	w := l.votes
	cut := now.Add(-voteWindow)
	if full || w == nil || !w.covers(now) {
		times, err := l.db.readVoteTimes(ctx, r, cut, nil)
		if err != nil {
			return a, 0, err
		}
		count(times)
		w = newVoteWindows(now)
		for id, ts := range times {
			w.setFlag(id, ts)
		}
	} else if len(flags) > 0 {
		ids := make([]string, len(flags))
		for i := range flags {
			ids[i] = flags[i].ID
		}
		times, err := l.db.readVoteTimes(ctx, r, cut, ids)
		if err != nil {
			return a, 0, err
		}
		count(times)
		// Idempotent: a tick that fails after this reads the same flags
		// again and sets the same times.
		for i := range flags {
			if flags[i].Approved {
				w.setFlag(flags[i].ID, times[flags[i].ID])
			} else {
				w.setFlag(flags[i].ID, nil)
			}
		}
	}
	l.votes = w
	a.VotesLast24h, a.Last7d, a.Last30d = w.since(now.Add(-24*time.Hour)), w.since(now.Add(-7*24*time.Hour)), w.since(cut)
	return a, read, nil
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
	id   int64
	kind string
	day  string
}

// changeLog remembers which bulk writes a loader has read. Ids are handed
// out at insert but seen at commit, so a late commit can bring an id below
// one already seen: the log keeps a window of recent ids rather than a
// single high-water mark.
type changeLog struct {
	floor int64          // every id at or below it has been read
	seen  map[int64]bool // ids above floor already read
}

const changeWindow = 1000

// readChanges returns the changes not yet read and the log updated with
// them. On a loader's first read (an empty log), everything on file is
// taken as read: the full load that follows includes it.
func (db *DB) readChanges(ctx context.Context, r reader, log changeLog) ([]change, changeLog, error) {
	rows, err := r.QueryContext(ctx, db.q.changes, log.floor)
	if err != nil {
		return nil, log, err
	}
	defer rows.Close()
	first := log.seen == nil
	next := changeLog{floor: log.floor, seen: map[int64]bool{}}
	for id := range log.seen {
		next.seen[id] = true
	}
	var unseen []change
	top := log.floor
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.id, &c.kind, &c.day); err != nil {
			return nil, log, err
		}
		top = max(top, c.id)
		if !next.seen[c.id] {
			next.seen[c.id] = true
			if !first {
				unseen = append(unseen, c)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, log, err
	}
	next.floor = max(log.floor, top-changeWindow)
	for id := range next.seen {
		if id <= next.floor {
			delete(next.seen, id)
		}
	}
	return unseen, next, nil
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
