package loader

import "strings"

// PostgreSQL's staging tables are temporary tables of the import's
// session (pg_temp, named so that no table of the database's own can
// shadow them): written without WAL, seen by nobody else, dropped at the
// end (and at the start, should a broken import have left them on a
// pooled connection).
const pgStageDrop = "DROP TABLE IF EXISTS pg_temp.import_flags, pg_temp.import_snapshots"

var pgStageSchema = []string{
	pgStageDrop,
	"CREATE TEMP TABLE import_flags (line INTEGER PRIMARY KEY, id TEXT NOT NULL, slug TEXT NOT NULL, status TEXT NOT NULL, " +
		"category TEXT NOT NULL, region TEXT, text_tr TEXT NOT NULL, text_en TEXT NOT NULL, text_de TEXT NOT NULL, " +
		"text_es TEXT NOT NULL, description_tr TEXT, description_en TEXT, description_de TEXT, description_es TEXT, " +
		"contexts TEXT NOT NULL, red_count BIGINT NOT NULL, green_count BIGINT NOT NULL, created_at TIMESTAMPTZ NOT NULL, " +
		"created_given BOOLEAN NOT NULL)",
	// seq: a day a flag's lines give twice keeps the last (SQLite's
	// staging table replaces on its key; a multi-row INSERT here cannot).
	"CREATE TEMP TABLE import_snapshots (seq BIGINT PRIMARY KEY, flag_id TEXT NOT NULL, day DATE NOT NULL, " +
		"red BIGINT NOT NULL, green BIGINT NOT NULL)",
}

var (
	pgStageLineCols = func() []string {
		cols := append([]string(nil), stageLineCols...)
		for i, c := range cols {
			if c == "created_at" {
				cols[i] = "created_at:ts"
			}
		}
		return cols
	}()
	pgStageSnapCols = []string{"seq", "flag_id", "day:day", "red", "green"}
)

// pgStageAfter prunes the staging tables, outside any lock on the
// database's own rows (reads of flags and flag_snapshots take none):
// created_at as keepCreated has it; each flag's and each snapshot day's
// last line only (the final copy's INSERT ... ON CONFLICT may not touch a
// row twice, and the last line is what the line-by-line import left);
// then what the database already holds as it is. Temporary tables have no
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
	// A time is compared to the millisecond, as the API and an export
	// show it: an export of a flag the voting application created (in
	// microseconds) is that flag unchanged.
	"DELETE FROM pg_temp.import_flags i USING flags m WHERE m.id = i.id AND (" + pgColumns("m", true) + ") " +
		"IS NOT DISTINCT FROM (" + pgColumns("i", true) + ")",
	"DELETE FROM pg_temp.import_snapshots s USING flag_snapshots m WHERE m.flag_id = s.flag_id AND m.day = s.day " +
		"AND m.red = s.red AND m.green = s.green",
}

// pgColumns lists the flag columns an import writes, of table alias t;
// compared, with created_at to the millisecond.
func pgColumns(t string, compared bool) string {
	cols := make([]string, 0, len(stageFlagCols))
	for _, c := range stageFlagCols[1:] { // from id
		if compared && c == "id" {
			continue
		}
		if compared && c == "created_at" {
			cols = append(cols, "date_trunc('milliseconds', "+t+".created_at)")
			continue
		}
		cols = append(cols, t+"."+c)
	}
	return strings.Join(cols, ", ")
}

// The final copy, each flag's row once, in the order of its last line
// (a slug handed from one flag to another is freed first, as the lines
// did), then the snapshots in key order.
var (
	pgCopyFlags = "INSERT INTO flags (" + strings.ReplaceAll(pgColumns("", false), ".", "") + ") " +
		"SELECT " + pgColumns("i", false) + " FROM pg_temp.import_flags i ORDER BY i.line " +
		"ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, status = excluded.status, category = excluded.category, " +
		"region = excluded.region, text_tr = excluded.text_tr, text_en = excluded.text_en, text_de = excluded.text_de, " +
		"text_es = excluded.text_es, description_tr = excluded.description_tr, description_en = excluded.description_en, " +
		"description_de = excluded.description_de, description_es = excluded.description_es, contexts = excluded.contexts, " +
		"red_count = excluded.red_count, green_count = excluded.green_count, created_at = excluded.created_at"
	pgCopySnapshots = "INSERT INTO flag_snapshots (flag_id, day, red, green) " +
		"SELECT flag_id, day, red, green FROM pg_temp.import_snapshots ORDER BY flag_id, day " +
		"ON CONFLICT (flag_id, day) DO UPDATE SET red = excluded.red, green = excluded.green " +
		"WHERE flag_snapshots.red <> excluded.red OR flag_snapshots.green <> excluded.green"
)
