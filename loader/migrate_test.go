package loader

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// migrateChildEnv, when set to a SQLite file, makes the test binary a
// child process that migrates that file and exits (see TestMain).
const migrateChildEnv = "FLAGPOLE_TEST_MIGRATE_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(migrateChildEnv); path != "" {
		if err := openMigrateClose("sqlite:" + path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func openMigrateClose(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := OpenMigrated(ctx, url)
	if err != nil {
		return err
	}
	return db.Close()
}

// Several processes and several connection pools of this process migrate
// one new SQLite file at once: all succeed, each migration is applied
// once, and nothing but the database is left in its directory.
func TestMigrateSQLiteConcurrently(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flagpole.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const processes, pools = 3, 4
	errs := make(chan error, processes+pools)
	var wg sync.WaitGroup
	for i := range processes {
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), migrateChildEnv+"="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("process %d: %v: %s", i, err, out)
			}
		})
	}
	for i := range pools {
		wg.Go(func() {
			if err := openMigrateClose("sqlite:" + path); err != nil {
				errs <- fmt.Errorf("pool %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	db, err := Open(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var rows, versions, last int64
	err = db.QueryRowContext(t.Context(),
		`SELECT COUNT(*), COUNT(DISTINCT version_id), MAX(version_id) FROM goose_db_version`).
		Scan(&rows, &versions, &last)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	sub, err := fs.Sub(migrations, "migrations/sqlite")
	if err != nil {
		t.Fatal(err)
	}
	want, err := lastVersion(sub)
	if err != nil {
		t.Fatal(err)
	}
	if rows != versions || last != want {
		t.Errorf("goose_db_version: %d rows for %d versions, last %d; want one row per version, last %d",
			rows, versions, last, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "flagpole.db" {
			t.Errorf("left beside the database: %s", e.Name())
		}
	}
}

// A migration that fails rolls back every migration of the run: the file
// is left as it was, and a corrected run applies them all.
func TestMigrateSQLiteFailureLeavesFileUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flagpole.db")
	db, err := Open(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	good := &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE a (id INTEGER);\n")}
	dir := fstest.MapFS{
		"00001_a.sql": good,
		"00002_b.sql": {Data: []byte("-- +goose Up\nCREATE TABLE b (id INTEGER);\nINSERT INTO nowhere VALUES (1);\n")},
	}
	if _, err := db.migrate(t.Context(), dir); err == nil {
		t.Fatal("a failing migration: no error")
	}
	// goose creates its (empty) version table before it takes the lock;
	// the migrations and their versions are rolled back.
	var tables, applied int
	if err := db.Get(&tables, `SELECT COUNT(*) FROM sqlite_master WHERE name IN ('a', 'b')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&applied, `SELECT COUNT(*) FROM goose_db_version WHERE version_id > 0`); err != nil {
		t.Fatal(err)
	}
	if tables != 0 || applied != 0 {
		t.Errorf("after a failed run: %d of tables a, b and %d versions applied, want none", tables, applied)
	}

	dir["00002_b.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE b (id INTEGER);\n")}
	if _, err := db.migrate(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Select(&names, `SELECT name FROM sqlite_master WHERE name IN ('a', 'b') ORDER BY name`); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(names) != "[a b]" {
		t.Errorf("after the corrected run: tables %v, want [a b]", names)
	}
}

// While another connection holds the write lock, Migrate waits; it gives
// up with the context's error when its context ends, and migrates once
// the lock is free.
func TestMigrateSQLiteWaitsForTheWriteLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flagpole.db")
	db, err := Open(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := fstest.MapFS{"00001_a.sql": {Data: []byte("-- +goose Up\nCREATE TABLE a (id INTEGER);\n")}}
	if _, err := db.migrate(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	dir["00002_b.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE b (id INTEGER);\n")}

	holder, err := Open(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := db.migrate(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("migrate while the write lock is held: %v, want the context's deadline", err)
	}

	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.migrate(t.Context(), dir); err != nil {
		t.Fatalf("migrate once the lock is free: %v", err)
	}
	var tables int
	if err := db.Get(&tables, `SELECT COUNT(*) FROM sqlite_master WHERE name IN ('a', 'b')`); err != nil {
		t.Fatal(err)
	}
	if tables != 2 {
		t.Errorf("%d of tables a, b after the second run, want 2", tables)
	}
}

// Connection pools opening one new SQLite file at once all open it: the
// first connection of each switches the file to WAL, which SQLite may
// refuse at once with SQLITE_BUSY while another does the same (the busy
// timeout does not wait there), and Open then tries again.
func TestOpenSQLiteFreshConcurrently(t *testing.T) {
	for round := range 30 {
		path := filepath.Join(t.TempDir(), "flagpole.db")
		errs := make(chan error, 8)
		var wg sync.WaitGroup
		for range cap(errs) {
			wg.Go(func() {
				db, err := Open(t.Context(), "sqlite:"+path)
				if err == nil {
					_, err = db.ExecContext(t.Context(), "CREATE TABLE IF NOT EXISTS t (x)")
					db.Close()
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
