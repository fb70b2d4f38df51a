package loader

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// LineError is an import failure and the line that caused it.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Imported is what an import wrote: its records (the lines that are not
// blank) and the flags they named, each counted once however many lines
// name it.
type Imported struct{ Records, Flags int }

// Import reads JSON Lines of flags and writes them in one transaction: an
// id or slug already present is updated, and any bad line leaves the
// database untouched. progress, when not nil, is told each line done.
// The lines are staged first, so that the database's writers wait only
// for the final copy (see importStaged).
func (db *DB) Import(ctx context.Context, r io.Reader, progress func(lines int)) (Imported, error) {
	return db.importStaged(ctx, r, progress)
}

// Export writes every flag, whatever its status, with all its stored
// snapshots, as JSON Lines ordered by id: the format Import reads.
// progress, when not nil, is told the flags written so far and the number
// of flags counted before the export began.
func (db *DB) Export(ctx context.Context, w io.Writer, progress func(done, total int)) (int, error) {
	// One snapshot of the data for the count and both queries: a write
	// in between cannot pair flags with another moment's trend rows.
	tx, err := db.BeginRead(ctx)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer tx.Rollback()
	// The trend rows stream beside the flags: on PostgreSQL from a second
	// transaction (a connection reads one result at a time) on the same
	// snapshot.
	tx2, err := db.sameSnapshot(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer tx2.Rollback()
	total := 0
	if progress != nil {
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM flags").Scan(&total); err != nil {
			return 0, fmt.Errorf("export: %w", err)
		}
	}
	rows, err := tx.QueryContext(ctx, db.q.allFlags)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer rows.Close()
	snaps, err := tx2.QueryContext(ctx, "SELECT flag_id, "+dayExpr(db.Dialect, "day")+", red, green FROM flag_snapshots ORDER BY flag_id"+
		byteOrder(db.Dialect)+", day")
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer snaps.Close()
	trends := &trendCursor{rows: snaps}
	if err := trends.next(); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriterSize(w, 256*1024)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	for rows.Next() {
		f, err := scanFlagRow(rows)
		if err == nil {
			f.Snapshots, err = trends.of(f.ID)
		}
		if err == nil {
			err = enc.Encode(record(f))
		}
		if err != nil {
			return n, fmt.Errorf("export: %w", err)
		}
		n++
		if progress != nil {
			progress(n, max(total, n))
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, bw.Flush()
}

// trendCursor walks the trend rows by flag id, beside the flags in the
// same order.
type trendCursor struct {
	rows    *sql.Rows
	pending *memstore.TrendRow // the next row, nil at the end
}

// next reads the next row into pending.
func (c *trendCursor) next() error {
	c.pending = nil
	if !c.rows.Next() {
		return c.rows.Err()
	}
	var t memstore.TrendRow
	if err := c.rows.Scan(&t.FlagID, &t.Day, &t.Red, &t.Green); err != nil {
		return err
	}
	c.pending = &t
	return nil
}

// of returns the rows of flag id, skipping those of flags before it (a
// snapshot row whose flag the export does not list).
func (c *trendCursor) of(id string) ([]memstore.TrendRow, error) {
	var out []memstore.TrendRow
	for c.pending != nil && c.pending.FlagID <= id {
		if c.pending.FlagID == id {
			out = append(out, *c.pending)
		}
		if err := c.next(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanFlagRow reads one row of the flag columns, whatever its status.
func scanFlagRow(rows *sql.Rows) (*flagRow, error) {
	var (
		f                memstore.FlagInput
		status, contexts string
		desc             [memstore.NumLangs]sql.NullString
		created, updated int64
	)
	if err := rows.Scan(&f.ID, &f.Slug, &status, &f.Category, &f.Region,
		&f.Text[0], &f.Text[1], &f.Text[2], &f.Text[3], &desc[0], &desc[1], &desc[2], &desc[3],
		&contexts, &f.Red, &f.Green, &created, &updated); err != nil {
		return nil, err
	}
	for l, d := range desc {
		if d.Valid {
			s := d.String
			f.Description[l] = &s
		}
	}
	f.Approved = status == "APPROVED"
	f.Contexts = splitContexts(contexts)
	f.CreatedAt = time.UnixMilli(created).UTC()
	f.UpdatedAt = time.UnixMilli(updated).UTC()
	return &flagRow{FlagInput: f, Status: status}, nil
}
