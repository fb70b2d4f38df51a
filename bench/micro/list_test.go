package micro_test

import (
	"testing"

	"github.com/flagpole/flagpole/memstore"
)

func BenchmarkListDefault(b *testing.B) {
	d := data(b)
	q := memstore.ListQuery{Sort: memstore.SortNet, Limit: 20}
	b.ReportAllocs()
	for b.Loop() {
		page, _ := d.snap.List(q)
		if page.Len() != 20 {
			b.Fatalf("page of %d", page.Len())
		}
	}
}

// BenchmarkListFilteredDeepOffset filters on category and dominant colour
// (two lists: the snapshot intersects them) at 90 % of the matches.
func BenchmarkListFilteredDeepOffset(b *testing.B) {
	d := data(b)
	q := memstore.ListQuery{Sort: memstore.SortTotal, Desc: true, HasCategory: true, Category: 3,
		HasDominant: true, Dominant: memstore.Green, Limit: 20}
	_, total := d.snap.List(q)
	q.Offset = total * 9 / 10
	b.ReportAllocs()
	for b.Loop() {
		page, _ := d.snap.List(q)
		if page.Len() == 0 {
			b.Fatalf("empty page at offset %d of %d", q.Offset, total)
		}
	}
}

// BenchmarkListDeepOffset is the unfiltered list at 90 %.
func BenchmarkListDeepOffset(b *testing.B) {
	d := data(b)
	q := memstore.ListQuery{Sort: memstore.SortNewest, Desc: true, Limit: 20, Offset: NumFlags * 9 / 10}
	b.ReportAllocs()
	for b.Loop() {
		d.snap.List(q)
	}
}

// BenchmarkListWorst is /flags at its most expensive: filters whose
// lists must be intersected, at the deepest offset with the largest
// limit (the snapshot walks the shortest list to the page), and a region
// with no flag.
func BenchmarkListWorst(b *testing.B) {
	d := data(b)
	cases := []struct {
		name string
		q    memstore.ListQuery
	}{
		{"default", memstore.ListQuery{Sort: memstore.SortNet, Limit: 20}},
		{"every-filter-deepest-limit100", memstore.ListQuery{Sort: memstore.SortControversial, Desc: true,
			HasCategory: true, Category: 3, HasDominant: true, Dominant: memstore.Yellow, HasRegion: true, Limit: 100}},
		{"world+dominant-deepest-limit100", memstore.ListQuery{Sort: memstore.SortNewest, Desc: true,
			HasDominant: true, Dominant: memstore.Red, HasRegion: true, Limit: 100}},
		{"deepest-limit100", memstore.ListQuery{Sort: memstore.SortTotal, Desc: true, Limit: 100}},
		{"region-with-no-flag", memstore.ListQuery{Sort: memstore.SortNet, HasRegion: true, Region: "AQ", Limit: 100}},
	}
	for _, c := range cases {
		if _, total := d.snap.List(c.q); c.name != "default" {
			c.q.Offset = max(total-c.q.Limit, 0)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				d.snap.List(c.q)
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
