package loader

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
// On SQLite the lines are staged first, so the write lock is held only
// for the final copy (see importStaged).
func (db *DB) Import(ctx context.Context, r io.Reader, progress func(lines int)) (Imported, error) {
	if db.Dialect == SQLite {
		return db.importStaged(ctx, r, progress)
	}
	return db.importLines(ctx, r, progress)
}

// importLines writes line by line in one transaction. On PostgreSQL that
// locks only the rows it writes.
func (db *DB) importLines(ctx context.Context, r io.Reader, progress func(lines int)) (Imported, error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	defer tx.Rollback()
	ts, day := tsParam(db.Dialect), dayParam(db.Dialect)
	upsert, err := tx.PreparexContext(ctx, db.Rebind("INSERT INTO flags (id, slug, status, category, region, "+
		"text_tr, text_en, text_de, text_es, description_tr, description_en, description_de, description_es, "+
		"contexts, red_count, green_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "+
		"COALESCE("+ts+", "+ts+")) "+
		"ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, status = excluded.status, category = excluded.category, "+
		"region = excluded.region, text_tr = excluded.text_tr, text_en = excluded.text_en, text_de = excluded.text_de, "+
		"text_es = excluded.text_es, description_tr = excluded.description_tr, description_en = excluded.description_en, "+
		"description_de = excluded.description_de, description_es = excluded.description_es, contexts = excluded.contexts, "+
		"red_count = excluded.red_count, green_count = excluded.green_count, "+
		"created_at = COALESCE("+ts+", flags.created_at)"))
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	snap, err := tx.PreparexContext(ctx, db.Rebind("INSERT INTO flag_snapshots (flag_id, day, red, green) VALUES (?, "+day+", ?, ?) "+
		"ON CONFLICT (flag_id, day) DO UPDATE SET red = excluded.red, green = excluded.green"+
		" WHERE flag_snapshots.red <> excluded.red OR flag_snapshots.green <> excluded.green"))
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	bySlug := db.Rebind("SELECT id FROM flags WHERE slug = ?")
	byID := db.Rebind("SELECT count(*) FROM flags WHERE id = ?")

	n, flags := 0, map[string]struct{}{}
	err = eachRecord(r, progress, func(line int, f *flagRow) error {
		var owner string
		switch err := tx.GetContext(ctx, &owner, bySlug, f.Slug); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case owner != f.ID:
			var exists int
			if err := tx.GetContext(ctx, &exists, byID, f.ID); err != nil {
				return err
			}
			if exists > 0 {
				return fmt.Errorf("slug %q already belongs to flag %s", f.Slug, owner)
			}
			f.ID = owner // the slug names the flag to update
		}
		var region any
		if f.Region != "" {
			region = f.Region
		}
		if _, err := upsert.ExecContext(ctx, f.ID, f.Slug, f.Status, f.Category, region,
			f.Text[0], f.Text[1], f.Text[2], f.Text[3], f.Description[0], f.Description[1], f.Description[2], f.Description[3],
			strings.Join(f.Contexts, ","), f.Red, f.Green, f.createdParam(), tsText(f.CreatedAt), f.createdParam()); err != nil {
			return err
		}
		for _, s := range f.Snapshots {
			if _, err := snap.ExecContext(ctx, f.ID, dayText(s.Day), s.Red, s.Green); err != nil {
				return err
			}
		}
		n++
		flags[f.ID] = struct{}{}
		return nil
	})
	if err != nil {
		return Imported{}, err
	}
	if err := db.recordChange(ctx, tx, "import", ""); err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	return Imported{Records: n, Flags: len(flags)}, nil
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
