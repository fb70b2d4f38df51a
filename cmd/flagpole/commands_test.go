package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	sources := loadertest.Sources(t)
	for _, from := range sources {
		t.Run(string(from), func(t *testing.T) {
			src := loadertest.URL(t, from)
			mustRun(t, "seed", "--db", src, "--flags", "40", "--users", "15", "--days", "5", "--seed", "11")
			// Flags of the import file too: null descriptions, no
			// snapshots, every status.
			mustRun(t, "import", "--db", src, writeFile(t, "good.jsonl", goodFile))
			want := exportText(t, src)
			if n := len(lines(want)); n != 43 {
				t.Fatalf("export: got %d lines, want 43", n)
			}
			for _, to := range sources {
				t.Run("to "+string(to), func(t *testing.T) {
					dst := loadertest.URL(t, to)
					mustRun(t, "import", "--db", dst, writeFile(t, "export.jsonl", want))
					if got := exportText(t, dst); got != want {
						t.Errorf("export after import into an empty %s database differs at %s", to, firstDiff(got, want))
					}
				})
			}
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got:  " + gl + "\n want: " + wl
		}
	}
	return "(no difference)"
}

// countSnapshots counts the rows of flag_snapshots.
func countSnapshots(t *testing.T, url string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := loader.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.GetContext(ctx, &n, "SELECT count(*) FROM flag_snapshots"); err != nil {
		t.Fatal(err)
	}
	return n
}

// snapshotOn finds the snapshot of a flag record at a day's start.
func snapshotOn(rec map[string]any, at string) map[string]any {
	snaps, _ := rec["snapshots"].([]any)
	for _, s := range snaps {
		if m := s.(map[string]any); m["at"] == at {
			return m
		}
	}
	return nil
}

func TestSnapshot(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			today := time.Now().UTC().Format(time.DateOnly)
			// The file's snapshots of 2026-01-02 (flg_a1 and flg_b2) moved
			// to today; flg_c3 has none.
			mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", strings.ReplaceAll(goodFile, "2026-01-02", today)))
			if got := countSnapshots(t, db); got != 3 {
				t.Fatalf("after import: got %d snapshot rows, want 3", got)
			}
			// Only flg_c3's row is written; the others keep their values.
			r := runCLI(t, noEnv, nil, "snapshot", "--db", db, "--day", today)
			if r.err != nil {
				t.Fatalf("snapshot: %v\nstderr:\n%s", r.err, r.stderr)
			}
			if time.Now().UTC().Format(time.DateOnly) != today {
				t.Skip("the test ran across midnight UTC")
			}
			if !strings.Contains(r.stderr, "1 rows written") {
				t.Errorf("snapshot --day %s: stderr = %q, want 1 rows written", today, r.stderr)
			}
			r = runCLI(t, noEnv, nil, "snapshot", "--db", db)
			if r.err != nil || !strings.Contains(r.stderr, "0 rows written") {
				t.Errorf("snapshot again: %v, stderr = %q, want 0 rows written", r.err, r.stderr)
			}
			if got := countSnapshots(t, db); got != 4 {
				t.Fatalf("after the snapshots: got %d rows, want 4", got)
			}
			for _, rec := range exportRecords(t, db) {
				want := map[string]json.Number{"flg_a1": "110", "flg_b2": "4", "flg_c3": "0"}[rec["id"].(string)]
				if s := snapshotOn(rec, today+"T00:00:00.000Z"); s == nil || s["red"] != want {
					t.Errorf("flag %v: snapshot of %s = %v, want red %v", rec["id"], today, s, want)
				}
			}
		})
	}
}

func TestSnapshotToday(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
			before := time.Now().UTC().Format(time.DateOnly)
			mustRun(t, "snapshot", "--db", db)
			today := time.Now().UTC().Format(time.DateOnly)
			if today != before {
				t.Skip("the snapshot ran across midnight UTC: its day is unsure")
			}
			today += "T00:00:00.000Z"
			for _, rec := range exportRecords(t, db) {
				if snapshotOn(rec, today) == nil {
					t.Errorf("flag %v: no snapshot at %s after snapshot without --day", rec["id"], today)
				}
			}
		})
	}
}

func TestSnapshotBadDay(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	for _, day := range []string{"2026-13-01", "2026-02-30", "yesterday", "2026/01/02", "02-01-2026", "2026-01-02T00:00:00Z"} {
		t.Run(day, func(t *testing.T) {
			msg := mustFail(t, noEnv, nil, "snapshot", "--db", db, "--day", day)
			if !strings.Contains(msg, "YYYY-MM-DD") {
				t.Errorf("snapshot --day %s: error %q, want it to name the format", day, msg)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"unknown command", []string{"frobnicate"}},
		{"keys without a subcommand", []string{"keys"}},
		{"unknown flag", []string{"migrate", "--nope"}},
		{"bad database URL", []string{"migrate", "--db", "mysql://localhost/x"}},
		{"empty sqlite file name", []string{"migrate", "--db", "sqlite:"}},
		{"missing config file", []string{"migrate", "--config", "/nonexistent/flagpole.yaml", "--db", loadertest.URL(t, loader.SQLite)}},
		{"serve with a bad --refresh", []string{"serve", "--db", loadertest.URL(t, loader.SQLite), "--refresh", "every so often"}},
		{"bad rate limit", []string{"serve", "--db", loadertest.URL(t, loader.SQLite), "--rate-limit", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, noEnv, nil, tc.args...)
			if r.err == nil {
				t.Fatalf("flagpole %s: got nil error, want one", strings.Join(tc.args, " "))
			}
			if strings.Contains(r.err.Error(), "\n") {
				t.Errorf("flagpole %s: error %q, want one line", strings.Join(tc.args, " "), r.err)
			}
		})
	}
	r := runCLI(t, noEnv, nil, "frobnicate")
	if !strings.Contains(r.err.Error(), "frobnicate") || r.stderr != "" {
		t.Errorf("unknown command: error %q, stderr %q: want the command named in one line, nothing else", r.err, r.stderr)
	}
	// A bad flag, a stray argument, a zero limit: one line, nothing else.
	db := loadertest.URL(t, loader.SQLite)
	for _, args := range [][]string{{"serve", "--bogus"}, {"migrate", "--db", db, "extra"},
		{"keys", "create", "--db", db, "--name", "x", "--limit", "0"}, {"keys", "list", "--db", db, "extra"},
		{"seed", "--flags", "x"}} {
		r := runCLI(t, noEnv, nil, args...)
		if r.err == nil || strings.Contains(r.err.Error(), "\n") || strings.Contains(r.stderr, "usage") {
			t.Errorf("flagpole %s: error %v, stderr %q", strings.Join(args, " "), r.err, r.stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"help", "-h", "--help"} {
		r := runCLI(t, noEnv, nil, arg)
		if r.err != nil {
			t.Errorf("flagpole %s: %v", arg, r.err)
		}
		for _, cmd := range []string{"serve", "migrate", "seed", "import", "export", "snapshot", "keys"} {
			if !strings.Contains(r.stdout, cmd) {
				t.Errorf("flagpole %s: usage does not name %s", arg, cmd)
			}
		}
	}
}

func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			for i := range 2 {
				r := runCLI(t, noEnv, nil, "migrate", "--db", db)
				if r.err != nil {
					t.Fatalf("migrate #%d: %v\nstderr:\n%s", i+1, r.err, r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("migrate #%d: stdout = %q, want nothing", i+1, r.stdout)
				}
			}
			// The schema is there: an export of the empty database works.
			if got := exportText(t, db); got != "" {
				t.Errorf("export of a migrated empty database: got %q, want nothing", got)
			}
		})
	}
}

func TestMigrateConcurrently(t *testing.T) {
	// Every command migrates first; several at once must not trip.
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			errs := make(chan error, 4)
			for range 4 {
				go func() {
					var out, errOut strings.Builder
					errs <- run(context.Background(), []string{"migrate", "--db", db}, strings.NewReader(""), &out, &errOut, noEnv)
				}()
			}
			for range 4 {
				if err := <-errs; err != nil {
					t.Errorf("concurrent migrate: %v", err)
				}
			}
		})
	}
}

// TestKeysCreateHelp: -h shows --limit without the default 0 it refuses,
// and the other flags' real defaults still show.
func TestKeysCreateHelp(t *testing.T) {
	t.Parallel()
	r := runCLI(t, noEnv, nil, "keys", "create", "-h")
	if r.err != nil {
		t.Fatal(r.err)
	}
	i := strings.Index(r.stdout, "--limit int\n")
	if i < 0 {
		t.Fatalf("no --limit in:\n%s", r.stdout)
	}
	limit, _, _ := strings.Cut(r.stdout[i:], "  --name")
	if strings.Contains(limit, "default") || !strings.Contains(limit, "at least 1") {
		t.Errorf("--limit's help:\n%s", limit)
	}
	if r := runCLI(t, noEnv, nil, "seed", "-h"); !strings.Contains(r.stdout, "default ") {
		t.Errorf("seed -h shows no default:\n%s", r.stdout)
	}
	if r := runCLI(t, noEnv, nil, "keys", "create", "--name", "k", "--limit", "0", "--db", "sqlite::memory:"); r.err == nil {
		t.Error("--limit 0 accepted")
	}
}
