package loader

import "strings"

// PostgreSQL's staging tables are temporary tables of the import's
// transaction (pg_temp, named so that no table of the database's own can
// shadow them): written without WAL, seen by nobody else, dropped by its
// COMMIT or ROLLBACK.
var pgStageSchema = []string{
	"CREATE TEMP TABLE import_flags (line INTEGER PRIMARY KEY, id TEXT NOT NULL, slug TEXT NOT NULL, status TEXT NOT NULL, " +
		"category TEXT NOT NULL, region TEXT, text_tr TEXT NOT NULL, text_en TEXT NOT NULL, text_de TEXT NOT NULL, " +
		"text_es TEXT NOT NULL, description_tr TEXT, description_en TEXT, description_de TEXT, description_es TEXT, " +
		"contexts TEXT NOT NULL, red_count BIGINT NOT NULL, green_count BIGINT NOT NULL, created_at TIMESTAMPTZ NOT NULL, " +
		"created_given BOOLEAN NOT NULL, db_red BIGINT, db_green BIGINT) ON COMMIT DROP",
	// seq: a day a flag's lines give twice keeps the last (SQLite's
	// staging table replaces on its key; a multi-row INSERT here cannot).
	"CREATE TEMP TABLE import_snapshots (seq BIGINT PRIMARY KEY, flag_id TEXT NOT NULL, day DATE NOT NULL, " +
		"red BIGINT NOT NULL, green BIGINT NOT NULL) ON COMMIT DROP",
}

var (
	pgStageLineCols = func() []string {
		cols := append([]string(nil), stageLineCols...)
		for i, c := range cols {
			if c == "created_at" {
				cols[i] = "created_at:ts"
			}
		}
		return append(cols, "db_red", "db_green")
	}()
	pgStageSnapCols = []string{"seq", "flag_id", "day:day", "red", "green"}
)

// pgStageAfter prunes the staging tables, taking no lock on the
// database's own rows (reads of flags and flag_snapshots take none):
// created_at as keepCreated has it; each flag's and each snapshot day's
// last line only (the final step writes a row once, and a flag on several
// lines ends as its last); then what the database already holds as it is. Temporary tables have no
// statistics until ANALYZE, which the pruning's joins need.
var pgStageAfter = []string{
	"CREATE INDEX ON pg_temp.import_flags (id, line)",
	"CREATE INDEX ON pg_temp.import_snapshots (flag_id, day, seq)",
	"ANALYZE pg_temp.import_flags",
	"ANALYZE pg_temp.import_snapshots",
	"UPDATE pg_temp.import_flags i SET created_at = COALESCE((SELECT e.created_at FROM pg_temp.import_flags e " +
		"WHERE e.id = i.id AND e.line < i.line AND e.created_given ORDER BY e.line DESC LIMIT 1), " +
		"(SELECT m.created_at FROM flags m WHERE m.id = i.id), i.created_at) WHERE NOT i.created_given",
	"DELETE FROM pg_temp.import_flags i WHERE EXISTS (SELECT 1 FROM pg_temp.import_flags j WHERE j.id = i.id AND j.line > i.line)",
	"DELETE FROM pg_temp.import_snapshots s WHERE EXISTS (SELECT 1 FROM pg_temp.import_snapshots t " +
		"WHERE t.flag_id = s.flag_id AND t.day = s.day AND t.seq > s.seq)",
	// A time is compared to the millisecond, rounded as the API and an
	// export show it: an export of a flag the voting application created
	// (in microseconds) is that flag unchanged.
	"DELETE FROM pg_temp.import_flags i USING flags m WHERE m.id = i.id AND (" + pgColumns("m.", true) + ") " +
		"IS NOT DISTINCT FROM (" + pgColumns("i.", true) + ")",
	"DELETE FROM pg_temp.import_snapshots s USING flag_snapshots m WHERE m.flag_id = s.flag_id AND m.day = s.day " +
		"AND m.red = s.red AND m.green = s.green",
}

// pgColumns lists the flag columns an import writes, each with the
// prefix p ("" for bare names, "i." for a table's); compared, without id
// and with created_at to the millisecond as an export rounds it.
func pgColumns(p string, compared bool) string {
	cols := make([]string, 0, len(stageFlagCols))
	for _, c := range stageFlagCols[1:] { // from id
		switch {
		case compared && c == "id":
		case compared && c == "created_at":
			cols = append(cols, msExpr(Postgres, p+c))
		default:
			cols = append(cols, p+c)
		}
	}
	return strings.Join(cols, ", ")
}

// The final step. First every flag whose slug changes gives it up for a
// placeholder no slug can be (a control character and its id), so that
// the writes, each flag once, in its final state, never meet the unique
// index on a slug that a line of the file moved away (a slug handed from
// one flag to another, or two flags swapping theirs: the lines did it one
// step at a time). Then the flags the database has, the new ones, and the
// snapshots (see pgCopySnapshotsOfKnown).
const pgFreeSlugs = "UPDATE flags f SET slug = chr(1) || f.id FROM pg_temp.import_flags i WHERE f.id = i.id AND f.slug <> i.slug"

var (
	// pgUpdateFlags writes the flags the database has. A flag's counters
	// are the file's plus what the votes committed since the import began
	// moved them by (from db_red, db_green, read then), so a vote cast
	// while the import runs is kept, as the counters' triggers keep it
	// beside any other write; a flag created meanwhile (no db_red) takes
	// the file's.
	pgUpdateFlags = "UPDATE flags f SET " + func() string {
		var set []string
		for _, c := range stageFlagCols[2:] { // from slug
			switch c {
			case "red_count", "green_count":
				db := "i.db_" + strings.TrimSuffix(c, "_count")
				set = append(set, c+" = GREATEST(0, i."+c+" + f."+c+" - COALESCE("+db+", f."+c+"))")
			default:
				set = append(set, c+" = i."+c)
			}
		}
		return strings.Join(set, ", ")
	}() + " FROM pg_temp.import_flags i WHERE f.id = i.id"
	// pgInsertFlags adds the others, in the order of their lines; one
	// another writer added meanwhile takes the file's values.
	pgInsertFlags = "INSERT INTO flags (" + pgColumns("", false) + ") " +
		"SELECT " + pgColumns("i.", false) + " FROM pg_temp.import_flags i " +
		"WHERE NOT EXISTS (SELECT 1 FROM flags f WHERE f.id = i.id) ORDER BY i.line " +
		"ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, status = excluded.status, category = excluded.category, " +
		"region = excluded.region, text_tr = excluded.text_tr, text_en = excluded.text_en, text_de = excluded.text_de, " +
		"text_es = excluded.text_es, description_tr = excluded.description_tr, description_en = excluded.description_en, " +
		"description_de = excluded.description_de, description_es = excluded.description_es, contexts = excluded.contexts, " +
		"red_count = excluded.red_count, green_count = excluded.green_count, created_at = excluded.created_at"
	// The snapshots go in two parts: those of flags the database has
	// before the flags are written, as a snapshot row's foreign key check
	// takes a KEY SHARE lock that a vote's update of the counters does not
	// wait for, so the rows of the changed flags stay locked for the
	// flags' writes only; then those of the new flags.
	pgCopySnapshotsOfKnown = pgCopySnapshotsWhere(true)
	pgCopySnapshotsOfNew   = pgCopySnapshotsWhere(false)
)

// pgCopySnapshotsWhere copies the staged snapshots (of the flags the
// database has, where known, taking them out of the staging table so that
// the second part copies the rest), in key order.
func pgCopySnapshotsWhere(known bool) string {
	from := "pg_temp.import_snapshots s"
	if known {
		from = "copied s"
	}
	q := "INSERT INTO flag_snapshots (flag_id, day, red, green) " +
		"SELECT s.flag_id, s.day, s.red, s.green FROM " + from + " ORDER BY s.flag_id, s.day " +
		"ON CONFLICT (flag_id, day) DO UPDATE SET red = excluded.red, green = excluded.green " +
		"WHERE flag_snapshots.red <> excluded.red OR flag_snapshots.green <> excluded.green"
	if known {
		q = "WITH copied AS (DELETE FROM pg_temp.import_snapshots s WHERE EXISTS (SELECT 1 FROM flags f WHERE f.id = s.flag_id) " +
			"RETURNING s.flag_id, s.day, s.red, s.green) " + q
	}
	return q
}
