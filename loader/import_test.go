package loader_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// importLine is one valid import line of a new flag.
func importLine(i int) string {
	return fmt.Sprintf(`{"id":"imp-%d","slug":"imp-%d","category":"SOCIAL","region":null,`+
		`"text":{"en":"e %d","tr":"t %d","de":"d %d","es":"s %d"},"votes":{"red":1,"green":2},"contexts":[],`+
		`"snapshots":[{"at":"2026-05-01T00:00:00Z","red":1,"green":1}]}`+"\n", i, i, i, i, i, i)
}

// TestImportLetsWritersIn: while an import reads its lines, the voting
// application's writes go through, a vote on a flag the file names among
// them (on SQLite a writer whose busy_timeout is far shorter than the
// import gets no SQLITE_BUSY; on PostgreSQL the vote does not wait for
// the row lock of an import that had written its flags line by line), and
// the import stays all or nothing: a bad line after them writes nothing,
// not even the good lines before it; without one, every line is written.
func TestImportLetsWritersIn(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		for _, bad := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s bad line %v", d, bad), func(t *testing.T) { importLetsWritersIn(t, d, bad) })
		}
	}
}

func importLetsWritersIn(t *testing.T, d loader.Dialect, bad bool) {
	db, url := loadertest.Open(t, d)
	ctx := context.Background()
	seed(t, db, loader.SeedOptions{Flags: 5, Users: 2, Days: 1, Seed: 1})
	var flagID string
	if err := db.GetContext(ctx, &flagID, "SELECT id FROM flags ORDER BY id LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	// The file names flagID first, as an export of it (the same
	// flag, unchanged), and with another description.
	var dump strings.Builder
	if _, err := db.Export(ctx, &dump, nil); err != nil {
		t.Fatal(err)
	}
	var named []string
	var exported int64 // flagID's red in the file
	for _, l := range strings.Split(dump.String(), "\n") {
		if strings.Contains(l, `"id":"`+flagID+`"`) {
			dec := json.NewDecoder(strings.NewReader(l))
			dec.UseNumber()
			var rec map[string]any
			if err := dec.Decode(&rec); err != nil {
				t.Fatal(err)
			}
			exported, _ = rec["votes"].(map[string]any)["red"].(json.Number).Int64()
			rec["description"].(map[string]any)["en"] = "edited"
			edited, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			named = append(named, l+"\n", string(edited)+"\n")
		}
	}
	if len(named) != 2 {
		t.Fatalf("no export line of %s in %q", flagID, dump.String())
	}
	driver, dsn, vote := "sqlite", "file:"+db.Path+"?_pragma=busy_timeout(1000)&_txlock=immediate",
		"INSERT INTO votes (flag_id, user_id, color) VALUES (?, 'voter', 'red')"
	if d == loader.Postgres {
		driver, dsn, vote = "postgres", url, "INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'voter', 'red')"
	}
	writer, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()

	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := db.Import(ctx, pr, nil)
		pr.CloseWithError(err)
		done <- err
	}()
	for i := 0; i < 200; i++ {
		line := importLine(i)
		if i < len(named) {
			line = named[i] + line
		}
		if _, err := io.WriteString(pw, line); err != nil {
			t.Fatal(err)
		}
	}
	// The import is running: it has read 202 lines and waits for more.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := writer.ExecContext(wctx, "INSERT INTO users (id) VALUES ('voter')"); err != nil {
		t.Fatalf("a writer during the import: %v", err)
	}
	if _, err := writer.ExecContext(wctx, vote, flagID); err != nil {
		t.Fatalf("a vote on a flag of the file during the import: %v", err)
	}
	if bad {
		io.WriteString(pw, `{"id":"imp-bad","slug":"imp-bad"}`+"\n")
	}
	pw.Close()
	var err2 error
	select {
	case err2 = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the import did not end within a minute")
	}
	var imported, votes int
	if err := db.GetContext(ctx, &imported, "SELECT count(*) FROM flags WHERE id LIKE 'imp-%'"); err != nil {
		t.Fatal(err)
	}
	if err := db.GetContext(ctx, &votes, "SELECT count(*) FROM votes WHERE user_id = 'voter'"); err != nil {
		t.Fatal(err)
	}
	if votes != 1 {
		t.Errorf("the vote written during the import: %d rows, want 1", votes)
	}
	var lerr *loader.LineError
	switch {
	case bad && (!errors.As(err2, &lerr) || lerr.Line != 203):
		t.Errorf("import with a bad line 203: %v, want a LineError at line 203", err2)
	case bad && imported != 0:
		t.Errorf("import with a bad line wrote %d flags, want 0", imported)
	case !bad && err2 != nil:
		t.Errorf("import: %v", err2)
	case !bad && imported != 200:
		t.Errorf("import wrote %d flags, want 200", imported)
	}
	var desc sql.NullString
	if err := db.GetContext(ctx, &desc, "SELECT description_en FROM flags WHERE id = "+map[loader.Dialect]string{loader.SQLite: "?", loader.Postgres: "$1"}[d], flagID); err != nil {
		t.Fatal(err)
	}
	if edited := desc.String == "edited"; edited == bad {
		t.Errorf("the edited flag's description after the import (bad line %v): %q", bad, desc.String)
	}
	// The vote cast during the import counts on top of the file's red on
	// PostgreSQL, whose final step adds what votes moved a counter by
	// since the staging read it. (SQLite's takes the file's: the vote's
	// row stays, its count is the file's until the counters move again.)
	var red int64
	if err := db.GetContext(ctx, &red, db.Rebind("SELECT red_count FROM flags WHERE id = ?"), flagID); err != nil {
		t.Fatal(err)
	}
	if d == loader.Postgres && red != exported+1 {
		t.Errorf("red of the flag voted on during the import (bad line %v): %d, want the file's %d and the vote", bad, red, exported)
	}
}

// TestImportSlugRules: a line whose slug belongs to another flag updates
// that flag, unless its own id is taken too; lines may hand a slug from
// one flag to another, or swap two flags' slugs, one step at a time; both
// databases decide alike.
func TestImportSlugRules(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) { importSlugRules(t, d) })
	}
}

func importSlugRules(t *testing.T, d loader.Dialect) {
	db, _ := loadertest.Open(t, d)
	ctx := context.Background()
	in := importLine(1) + importLine(2)
	if _, err := db.Import(ctx, strings.NewReader(in), nil); err != nil {
		t.Fatal(err)
	}
	// A new id with imp-1's slug updates imp-1.
	moved := strings.Replace(importLine(1), `"id":"imp-1"`, `"id":"other"`, 1)
	moved = strings.Replace(moved, `"red":1,"green":2`, `"red":7,"green":2`, 1)
	if _, err := db.Import(ctx, strings.NewReader(moved), nil); err != nil {
		t.Fatal(err)
	}
	var red int
	if err := db.GetContext(ctx, &red, "SELECT red_count FROM flags WHERE id = 'imp-1'"); err != nil || red != 7 {
		t.Errorf("imp-1's red after an import by slug: %d %v, want 7", red, err)
	}
	// imp-2 taking imp-1's slug: both ids exist, refused, nothing written.
	clash := strings.Replace(importLine(2), `"slug":"imp-2"`, `"slug":"imp-1"`, 1)
	_, err := db.Import(ctx, strings.NewReader(importLine(3)+clash), nil)
	var lerr *loader.LineError
	if !errors.As(err, &lerr) || lerr.Line != 2 || !strings.Contains(err.Error(), "already belongs") {
		t.Errorf("a slug clash: %v, want line 2 already belongs", err)
	}
	var n int
	db.GetContext(ctx, &n, "SELECT count(*) FROM flags WHERE id = 'imp-3'")
	if n != 0 {
		t.Error("the line before the clash was written")
	}

	slugs := func() string {
		t.Helper()
		var out []string
		if err := db.SelectContext(ctx, &out, "SELECT id || '=' || slug FROM flags WHERE id LIKE 'imp-%' ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, " ")
	}
	as := func(i int, slug string) string {
		return strings.Replace(importLine(i), fmt.Sprintf(`"slug":"imp-%d"`, i), `"slug":"`+slug+`"`, 1)
	}
	// A hand-off: imp-1 moves to a new slug, a new flag takes imp-1's
	// old one, and imp-1 is named again.
	if _, err := db.Import(ctx, strings.NewReader(as(1, "one")+as(4, "imp-1")+as(1, "one")), nil); err != nil {
		t.Fatalf("a slug handed to a new flag: %v", err)
	}
	if got, want := slugs(), "imp-1=one imp-2=imp-2 imp-4=imp-1"; got != want {
		t.Errorf("after the hand-off: %s, want %s", got, want)
	}
	// A swap through a third slug: imp-1 and imp-2 trade theirs.
	if _, err := db.Import(ctx, strings.NewReader(as(1, "tmp")+as(2, "one")+as(1, "imp-2")), nil); err != nil {
		t.Fatalf("two flags swapping their slugs: %v", err)
	}
	if got, want := slugs(), "imp-1=imp-2 imp-2=one imp-4=imp-1"; got != want {
		t.Errorf("after the swap: %s, want %s", got, want)
	}
}

// TestReimportWritesNothing: importing an export again writes no row,
// so it locks none (on PostgreSQL a written row stays locked until the
// import commits): every flag keeps its updated_at and, on PostgreSQL,
// every trend row its version, a created_at the voting application wrote
// to the microsecond among them (an export shows it to the millisecond).
// A file that changes one flag and adds a day writes that flag and that
// day only.
func TestReimportWritesNothing(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db, _ := loadertest.Open(t, d)
			ctx := context.Background()
			seed(t, db, loader.SeedOptions{Flags: 30, Users: 5, Days: 4, Seed: 3})
			var micro string
			if err := db.GetContext(ctx, &micro, "SELECT id FROM flags ORDER BY id LIMIT 1"); err != nil {
				t.Fatal(err)
			}
			if d == loader.Postgres {
				if _, err := db.ExecContext(ctx, "UPDATE flags SET created_at = date_trunc('milliseconds', created_at) + interval '789 microseconds' WHERE id = $1", micro); err != nil {
					t.Fatal(err)
				}
			}
			fingerprint := func() map[string]string {
				t.Helper()
				rows, err := db.QueryxContext(ctx, "SELECT id, CAST(updated_at AS TEXT) FROM flags")
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				out := map[string]string{}
				for rows.Next() {
					var id, at string
					if err := rows.Scan(&id, &at); err != nil {
						t.Fatal(err)
					}
					out[id] = at
				}
				if d == loader.Postgres {
					rows, err := db.QueryxContext(ctx, "SELECT flag_id || ' ' || day::text, xmin::text FROM flag_snapshots")
					if err != nil {
						t.Fatal(err)
					}
					defer rows.Close()
					for rows.Next() {
						var key, version string
						if err := rows.Scan(&key, &version); err != nil {
							t.Fatal(err)
						}
						out["trend row "+key] = version
					}
				}
				return out
			}
			var dump strings.Builder
			if _, err := db.Export(ctx, &dump, nil); err != nil {
				t.Fatal(err)
			}
			imports := func() int {
				t.Helper()
				var n int
				if err := db.GetContext(ctx, &n, "SELECT count(*) FROM data_changes WHERE kind = 'import'"); err != nil {
					t.Fatal(err)
				}
				return n
			}
			before, recorded := fingerprint(), imports()
			if _, err := db.Import(ctx, strings.NewReader(dump.String()), nil); err != nil {
				t.Fatal(err)
			}
			// Nor does it record a change, which would make every
			// instance load everything again.
			if n := imports(); n != recorded {
				t.Errorf("re-importing the export recorded %d changes", n-recorded)
			}
			if after := fingerprint(); !reflect.DeepEqual(after, before) {
				for k, v := range after {
					if before[k] != v {
						t.Errorf("re-importing the export wrote %s: %s -> %s", k, before[k], v)
					}
				}
			}

			// One flag changed, with a day more.
			lines := strings.Split(strings.TrimSpace(dump.String()), "\n")
			dec := json.NewDecoder(strings.NewReader(lines[5]))
			dec.UseNumber()
			var rec map[string]any
			if err := dec.Decode(&rec); err != nil {
				t.Fatal(err)
			}
			changed := rec["id"].(string)
			rec["text"].(map[string]any)["en"] = "changed"
			rec["snapshots"] = append(rec["snapshots"].([]any), map[string]any{"at": "2020-01-01T00:00:00.000Z", "red": 1, "green": 2})
			line, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			lines[5] = string(line)
			if _, err := db.Import(ctx, strings.NewReader(strings.Join(lines, "\n")), nil); err != nil {
				t.Fatal(err)
			}
			after := fingerprint()
			if n := imports(); n != recorded+1 {
				t.Errorf("importing a change recorded %d changes, want 1", n-recorded)
			}
			added := "trend row " + changed + " 2020-01-01"
			for k, v := range after {
				if k != changed && k != added && before[k] != v {
					t.Errorf("importing a change of %s wrote %s too", changed, k)
				}
			}
			if after[changed] == before[changed] {
				t.Errorf("the changed flag %s was not written", changed)
			}
			if _, ok := after[added]; d == loader.Postgres && (!ok || len(after) != len(before)+1) {
				t.Errorf("the day added: %d rows and keys before, %d after, want one more, %s", len(before), len(after), added)
			}
			var text string
			if err := db.GetContext(ctx, &text, db.Rebind("SELECT text_en FROM flags WHERE id = ?"), changed); err != nil || text != "changed" {
				t.Errorf("the changed flag's text: %q %v", text, err)
			}
		})
	}
}

// TestImportCreatedAtOfTheNearestLine: a line without createdAt keeps the
// flag's: the nearest earlier line's of the file that gave one, else the
// stored one; the last line of a flag is what the flag holds.
func TestImportCreatedAtOfTheNearestLine(t *testing.T) {
	line := func(id, text, created string) string {
		at := ""
		if created != "" {
			at = `"createdAt":"` + created + `",`
		}
		return `{"id":"` + id + `","slug":"` + id + `","category":"SOCIAL","region":null,` + at +
			`"text":{"en":"` + text + `","tr":"t","de":"d","es":"s"},"votes":{"red":1,"green":2},"contexts":[],` +
			`"description":{"tr":null,"en":null,"de":null,"es":null}}` + "\n"
	}
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db, _ := loadertest.Open(t, d)
			ctx := context.Background()
			if _, err := db.Import(ctx, strings.NewReader(line("kept", "a", "2021-01-01T00:00:00.000Z")), nil); err != nil {
				t.Fatal(err)
			}
			file := line("near", "1", "2022-01-01T00:00:00.000Z") + line("near", "2", "2023-01-01T00:00:00.000Z") +
				line("near", "3", "") + line("kept", "b", "") + line("kept", "c", "")
			n, err := db.Import(ctx, strings.NewReader(file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if n != (loader.Imported{Records: 5, Flags: 2}) {
				t.Errorf("import: %+v, want 5 records of 2 flags", n)
			}
			for id, want := range map[string]string{"near": "3 2023-01-01", "kept": "c 2021-01-01"} {
				var text string
				var created time.Time
				if err := db.QueryRowxContext(ctx, db.Rebind("SELECT text_en, created_at FROM flags WHERE id = ?"), id).Scan(&text, &created); err != nil {
					// SQLite keeps the time as text.
					var at string
					if err := db.QueryRowxContext(ctx, db.Rebind("SELECT text_en, created_at FROM flags WHERE id = ?"), id).Scan(&text, &at); err != nil {
						t.Fatal(err)
					}
					created, _ = time.Parse(time.RFC3339, at)
				}
				if got := text + " " + created.UTC().Format(time.DateOnly); got != want {
					t.Errorf("%s: text and created day %q, want %q", id, got, want)
				}
			}
		})
	}
}

// TestImportAlikeOnBothDatabases: random files (flags on several lines,
// slugs handed between them, lines with and without createdAt, repeated
// snapshot days, slug clashes that refuse the whole file) imported in
// turn into a SQLite and a PostgreSQL database leave both alike: the same
// files refused at the same line, the same export after each.
func TestImportAlikeOnBothDatabases(t *testing.T) {
	if len(loadertest.Sources(t)) < 2 {
		t.Skip("needs PostgreSQL (FLAGPOLE_TEST_POSTGRES)")
	}
	ctx := context.Background()
	lite, _ := loadertest.Open(t, loader.SQLite)
	pg, _ := loadertest.Open(t, loader.Postgres)
	rng := rand.New(rand.NewPCG(7, 11))
	recent := time.Now().Add(-time.Hour)
	export := func(db *loader.DB) []map[string]any {
		t.Helper()
		var b strings.Builder
		if _, err := db.Export(ctx, &b, nil); err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			if l == "" {
				continue
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			// A flag created by a line without createdAt was created at
			// the import's own time, a moment apart on the two.
			if at, _ := time.Parse(time.RFC3339, rec["createdAt"].(string)); at.After(recent) {
				rec["createdAt"] = "now"
			}
			out = append(out, rec)
		}
		return out
	}
	accepted := 0
	for round := range 60 {
		var file strings.Builder
		for range 1 + rng.IntN(6) {
			id := rng.IntN(6)
			slug := id // mostly its own slug, so that most files are taken
			if rng.IntN(4) == 0 {
				slug = rng.IntN(8)
			}
			created := ""
			if rng.IntN(2) == 0 {
				created = fmt.Sprintf(`"createdAt":"2025-0%d-01T00:00:00.%03dZ",`, 1+rng.IntN(9), rng.IntN(1000))
			}
			snaps := ""
			for k := range rng.IntN(3) {
				if k > 0 {
					snaps += ","
				}
				snaps += fmt.Sprintf(`{"at":"2026-0%d-0%dT00:00:00.000Z","red":%d,"green":%d}`, 1+rng.IntN(2), 1+rng.IntN(3), rng.IntN(9), rng.IntN(9))
			}
			fmt.Fprintf(&file, `{"id":"imp-%d","slug":"s-%d","category":"SOCIAL","region":null,%s`+
				`"text":{"en":"e %d","tr":"t","de":"d","es":"s"},"votes":{"red":%d,"green":%d},"contexts":[],`+
				`"description":{"tr":null,"en":null,"de":null,"es":null},"snapshots":[%s]}`+"\n",
				id, slug, created, rng.IntN(100), rng.IntN(50), rng.IntN(50), snaps)
		}
		_, errLite := lite.Import(ctx, strings.NewReader(file.String()), nil)
		_, errPG := pg.Import(ctx, strings.NewReader(file.String()), nil)
		if (errLite == nil) != (errPG == nil) || errLite != nil && errLite.Error() != errPG.Error() {
			t.Fatalf("round %d: SQLite %v, PostgreSQL %v, for\n%s", round, errLite, errPG, file.String())
		}
		if errLite == nil {
			accepted++
		}
		if a, b := export(lite), export(pg); !reflect.DeepEqual(a, b) {
			t.Fatalf("round %d: the exports differ after\n%s\nSQLite:     %v\nPostgreSQL: %v", round, file.String(), a, b)
		}
	}
	if accepted < 20 {
		t.Errorf("only %d of 60 random files were accepted: the rounds test little", accepted)
	}
}
