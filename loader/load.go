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

// readFlags runs a flag query and converts its rows; it also returns the
// greatest updated_at seen, in Unix milliseconds.
func (db *DB) readFlags(ctx context.Context, r reader, query string, args ...any) ([]memstore.FlagInput, int64, error) {
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []memstore.FlagInput
	var maxMS int64
	for rows.Next() {
		var (
			f                  memstore.FlagInput
			status, contexts   string
			desc               [memstore.NumLangs]sql.NullString
			createdMS, updated int64
		)
		if err := rows.Scan(&f.ID, &f.Slug, &status, &f.Category, &f.Region,
			&f.Text[0], &f.Text[1], &f.Text[2], &f.Text[3], &desc[0], &desc[1], &desc[2], &desc[3],
			&contexts, &f.Red, &f.Green, &createdMS, &updated); err != nil {
			return nil, 0, err
		}
		f.Approved = status == "APPROVED"
		for l, d := range desc {
			if d.Valid {
				s := d.String
				f.Description[l] = &s
			}
		}
		f.Contexts = splitContexts(contexts)
		f.CreatedAt = time.UnixMilli(createdMS).UTC()
		f.UpdatedAt = time.UnixMilli(updated).UTC()
		maxMS = max(maxMS, updated)
		out = append(out, f)
	}
	return out, maxMS, rows.Err()
}

func splitContexts(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// readTrends runs a trend query; it also returns the greatest written_at.
func (db *DB) readTrends(ctx context.Context, r reader, query string, args ...any) ([]memstore.TrendRow, int64, error) {
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []memstore.TrendRow
	var maxMS int64
	for rows.Next() {
		var t memstore.TrendRow
		var written int64
		if err := rows.Scan(&t.FlagID, &t.Day, &t.Red, &t.Green, &written); err != nil {
			return nil, 0, err
		}
		maxMS = max(maxMS, written)
		out = append(out, t)
	}
	return out, maxMS, rows.Err()
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

// readAllTrends streams every trend row from oldest on, in key order,
// into a compact Trends, without holding the rows themselves.
func (db *DB) readAllTrends(ctx context.Context, r reader, oldest int32) (*memstore.Trends, int, int64, error) {
	var maxMS int64
	if err := r.QueryRowContext(ctx, db.q.trendsMax).Scan(&maxMS); err != nil {
		return nil, 0, 0, err
	}
	rows, err := r.QueryContext(ctx, db.q.trendsFrom, dayText(oldest))
	if err != nil {
		return nil, 0, 0, err
	}
	defer rows.Close()
	b := memstore.NewTrendBuilder(oldest)
	var id, day sql.RawBytes
	var red, green int64
	n := 0
	for rows.Next() {
		if err := rows.Scan(&id, &day, &red, &green); err != nil {
			return nil, 0, 0, err
		}
		d, err := parseDay(day)
		if err != nil {
			return nil, 0, 0, err
		}
		b.Add(id, d, red, green)
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, err
	}
	return b.Done(), n, maxMS, nil
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
