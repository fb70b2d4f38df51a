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
// out: every line is read, checked and written into private staging
// tables on one connection, outside any write transaction on the
// database's own tables. On SQLite they are a staging database attached
// to the connection (in WAL mode, which the loader and the writers share
// freely); on PostgreSQL, temporary tables of the session. Rows the
// database already holds as they are are dropped from the staging tables
// then. Only the final step, one INSERT ... SELECT per table in one
// transaction, writes: on SQLite it takes the write lock (writers that
// arrive meanwhile wait, busy_timeout, rather than fail), on PostgreSQL
// it locks the rows that change, and only until its COMMIT (a line-by-line
// transaction held the row of every flag of the file, unchanged ones too,
// for the whole import: a vote on one waited until the end). A bad line
// fails before that step, so nothing is written.
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
	for _, q := range st.schema {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Imported{}, fmt.Errorf("import: staging: %w", err)
		}
	}

	ids, err := readSlugs(ctx, conn, st.flagsTable)
	if err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
	lines, err := db.stage(ctx, conn, r, ids, st, progress)
	if err != nil {
		return Imported{}, err
	}

	// The short step, from its BEGIN to its COMMIT.
	for _, q := range st.begin {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Imported{}, fmt.Errorf("import: %w", err)
		}
	}
	defer func() {
		if err != nil {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	now, err := readSlugs(ctx, conn, st.flagsTable)
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
	for _, q := range st.copy {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Imported{}, fmt.Errorf("import: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return Imported{}, fmt.Errorf("import: %w", err)
	}
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
	begin, copy        []string
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
		teardown:   []string{pgStageDrop},
		flagsTable: "flags",
		flags:      "pg_temp.import_flags", snapshots: "pg_temp.import_snapshots",
		flagCols: pgStageLineCols, snapCols: pgStageSnapCols, snapSeq: true,
		after: pgStageAfter,
		begin: []string{"BEGIN"},
		copy:  []string{pgCopyFlags, pgCopySnapshots, "INSERT INTO data_changes (kind) VALUES ('import')"},
	},
}

// stagedLine is what the final step checks again of each line.
type stagedLine struct{ id, slug, resolved string }

// stage reads, checks and writes every line into the staging tables,
// resolving each line's flag as the line-by-line import would.
func (db *DB) stage(ctx context.Context, conn *sql.Conn, r io.Reader, ids *slugIndex, st *staging, progress func(int)) ([]stagedLine, error) {
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil { // SQLite's deferred: it writes only the staging file
		return nil, fmt.Errorf("import: staging: %w", err)
	}
	committed := false
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
		if err := w.add(st.flags, st.flagCols, line, id, f.Slug, f.Status, f.Category, region,
			f.Text[0], f.Text[1], f.Text[2], f.Text[3], f.Description[0], f.Description[1], f.Description[2], f.Description[3],
			strings.Join(f.Contexts, ","), f.Red, f.Green, tsText(f.CreatedAt), f.CreatedGiven); err != nil {
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
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("import: staging: %w", err)
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
// is new (created now, the time it was staged with), as the line-by-line
// import's COALESCE(given, flags.created_at) does.
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

// The final copy: flags in line order (an upsert per line, as the
// line-by-line import does), then the snapshots in key order.
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
}

func readSlugs(ctx context.Context, conn *sql.Conn, table string) (*slugIndex, error) {
	rows, err := conn.QueryContext(ctx, "SELECT id, slug FROM "+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	x := &slugIndex{slugOf: map[string]string{}, idOf: map[string]string{}}
	for rows.Next() {
		var id, slug string
		if err := rows.Scan(&id, &slug); err != nil {
			return nil, err
		}
		x.slugOf[id], x.idOf[slug] = slug, id
	}
	return x, rows.Err()
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
