package loader_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
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

// TestImportLetsWritersIn: while an import on SQLite reads its lines, the
// voting application's writes go through (a writer whose busy_timeout is
// far shorter than the import gets no SQLITE_BUSY), and the import stays
// all or nothing: a bad line after them writes nothing, not even the good
// lines before it; without one, every line is written.
func TestImportLetsWritersIn(t *testing.T) {
	for _, bad := range []bool{true, false} {
		t.Run(fmt.Sprintf("bad line %v", bad), func(t *testing.T) {
			db, _ := loadertest.Open(t, loader.SQLite)
			ctx := context.Background()
			seed(t, db, loader.SeedOptions{Flags: 5, Users: 2, Days: 1, Seed: 1})
			var flagID string
			if err := db.GetContext(ctx, &flagID, "SELECT id FROM flags ORDER BY id LIMIT 1"); err != nil {
				t.Fatal(err)
			}
			writer, err := sql.Open("sqlite", "file:"+db.Path+"?_pragma=busy_timeout(1000)&_txlock=immediate")
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
				if _, err := io.WriteString(pw, importLine(i)); err != nil {
					t.Fatal(err)
				}
			}
			// The import is running: it has read 200 lines and waits for more.
			if _, err := writer.Exec("INSERT INTO users (id) VALUES ('voter')"); err != nil {
				t.Fatalf("a writer during the import: %v", err)
			}
			if _, err := writer.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, 'voter', 'red')", flagID); err != nil {
				t.Fatalf("a vote during the import: %v", err)
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
			case bad && (!errors.As(err2, &lerr) || lerr.Line != 201):
				t.Errorf("import with a bad line 201: %v, want a LineError at line 201", err2)
			case bad && imported != 0:
				t.Errorf("import with a bad line wrote %d flags, want 0", imported)
			case !bad && err2 != nil:
				t.Errorf("import: %v", err2)
			case !bad && imported != 200:
				t.Errorf("import wrote %d flags, want 200", imported)
			}
		})
	}
}

// TestImportSlugRules: a line whose slug belongs to another flag updates
// that flag, unless its own id is taken too; the staged import decides as
// the line-by-line one does.
func TestImportSlugRules(t *testing.T) {
	db, _ := loadertest.Open(t, loader.SQLite)
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
}
