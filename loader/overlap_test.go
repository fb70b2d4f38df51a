package loader_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// TestOverlapReadBackBounded: woken by every change, loads come many times
// a second; only one in OverlapEvery reads back the whole Overlap (and so
// every flag voted on within it), the others a quarter second, and none
// reads the vote times of a flag it holds as read again. A write
// stamped long before it commits still shows: at once on PostgreSQL,
// whose watermark holds back to the start of a write still open, and on
// SQLite at the next long read back.
func TestOverlapReadBackBounded(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db, _ := loadertest.Open(t, d)
			ctx := context.Background()
			if err := db.Seed(ctx, loader.SeedOptions{Flags: 10, Users: 3, Days: 1, Seed: 2}); err != nil {
				t.Fatal(err)
			}
			var skew atomic.Int64 // the loader's clock runs ahead by this
			store := &memstore.Store{}
			ld := loader.New(db, store, loader.Options{Overlap: time.Minute, OverlapEvery: time.Hour,
				Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
			load := func() int {
				t.Helper()
				if err := ld.LoadFlags(ctx); err != nil {
					t.Fatal(err)
				}
				return ld.Status().LastRows
			}
			load() // full
			bump := db.Rebind("UPDATE flags SET red_count = red_count + 7 WHERE slug = ?")
			slugs := []string{}
			for i := range store.Snapshot().Len() {
				slugs = append(slugs, store.Snapshot().At(i).Slug())
			}
			for _, s := range slugs[:5] {
				if _, err := db.ExecContext(ctx, bump, s); err != nil {
					t.Fatal(err)
				}
			}
			if rows := load(); rows <= 5 {
				t.Fatalf("the load after 5 writes read %d rows: want the 5 flags and their vote times", rows)
			}
			time.Sleep(400 * time.Millisecond)
			load() // reads back a quarter second before the load before it, which followed the writes closely
			if rows := load(); rows != 0 {
				t.Errorf("a load between long ones read %d rows again, want 0", rows)
			}
			skew.Store(int64(time.Hour + time.Second))
			// The flags written within the overlap, read again; not their
			// vote times, which the windows hold already.
			if rows := load(); rows < 5 || rows > len(slugs) {
				t.Errorf("the long load read %d rows, want the flags written within the overlap again (5 to %d), without their vote times",
					rows, len(slugs))
			}
			if whole := ld.Status().LastFlagRows; whole != 0 {
				t.Errorf("the long load read %d flag rows whole, want 0: it holds every one of them as it is", whole)
			}

			// A write stamped 400 ms before it commits, across a load.
			red := func() int64 {
				f, _, _ := store.Snapshot().FlagBySlug(slugs[6])
				return f.Red
			}
			before := red()
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, bump, slugs[6]); err != nil {
				t.Fatal(err)
			}
			time.Sleep(400 * time.Millisecond)
			load()
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			load()
			if d == loader.Postgres {
				if got := red(); got != before+7 {
					t.Errorf("PostgreSQL: red %d after the late commit's load, want %d", got, before+7)
				}
			} else {
				if got := red(); got != before {
					t.Errorf("SQLite: red %d after a short load, want %d: the test's write was not late", got, before)
				}
				skew.Store(int64(2*time.Hour + 2*time.Second))
				load()
				if got := red(); got != before+7 {
					t.Errorf("SQLite: red %d after the long load, want %d", got, before+7)
				}
			}

			// A write the next load is a long one for: it reads the write's
			// flag whole, and no other.
			if _, err := db.ExecContext(ctx, bump, slugs[6]); err != nil {
				t.Fatal(err)
			}
			skew.Store(int64(3*time.Hour + 3*time.Second))
			load()
			if got, whole := red(), ld.Status().LastFlagRows; got != before+14 || whole != 1 {
				t.Errorf("a long load after one write: red %d, want %d; %d flag rows read whole, want 1", got, before+14, whole)
			}
		})
	}
}
