package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// The three flags of a good import file, in id order (export's order).
const (
	goodLine1 = `{"id":"flg_a1","slug":"never-admits-wrong","category":"CHARACTER","region":null,` +
		`"text":{"tr":"Hatasını asla kabul etmez","en":"Never admits being wrong","de":"Gibt nie einen Fehler zu","es":"Nunca admite un error"},` +
		`"votes":{"red":120,"green":30},"createdAt":"2025-03-04T05:06:07.890Z","contexts":["ROMANTIC","WORK"],` +
		`"description":{"tr":"Tartışmalar uzar.","en":"Arguments drag on.","de":"Streit zieht sich.","es":"Las discusiones se alargan."},` +
		`"status":"APPROVED","snapshots":[{"at":"2026-01-01T00:00:00.000Z","red":100,"green":25},{"at":"2026-01-02T00:00:00.000Z","red":110,"green":28}]}`
	goodLine2 = `{"id":"flg_b2","slug":"splits-the-bill","category":"FINANCIAL","region":"TR",` +
		`"text":{"tr":"Hesabı bölüşür","en":"Splits the bill","de":"Teilt die Rechnung","es":"Divide la cuenta"},` +
		`"votes":{"red":5,"green":95},"createdAt":"2024-12-31T23:59:59.999Z","contexts":["FRIEND"],` +
		`"description":{"tr":null,"en":"Fair.","de":null,"es":null},` +
		`"status":"PENDING","snapshots":[{"at":"2026-01-02T00:00:00.000Z","red":4,"green":90}]}`
	goodLine3 = `{"id":"flg_c3","slug":"texts-back-next-week","category":"COMMUNICATION","region":"DE",` +
		`"text":{"tr":"Bir hafta sonra cevap verir","en":"Texts back a week later","de":"Antwortet eine Woche später","es":"Contesta una semana después"},` +
		`"votes":{"red":0,"green":0},"createdAt":"2026-02-03T04:05:06.000Z","contexts":[],` +
		`"description":{"tr":null,"en":null,"de":null,"es":null},"status":"REJECTED"}`
)

var goodFile = goodLine1 + "\n" + goodLine2 + "\n" + goodLine3 + "\n"

// comparable are the fields an import must keep as given.
var comparable = []string{"id", "slug", "category", "region", "text", "createdAt", "contexts", "description", "status"}

// sameFlag reports how got (an exported record) differs from want (an
// imported line).
func sameFlag(t *testing.T, got, want map[string]any) {
	t.Helper()
	for _, k := range comparable {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("flag %v: %s = %#v, want %#v", want["id"], k, got[k], want[k])
		}
	}
	gv, wv := got["votes"].(map[string]any), want["votes"].(map[string]any)
	for _, k := range []string{"red", "green"} {
		if gv[k] != wv[k] {
			t.Errorf("flag %v: votes.%s = %v, want %v", want["id"], k, gv[k], wv[k])
		}
	}
	gs, _ := got["snapshots"].([]any)
	ws, _ := want["snapshots"].([]any)
	if !reflect.DeepEqual(gs, ws) {
		t.Errorf("flag %v: snapshots = %v, want %v", want["id"], gs, ws)
	}
}

func checkExportIsGoodFile(t *testing.T, db string) {
	t.Helper()
	got, want := exportRecords(t, db), decodeLines(t, goodFile)
	if len(got) != len(want) {
		t.Fatalf("export: got %d flags, want %d", len(got), len(want))
	}
	for i := range want {
		sameFlag(t, got[i], want[i])
	}
}

func TestImportGoodFile(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			path := writeFile(t, "flags.jsonl", goodFile)
			r := runCLI(t, noEnv, nil, "import", "--db", db, path)
			if r.err != nil {
				t.Fatalf("import: %v\nstderr:\n%s", r.err, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("import: stdout = %q, want nothing", r.stdout)
			}
			if !strings.Contains(r.stderr, "imported 3 flags") {
				t.Errorf("import: stderr = %q, want it to say imported 3 flags", r.stderr)
			}
			checkExportIsGoodFile(t, db)

			// The derived fields of the export follow the counters.
			for _, rec := range exportRecords(t, db) {
				v := rec["votes"].(map[string]any)
				red, _ := v["red"].(json.Number).Int64()
				green, _ := v["green"].(json.Number).Int64()
				if got, want := v["total"], json.Number(fmt.Sprint(red+green)); got != want {
					t.Errorf("flag %v: votes.total = %v, want %v", rec["id"], got, want)
				}
				if got, want := v["net"], json.Number(fmt.Sprint(red-green)); got != want {
					t.Errorf("flag %v: votes.net = %v, want %v", rec["id"], got, want)
				}
				if got, want := rec["dominant"], dominantOf(red, green); got != want {
					t.Errorf("flag %v: dominant = %v, want %v", rec["id"], got, want)
				}
			}

			// Idempotent: the same file again changes nothing.
			before := exportText(t, db)
			mustRun(t, "import", "--db", db, path)
			if after := exportText(t, db); after != before {
				t.Errorf("importing the same file twice changed the export:\nbefore:\n%s\nafter:\n%s", before, after)
			}

			// A flag on several lines counts once, and so does a line
			// naming flg_b2 by its slug under an id that does not exist.
			bySlug := strings.Replace(goodLine2, `"id":"flg_b2"`, `"id":"flg_zz"`, 1)
			r = runCLI(t, noEnv, nil, "import", "--db", db,
				writeFile(t, "again.jsonl", goodLine1+"\n"+goodLine2+"\n\n"+goodLine1+"\n"+bySlug+"\n"))
			if r.err != nil {
				t.Fatalf("import: %v\nstderr:\n%s", r.err, r.stderr)
			}
			if want := "imported 2 flags from 4 lines"; !strings.Contains(r.stderr, want) {
				t.Errorf("import of 4 lines naming 2 flags: stderr = %q, want it to say %q", r.stderr, want)
			}
			if after := exportText(t, db); after != before {
				t.Errorf("importing lines already imported changed the export:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func TestImportFromStdin(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	r := runCLI(t, noEnv, strings.NewReader(goodFile), "import", "--db", db, "-")
	if r.err != nil {
		t.Fatalf("import -: %v\nstderr:\n%s", r.err, r.stderr)
	}
	checkExportIsGoodFile(t, db)
}

func TestImportDefaultsAndNormalisation(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	// No status, no snapshots, a category slug, a lower-case region, the
	// derived fields given (and wrong): all ignored or normalised.
	line := `{"id":"flg_n1","slug":"normal","category":"social","region":"es",` +
		`"text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":3,"green":1,"total":99,"net":-7},` +
		`"dominant":"green","createdAt":"2025-01-01T00:00:00Z","contexts":["ONLINE","ONLINE"],"description":{}}`
	mustRun(t, "import", "--db", db, writeFile(t, "n.jsonl", line+"\n"))
	got := exportRecords(t, db)
	if len(got) != 1 {
		t.Fatalf("export: got %d flags, want 1", len(got))
	}
	want := map[string]any{"status": "APPROVED", "category": "SOCIAL", "region": "ES",
		"createdAt": "2025-01-01T00:00:00.000Z", "dominant": "red",
		"contexts": []any{"ONLINE"}}
	for k, w := range want {
		if !reflect.DeepEqual(got[0][k], w) {
			t.Errorf("%s = %#v, want %#v", k, got[0][k], w)
		}
	}
	v := got[0]["votes"].(map[string]any)
	if v["total"] != json.Number("4") || v["net"] != json.Number("2") {
		t.Errorf("votes = %v, want total 4 and net 2 derived from red 3 green 1", v)
	}
}

// badLines are third lines that make the whole file fail.
var badLines = []struct {
	name, line string
}{
	{"invalid JSON", `{"id":"flg_x","slug":`},
	{"not an object", `[1,2,3]`},
	{"two values", goodLine3 + ` {}`},
	{"unknown category", strings.Replace(goodLine3, `"COMMUNICATION"`, `"NOPE"`, 1)},
	{"negative red", strings.Replace(goodLine3, `"red":0,"green":0`, `"red":-1,"green":0`, 1)},
	{"missing votes.green", strings.Replace(goodLine3, `"red":0,"green":0`, `"red":0`, 1)},
	{"fractional votes", strings.Replace(goodLine3, `"red":0,"green":0`, `"red":1.5,"green":0`, 1)},
	{"missing text.de", strings.Replace(goodLine3, `"de":"Antwortet eine Woche später",`, ``, 1)},
	{"blank text.en", strings.Replace(goodLine3, `"Texts back a week later"`, `"  "`, 1)},
	{"unknown status", strings.Replace(goodLine3, `"REJECTED"`, `"DRAFT"`, 1)},
	{"not a region", strings.Replace(goodLine3, `"region":"DE"`, `"region":"world"`, 1)},
	{"unknown context", strings.Replace(goodLine3, `"contexts":[]`, `"contexts":["PETS"]`, 1)},
	{"bad createdAt", strings.Replace(goodLine3, `2026-02-03T04:05:06.000Z`, `yesterday`, 1)},
	{"empty id", strings.Replace(goodLine3, `"id":"flg_c3"`, `"id":""`, 1)},
	{"slug with a space", strings.Replace(goodLine3, `"texts-back-next-week"`, `"texts back"`, 1)},
	{"bad snapshot at", strings.Replace(goodLine1, `"2026-01-02T00:00:00.000Z"`, `"2026-01-02"`, 1)},
	{"snapshot of a day after today", strings.Replace(goodLine1, `"2026-01-02T00:00:00.000Z"`, `"2099-01-02T00:00:00.000Z"`, 1)},
	{"negative snapshot", strings.Replace(goodLine1, `"red":110,"green":28`, `"red":110,"green":-28`, 1)},
	{"invalid UTF-8", strings.Replace(goodLine3, `Texts back`, "Texts \xff\xfe back", 1)},
	// PostgreSQL's text cannot hold U+0000: refused on both databases.
	{"NUL in a text", strings.Replace(goodLine3, `Texts back`, `Texts \u0000 back`, 1)},
	{"NUL in an id", strings.Replace(goodLine3, `"id":"flg_c3"`, `"id":"flg_\u0000c3"`, 1)},
	{"red past a trillion", strings.Replace(goodLine3, `"red":0,"green":0`, `"red":1000000000001,"green":0`, 1)},
	{"red that overflows 5 x red", strings.Replace(goodLine3, `"red":0,"green":0`, `"red":9223372036854775806,"green":1`, 1)},
	{"snapshot past a trillion", strings.Replace(goodLine1, `"red":110,"green":28`, `"red":110,"green":1000000000001`, 1)},
	// flg_b2 (line 2) takes the slug of flg_a1 (line 1): both exist.
	{"slug of line 1 under the id of line 2", strings.Replace(strings.Replace(goodLine3,
		`"texts-back-next-week"`, `"never-admits-wrong"`, 1), `"id":"flg_c3"`, `"id":"flg_b2"`, 1)},
}

func TestImportBadLineWritesNothing(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			// One database for every case: each checks it is still empty.
			db := loadertest.URL(t, d)
			for _, tc := range badLines {
				t.Run(tc.name, func(t *testing.T) {
					// Lines 1 and 2 are good and would be written; a good
					// line 4 follows the bad one.
					file := goodLine1 + "\n" + goodLine2 + "\n" + tc.line + "\n" +
						strings.Replace(strings.Replace(goodLine3, "flg_c3", "flg_d4", 1), "texts-back", "late-texts", 1) + "\n"
					msg := mustFail(t, noEnv, nil, "import", "--db", db, writeFile(t, "bad.jsonl", file))
					if !strings.Contains(msg, "line 3") {
						t.Errorf("import: error %q, want it to name line 3", msg)
					}
					if got := exportText(t, db); got != "" {
						t.Errorf("import failed but wrote:\n%s", got)
					}
				})
			}
		})
	}
}

// TestImportSnapshotDays: a snapshot's at names its UTC day, at any time
// of it; today's is taken (the day has begun), tomorrow's is refused: its
// row would stand in for the day's own snapshot, which keeps a row it
// finds.
func TestImportSnapshotDays(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	now := time.Now().UTC()
	today := now.Truncate(24 * time.Hour)
	at := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }
	line := strings.Replace(goodLine2, `"2026-01-02T00:00:00.000Z"`, `"`+at(now)+`"`, 1)
	r := runCLI(t, noEnv, nil, "import", "--db", db, writeFile(t, "today.jsonl", line+"\n"))
	if r.err != nil {
		t.Fatalf("import of a snapshot of today (%s): %v", at(now), r.err)
	}
	recs := exportRecords(t, db)
	if len(recs) != 1 || fmt.Sprint(recs[0]["snapshots"]) != fmt.Sprintf("[map[at:%s green:90 red:4]]", at(today)) {
		t.Errorf("export after a snapshot at %s: %v, want it at %s", at(now), recs, at(today))
	}
	tomorrow := strings.Replace(goodLine2, `"2026-01-02T00:00:00.000Z"`, `"`+at(today.Add(24*time.Hour))+`"`, 1)
	if msg := mustFail(t, noEnv, nil, "import", "--db", db, writeFile(t, "tomorrow.jsonl", tomorrow+"\n")); !strings.Contains(msg, "after today") {
		t.Errorf("import of a snapshot of tomorrow: %q, want it refused as after today", msg)
	}
}

func TestImportBadLineCountsBlankLines(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	file := goodLine1 + "\n\n   \n" + `{"id":` + "\n"
	msg := mustFail(t, noEnv, nil, "import", "--db", db, writeFile(t, "blank.jsonl", file))
	if !strings.Contains(msg, "line 4") {
		t.Errorf("import: error %q, want it to name line 4 (blank lines count)", msg)
	}
	if got := exportText(t, db); got != "" {
		t.Errorf("import failed but wrote:\n%s", got)
	}
}

func TestImportBadLineLeavesExistingDataAlone(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
	before := exportText(t, db)

	// Line 1 changes a flag, line 2 adds one, line 3 is bad.
	changed := strings.Replace(goodLine1, `"red":120`, `"red":999`, 1)
	added := strings.Replace(strings.Replace(goodLine2, "flg_b2", "flg_z9", 1), "splits-the-bill", "new-one", 1)
	bad := strings.Replace(goodLine3, `"COMMUNICATION"`, `"NOPE"`, 1)
	msg := mustFail(t, noEnv, nil, "import", "--db", db,
		writeFile(t, "bad.jsonl", changed+"\n"+added+"\n"+bad+"\n"))
	if !strings.Contains(msg, "line 3") {
		t.Errorf("import: error %q, want it to name line 3", msg)
	}
	if after := exportText(t, db); after != before {
		t.Errorf("a failed import changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestImportSlugConflict(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
			before := exportText(t, db)

			// Line 2: flag flg_b2 exists, and takes the slug of flg_a1,
			// which exists too.
			newFlag := strings.Replace(strings.Replace(goodLine3, "flg_c3", "flg_d4", 1), "texts-back", "late-texts", 1)
			steal := strings.Replace(goodLine2, `"splits-the-bill"`, `"never-admits-wrong"`, 1)
			msg := mustFail(t, noEnv, nil, "import", "--db", db, writeFile(t, "steal.jsonl", newFlag+"\n"+steal+"\n"))
			if !strings.Contains(msg, "line 2") {
				t.Errorf("import: error %q, want it to name line 2", msg)
			}
			if !strings.Contains(msg, "never-admits-wrong") {
				t.Errorf("import: error %q, want it to name the slug", msg)
			}
			if after := exportText(t, db); after != before {
				t.Errorf("a failed import changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func TestImportUpdatesBySlug(t *testing.T) {
	// A known slug under an unknown id updates the flag of that slug.
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
	renamed := strings.Replace(strings.Replace(goodLine1, "flg_a1", "flg_other", 1), `"red":120`, `"red":121`, 1)
	mustRun(t, "import", "--db", db, writeFile(t, "renamed.jsonl", renamed+"\n"))
	got := exportRecords(t, db)
	if len(got) != 3 {
		t.Fatalf("export: got %d flags, want 3 (updated, not duplicated)", len(got))
	}
	if got[0]["id"] != "flg_a1" || got[0]["votes"].(map[string]any)["red"] != json.Number("121") {
		t.Errorf("export: first flag = %v %v, want flg_a1 with red 121", got[0]["id"], got[0]["votes"])
	}
}

func TestImportErrors(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no file", []string{"import", "--db", db}},
		{"two files", []string{"import", "--db", db, "a.jsonl", "b.jsonl"}},
		{"missing file", []string{"import", "--db", db, filepath.Join(t.TempDir(), "missing.jsonl")}},
		{"bad database URL", []string{"import", "--db", "mysql://x", writeFile(t, "g.jsonl", goodFile)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustFail(t, noEnv, nil, tc.args...)
		})
	}
}

func TestExportToFile(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
	path := filepath.Join(t.TempDir(), "out.jsonl")
	r := runCLI(t, noEnv, nil, "export", "--db", db, path)
	if r.err != nil {
		t.Fatalf("export FILE: %v", r.err)
	}
	if r.stdout != "" {
		t.Errorf("export FILE: stdout = %q, want nothing", r.stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), exportText(t, db); got != want {
		t.Errorf("export FILE wrote:\n%s\nwant what export - writes:\n%s", got, want)
	}
	// No argument is standard output too.
	if got, want := mustRun(t, "export", "--db", db), exportText(t, db); got != want {
		t.Errorf("export without a file wrote:\n%s\nwant:\n%s", got, want)
	}
	if msg := mustFail(t, noEnv, nil, "export", "--db", db, "a", "b"); msg == "" {
		t.Error("export with two files: empty error")
	}
}

// TestImportWithoutCreatedAtIsIdempotent: a line without createdAt
// creates its flag now and leaves a stored flag's createdAt as it is, so
// importing the same file again changes nothing; within one file a later
// line without createdAt keeps the one an earlier line gave.
func TestImportWithoutCreatedAtIsIdempotent(t *testing.T) {
	t.Parallel()
	noCreated := func(line string) string {
		i := strings.Index(line, `"createdAt":`)
		j := i + strings.Index(line[i:], `Z",`) + len(`Z",`)
		return line[:i] + line[j:]
	}
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			file := writeFile(t, "n.jsonl", noCreated(goodLine3)+"\n")
			mustRun(t, "import", "--db", db, file)
			first := exportText(t, db)
			time.Sleep(20 * time.Millisecond) // the import's clock moves on
			mustRun(t, "import", "--db", db, file)
			if again := exportText(t, db); again != first {
				t.Errorf("a second import of the same file changed the flag:\n%s\n%s", first, again)
			}
			// A stored flag keeps the createdAt it was imported with.
			mustRun(t, "import", "--db", db, writeFile(t, "g.jsonl", goodLine1+"\n"))
			mustRun(t, "import", "--db", db, writeFile(t, "a.jsonl", noCreated(goodLine1)+"\n"))
			// In one file: line 1 gives createdAt to a new flag, line 2
			// (the same flag) gives none.
			two := strings.Replace(strings.Replace(goodLine2, "flg_b2", "flg_e5", 1), "splits-the-bill", "five", 1)
			mustRun(t, "import", "--db", db, writeFile(t, "two.jsonl", two+"\n"+noCreated(two)+"\n"))
			got := map[any]any{}
			for _, r := range exportRecords(t, db) {
				got[r["id"]] = r["createdAt"]
			}
			if got["flg_a1"] != "2025-03-04T05:06:07.890Z" || got["flg_e5"] != "2024-12-31T23:59:59.999Z" {
				t.Errorf("createdAt %v, want flg_a1's and flg_e5's as first given", got)
			}
		})
	}
}
