package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// icuDatabase makes an empty PostgreSQL database whose default collation
// is ICU en-US (as on most servers), not C, and returns its URL.
func icuDatabase(t *testing.T) string {
	t.Helper()
	base := loadertest.RequirePostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := loader.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var b [6]byte
	rand.Read(b[:])
	name := "flagpole_test_icu_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+
		" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"); err != nil {
		t.Skipf("cannot make a database with an ICU collation here: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if a, err := loader.Open(ctx, base); err == nil {
			a.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			a.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Two flags whose ids sort one way in bytes ("B1" < "a1") and the other
// way in a linguistic collation; only the second has snapshots.
const collationFile = `{"id":"a1","slug":"lower","category":"SOCIAL","region":null,"text":{"tr":"a","en":"a","de":"a","es":"a"},` +
	`"votes":{"red":1,"green":2},"createdAt":"2025-01-01T00:00:00.000Z","contexts":["WORK"],"description":{"tr":null,"en":null,"de":null,"es":null},"status":"APPROVED"}
{"id":"B1","slug":"upper","category":"SOCIAL","region":null,"text":{"tr":"b","en":"b","de":"b","es":"b"},` +
	`"votes":{"red":3,"green":4},"createdAt":"2025-01-01T00:00:00.000Z","contexts":["WORK"],"description":{"tr":null,"en":null,"de":null,"es":null},"status":"APPROVED",` +
	`"snapshots":[{"at":"2026-01-01T00:00:00.000Z","red":3,"green":4}]}
`

func checkExportKeepsSnapshots(t *testing.T, db string) {
	t.Helper()
	mustRun(t, "import", "--db", db, writeFile(t, "collation.jsonl", collationFile))
	recs := exportRecords(t, db)
	if len(recs) != 2 {
		t.Fatalf("export: got %d flags, want 2", len(recs))
	}
	for _, r := range recs {
		snaps, _ := r["snapshots"].([]any)
		want := map[string]int{"a1": 0, "B1": 1}[r["id"].(string)]
		if len(snaps) != want {
			t.Errorf("export: flag %v has %d snapshots, want %d", r["id"], len(snaps), want)
		}
	}
}

func TestExportKeepsSnapshotsWhateverTheIDs(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			checkExportKeepsSnapshots(t, loadertest.URL(t, d))
		})
	}
	t.Run("postgres with an ICU collation", func(t *testing.T) {
		checkExportKeepsSnapshots(t, icuDatabase(t))
	})
}

func TestExportFailureKeepsTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "backup.jsonl")
	if err := os.WriteFile(path, []byte(goodFile), 0o644); err != nil {
		t.Fatal(err)
	}
	mustFail(t, noEnv, nil, "export", "--db", "mysql://x", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != goodFile {
		t.Errorf("a failed export changed %s: got %d bytes, want the %d it held", path, len(b), len(goodFile))
	}
}
