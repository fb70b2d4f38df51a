package loader_test

import (
	"context"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestLoadReadsOneSnapshot: a flag approved between a load's read of the
// changed flags and its count of the approved ones is in neither (the
// load reads one snapshot of the database), so the count agrees and the
// load does not fall back to a second, full read; the next load shows
// the flag. On SQLite the reads used to run outside any transaction.
func TestLoadReadsOneSnapshot(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db, _ := loadertest.Open(t, d)
			ctx := context.Background()
			seed(t, db, loader.SeedOptions{Flags: 10, Users: 3, Days: 1, Seed: 2})
			ld, store := loaderOf(db)
			mustLoad(t, ld)
			before := store.Snapshot().Len()
			n := 0
			loader.SetHookAfterFlags(func() {
				n++
				if n > 1 {
					return
				}
				_, err := db.ExecContext(ctx, db.Rebind("INSERT INTO flags (id, slug, status, category, text_tr, text_en, text_de, text_es) "+
					"VALUES (?, ?, 'APPROVED', 'SOCIAL', 'a', 'b', 'c', 'd')"), "between", "between-reads")
				if err != nil {
					t.Error(err)
				}
			})
			defer loader.SetHookAfterFlags(nil)
			mustLoad(t, ld)
			if n == 0 {
				t.Fatal("the hook never ran: the test tests nothing")
			}
			st := ld.Status()
			if st.LastFull || n != 1 {
				t.Errorf("the load read %d times (full: %v): the count disagreed with the flags read", n, st.LastFull)
			}
			if got := store.Snapshot().Len(); got != before {
				t.Errorf("%d flags after the load, want %d: it saw a write made after its snapshot", got, before)
			}
			mustLoad(t, ld)
			if got := store.Snapshot().Len(); got != before+1 {
				t.Errorf("%d flags after the next load, want %d", got, before+1)
			}
		})
	}
}
