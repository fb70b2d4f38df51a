package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrChangedDuringImport is returned, with nothing written, when a flag
// the import's lines name by slug was created, renamed or removed by
// another writer while the lines were staged.
var ErrChangedDuringImport = errors.New("flags named by the import changed while it was read; nothing written, run it again")

// importStaged imports without locking the voting application's writers
// out: every line is read, checked, resolved to its flag and written into
// private staging tables on one connection, and the rows the database
// already holds as they are are dropped from them; then the final step,
// one statement or two per table, writes the rest. On SQLite the staging
// tables are a staging database attached to the connection, filled
// outside any write transaction (in WAL mode, which the loader and the
// writers share freely), and the final step takes the write lock (writers
// that arrive meanwhile wait, busy_timeout, rather than fail). On
// PostgreSQL the whole import is one transaction (see staging.oneTx) whose
// staging tables are temporary; staging takes no row lock, so the rows
// that change are locked from the final step's writes to the COMMIT only,
// and the rows of unchanged flags never (the line-by-line transaction
// this replaced held every flag of the file until its end: a vote on one
// waited for the whole import). A bad line fails before the final step,
// so nothing is written.
func (db *DB) importStaged(ctx context.Context, r io.Reader, progress func(lines int)) (_ Imported, err error) {
	st := stagings[db.Dialect]
	conn, err := db.Conn(ctx)
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	defer conn.Close()
	if db.Dialect == SQLite {
		f, err := os.CreateTemp(filepath.Dir(db.Path), "."+filepath.Base(db.Path)+".import-*")
		if err != nil {
			return Imported{}, fmt.Errorf("import: staging file: %w", err)
		}
		stagePath := f.Name()
		f.Close()
		defer os.Remove(stagePath)
		if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS stage", stagePath); err != nil {
			return Imported{}, fmt.Errorf("import: staging: %w", err)
		}
	}
	defer func() {
		for _, q := range st.teardown {
			conn.ExecContext(context.WithoutCancel(ctx), q)
		}
	}()
	inTx := false
	defer func() {
		if err != nil && inTx {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if st.oneTx {
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			return Imported{}, fmt.Errorf("import: %w", err)
		}
		inTx = true
	}
	for _, q := range st.schema {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Imported{}, fmt.Errorf("import: staging: %w", err)
		}
	}

	ids, err := readSlugs(ctx, conn, st.flagsTable, st.dbCounts)
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	lines, err := db.stage(ctx, conn, r, ids, st, progress)
	if err != nil {
		return Imported{}, err
	}

	// The short step, to the COMMIT: what writes the database's rows.
	for _, q := range st.begin {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Imported{}, fmt.Errorf("import: %w", err)
		}
		inTx = true
	}
	now, err := readSlugs(ctx, conn, st.flagsTable, false)
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	for _, l := range lines { // the same lines against the database as it is now
		id, lerr := now.resolve(l.id, l.slug)
		if lerr != nil || id != l.resolved {
			return Imported{}, ErrChangedDuringImport
		}
		now.apply(id, l.slug)
	}
	// Nothing left to write (the file holds what the database does):
	// no write, and no change recorded, which would make every instance
	// load everything again for nothing.
	var pending bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+st.flags+") OR EXISTS (SELECT 1 FROM "+st.snapshots+")").Scan(&pending); err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	for _, q := range st.copy {
		if !pending {
			break
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Imported{}, fmt.Errorf("import: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	inTx = false
	flags := make(map[string]struct{}, len(lines))
	for _, l := range lines {
		flags[l.resolved] = struct{}{}
	}
	return Imported{Records: len(lines), Flags: len(flags)}, nil
}

// staging is what importStaged does differently on each database: the
// staging tables (made by schema, dropped by teardown, filled by stage,
// then pruned by after), how the final step begins and what it copies.
type staging struct {
	schema, teardown   []string
	flagsTable         string // the database's flags, as the connection names them
	flags, snapshots   string // the staging tables
	flagCols, snapCols []string
	snapSeq            bool // a snapshot row is staged with its place in the file
	after              []string
	// oneTx: the whole import is one transaction, from before the
	// staging tables to the final COMMIT (begin is then empty): the
	// staging tables are the transaction's (PostgreSQL's ON COMMIT DROP),
	// so a pooler that hands each transaction its own session (PgBouncer's
	// transaction mode) keeps them, and nothing is left on a connection.
	// Staging takes no row lock, so the rows still stay locked only from
	// the final step's writes to the COMMIT.
	oneTx bool
	// dbCounts: each staged flag line also carries the flag's counters
	// when the import began (db_red, db_green), from which the final step
	// adds the votes cast since.
	dbCounts    bool
	begin, copy []string
}

var stagings = map[Dialect]*staging{
	SQLite: {
		schema:     stageSchema,
		teardown:   []string{"DETACH DATABASE stage", "PRAGMA foreign_keys = ON"},
		flagsTable: "main.flags",
		flags:      "stage.import_flags", snapshots: "stage.import_snapshots",
		flagCols: stageLineCols, snapCols: stageSnapCols,
		after: []string{stageIDIndex, keepCreated, dropUnchangedFlags, dropUnchangedSnapshots},
		// Every snapshot's flag is one the step writes, so the per-row
		// foreign key check is dropped for it (the teardown turns it on).
		begin: []string{"PRAGMA foreign_keys = OFF", "BEGIN IMMEDIATE"},
		copy:  []string{copyFlags, copySnapshots, "INSERT INTO main.data_changes (kind) VALUES ('import')"},
	},
	Postgres: {
		schema:     pgStageSchema,
		flagsTable: "flags",
		flags:      "pg_temp.import_flags", snapshots: "pg_temp.import_snapshots",
		flagCols: pgStageLineCols, snapCols: pgStageSnapCols, snapSeq: true,
		after: pgStageAfter,
		oneTx: true, dbCounts: true,
		copy: []string{pgCopySnapshotsOfKnown, pgFreeSlugs, pgUpdateFlags, pgInsertFlags, pgCopySnapshotsOfNew,
			"INSERT INTO data_changes (kind) VALUES ('import')"},
	},
}

// stagedLine is what the final step checks again of each line.
type stagedLine struct{ id, slug, resolved string }

// stage reads, checks and writes every line into the staging tables,
// resolving each line's flag (slugIndex.resolve) against the database as
// the lines before it leave it.
func (db *DB) stage(ctx context.Context, conn *sql.Conn, r io.Reader, ids *slugIndex, st *staging, progress func(int)) ([]stagedLine, error) {
	committed := st.oneTx // inside importStaged's transaction, which it ends
	if !st.oneTx {
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil { // SQLite's deferred: it writes only the staging file
			return nil, fmt.Errorf("import: staging: %w", err)
		}
	}
	defer func() {
		if !committed {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	w := newBatcher(ctx, conn, db.Dialect)
	var lines []stagedLine
	seq := 0
	err := eachRecord(r, progress, func(line int, f *flagRow) error {
		id, err := ids.resolve(f.ID, f.Slug)
		if err != nil {
			return err
		}
		ids.apply(id, f.Slug)
		lines = append(lines, stagedLine{id: f.ID, slug: f.Slug, resolved: id})
		var region any
		if f.Region != "" {
			region = f.Region
		}
		vals := []any{line, id, f.Slug, f.Status, f.Category, region,
			f.Text[0], f.Text[1], f.Text[2], f.Text[3], f.Description[0], f.Description[1], f.Description[2], f.Description[3],
			strings.Join(f.Contexts, ","), f.Red, f.Green, tsText(f.CreatedAt), f.CreatedGiven}
		if st.dbCounts {
			red, green := ids.countsAt(id)
			vals = append(vals, red, green)
		}
		if err := w.add(st.flags, st.flagCols, vals...); err != nil {
			return err
		}
		for _, s := range f.Snapshots {
			// A later line's day replaces an earlier one's, as in the
			// database: SQLite's staging table replaces it, PostgreSQL's
			// keeps the last by seq.
			vals := []any{id, dayText(s.Day), s.Red, s.Green}
			if st.snapSeq {
				seq++
				vals = append([]any{seq}, vals...)
			}
			if err := w.add(st.snapshots, st.snapCols, vals...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := w.flush(); err != nil {
		return nil, fmt.Errorf("import: staging: %w", err)
	}
	// Rows the database already holds as they are need no write: dropping
	// them here, outside the write lock, keeps the final step to what
	// changes (a re-import of an export writes almost nothing). A flag
	// named on several lines is kept, as its lines may undo each other.
	for _, q := range st.after {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("import: staging: %w", err)
		}
	}
	if !st.oneTx {
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			return nil, fmt.Errorf("import: staging: %w", err)
		}
	}
	committed = true
	return lines, nil
}

var (
	stageFlagCols = []string{"line", "id", "slug", "status", "category", "region", "text_tr", "text_en", "text_de",
		"text_es", "description_tr", "description_en", "description_de", "description_es", "contexts", "red_count",
		"green_count", "created_at"}
	stageSnapCols = []string{"flag_id", "day", "red", "green"}
	// stageLineCols: a staged line also says whether it gave createdAt.
	stageLineCols = append(stageFlagCols[:len(stageFlagCols):len(stageFlagCols)], "created_given")
)

// stageIDIndex serves the lookups of a flag's earlier lines (made once
// the lines are in: without it keepCreated scans every earlier
// line for each line without createdAt).
const stageIDIndex = "CREATE INDEX stage.import_flags_id ON import_flags (id, created_given, line)"

// keepCreated: a line without createdAt keeps the flag's: the nearest
// earlier line's of this file that gave one, else the stored one, else it
// is new (created now, the time it was staged with).
const keepCreated = "UPDATE stage.import_flags SET created_at = COALESCE((SELECT e.created_at " +
	"FROM stage.import_flags e WHERE e.id = import_flags.id AND e.line < import_flags.line AND e.created_given = 1 " +
	"ORDER BY e.line DESC LIMIT 1), (SELECT m.created_at FROM main.flags m WHERE m.id = import_flags.id), created_at) " +
	"WHERE created_given = 0"

// stageSchema makes the staging tables, in a file nobody else reads:
// no journal, no sync. Snapshot rows are keyed as in the database, so a
// repeated day keeps the last line's counters and the final copy walks
// both tables in key order.
var stageSchema = []string{
	"PRAGMA stage.journal_mode = OFF",
	"PRAGMA stage.synchronous = OFF",
	"CREATE TABLE stage.import_flags (line INTEGER PRIMARY KEY, id TEXT NOT NULL, slug TEXT NOT NULL, status TEXT NOT NULL, " +
		"category TEXT NOT NULL, region TEXT, text_tr TEXT NOT NULL, text_en TEXT NOT NULL, text_de TEXT NOT NULL, " +
		"text_es TEXT NOT NULL, description_tr TEXT, description_en TEXT, description_de TEXT, description_es TEXT, " +
		"contexts TEXT NOT NULL, red_count INTEGER NOT NULL, green_count INTEGER NOT NULL, created_at TEXT NOT NULL, " +
		"created_given INTEGER NOT NULL)",
	"CREATE TABLE stage.import_snapshots (flag_id TEXT NOT NULL, day TEXT NOT NULL, red INTEGER NOT NULL, " +
		"green INTEGER NOT NULL, PRIMARY KEY (flag_id, day) ON CONFLICT REPLACE) WITHOUT ROWID",
}

var dropUnchangedFlags = "DELETE FROM stage.import_flags WHERE id IN (SELECT id FROM stage.import_flags GROUP BY id HAVING count(*) = 1) " +
	"AND EXISTS (SELECT 1 FROM main.flags m WHERE m.id = import_flags.id" + func() string {
	var b strings.Builder
	for _, c := range stageFlagCols[2:] {
		b.WriteString(" AND m." + c + " IS import_flags." + c)
	}
	return b.String()
}() + ")"

const dropUnchangedSnapshots = "DELETE FROM stage.import_snapshots WHERE EXISTS (SELECT 1 FROM main.flag_snapshots m " +
	"WHERE m.flag_id = import_snapshots.flag_id AND m.day = import_snapshots.day " +
	"AND m.red = import_snapshots.red AND m.green = import_snapshots.green)"

// The final copy: flags in line order (an upsert per line, so a flag on
// several lines ends as its last), then the snapshots in key order.
const (
	copyFlags = "INSERT INTO main.flags (id, slug, status, category, region, text_tr, text_en, text_de, text_es, " +
		"description_tr, description_en, description_de, description_es, contexts, red_count, green_count, created_at) " +
		"SELECT id, slug, status, category, region, text_tr, text_en, text_de, text_es, description_tr, description_en, " +
		"description_de, description_es, contexts, red_count, green_count, created_at FROM stage.import_flags WHERE true ORDER BY line " +
		"ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, status = excluded.status, category = excluded.category, " +
		"region = excluded.region, text_tr = excluded.text_tr, text_en = excluded.text_en, text_de = excluded.text_de, " +
		"text_es = excluded.text_es, description_tr = excluded.description_tr, description_en = excluded.description_en, " +
		"description_de = excluded.description_de, description_es = excluded.description_es, contexts = excluded.contexts, " +
		"red_count = excluded.red_count, green_count = excluded.green_count, created_at = excluded.created_at"
	copySnapshots = "INSERT INTO main.flag_snapshots (flag_id, day, red, green) " +
		"SELECT flag_id, day, red, green FROM stage.import_snapshots WHERE true ORDER BY flag_id, day " +
		"ON CONFLICT (flag_id, day) DO UPDATE SET red = excluded.red, green = excluded.green " +
		"WHERE flag_snapshots.red <> excluded.red OR flag_snapshots.green <> excluded.green"
)

// slugIndex is the flags' ids and slugs, to resolve import lines.
type slugIndex struct {
	slugOf map[string]string // id -> slug
	idOf   map[string]string // slug -> id
	// counts are the flags' counters when the import began, where
	// readSlugs was asked for them (see staging.dbCounts).
	counts map[string][2]int64
}

func readSlugs(ctx context.Context, conn *sql.Conn, table string, counts bool) (*slugIndex, error) {
	cols := "id, slug"
	if counts {
		cols += ", red_count, green_count"
	}
	rows, err := conn.QueryContext(ctx, "SELECT "+cols+" FROM "+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	x := &slugIndex{slugOf: map[string]string{}, idOf: map[string]string{}}
	if counts {
		x.counts = map[string][2]int64{}
	}
	for rows.Next() {
		var id, slug string
		var red, green int64
		dest := []any{&id, &slug}
		if counts {
			dest = append(dest, &red, &green)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		x.slugOf[id], x.idOf[slug] = slug, id
		if counts {
			x.counts[id] = [2]int64{red, green}
		}
	}
	return x, rows.Err()
}

// countsAt are flag id's counters when the import began, as staged
// values: NULL for a flag the database did not have.
func (x *slugIndex) countsAt(id string) (red, green any) {
	c, ok := x.counts[id]
	if !ok {
		return nil, nil
	}
	return c[0], c[1]
}

// resolve names the flag a line writes: its id, unless its slug belongs
// to another flag, which the line then updates (when its own id is not
// taken too).
func (x *slugIndex) resolve(id, slug string) (string, error) {
	owner, ok := x.idOf[slug]
	if !ok || owner == id {
		return id, nil
	}
	if _, exists := x.slugOf[id]; exists {
		return "", fmt.Errorf("slug %q already belongs to flag %s", slug, owner)
	}
	return owner, nil
}

// apply records that flag id now has slug.
func (x *slugIndex) apply(id, slug string) {
	if old, ok := x.slugOf[id]; ok && old != slug {
		delete(x.idOf, old)
	}
	x.slugOf[id], x.idOf[slug] = slug, id
}
