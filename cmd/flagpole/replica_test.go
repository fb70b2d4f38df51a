package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestReadReplica runs serve with two database URLs: the loader reads the
// flags from the replica and the keys from the primary (which notifies
// their changes), the commands write the primary.
func TestReadReplica(t *testing.T) {
	primary := loadertest.URL(t, loader.Postgres)
	replica := loadertest.URL(t, loader.Postgres)
	line := func(id, slug string) string {
		return `{"id":"` + id + `","slug":"` + slug + `","category":"SOCIAL","region":null,` +
			`"text":{"tr":"t","en":"e","de":"d","es":"s"},"votes":{"red":1,"green":0},"contexts":[]}`
	}
	runCLI(t, noEnv, strings.NewReader(line("p1", "only-on-primary")), "import", "--db", primary, "-")
	runCLI(t, noEnv, strings.NewReader(line("r1", "only-on-replica")), "import", "--db", replica, "-")
	// A key written on the primary and not (yet) replicated: read from
	// the primary.
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", primary, "--name", "on-primary"))

	s := startServe(t, noEnv, "--db", primary, "--db-replica", replica, "--addr", "127.0.0.1:0",
		"--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	if st, _ := get(t, base+"/api/public/flag/only-on-replica", key); st != 200 {
		t.Errorf("the replica's flag: %d, want 200 (the loader reads the replica)", st)
	}
	if st, _ := get(t, base+"/api/public/flag/only-on-primary", key); st != 404 {
		t.Errorf("the primary's flag: %d, want 404", st)
	}
	// The commands write the primary: the replica is left alone.
	db, err := loader.Open(context.Background(), replica)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	db.Get(&n, "SELECT count(*) FROM flags")
	if n != 1 {
		t.Errorf("the replica has %d flags, want 1", n)
	}
}

// TestSnapshotExclusive runs the daily snapshot from several instances at
// once: one writes the day, the others write nothing, and a held lock
// makes an instance skip.
func TestSnapshotExclusive(t *testing.T) {
	dbURL := loadertest.URL(t, loader.Postgres)
	mustRun(t, "seed", "--db", dbURL, "--flags", "30", "--users", "5", "--days", "0")
	ctx := context.Background()
	var dbs []*loader.DB
	for i := 0; i < 4; i++ {
		db, err := loader.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	day := time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for _, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, _, err := db.SnapshotDayExclusive(ctx, day)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != 30 {
		t.Errorf("%d rows written in all, want 30 (one per flag, once)", total)
	}
	// While another session holds the lock, an instance skips.
	conn, err := dbs[0].Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", 0x666c6167); err != nil {
		t.Fatal(err)
	}
	n, skipped, err := dbs[1].SnapshotDayExclusive(ctx, day.AddDate(0, 0, 1))
	if err != nil || !skipped || n != 0 {
		t.Errorf("with the lock held elsewhere: n=%d skipped=%v err=%v", n, skipped, err)
	}
	conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", 0x666c6167)
}
