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

func (db *DB) readAggregates(ctx context.Context, r reader, now time.Time) (memstore.Aggregates, error) {
	var a memstore.Aggregates
	err := r.QueryRowContext(ctx, db.q.aggregates,
		tsText(now.Add(-24*time.Hour)), tsText(now.Add(-7*24*time.Hour)), tsText(now.Add(-30*24*time.Hour))).
		Scan(&a.Users, &a.VotesLast24h, &a.Last7d, &a.Last30d)
	return a, err
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
	var news []change
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
				news = append(news, c)
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
	return news, next, nil
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
