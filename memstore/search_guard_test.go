package memstore

import (
	"fmt"
	"testing"
	"time"
)

// A page's guard keeps it across a tick only when the tick's page, made
// again from the same matches against the new counts, is the same to the
// last vote shown: across random vote ticks (which reorder ties, move
// totals and flip dominant colours) and ticks that move a flag to
// another category or region without a text edit. And it keeps pages
// that a vote on one of their matches did not change (a vote ranked
// elsewhere), which Touches alone would not.
func TestPageGuardAcrossVotes(t *testing.T) {
	r, now, ins, s := matchedSnapshot(t, 51, 2, 400)
	queries := []string{"bus", "red car", "green", "phone late", "cards bus", "yellow"}
	opts := []FindOptions{{Limit: 5}, {Limit: 3, Offset: 7}, {Limit: 10, Offset: 40}, {Limit: 2, Offset: 300},
		{Limit: 5, HasDominant: true, Dominant: Green}, {Limit: 4, HasDominant: true, Dominant: Red, Offset: 3},
		{Limit: 5, HasCategory: true, Category: 1}, {Limit: 5, HasRegion: true, Region: "TR", Offset: 2},
		{Limit: 5, HasCategory: true, Category: 0, HasDominant: true, Dominant: Yellow}}
	var kept, guarded, refused, moved, plain int // plain: guarded, of a page without filters
	for tick := range 150 {
		var ch []FlagInput
		for range 1 + r.IntN(5) {
			i := r.IntN(len(ins))
			ins[i].Red += int64(r.IntN(3))
			ins[i].Green += int64(r.IntN(3))
			if tick%5 == 4 && len(ch) == 0 { // another list, the same text
				ins[i].Category, ins[i].Region = Categories[r.IntN(3)], []string{"", "TR", "DE"}[r.IntN(3)]
				moved++
			}
			ch = append(ch, ins[i])
		}
		next, err := Build(s, Change{Flags: ch, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		if next.SearchVersion() != s.SearchVersion() {
			t.Fatalf("tick %d: no text changed, yet the search version moved", tick)
		}
		changed, all := next.ChangedSlots()
		if all {
			t.Fatalf("tick %d: every slot changed", tick)
		}
		old, now := make([]ListEntry, len(changed)), make([]ListEntry, len(changed))
		for k, i := range changed {
			old[k], now[k] = EntryOf(s.At(int(i))), EntryOf(next.At(int(i)))
		}
		for _, q := range queries {
			pq, err := ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range opts {
				m, err := s.Match(pq, o)
				if err != nil {
					t.Fatal(err)
				}
				before := m.Page(s, o)
				g := m.Guard(&before, o)
				if !g.Kept(m, changed, old, now) {
					if m.Touches(changed) {
						refused++
					}
					continue
				}
				kept++
				if m.Touches(changed) {
					guarded++
					if !o.HasCategory && !o.HasRegion && !o.HasDominant {
						plain++
					}
				}
				sameShown(t, fmt.Sprintf("tick %d %q %+v kept", tick, q, o), m.Page(next, o), before)
			}
		}
		s = next
	}
	if moved == 0 || guarded < 50 || plain < 20 || refused < 50 || kept < 500 {
		t.Fatalf("moved %d, kept %d pages, %d of them against a vote on a match (%d without filters), refused %d: "+
			"the test tested too little", moved, kept, guarded, plain, refused)
	}
}

// sameShown fails unless got and want hold the same flags in the same
// places, each with the same rank, counts, dominant colour and lists.
func sameShown(t *testing.T, at string, got, want SearchResult) {
	t.Helper()
	if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
		t.Fatalf("%s: total %d, %d hits; want %d, %d", at, got.Total, len(got.Hits), want.Total, len(want.Hits))
	}
	for k := range got.Hits {
		g, w := got.Hits[k].Flag, want.Hits[k].Flag
		if g.ID() != w.ID() || got.Hits[k].Rank != want.Hits[k].Rank || g.Red != w.Red || g.Green != w.Green ||
			g.Dominant != w.Dominant || g.Category != w.Category || g.Region() != w.Region() {
			t.Fatalf("%s: hit %d is %s (%d/%d %v %v %q), want %s (%d/%d %v %v %q)", at, k,
				g.ID(), g.Red, g.Green, g.Dominant, g.Category, g.Region(), w.ID(), w.Red, w.Green, w.Dominant, w.Category, w.Region())
		}
	}
}

// The cases of PageGuard.Kept one by one, on flags whose texts make two
// ranks of "bus": "bus" alone (b*, the higher) and "bus car phone" (c*).
func TestPageGuardCases(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var ins []FlagInput
	add := func(id, text, region string, red, green int64) {
		ins = append(ins, FlagInput{ID: id, Slug: id, Approved: true, Category: Categories[0], Region: region, Text: [NumLangs]string{text, text, text, text},
			CreatedAt: now, UpdatedAt: now, Red: red, Green: green})
	}
	add("b1", "bus", "TR", 9, 0)
	add("b2", "bus", "TR", 7, 0)
	add("b3", "bus", "DE", 5, 0)
	add("b4", "bus", "TR", 3, 0)
	add("c1", "bus car phone", "TR", 8, 1)
	add("c2", "bus car phone", "DE", 1, 1)
	base, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ParseQuery("bus")
	slotOf := func(s *Snapshot, id string) int32 {
		for i := range s.Slots() {
			if f := s.At(i); f != nil && f.ID() == id {
				return int32(i)
			}
		}
		t.Fatalf("no flag %s", id)
		return 0
	}
	for _, c := range []struct {
		name   string
		o      FindOptions
		id     string
		red    int64 // the flag's red count after the vote
		region string
		kept   bool
	}{
		{"a vote on a flag shown", FindOptions{Limit: 2}, "b1", 10, "TR", false},
		{"a vote in the page's rank, not shown", FindOptions{Limit: 2}, "b4", 4, "TR", false},
		{"a vote ranked below the page", FindOptions{Limit: 2}, "c1", 9, "TR", true},
		{"a vote ranked above the page", FindOptions{Limit: 1, Offset: 4}, "b3", 6, "DE", true},
		{"a vote in the page's rank, of another region", FindOptions{Limit: 1, HasRegion: true, Region: "TR"}, "b3", 20, "DE", true},
		{"a vote in the page's rank, of the region", FindOptions{Limit: 1, HasRegion: true, Region: "TR"}, "b4", 20, "TR", false},
		{"a move to the page's region", FindOptions{Limit: 1, Offset: 4, HasRegion: true, Region: "TR"}, "c2", 1, "TR", false},
		{"a vote that keeps the dominant side", FindOptions{Limit: 2, HasDominant: true, Dominant: Red}, "c1", 9, "TR", true},
		{"a vote that turns the dominant side", FindOptions{Limit: 2, HasDominant: true, Dominant: Red}, "c2", 2, "DE", false},
		{"a page past the end", FindOptions{Limit: 2, Offset: 10}, "b1", 10, "TR", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := base.Match(q, c.o)
			if err != nil {
				t.Fatal(err)
			}
			before := m.Page(base, c.o)
			g := m.Guard(&before, c.o)
			var ch []FlagInput
			for _, in := range ins {
				if in.ID == c.id {
					in.Red, in.Region = c.red, c.region
					ch = append(ch, in)
				}
			}
			next, err := Build(base, Change{Flags: ch, LoadedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			i := slotOf(next, c.id)
			old, now := []ListEntry{EntryOf(base.At(int(i)))}, []ListEntry{EntryOf(next.At(int(i)))}
			if !m.Touches([]int32{i}) {
				t.Fatalf("%s is not a match", c.id)
			}
			if got := g.Kept(m, []int32{i}, old, now); got != c.kept {
				t.Errorf("kept %v, want %v", got, c.kept)
			}
			if c.kept {
				sameShown(t, c.name, m.Page(next, c.o), before)
			}
			if g.Kept(m, []int32{i}, nil, nil) {
				t.Error("kept without the entries to tell")
			}
		})
	}
}
