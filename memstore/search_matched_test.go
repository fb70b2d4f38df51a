package memstore

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// matchedWords are the words the flags of TestMatchedAcrossVotes say:
// few, so that queries match many flags and ranks tie often.
var matchedWords = []string{"bus", "busy", "red", "green", "car", "cards", "yellow", "phone", "phones", "late"}

func matchedInput(r *rand.Rand, i int, now time.Time) FlagInput {
	text := func() string {
		n := 1 + r.IntN(4)
		s := ""
		for k := range n {
			if k > 0 {
				s += " "
			}
			s += matchedWords[r.IntN(len(matchedWords))]
		}
		return s
	}
	regions := []string{"", "TR", "DE"}
	return FlagInput{ID: fmt.Sprintf("m%04d", i), Slug: fmt.Sprintf("m-%d", i), Approved: true,
		Category: Categories[r.IntN(3)], Region: regions[r.IntN(len(regions))],
		Text: [NumLangs]string{text(), text(), text(), text()}, CreatedAt: now, UpdatedAt: now,
		Red: int64(r.IntN(5)), Green: int64(r.IntN(5))}
}

// matchedSnapshot builds n flags of matchedInput, drawn from the random
// source of seeds s1 and s2 (returned to draw on), and the snapshot of
// them.
func matchedSnapshot(t *testing.T, s1, s2 uint64, n int) (*rand.Rand, time.Time, []FlagInput, *Snapshot) {
	t.Helper()
	r := rand.New(rand.NewPCG(s1, s2))
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ins := make([]FlagInput, n)
	for i := range ins {
		ins[i] = matchedInput(r, i, now)
	}
	s, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return r, now, ins, s
}

// A Matched found in one snapshot pages every later snapshot with the
// same search index as a build from scratch of that snapshot's data
// finds: across random vote ticks (which keep the index, and may reorder
// ties and flip dominant colours) and edits (which change it). And a tick
// whose changes touch none of a Matched's flags pages it as before.
func TestMatchedAcrossVotes(t *testing.T) {
	r, now, ins, s := matchedSnapshot(t, 50, 1, 120)
	queries := []string{"bus", "bu", "red car", "green", "phone late", "yelow", "cards bus"}
	opts := []FindOptions{{Limit: 50}, {Limit: 3}, {Limit: 5, Offset: 4}, {Limit: 50, Offset: 49},
		{Limit: 10, HasDominant: true, Dominant: Green}, {Limit: 10, HasDominant: true, Dominant: Yellow, Offset: 2},
		{Limit: 20, HasCategory: true, Category: 1}, {Limit: 20, HasRegion: true, Region: "TR"},
		{Limit: 20, HasLang: true, Lang: 2}}
	held := map[string]*Matched{} // query and language -> found in an earlier snapshot
	edits, keeps := 0, 0
	for tick := range 60 {
		var ch []FlagInput
		text := tick%9 == 8
		for range 1 + r.IntN(4) {
			i := r.IntN(len(ins))
			ins[i].Red += int64(r.IntN(3))
			ins[i].Green += int64(r.IntN(3))
			if text {
				ins[i].Text[1] = matchedInput(r, i, now).Text[1]
			}
			ch = append(ch, ins[i])
		}
		next, err := Build(s, Change{Flags: ch, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		if same := next.SearchVersion() == s.SearchVersion(); same == text {
			t.Fatalf("tick %d (texts changed: %v): search version kept: %v", tick, text, same)
		}
		if text {
			edits++
		}
		scratch, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		changed, all := next.ChangedSlots()
		if all {
			t.Fatalf("tick %d: every slot changed", tick)
		}
		for _, q := range queries {
			pq, err := ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range opts {
				key := fmt.Sprint(next.SearchVersion(), q, o.HasLang, o.Lang)
				m := held[key]
				if m == nil {
					if m, err = next.Match(pq, o); err != nil {
						t.Fatal(err)
					}
					held[key] = m
				} else if s.SearchVersion() == next.SearchVersion() && !m.Touches(changed) {
					keeps++
					samePage(t, fmt.Sprintf("tick %d %q %+v untouched", tick, q, o), m.Page(next, o), m.Page(s, o))
				}
				want, err := scratch.Find(pq, o)
				if err != nil {
					t.Fatal(err)
				}
				at := fmt.Sprintf("tick %d %q %+v", tick, q, o)
				samePage(t, at, m.Page(next, o), want)
				sameOrder(t, at, scratch, pq, o, want)
			}
		}
		s = next
	}
	if edits == 0 || keeps == 0 {
		t.Fatalf("edits %d, untouched pages %d: the test tested nothing", edits, keeps)
	}
}

// sameOrder checks got, s's page of o for q, against the order the
// contract writes, made here from what q matched in s: the filters, then
// rank desc, total desc, id asc, then the page.
func sameOrder(t *testing.T, at string, s *Snapshot, q Query, o FindOptions, got SearchResult) {
	t.Helper()
	m, err := s.Match(q, o)
	if err != nil {
		t.Fatal(err)
	}
	type hit struct {
		f    *Flag
		rank float64
	}
	var all []hit
	k := 0
	for _, g := range m.groups {
		for ; k < int(g.end); k++ {
			if f := s.flags.at(m.slot(int32(k))); o.keeps(f) {
				all = append(all, hit{f, g.rank})
			}
		}
	}
	slices.SortFunc(all, func(a, b hit) int {
		if c := cmp.Compare(b.rank, a.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(b.f.Total(), a.f.Total()); c != 0 {
			return c
		}
		return strings.Compare(a.f.ID(), b.f.ID())
	})
	if got.Total != len(all) {
		t.Fatalf("%s: total %d, want %d", at, got.Total, len(all))
	}
	all = all[min(o.Offset, len(all)):min(o.Offset+o.Limit, len(all))]
	if len(got.Hits) != len(all) {
		t.Fatalf("%s: %d hits, want %d", at, len(got.Hits), len(all))
	}
	for k, h := range all {
		if got.Hits[k].Flag != h.f || got.Hits[k].Rank != h.rank {
			t.Fatalf("%s: hit %d is %s, want %s", at, k, got.Hits[k].Flag.ID(), h.f.ID())
		}
	}
}

// samePage checks that got is want: the same total and hits, by id, with
// the same ranks, votes and matched words.
func samePage(t *testing.T, at string, got, want SearchResult) {
	t.Helper()
	if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
		t.Fatalf("%s: total %d, %d hits; want %d, %d", at, got.Total, len(got.Hits), want.Total, len(want.Hits))
	}
	for k := range got.Hits {
		g, w := got.Hits[k], want.Hits[k]
		if g.Flag.ID() != w.Flag.ID() || g.Rank != w.Rank || g.Flag.Total() != w.Flag.Total() || !reflect.DeepEqual(g.Matches, w.Matches) {
			t.Fatalf("%s: hit %d is %s (rank %v, total %d), want %s (rank %v, total %d)", at, k,
				g.Flag.ID(), g.Rank, g.Flag.Total(), w.Flag.ID(), w.Rank, w.Flag.Total())
		}
	}
}
