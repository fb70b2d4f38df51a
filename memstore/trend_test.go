package memstore

import (
	"slices"
	"testing"
)

func TestTrendSeries(t *testing.T) {
	b := NewTrendBuilder(100)
	b.Add([]byte("a"), 99, 1, 1) // older than the window: dropped
	b.Add([]byte("a"), 100, 5, 2)
	b.Add([]byte("a"), 101, 4, 9) // counts may go down (votes deleted)
	b.Add([]byte("a"), 150, 1<<40, 0)
	b.Add([]byte("b"), 120, 0, 0)
	tr := b.Done()
	if tr.Rows() != 4 {
		t.Fatalf("rows %d", tr.Rows())
	}
	want := []TrendPoint{{100, 5, 2}, {101, 4, 9}, {150, 1 << 40, 0}}
	if got := tr.Of("a", 0, 1000); !slices.Equal(got, want) {
		t.Fatalf("Of: %v", got)
	}
	if got := tr.Of("a", 101, 149); !slices.Equal(got, want[1:2]) {
		t.Fatalf("window: %v", got)
	}
	if got := tr.Of("none", 0, 1000); len(got) != 0 {
		t.Fatalf("unknown flag: %v", got)
	}
	// With: a new day, a replaced day, a new flag; the old ones shared.
	n := tr.With([]TrendRow{{"a", 151, 7, 7}, {"a", 100, 6, 2}, {"c", 140, 1, 2}}, 100)
	if got := n.Of("a", 0, 1000); !slices.Equal(got, []TrendPoint{{100, 6, 2}, {101, 4, 9}, {150, 1 << 40, 0}, {151, 7, 7}}) {
		t.Fatalf("after With: %v", got)
	}
	if &n.byFlag["b"][0] != &tr.byFlag["b"][0] || n.Rows() != 6 {
		t.Fatalf("untouched series not shared, or rows %d", n.Rows())
	}
	if tr.Of("a", 0, 1000)[0].Red != 5 {
		t.Fatal("With changed the old Trends")
	}
	// Update shares everything when nothing is new.
	if u := n.Update([]TrendRow{{"a", 151, 7, 7}}, 100); u != n {
		t.Fatal("Update without news made a new Trends")
	}
	// Series far past the window are trimmed.
	far := n.Update(nil, 150) // stale before 120: "a" starts at 100
	if got := far.Of("a", 0, 1000); !slices.Equal(got, []TrendPoint{{150, 1 << 40, 0}, {151, 7, 7}}) {
		t.Fatalf("trimmed: %v", got)
	}
}
