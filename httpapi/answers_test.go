package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// TestAnswersTable: an answer the query string fixes comes from the
// answers' table when asked again of the same snapshot: each spelling of
// the query and each route its own entry, compared whole (in a table of
// one set, where every query meets every other); a new snapshot is
// answered anew at once, and the old one's answers leave the table.
func TestAnswersTable(t *testing.T) {
	now := time.Now().UTC()
	a, st, get := cachedServerOf(t, nil, 64<<10) // the answers' table: one set of four
	if a.answers == nil || a.answers.t.sets != 1 {
		t.Fatalf("answers' table %+v, want one set", a.answers)
	}
	ins := []memstore.FlagInput{testInput(1, now), testInput(2, now), testInput(3, now)}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	hits := func() uint64 { n, _ := a.answers.lookups(); return n }
	items := func(body string) int { return strings.Count(body, `"slug":`) }
	for round := range 2 {
		before := hits()
		for n := 1; n <= 3; n++ {
			if body := get("/api/public/flags?limit=" + string(rune('0'+n))); items(body) != n {
				t.Fatalf("round %d, limit=%d: %d flags in %s", round, n, items(body), body)
			}
		}
		if got := hits() - before; round == 1 && got != 3 {
			t.Errorf("asked again, %d of 3 pages came from the table, want 3", got)
		} else if round == 0 && got != 0 {
			t.Errorf("asked first, %d pages came from the table", got)
		}
	}
	// Three routes with the same (empty) query, in the same set: each its
	// own answer.
	for range 2 {
		for path, want := range map[string][2]string{"/api/public/categories": {`"slug":"`, `"generatedAt"`},
			"/api/public/regions": {`"code":"`, `"generatedAt"`}, "/api/public/stats": {`"generatedAt"`, `"code":"`}} {
			if body := get(path); !strings.Contains(body, want[0]) || strings.Contains(body, want[1]) {
				t.Fatalf("GET %s: %s, want %s and no %s", path, body, want[0], want[1])
			}
		}
	}
	// A vote: the next snapshot's counts at once, then from the table.
	const top = "/api/public/flags?limit=1&sort=total"
	if body := get(top); strings.Contains(body, `"slug":"`+ins[0].Slug+`"`) {
		t.Fatalf("before the vote: %s", body)
	}
	ins[0].Red += 1000
	next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{ins[0]}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	held := a.answers.t.held.Load()
	st.SetSnapshot(next)
	// The old snapshot's answers leave with it, not as new ones come.
	if now := a.answers.t.held.Load(); held == 0 || now != 0 {
		t.Errorf("the table held %d bytes before the swap and %d after, want some and none", held, now)
	}
	before := hits()
	for range 2 {
		if body := get(top); !strings.Contains(body, `"slug":"`+ins[0].Slug+`"`) {
			t.Fatalf("after the vote: %s, want %s first", body, ins[0].Slug)
		}
	}
	if got := hits() - before; got != 1 {
		t.Errorf("after the vote, %d of 2 answers came from the table, want the second", got)
	}
}
