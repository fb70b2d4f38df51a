package httpapi

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/flagpole/flagpole/memstore"
)

// TestSearchEntryBounds: spellings of one query share one entry, which
// keeps rendered responses up to pagesMax bytes, then renders each
// further spelling without keeping it; without a cache every answer runs.
func TestSearchEntryBounds(t *testing.T) {
	now := time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)
	snap, err := memstore.Build(nil, memstore.Change{Full: true, LoadedAt: now, Flags: []memstore.FlagInput{{
		ID: "f1", Slug: "bus", Approved: true, Category: memstore.Categories[0], CreatedAt: now, UpdatedAt: now,
		Text: [memstore.NumLangs]string{"yaşlı otobüs", "old bus", "alter Bus", "autobús viejo"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	renders := 0
	render := func(*memstore.SearchResult) []byte { renders++; return bytes.Repeat([]byte("x"), 6000) }
	ask := func(ss *searches, q string) *response {
		t.Helper()
		r, err := searchQuery("q="+q, ss.spellings.parse)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := ss.answer(snap, &r, render)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	ss, err := newSearches(1<<20, nil, &swapLog{}) // an entry keeps 16 KB of responses: two of these
	if err != nil {
		t.Fatal(err)
	}
	defer ss.close()
	spellings := []string{"old+bus", "bus+old", "OLD+bus", "old,bus"}
	for _, q := range spellings {
		ask(ss, q)
	}
	if renders != 4 {
		t.Fatalf("%d renders for 4 spellings, want 4", renders)
	}
	if got, want := ask(ss, spellings[1]), ask(ss, spellings[1]); got != want || renders != 4 {
		t.Errorf("a kept spelling was rendered again (%d renders in all, want 4)", renders)
	}
	ask(ss, spellings[3])
	if renders != 5 {
		t.Errorf("a spelling past the entry's bound: %d renders in all, want 5", renders)
	}
	if found, all := ss.lookups(); found != all-1 {
		t.Errorf("%d of %d lookups found an entry, want all but the first", found, all)
	}

	// Both caches hold no more than their bound, however many queries.
	small, err := newSearches(64<<10, nil, &swapLog{})
	if err != nil {
		t.Fatal(err)
	}
	defer small.close()
	for i := range 500 {
		ask(small, fmt.Sprintf("old+bu%d", i))
	}
	for name, m := range map[string]*ristretto.Metrics{"matched": small.matched.Metrics, "views": small.views.Metrics} {
		if held := int64(m.CostAdded() - m.CostEvicted()); held > 32<<10 || m.KeysEvicted() == 0 {
			t.Errorf("%s: %d bytes held of a bound of %d, %d evicted", name, held, 32<<10, m.KeysEvicted())
		}
	}

	none, err := newSearches(0, nil, &swapLog{})
	if err != nil {
		t.Fatal(err)
	}
	renders = 0
	ask(none, "old+bus")
	ask(none, "old+bus")
	if found, all := none.lookups(); renders != 2 || found != 0 || all != 0 {
		t.Errorf("without a cache: %d renders, %d of %d lookups found", renders, found, all)
	}
}

// TestSpellings: a valid q is parsed once and keyed canonically; a bad q
// is a 400 on q, never kept; a full set starts again empty.
func TestSpellings(t *testing.T) {
	sp := newSpellings()
	a, err := sp.parse("Old  bus")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := sp.parse("Old  bus"); again != a {
		t.Error("a spelling was parsed twice")
	}
	if b, _ := sp.parse("bus,old"); b == a || b.key != a.key {
		t.Errorf("two spellings of one query: keys %q and %q", a.key, b.key)
	}
	if _, err := sp.parse("a b"); err == nil || err.(*Problem).Param != "q" {
		t.Errorf("a query of one-letter words: %v, want a 400 on q", err)
	}
	sp.cur.Load().bytes.Store(spellingsMaxBytes)
	full := sp.cur.Load()
	if _, err := sp.parse("new words"); err != nil || sp.cur.Load() == full {
		t.Errorf("a full set was kept (%v)", err)
	}
	if again, _ := sp.parse("Old  bus"); again == a {
		t.Error("a spelling outlived the reset of its set")
	}
}
