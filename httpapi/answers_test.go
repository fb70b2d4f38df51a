package httpapi

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// TestAnswersTable: a search answer comes from the answers' table when
// asked again of the same snapshot, each spelling of the query its own
// entry, compared whole (in a table of one set, where every query meets
// every other); a new snapshot is answered anew at once, and the old
// one's answers leave the table. The routes that ask the response cache
// (/flags, /categories, /regions, /stats) do not go through it.
func TestAnswersTable(t *testing.T) {
	now := time.Now().UTC()
	a, st, get := cachedServerOf(t, nil, 64<<10) // the answers' table: one set of four
	if a.answers == nil || a.answers.t.sets != 1 {
		t.Fatalf("answers' table %+v, want one set", a.answers)
	}
	ins := []memstore.FlagInput{testInput(1, now), testInput(2, now), testInput(3, now)}
	s := fullSnapshot(t, ins, now)
	st.SetSnapshot(s)
	hits := func() uint64 { n, _ := a.answers.lookups(); return n }
	items := func(body string) int { return strings.Count(body, `"slug":`) }
	for round := range 2 {
		before := hits()
		for n := 1; n <= 3; n++ {
			if body := get("/api/public/search?q=late&limit=" + string(rune('0'+n))); items(body) != n {
				t.Fatalf("round %d, limit=%d: %d hits in %s", round, n, items(body), body)
			}
		}
		if got := hits() - before; round == 1 && got != 3 {
			t.Errorf("asked again, %d of 3 searches came from the table, want 3", got)
		} else if round == 0 && got != 0 {
			t.Errorf("asked first, %d searches came from the table", got)
		}
	}
	before := hits()
	for range 2 {
		for path, want := range map[string][2]string{"/api/public/flags?limit=1": {`"slug":"`, `"code":"`},
			"/api/public/categories": {`"slug":"`, `"generatedAt"`},
			"/api/public/regions":    {`"code":"`, `"generatedAt"`}, "/api/public/stats": {`"generatedAt"`, `"code":"`}} {
			if body := get(path); !strings.Contains(body, want[0]) || strings.Contains(body, want[1]) {
				t.Fatalf("GET %s: %s, want %s and no %s", path, body, want[0], want[1])
			}
		}
	}
	if got := hits() - before; got != 0 {
		t.Errorf("%d answers of /flags, /categories, /regions or /stats came from the table", got)
	}
	// A vote: the next snapshot's counts at once, then from the table.
	const top = "/api/public/search?q=late&limit=1"
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
	before = hits()
	for range 2 {
		if body := get(top); !strings.Contains(body, `"slug":"`+ins[0].Slug+`"`) {
			t.Fatalf("after the vote: %s, want %s first", body, ins[0].Slug)
		}
	}
	if got := hits() - before; got != 1 {
		t.Errorf("after the vote, %d of 2 answers came from the table, want the second", got)
	}
}

// TestCachesAcrossLineages: a store given snapshots of another first
// build, whose generations repeat the first lineage's, answers from the
// new snapshots, not from what the caches kept of the old ones under the
// same generation: lists and search (the answers' table and the response
// and search caches) and a flag's detail.
func TestCachesAcrossLineages(t *testing.T) {
	now := time.Now().UTC()
	for _, cacheBytes := range []int64{64 << 20, 0} {
		_, st, get := cachedServerOf(t, nil, cacheBytes)
		ins := []memstore.FlagInput{testInput(1, now), testInput(2, now)}
		build := func(prev *memstore.Snapshot, red int64) *memstore.Snapshot {
			t.Helper()
			x := ins[0]
			x.Red = red
			s, err := memstore.Build(prev, memstore.Change{Full: prev == nil, Flags: append([]memstore.FlagInput{x}, ins[1:]...), LoadedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		paths := []string{"/api/public/flags?sort=total&limit=1", "/api/public/flag/" + ins[0].Slug,
			"/api/public/search?q=late", "/api/public/stats"}
		ask := func(red int64) {
			t.Helper()
			want := `"red":` + strconv.FormatInt(red, 10) + `,`
			for _, p := range paths[:3] {
				if body := get(p); !strings.Contains(body, want) {
					t.Fatalf("cache_mb %d, GET %s: %s, want %s", cacheBytes>>20, p, body, want)
				}
			}
			wantVotes := `"votes":{"total":` + strconv.FormatInt(red+ins[1].Red+ins[0].Green+ins[1].Green, 10)
			if body := get(paths[3]); !strings.Contains(body, wantVotes) {
				t.Fatalf("cache_mb %d, stats: %s, want %s", cacheBytes>>20, body, wantVotes)
			}
		}
		a2 := build(build(nil, 100), 200) // generation 2
		st.SetSnapshot(a2)
		ask(200)
		ask(200)
		b2 := build(build(nil, 300), 400) // generation 2 again, another lineage
		st.SetSnapshot(b2)
		ask(400)
	}
}
