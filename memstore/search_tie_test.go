package memstore

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
)

// Hits of equal rank come out total desc, id asc, whichever way the tie is
// read (from each flag, or from the snapshot's table) and however deep
// the page, at any vote count the loader accepts (up to 10^12).
func TestSearchTieOrderLargeTotals(t *testing.T) {
	totals := []int64{
		5, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1 << 32, 1<<32 + 7, 1 << 33,
		3_000_000_000, 1e12, 1e12 - 1, 1e12, 1 << 31, 42, 1<<39 + 3, 0,
	}
	texts := make([]string, len(totals))
	for i := range texts {
		texts[i] = "the bus"
	}
	s := searchSnapshot(t, texts, totals)
	want := make([]string, s.Len())
	var byOrder []*Flag
	for _, f := range s.flags.all() {
		byOrder = append(byOrder, f)
	}
	slices.SortFunc(byOrder, func(a, b *Flag) int {
		if c := cmp.Compare(b.Total(), a.Total()); c != 0 {
			return c
		}
		return cmp.Compare(a.ID(), b.ID())
	})
	for i, f := range byOrder {
		want[i] = f.ID()
	}

	pq, err := ParseQuery("bus")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Match(pq, FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { tieTableFrom = n }(tieTableFrom)
	for _, from := range []int{len(texts), 0} { // from each flag, then from the table
		tieTableFrom = from
		for _, limit := range []int{MaxSearchLimit, MaxSearchLimit + 1, 3} {
			var got []string
			for _, h := range m.Page(s, FindOptions{Limit: limit}).Hits {
				got = append(got, h.Flag.ID())
			}
			if w := want[:min(limit, len(want))]; fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("table from %d, limit %d: order\n got %v\nwant %v", from, limit, got, w)
			}
		}
	}

	// Through Find, every page.
	for _, page := range []FindOptions{{Limit: 50}, {Limit: 4, Offset: 0}, {Limit: 4, Offset: 4}, {Limit: 50, Offset: 9}} {
		r, err := s.Find(pq, page)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range r.Hits {
			got = append(got, h.Flag.ID())
		}
		w := want[page.Offset:min(page.Offset+page.Limit, len(want))]
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("Find %+v: order\n got %v\nwant %v", page, got, w)
		}
	}
}
