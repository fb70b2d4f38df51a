package memstore

import (
	"slices"
	"testing"
)

// Across random ticks of votes (which move flags in every order and
// across the dominant filters), removals and new flags, a page PageKept
// says the tick keeps is the page the new snapshot gives: the same flags,
// as the same records, and the same total.
func TestPageKept(t *testing.T) {
	r, now, ins, s := matchedSnapshot(t, 50, 4, 300)
	var queries []ListQuery
	for srt := range NumSorts {
		for _, desc := range []bool{false, true} {
			for _, off := range []int{0, 20, 150, 290, 400} {
				queries = append(queries, ListQuery{Sort: srt, Desc: desc, Limit: 20, Offset: off},
					ListQuery{Sort: srt, Desc: desc, Limit: 10, Offset: off / 4, HasDominant: true, Dominant: Dominant(off % 3)},
					ListQuery{Sort: srt, Desc: desc, Limit: 5, Offset: off / 10, HasCategory: true, Category: 1, HasRegion: true, Region: "TR"})
			}
		}
	}
	kept, redone := 0, 0
	for tick := range 80 {
		var ch []FlagInput
		for range 1 + r.IntN(3) {
			i := r.IntN(len(ins))
			ins[i].Red += int64(r.IntN(4))
			ins[i].Green += int64(r.IntN(3))
			ins[i].Approved = tick%17 != 5
			ch = append(ch, ins[i])
		}
		if tick%13 == 7 {
			ins = append(ins, matchedInput(r, len(ins), now))
			ch = append(ch, ins[len(ins)-1])
		}
		next, err := Build(s, Change{Flags: ch, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		slots, all := next.ChangedSlots()
		if all {
			t.Fatalf("tick %d: every slot changed", tick)
		}
		var old, cur []ListEntry
		for _, i := range slots {
			if int(i) < s.Slots() {
				old = append(old, EntryOf(s.At(int(i))))
			}
			cur = append(cur, EntryOf(next.At(int(i))))
		}
		for _, q := range queries {
			page, total := s.List(q)
			var first, last ListEntry
			if page.Len() > 0 {
				first, last = EntryOf(page.At(0)), EntryOf(page.At(page.Len()-1))
			}
			if !PageKept(q, first, last, old, cur) {
				redone++
				continue
			}
			kept++
			page1, total1 := next.List(q)
			if total1 != total || !slices.Equal(flagsOf(page), flagsOf(page1)) {
				t.Fatalf("tick %d, %+v: kept, but total %d -> %d, page changed", tick, q, total, total1)
			}
		}
		s = next
	}
	t.Logf("%d pages kept, %d made again", kept, redone)
	if kept < 1000 || redone < 100 {
		t.Fatalf("%d pages kept, %d made again: the ticks tested too little", kept, redone)
	}
}

func flagsOf(p Page) []*Flag {
	out := make([]*Flag, p.Len())
	for k := range out {
		out[k] = p.At(k)
	}
	return out
}
