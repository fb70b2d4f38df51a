package loader_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// never is a schedule that does not tick within a test: only the
// database's wake-ups can start a load.
var never = cron.Every(time.Hour)

// running is a loader running against a small seeded database, counting
// its loads by job.
type running struct {
	db          *loader.DB
	store       *memstore.Store
	ld          *loader.Loader
	mu          sync.Mutex
	loads       map[string]int
	ready, done chan struct{}
}

func runLoader(t *testing.T, d loader.Dialect, listen bool) *running {
	t.Helper()
	db, _ := loadertest.Open(t, d)
	ctx := context.Background()
	seed(t, db, loader.SeedOptions{Flags: 20, Users: 5, Days: 2, Seed: 1})
	r := &running{db: db, store: &memstore.Store{}, loads: map[string]int{}, ready: make(chan struct{}), done: make(chan struct{})}
	r.ld = loader.New(db, r.store, loader.Options{Listen: listen,
		OnLoad: func(job string, _ time.Duration, _ int, _ error) {
			r.mu.Lock()
			r.loads[job]++
			r.mu.Unlock()
		}})
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(r.done)
		r.ld.Run(ctx, never, never, func() { close(r.ready) })
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	select {
	case <-r.ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the loader was not ready within 30 s")
	}
	return r
}

func (r *running) count(job string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loads[job]
}

// settle waits until no load has started for quiet, and returns the
// loads of job by then.
func (r *running) settle(t *testing.T, job string, quiet time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	n := r.count(job)
	for time.Now().Before(deadline) {
		time.Sleep(quiet)
		m := r.count(job)
		if m == n {
			return n
		}
		n = m
	}
	t.Fatal("the loads did not settle within 30 s")
	return 0
}

// waitFor polls ok for up to 10 s: a guard against a hang, not a timing
// assertion (with hour-long schedules only a wake-up can make ok true).
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBurstCoalesces: 1,000 notifications in a burst start a bounded
// number of loads (one in flight and one pending at most), not one each;
// and notifications of keys start key loads, not flag loads.
func TestBurstCoalesces(t *testing.T) {
	loadertest.RequirePostgres(t)
	r := runLoader(t, loader.Postgres, true)
	waitFor(t, "the listener is up", func() bool { return r.ld.Status().Listening })
	flags := r.settle(t, "flags", 300*time.Millisecond)
	keys := r.settle(t, "keys", 300*time.Millisecond)

	// Distinct payloads: PostgreSQL folds identical ones of a transaction.
	if _, err := r.db.Exec("SELECT pg_notify('flagpole_changes', 'flags ' || g) FROM generate_series(1, 1000) g"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1,000 notifications arrive", func() bool { return r.ld.Status().Notifications >= 1000 })
	got := r.settle(t, "flags", 300*time.Millisecond) - flags
	if got < 1 || got > 3 {
		t.Errorf("1,000 notifications started %d flag loads, want 1 to 3", got)
	}
	if k := r.count("keys") - keys; k != 0 {
		t.Errorf("flag notifications started %d key loads", k)
	}
	if _, err := r.db.Exec("SELECT pg_notify('flagpole_changes', 'keys')"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a key notification starts a key load", func() bool { return r.count("keys") > keys })
	if f := r.settle(t, "flags", 300*time.Millisecond) - flags; f != got {
		t.Errorf("a key notification started %d flag loads", f-got)
	}
}

// TestLoadsSpaced: under a steady stream of changes, a notification
// every millisecond, the flag loads start at most once per load gap (25
// ms by default), not back to back, and still run all along; and the
// barrier before them is passed once a load, not once a notification
// (before the gate, about one a millisecond: each call of
// flagpole_barrier on the primary).
func TestLoadsSpaced(t *testing.T) {
	loadertest.RequirePostgres(t)
	r := runLoader(t, loader.Postgres, true)
	waitFor(t, "the listener is up", func() bool { return r.ld.Status().Listening })
	before := r.settle(t, "flags", 300*time.Millisecond)
	notes, barriers := r.ld.Status().Notifications, r.ld.Status().Barriers
	start := time.Now()
	for i := 0; time.Since(start) < 600*time.Millisecond; i++ {
		if _, err := r.db.Exec("SELECT pg_notify('flagpole_changes', 'flags ' || $1::text)", i); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	got := r.settle(t, "flags", 300*time.Millisecond) - before
	sent := r.ld.Status().Notifications - notes
	// The gap spaces the starts; the loads of the settle's last quiet
	// spell and the trailing ring add two.
	most := int(took/(25*time.Millisecond)) + 3
	if got > most || got < 2 {
		t.Errorf("%d notifications over %v started %d flag loads, want 2 to %d", sent, took.Round(time.Millisecond), got, most)
	}
	passed := r.ld.Status().Barriers - barriers
	if passed < 1 || passed > int64(got)+1 {
		t.Errorf("%d barriers passed before %d flag loads, want 1 to one a load", passed, got)
	}
	t.Logf("%d notifications over %v started %d flag loads after %d barriers", sent, took.Round(time.Millisecond), got, passed)
}

// TestWakeOnWrite: with listening on and hour-long schedules, a vote, a
// revocation and a new key written by another connection show at once, on
// both databases.
func TestWakeOnWrite(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			r := runLoader(t, d, true)
			ctx := context.Background()
			_, k, err := r.db.CreateKey(ctx, "live", "", 0)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "a new key is loaded", func() bool { return r.store.Keys().Len() == 1 })
			if err := r.db.RevokeKey(ctx, k.ID); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "a revoked key is dropped", func() bool { return r.store.Keys().Len() == 0 })

			f := r.store.Snapshot().At(0)
			if _, err := r.db.Exec(r.db.Rebind("INSERT INTO users (id) VALUES (?)"), "u-live"); err != nil {
				t.Fatal(err)
			}
			if _, err := r.db.Exec(r.db.Rebind("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)"), f.ID(), "u-live", "red"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "a vote shows", func() bool {
				g, _, ok := r.store.Snapshot().FlagBySlug(f.Slug())
				return ok && g.Red == f.Red+1
			})
		})
	}
}

// TestListenOff: with listening off, nothing but the schedules loads: a
// vote does not show while they do not tick.
func TestListenOff(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			r := runLoader(t, d, false)
			before := r.settle(t, "flags", 300*time.Millisecond)
			f := r.store.Snapshot().At(0)
			r.db.MustExec(r.db.Rebind("INSERT INTO users (id) VALUES ('u-off')"))
			r.db.MustExec(r.db.Rebind("INSERT INTO votes (flag_id, user_id, color) VALUES (?, 'u-off', 'red')"), f.ID())
			// Lets time pass (five times SQLite's poll; on PostgreSQL
			// the notification comes within milliseconds) in which a
			// listening loader would load the write: this one may not.
			time.Sleep(500 * time.Millisecond)
			if n := r.count("flags"); n != before {
				t.Errorf("listen off: %d flag loads after a write, want none", n-before)
			}
			if r.ld.Status().Listening || r.ld.Status().Notifications != 0 {
				t.Errorf("listen off, yet Status says listening %v, %d notifications", r.ld.Status().Listening, r.ld.Status().Notifications)
			}
		})
	}
}

// TestConcurrentVotesAllShow: writers that vote at once mostly do not
// notify (one notifier at a time, migration 00004); once they stop,
// every vote shows all the same, with hour-long schedules.
func TestConcurrentVotesAllShow(t *testing.T) {
	loadertest.RequirePostgres(t)
	r := runLoader(t, loader.Postgres, true)
	waitFor(t, "the listener is up", func() bool { return r.ld.Status().Listening })
	var ids []string
	if err := r.db.Select(&ids, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("burst-%d", w)
			if _, err := r.db.Exec("INSERT INTO users (id) VALUES ($1)", user); err != nil {
				errs <- err
				return
			}
			for i := 0; i < each; i++ {
				if _, err := r.db.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, $2, 'green')",
					ids[i%len(ids)], user); err != nil {
					if i >= len(ids) {
						// the user voted on this flag already: change the vote
						_, err = r.db.Exec("UPDATE votes SET color = CASE color WHEN 'red' THEN 'green' ELSE 'red' END "+
							"WHERE flag_id = $1 AND user_id = $2", ids[i%len(ids)], user)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want map[string][2]int64 = map[string][2]int64{}
	rows, err := r.db.Query("SELECT slug, red_count, green_count FROM flags WHERE status = 'APPROVED'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var slug string
		var red, green int64
		rows.Scan(&slug, &red, &green)
		want[slug] = [2]int64{red, green}
	}
	rows.Close()
	waitFor(t, "every vote shows", func() bool {
		s := r.store.Snapshot()
		for slug, v := range want {
			f, _, ok := s.FlagBySlug(slug)
			if !ok || f.Red != v[0] || f.Green != v[1] {
				return false
			}
		}
		return true
	})
	if n := r.ld.Status().Notifications; n >= writers*each {
		t.Logf("%d notifications for %d votes: nothing was coalesced", n, writers*each)
	}
}

// TestReplicaRevocationFromPrimary: with a replica read and the primary
// listened to, a key revoked on the primary is refused though the replica
// has not replayed the revocation (here: never does): the keys are read
// from the primary, which notifies the revocation at its commit (before:
// from the replica, a second later at its second ring, past the
// contract's 250 ms).
func TestReplicaRevocationFromPrimary(t *testing.T) {
	loadertest.RequirePostgres(t)
	primary, _ := loadertest.Open(t, loader.Postgres)
	replica, _ := loadertest.Open(t, loader.Postgres)
	ctx := context.Background()
	for _, d := range []*loader.DB{primary, replica} {
		if err := d.Seed(ctx, loader.SeedOptions{Flags: 20, Users: 5, Days: 2, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		d.MustExec("INSERT INTO api_keys (id, name, key_hash, prefix) VALUES ('k1', 'k', $1, 'grf_abcd')", loader.HashKey("grf_secret"))
	}
	_, store := startOn(t, replica, primary)
	if _, ok := store.Keys().Lookup("grf_secret"); !ok {
		t.Fatal("the key is not loaded")
	}
	primary.MustExec("UPDATE api_keys SET revoked_at = now() WHERE id = 'k1'")
	waitFor(t, "the revocation", func() bool { _, ok := store.Keys().Lookup("grf_secret"); return !ok })
}

// TestKeysFromReplicaWhenPrimaryFails: the keys come from the replica
// when the primary cannot be read.
func TestKeysFromReplicaWhenPrimaryFails(t *testing.T) {
	loadertest.RequirePostgres(t)
	primary, _ := loadertest.Open(t, loader.Postgres)
	replica, _ := loadertest.Open(t, loader.Postgres)
	replica.MustExec("INSERT INTO api_keys (id, name, key_hash, prefix) VALUES ('k1', 'k', $1, 'grf_abcd')", loader.HashKey("grf_secret"))
	store := &memstore.Store{}
	ld := loader.New(replica, store, loader.Options{Primary: primary})
	primary.Close()
	if err := ld.LoadKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.Keys().Lookup("grf_secret"); !ok {
		t.Error("the replica's key is not loaded")
	}
}

// TestKeysFromPrimaryBeforeListening: with listening on, a key load that
// runs before the listener has first connected (at the start) reads the
// primary, not the replica (before: it read the replica, so a key created
// and not yet replicated was refused, and one revoked still accepted,
// until the next key load).
func TestKeysFromPrimaryBeforeListening(t *testing.T) {
	loadertest.RequirePostgres(t)
	primary, _ := loadertest.Open(t, loader.Postgres)
	replica, _ := loadertest.Open(t, loader.Postgres)
	primary.MustExec("INSERT INTO api_keys (id, name, key_hash, prefix) VALUES ('k1', 'k', $1, 'grf_abcd')", loader.HashKey("grf_secret"))
	store := &memstore.Store{}
	ld := loader.New(replica, store, loader.Options{Listen: true, Primary: primary})
	if err := ld.LoadKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.Keys().Lookup("grf_secret"); !ok {
		t.Error("the primary's key is not loaded: the key load read the replica")
	}
}
