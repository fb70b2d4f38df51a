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
