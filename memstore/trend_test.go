package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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

// TestIncrementalOrders builds snapshots tick after tick with random vote
// changes, additions and removals, and checks every merged order against
// a full sort.
func TestIncrementalOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(i int) FlagInput {
		red, green := rng.Int64N(50), rng.Int64N(50)
		return FlagInput{ID: fmt.Sprintf("f%04d", i), Slug: fmt.Sprintf("s%04d", i), Approved: true,
			Category: Categories[rng.IntN(NumCategories)], Text: [NumLangs]string{"a", "b", "c", "d"},
			CreatedAt: time.Unix(rng.Int64N(1000), 0), Red: red, Green: green}
	}
	var all []FlagInput
	for i := 0; i < 400; i++ {
		all = append(all, mk(i))
	}
	snap, err := Build(nil, Change{Full: true, Flags: all})
	if err != nil {
		t.Fatal(err)
	}
	next := 400
	for tick := 0; tick < 30; tick++ {
		var ch []FlagInput
		for k := 0; k < 1+rng.IntN(20); k++ {
			f := all[rng.IntN(len(all))]
			switch rng.IntN(6) {
			case 0:
				f.Approved = false // removed
			case 1:
				f = mk(next) // added
				next++
				all = append(all, f)
			default:
				f.Red, f.Green = f.Red+rng.Int64N(5), f.Green+rng.Int64N(5)
			}
			f.UpdatedAt = time.Unix(int64(tick+1), 0)
			ch = append(ch, f)
		}
		if snap, err = Build(snap, Change{Flags: ch}); err != nil {
			t.Fatal(err)
		}
		for srt := Sort(0); srt < NumSorts; srt++ {
			for dir := 0; dir < 2; dir++ {
				want := make([]int32, snap.Len())
				for i := range want {
					want[i] = int32(i)
				}
				slices.SortFunc(want, func(i, j int32) int { return snap.compare(srt, dir == 1, i, j) })
				if !slices.Equal(snap.orders[listAll][srt][dir], want) {
					t.Fatalf("tick %d sort %s dir %d: merged order differs from a full sort", tick, srt, dir)
				}
			}
		}
	}
}
