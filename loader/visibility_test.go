package loader_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// The tests of this file hold the loads to the database's own
// transaction visibility (loader/position.go, loader/settle.go): what a
// load has seen does not depend on clocks, on the order of commits, on how
// long a transaction stays open, on which role wrote, on a replica's lag,
// or on a table truncated or restored.

// seed seeds db, failing the test on an error.
func seed(t *testing.T, db *loader.DB, so loader.SeedOptions) {
	t.Helper()
	if err := db.Seed(context.Background(), so); err != nil {
		t.Fatal(err)
	}
}

// loaderOf makes a loader of db that neither listens nor runs schedules,
// and the store it swaps its snapshots into; it has loaded nothing yet.
func loaderOf(db *loader.DB) (*loader.Loader, *memstore.Store) {
	store := &memstore.Store{}
	return loader.New(db, store, loader.Options{}), store
}

// mustLoad runs one load of the flags, failing the test on an error.
func mustLoad(t *testing.T, ld *loader.Loader) {
	t.Helper()
	if err := ld.LoadFlags(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// startOn runs a loader that reads db and listens to primary, with
// hour-long schedules: only the database's wake-ups load. It returns once
// the loads that its start rang are done.
func startOn(t *testing.T, db, primary *loader.DB) (*loader.Loader, *memstore.Store) {
	t.Helper()
	store := &memstore.Store{}
	var mu sync.Mutex
	loads := 0
	ld := loader.New(db, store, loader.Options{Listen: true, Primary: primary,
		OnLoad: func(job string, _ time.Duration, _ int, _ error) {
			mu.Lock()
			loads++
			mu.Unlock()
		}})
	ready, done := make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { defer close(done); ld.Run(ctx, never, never, func() { close(ready) }) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-time.After(time.Minute):
		t.Fatal("the loader was not ready within a minute")
	}
	waitFor(t, "listening", func() bool { return ld.Status().Listening })
	count := func() int { mu.Lock(); defer mu.Unlock(); return loads }
	for n, quiet := count(), 0; quiet < 5; quiet++ {
		time.Sleep(100 * time.Millisecond)
		if m := count(); m != n {
			n, quiet = m, 0
		}
	}
	return ld, store
}

// counts returns the served red and green of a flag, ok false when it is
// not served.
func counts(s *memstore.Store, id string) (red, green int64, ok bool) {
	for f := range s.Snapshot().Flags() {
		if f.ID() == id {
			return f.Red, f.Green, true
		}
	}
	return 0, 0, false
}

// agrees waits until the snapshot serves exactly the approved flags of
// db with their counts.
func agrees(t *testing.T, what string, db *loader.DB, s *memstore.Store) {
	t.Helper()
	type row struct {
		ID    string `db:"id"`
		Red   int64  `db:"red_count"`
		Green int64  `db:"green_count"`
	}
	var want []row
	if err := db.Select(&want, "SELECT id, red_count, green_count FROM flags WHERE status = 'APPROVED'"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		snap := s.Snapshot()
		bad := ""
		if snap.Len() != len(want) {
			bad = fmt.Sprintf("%d flags served, %d approved", snap.Len(), len(want))
		}
		for _, w := range want {
			if bad != "" {
				break
			}
			if red, green, ok := counts(s, w.ID); !ok || red != w.Red || green != w.Green {
				bad = fmt.Sprintf("flag %s: served %v %d/%d, database %d/%d", w.ID, ok, red, green, w.Red, w.Green)
			}
		}
		if bad == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s: %s", what, bad)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCommitOrderAndOpenTransactions: a vote whose transaction began
// first and commits last, after loads that read later votes, shows once
// it commits; a transaction left open (it has written) holds nothing
// back: each load reads the flags voted on since the one before, not
// every flag changed since that transaction began (before: a load read
// the window back to its start, versions first, and a vote stamped more
// than the short overlap before a load's watermark waited for a long one).
func TestCommitOrderAndOpenTransactions(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	seed(t, db, loader.SeedOptions{Flags: 200, Users: 5, Days: 2, Seed: 1})
	ld, store := loaderOf(db)
	mustLoad(t, ld)
	var ids []string
	if err := db.Select(&ids, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	db.MustExec("INSERT INTO users (id) VALUES ('late'), ('early'), ('idle')")

	// Left open for the whole test, after a write of its own.
	idle, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Rollback()
	idle.MustExec("UPDATE users SET created_at = created_at WHERE id = 'idle'")
	// Begins first, commits last.
	early, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback()
	early.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'early', 'red')", ids[0])
	red0, _, _ := counts(store, ids[0])

	for i := 1; i <= 60; i++ {
		db.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'late', 'green')", ids[i])
	}
	mustLoad(t, ld)
	if n := ld.Status().LastFlagRows; n != 60 {
		t.Errorf("the load after 60 votes read %d flags, want 60", n)
	}
	// A moment passes, longer than the old short overlap: the early vote
	// was stamped well before what a clock-based load had read up to.
	time.Sleep(300 * time.Millisecond)
	for i := 61; i <= 63; i++ {
		db.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'late', 'green')", ids[i])
		mustLoad(t, ld)
		if n := ld.Status().LastFlagRows; n != 1 {
			t.Errorf("with two transactions open, the load after one vote read %d flags, want 1", n)
		}
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, ld)
	if red, _, _ := counts(store, ids[0]); red != red0+1 {
		t.Errorf("the vote of the transaction that began first and committed last does not show: red %d, want %d", red, red0+1)
	}
	if n := ld.Status().LastFlagRows; n != 1 {
		t.Errorf("the load after the late commit read %d flags, want 1", n)
	}
	mustLoad(t, ld)
	if n := ld.Status().LastRows; n != 0 {
		t.Errorf("a quiet load read %d rows with a transaction open, want 0", n)
	}
}

// TestTruncateAndImport: after TRUNCATE flags CASCADE and an import of the
// export, the snapshot serves what the database holds, and the loads go
// back to reading what changed (before: the totals' triggers missed the
// TRUNCATE, counted every flag twice, and every load from then on read
// every flag).
func TestTruncateAndImport(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	ctx := context.Background()
	seed(t, db, loader.SeedOptions{Flags: 150, Users: 5, Days: 2, Seed: 1})
	ld, store := loaderOf(db)
	mustLoad(t, ld)
	var dump strings.Builder
	if _, err := db.Export(ctx, &dump, nil); err != nil {
		t.Fatal(err)
	}
	db.MustExec("TRUNCATE flags CASCADE")
	mustLoad(t, ld)
	if n := store.Snapshot().Len(); n != 0 {
		t.Errorf("after TRUNCATE the snapshot serves %d flags", n)
	}
	if _, err := db.Import(ctx, strings.NewReader(dump.String()), nil); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, ld)
	agrees(t, "after the import", db, store)
	voteAndCount(t, db, ld, store)
}

// voteAndCount votes on one flag and checks that the next load reads it
// alone.
func voteAndCount(t *testing.T, db *loader.DB, ld *loader.Loader, store *memstore.Store) {
	t.Helper()
	var id string
	if err := db.Get(&id, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	red, _, _ := counts(store, id)
	db.MustExec("INSERT INTO users (id) VALUES ('after') ON CONFLICT DO NOTHING")
	db.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'after', 'red')", id)
	mustLoad(t, ld)
	if n := ld.Status().LastFlagRows; n != 1 {
		t.Errorf("the load after one vote read %d flags, want 1", n)
	}
	if got, _, _ := counts(store, id); got != red+1 {
		t.Errorf("the vote does not show: red %d, want %d", got, red+1)
	}
}

// TestRestoreOfADump: pg_restore --clean of an older pg_dump drops the
// tables and creates them again with the dump's rows (their triggers come
// last, so the rows keep the stamps they were dumped with): the next load
// serves what was restored, and the loads then read what changes.
func TestRestoreOfADump(t *testing.T) {
	for _, prog := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(prog); err != nil {
			loadertest.RequirePostgres(t)
			t.Skipf("%s is not installed", prog)
		}
	}
	db, raw := loadertest.Open(t, loader.Postgres)
	seed(t, db, loader.SeedOptions{Flags: 120, Users: 5, Days: 2, Seed: 1})
	file := t.TempDir() + "/flagpole.dump"
	if out, err := exec.Command("pg_dump", "-Fc", "-f", file, "-d", raw).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	ld, store := loaderOf(db)
	// After the dump: votes, a rejection, an approval the restore undoes.
	db.MustExec("INSERT INTO users (id) VALUES ('later')")
	db.MustExec("INSERT INTO votes (flag_id, user_id, color) SELECT id, 'later', 'red' FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 30")
	db.MustExec("UPDATE flags SET status = 'REJECTED' WHERE id = (SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id DESC LIMIT 1)")
	db.MustExec("UPDATE flags SET status = 'APPROVED' WHERE id = (SELECT id FROM flags WHERE status = 'PENDING' ORDER BY id LIMIT 1)")
	mustLoad(t, ld)
	agrees(t, "before the restore", db, store)
	// The loader's pooled connections keep no lock the restore waits for.
	if out, err := exec.Command("pg_restore", "--clean", "--if-exists", "--single-transaction", "-d", raw, file).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	mustLoad(t, ld)
	agrees(t, "after the restore", db, store)
	voteAndCount(t, db, ld, store)
}

// TestReplicaLag: the loader reads a real streaming replica that applies
// each commit 1.5 s after the primary. A vote on the primary shows once
// the replica has replayed it, woken by the primary's notification alone
// (hour-long schedules): the load waits for the replica to reach the
// primary's WAL position (before: it read at once, then again 1 s later,
// and a vote replayed after that waited for the schedule). A transaction
// that began first and commits last on the primary shows too: a standby's
// snapshot lists no running transactions, so which ids are still open is
// asked of pg_xact_status.
func TestReplicaLag(t *testing.T) {
	loadertest.RequirePostgres(t)
	c := loadertest.StartCluster(t, loadertest.ClusterOptions{ApplyDelay: 1500 * time.Millisecond})
	ctx := context.Background()
	primary, err := loader.OpenMigrated(ctx, c.Primary)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	if err := primary.Seed(ctx, loader.SeedOptions{Flags: 40, Users: 5, Days: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	c.WaitReplayed(t)
	replica, err := loader.Open(ctx, c.Replica)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	ld, store := startOn(t, replica, primary)
	agrees(t, "the first load", primary, store)

	var ids []string
	if err := primary.Select(&ids, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	primary.MustExec("INSERT INTO users (id) VALUES ('v1'), ('v2')")
	early, err := primary.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback()
	early.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'v1', 'red')", ids[0])
	for i := 1; i <= 3; i++ {
		primary.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'v2', 'red')", ids[i])
		want, _, _ := counts(store, ids[i])
		waitFor30(t, fmt.Sprintf("vote %d shows from the lagging replica", i), func() bool {
			red, _, _ := counts(store, ids[i])
			return red == want+1
		})
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	agrees(t, "the transaction that committed last", primary, store)
	if n := ld.Status().Notifications; n == 0 {
		t.Error("no notification: the test tests nothing")
	}
}

// TestLockHoldersSilenceNothing: other sessions that hold the advisory
// locks the notifiers and the barrier use (loader/settle.go): one holds a
// notifiers' lock for good, one a registration lock, shared. Concurrent
// votes from 8 connections, in bursts, all show with hour-long schedules
// (before: a session holding the notifiers' one lock made every coalesced
// vote skip its notification).
func TestLockHoldersSilenceNothing(t *testing.T) {
	loadertest.RequirePostgres(t)
	db, _ := loadertest.Open(t, loader.Postgres)
	ctx := context.Background()
	seed(t, db, loader.SeedOptions{Flags: 30, Users: 5, Days: 2, Seed: 1})
	for _, q := range []string{"SELECT pg_advisory_lock(7046029254386353131)", "SELECT pg_advisory_lock_shared(7046029254386353133)"} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ld, store := startOn(t, db, db)
	var ids []string
	if err := db.Select(&ids, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	bursts(t, db, ids, 8, 5)
	agrees(t, "every vote of the bursts", db, store)
	if n := ld.Status().Notifications; n == 0 {
		t.Error("no notification: the test tests nothing")
	}
}

// bursts votes from writers connections at once, rounds times, each
// writer a user of its own voting on the next flag.
func bursts(t *testing.T, db *loader.DB, ids []string, writers, rounds int) {
	t.Helper()
	for w := 0; w < writers; w++ {
		db.MustExec(fmt.Sprintf("INSERT INTO users (id) VALUES ('burst-%d')", w))
	}
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := db.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, $2, 'red')",
					ids[(r*writers+w)%len(ids)], fmt.Sprintf("burst-%d", w))
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// waitFor30 is waitFor with 30 s: a replica's lag is in it.
func waitFor30(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStampsMigrateDownAndUp: migration 00005 goes down (to the clocks
// and flag_totals, which count again) and up again on a database in use.
func TestStampsMigrateDownAndUp(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	ctx := context.Background()
	seed(t, db, loader.SeedOptions{Flags: 50, Users: 5, Days: 2, Seed: 1})
	if err := db.MigrateTo(ctx, 4); err != nil {
		t.Fatal(err)
	}
	var kept, counted int
	if err := db.Get(&kept, "SELECT approved FROM flag_totals"); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&counted, "SELECT count(*) FROM flags WHERE status = 'APPROVED'"); err != nil {
		t.Fatal(err)
	}
	if kept != counted {
		t.Errorf("flag_totals after the way down: %d, counted %d", kept, counted)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ld, store := loaderOf(db)
	mustLoad(t, ld)
	voteAndCount(t, db, ld, store)
}

// TestDeletedFlagLeaves: an approved flag deleted (which no stamp can
// show) leaves the snapshot at the next load, on both databases, and the
// loads then go back to reading what changes.
func TestDeletedFlagLeaves(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db, _ := loadertest.Open(t, d)
			seed(t, db, loader.SeedOptions{Flags: 60, Users: 5, Days: 2, Seed: 1})
			ld, store := loaderOf(db)
			mustLoad(t, ld)
			var id string
			if err := db.Get(&id, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1"); err != nil {
				t.Fatal(err)
			}
			db.MustExec(db.Rebind("DELETE FROM flags WHERE id = ?"), id)
			mustLoad(t, ld)
			if _, _, ok := counts(store, id); ok {
				t.Error("a deleted flag is still served")
			}
			agrees(t, "after the delete", db, store)
			voteAndCount(t, db, ld, store)
		})
	}
}

// TestBarrierWaitsForSkippedVotes: a vote commits while another
// transaction holds both notifiers' locks, so it does not notify, and its
// commit takes a while (a deferred trigger of the test's sleeps in it,
// after flagpole's: as a slow synchronous standby would). The other
// transaction's notification wakes the loader before the vote has
// committed; the barrier waits for the vote's commit (300 ms), or, when
// the commit outlasts its wait (1.5 s), passes again a second later: the
// vote shows either way, with hour-long schedules and no other
// notification.
func TestBarrierWaitsForSkippedVotes(t *testing.T) {
	for _, slow := range []string{"0.3", "1.5"} {
		t.Run(slow+"s", func(t *testing.T) {
			db, _ := loadertest.Open(t, loader.Postgres)
			ctx := context.Background()
			seed(t, db, loader.SeedOptions{Flags: 20, Users: 5, Days: 2, Seed: 1})
			db.MustExec("CREATE FUNCTION test_slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(" + slow + "); RETURN NULL; END $$")
			db.MustExec("CREATE CONSTRAINT TRIGGER zz_slow_commit AFTER INSERT ON votes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_slow_commit()")
			db.MustExec("INSERT INTO users (id) VALUES ('slow')")
			var id string
			if err := db.Get(&id, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1"); err != nil {
				t.Fatal(err)
			}
			ld, store := startOn(t, db, db)
			red, _, _ := counts(store, id)
			notes := ld.Status().Notifications

			// The notifier: both notifiers' locks, as two votes in their
			// commits hold them, and a notification at its commit.
			holder, err := db.Beginx()
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Rollback()
			holder.MustExec("SELECT pg_advisory_xact_lock(7046029254386353131), pg_advisory_xact_lock(7046029254386353132)")
			holder.MustExec("SELECT pg_notify('flagpole_changes', 'flags')")
			vote, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer vote.Close()
			var pid int
			if err := vote.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				t.Fatal(err)
			}
			voted := make(chan error, 1)
			go func() {
				_, err := vote.ExecContext(ctx, "BEGIN; INSERT INTO votes (flag_id, user_id, color) VALUES ('"+id+"', 'slow', 'red'); COMMIT")
				voted <- err
			}()
			waitFor(t, "the vote in its slow commit", func() bool {
				var n int
				db.Get(&n, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'", pid)
				return n == 1
			})
			if err := holder.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := <-voted; err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the vote that skipped its notification shows", func() bool {
				got, _, _ := counts(store, id)
				return got == red+1
			})
			if n := ld.Status().Notifications - notes; n != 1 {
				t.Errorf("%d notifications, want the holder's alone: the vote notified, the test tests nothing", n)
			}
			if st := ld.Status(); slow == "1.5" && st.BarrierWaitedOut < 1 {
				t.Errorf("the commit outlasted the barrier's wait, yet %d locks counted waited out", st.BarrierWaitedOut)
			}
		})
	}
}

// TestBarrierCutShortHoldsNoLock: a barrier cut short by an error of
// the server while it holds one of its session-level locks (an
// operator's statement_timeout, a failover; here a stand-in barrier that
// fails holding the notifiers' first lock) leaves no lock behind: its
// connection is closed, not given back to the pool (before: the pooled
// session kept the lock for good, and every vote's notifier found it
// taken). A cancel by the loader's own deadline is covered too (lib/pq
// discards a connection whose query it cancelled).
func TestBarrierCutShortHoldsNoLock(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	db.SetMaxOpenConns(1)
	for _, fail := range []string{"RAISE EXCEPTION 'a failure of the server'", "PERFORM pg_sleep(30)"} {
		db.MustExec(`CREATE OR REPLACE FUNCTION flagpole_barrier(wait_ms integer, OUT waited_out integer, OUT lsn text)
			LANGUAGE plpgsql AS $$ BEGIN
				waited_out := 0;
				PERFORM pg_advisory_lock(7046029254386353131);
				` + fail + `;
				PERFORM pg_advisory_unlock(7046029254386353131);
			END $$`)
		cut, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err := loader.Barrier(cut, db)
		cancel()
		if err == nil {
			t.Fatal("the stand-in barrier passed: the test tests nothing")
		}
		waitFor(t, "the lock let go after "+fail, func() bool {
			var n int
			if err := db.Get(&n, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"); err != nil {
				t.Fatal(err)
			}
			return n == 0
		})
	}
}

// TestTrendRowsLeave: trend rows that go in a way no stamp shows (deleted
// on SQLite, whose triggers mark a reload; the table truncated on
// PostgreSQL, which gives it new storage) are gone from the next load's
// history, as the flags are (before: the load read the flags again, and
// kept serving the old history).
func TestTrendRowsLeave(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db, _ := loadertest.Open(t, d)
			seed(t, db, loader.SeedOptions{Flags: 30, Users: 5, Days: 2, Seed: 1})
			ld, store := loaderOf(db)
			mustLoad(t, ld)
			if n := store.Snapshot().Trends.Rows(); n == 0 {
				t.Fatal("no trend history loaded: the test tests nothing")
			}
			if d == loader.Postgres {
				db.MustExec("TRUNCATE flag_snapshots")
			} else {
				db.MustExec("DELETE FROM flag_snapshots")
			}
			mustLoad(t, ld)
			if n := store.Snapshot().Trends.Rows(); n != 0 {
				t.Errorf("%d trend rows served after the table was emptied, want 0", n)
			}
			agrees(t, "after the trend rows went", db, store)
		})
	}
}
