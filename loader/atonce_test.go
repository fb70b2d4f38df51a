package loader_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// TestLoadInOneMessage: on PostgreSQL an incremental load asks the
// server twice (its position, then every read in one message), counted
// on the wire by a proxy, and shows what it read: a vote (counts, the
// vote windows), the vote deleted, a new user (counted only then), users deleted (counted
// again the long way), a flag approved. A load that finds a row of
// data_changes (here the daily snapshot) reads the long way and shows
// the day. Statement by statement, a load took eight round trips. The
// statements are prepared once, by the first of these loads.
func TestLoadInOneMessage(t *testing.T) {
	_, raw := loadertest.Open(t, loader.Postgres)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	proxy := loadertest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	ctx := context.Background()
	db, err := loader.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	seed(t, db, loader.SeedOptions{Flags: 20, Users: 3, Days: 2, Seed: 3})
	ld, store := loaderOf(db)
	mustLoad(t, ld)
	load := func(what string) (turns int) {
		t.Helper()
		before := proxy.Turns()
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return proxy.Turns() - before
	}
	oneMessage := func(what string) {
		t.Helper()
		if n := load(what); n > 2 {
			t.Errorf("%s: the load made %d round trips, want 2 (its position, one message)", what, n)
		}
		if ld.Status().LastFull {
			t.Errorf("%s: the load read everything", what)
		}
	}

	// The first such load prepares its statements on the connection the
	// loads keep (prepared.go): one round trip more, once.
	if n := load("the first incremental load"); n != 3 {
		t.Errorf("the first incremental load made %d round trips, want 3 (the statements prepared, its position, one message)", n)
	}
	oneMessage("nothing changed")

	var id string
	if err := db.Get(&id, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	red, _, _ := counts(store, id)
	st := store.Snapshot().Stats()
	db.MustExec("INSERT INTO users (id) VALUES ('one-message')")
	db.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'one-message', 'red')", id)
	oneMessage("a vote")
	if got, _, _ := counts(store, id); got != red+1 {
		t.Errorf("the vote does not show: red %d, want %d", got, red+1)
	}
	now := store.Snapshot().Stats()
	if now.UsersTotal != st.UsersTotal+1 || now.VotesLast24h != st.VotesLast24h+1 || now.VotesLast30d != st.VotesLast30d+1 {
		t.Errorf("stats after a vote by a new user: users %d, last 24h %d, last 30d %d; want %d, %d, %d",
			now.UsersTotal, now.VotesLast24h, now.VotesLast30d, st.UsersTotal+1, st.VotesLast24h+1, st.VotesLast30d+1)
	}

	// A vote deleted: taken from the windows, in the same message (the
	// flag's removed_votes, migration 00008).
	db.MustExec("DELETE FROM votes WHERE flag_id = $1 AND user_id = 'one-message'", id)
	oneMessage("a vote deleted")
	if got := store.Snapshot().Stats(); got.VotesLast24h != st.VotesLast24h || got.VotesLast30d != st.VotesLast30d {
		t.Errorf("stats after the vote was deleted: last 24h %d, last 30d %d; want %d, %d",
			got.VotesLast24h, got.VotesLast30d, st.VotesLast24h, st.VotesLast30d)
	}

	// A user added without a stamp (its trigger off) is not counted: the
	// loads count the users only when a stamp or a deletion says they
	// changed (this pins that limit: only a write with its triggers off
	// goes unseen). Deleting users makes the next load count them (the
	// long way).
	users := store.Snapshot().Stats().UsersTotal
	db.MustExec("ALTER TABLE users DISABLE TRIGGER users_stamp")
	db.MustExec("INSERT INTO users (id) VALUES ('unstamped'), ('deleted')")
	db.MustExec("ALTER TABLE users ENABLE TRIGGER users_stamp")
	oneMessage("a user added unstamped")
	if got := store.Snapshot().Stats().UsersTotal; got != users {
		t.Errorf("users %d after a user was added without a stamp, want %d: the load counted them", got, users)
	}
	db.MustExec("DELETE FROM users WHERE id = 'deleted'")
	if n := load("a user deleted"); n <= 2 {
		t.Errorf("the load after a user was deleted made %d round trips: it cannot have counted them", n)
	}
	if ld.Status().LastFull {
		t.Error("a user deleted made the load read everything")
	}
	if got := store.Snapshot().Stats().UsersTotal; got != users+1 {
		t.Errorf("users %d after one was deleted, want %d (counted again)", got, users+1)
	}
	oneMessage("after the users were counted")

	n := store.Snapshot().Len()
	db.MustExec("INSERT INTO flags (id, slug, status, category, text_tr, text_en, text_de, text_es) " +
		"VALUES ('one-message', 'one-message', 'PENDING', 'SOCIAL', 'a', 'b', 'c', 'd')")
	oneMessage("a flag proposed")
	db.MustExec("UPDATE flags SET status = 'APPROVED' WHERE id = 'one-message'")
	oneMessage("a flag approved")
	if got := store.Snapshot().Len(); got != n+1 {
		t.Errorf("%d flags after one was approved, want %d", got, n+1)
	}

	today := time.Now().UTC()
	if _, err := db.SnapshotDay(ctx, today); err != nil {
		t.Fatal(err)
	}
	if n := load("a daily snapshot"); n <= 2 {
		t.Errorf("the load after a daily snapshot made %d round trips: it cannot have read the day", n)
	}
	tr := store.Snapshot().Trends
	if tr == nil {
		t.Fatal("no trend history after the daily snapshot")
	}
	if len(tr.Of(id, memstore.DayOf(today), memstore.DayOf(today))) != 1 {
		t.Errorf("the daily snapshot of %s does not show in the trends", id)
	}
	oneMessage("after the daily snapshot")
}

// TestUserStampsMigrate: migration 00006 on a database with users leaves
// statistics on users.stamp (without them the planner guesses that a
// third of the users have a stamp past the position, and the load's
// EXISTS scanned every user for a first match: at a million users 90 ms a
// load, the loads 11 a second instead of 37, bench/README.md), goes down
// and up again, and the loads after it count the users they should.
func TestUserStampsMigrate(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	ctx := context.Background()
	seed(t, db, loader.SeedOptions{Flags: 20, Users: 50, Days: 1, Seed: 1})
	if err := db.MigrateTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Get(&n, "SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'users' AND attname = 'stamp'"); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("users.stamp has %d rows of statistics after migrating, want 1", n)
	}
	ld, store := loaderOf(db)
	mustLoad(t, ld)
	users := store.Snapshot().Stats().UsersTotal
	db.MustExec("INSERT INTO users (id) VALUES ('after-migrating')")
	mustLoad(t, ld)
	if got := store.Snapshot().Stats().UsersTotal; got != users+1 {
		t.Errorf("users %d after one was added, want %d", got, users+1)
	}
}

// TestUserAddedInALongTransaction: a user added by a transaction that
// stays open across loads (its stamp then in the position's running, below
// next) is counted once it commits, and so is a user deleted by one; no
// load reads everything for it.
func TestUserAddedInALongTransaction(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	seed(t, db, loader.SeedOptions{Flags: 5, Users: 5, Days: 1, Seed: 1})
	ld, store := loaderOf(db)
	want := func(what string, n int64) {
		t.Helper()
		if got := store.Snapshot().Stats().UsersTotal; got != n {
			t.Errorf("%s: users %d, want %d", what, got, n)
		}
		if ld.Status().LastFull {
			t.Errorf("%s: the load read everything", what)
		}
	}
	mustLoad(t, ld)
	mustLoad(t, ld)
	users := store.Snapshot().Stats().UsersTotal
	slow := db.MustBegin()
	slow.MustExec("INSERT INTO users (id) VALUES ('slow')")
	db.MustExec("INSERT INTO users (id) VALUES ('fast')") // a later id, committed first
	mustLoad(t, ld)
	want("the later user committed", users+1)
	mustLoad(t, ld)
	mustLoad(t, ld)
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, ld)
	want("the earlier user committed", users+2)

	slow = db.MustBegin()
	slow.MustExec("DELETE FROM users WHERE id = 'slow'")
	db.MustExec("INSERT INTO users (id) VALUES ('fast2')")
	mustLoad(t, ld)
	want("a user added while another is deleted", users+3)
	mustLoad(t, ld)
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, ld)
	want("the user deleted", users+2)
}
