package memstore

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// A tick patches the previous snapshot: whatever it changes, the result
// must be exactly the snapshot a full build of the same flags makes.
func TestPatchedTickEqualsFullBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	regions := []string{"", "TR", "DE", "ES", "US"}
	words := []string{"bus", "late", "yaşlı", "größe", "niño", "kind", "money", "calls"}
	text := func() string { return words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))] }
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var flags []FlagInput
	for i := range 400 {
		in := FlagInput{ID: fmt.Sprintf("flg_%04d", i), Slug: fmt.Sprintf("flag-%d", i), Approved: true,
			Category: Categories[rng.IntN(NumCategories)], Region: regions[rng.IntN(len(regions))],
			CreatedAt: now.Add(-time.Duration(rng.IntN(72)) * time.Hour), Red: rng.Int64N(20), Green: rng.Int64N(20)}
		in.UpdatedAt = in.CreatedAt
		for l := range in.Text {
			in.Text[l] = text()
		}
		flags = append(flags, in)
	}
	agg := Aggregates{Users: 5, VotesLast24h: 1, Last7d: 2, Last30d: 3}
	snap, err := Build(nil, Change{Full: true, Flags: flags, Aggregates: agg, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 60 {
		now = now.Add(time.Second)
		var changes []FlagInput
		for range rng.IntN(12) { // sometimes none
			i := rng.IntN(len(flags))
			in := &flags[i]
			switch rng.IntN(6) {
			case 0:
				in.Category = Categories[rng.IntN(NumCategories)]
			case 1:
				in.Region = regions[rng.IntN(len(regions))]
			case 2:
				in.Text[rng.IntN(int(NumLangs))] = text()
			default: // votes, the usual change; ties on net and total are common
				in.Red, in.Green = rng.Int64N(20), rng.Int64N(20)
			}
			in.UpdatedAt = now
			changes = append(changes, *in)
			if rng.IntN(4) == 0 {
				changes = append(changes, *in) // read twice in one tick
			}
		}
		patched, err := Build(snap, Change{Flags: changes, Aggregates: agg, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		full, err := Build(nil, Change{Full: true, Flags: flags, Aggregates: agg, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		compareSnapshots(t, fmt.Sprintf("tick %d", tick), patched, full)
		snap = patched
	}
}

func compareSnapshots(t *testing.T, at string, got, want *Snapshot) {
	t.Helper()
	ids := func(s *Snapshot, order []int32) []string {
		out := make([]string, len(order))
		for k, i := range order {
			out[k] = s.flags[i].ID
		}
		return out
	}
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := range 2 {
			if !slices.Equal(ids(got, got.all[srt][dir]), ids(want, want.all[srt][dir])) {
				t.Fatalf("%s: order %d/%d differs", at, srt, dir)
			}
			for c := range NumCategories {
				if !slices.Equal(ids(got, got.byCat[c][srt][dir]), ids(want, want.byCat[c][srt][dir])) {
					t.Fatalf("%s: category %d order %d/%d differs", at, c, srt, dir)
				}
			}
			for d := range NumDominants {
				if !slices.Equal(ids(got, got.byDom[d][srt][dir]), ids(want, want.byDom[d][srt][dir])) {
					t.Fatalf("%s: colour %d order %d/%d differs", at, d, srt, dir)
				}
			}
			for r, o := range want.byRegion {
				g, ok := got.byRegion[r]
				if !ok || !slices.Equal(ids(got, g[srt][dir]), ids(want, o[srt][dir])) {
					t.Fatalf("%s: region %q order %d/%d differs", at, r, srt, dir)
				}
			}
		}
	}
	if !reflect.DeepEqual(got.Stats(), want.Stats()) {
		t.Fatalf("%s: stats\n got %+v\nwant %+v", at, got.Stats(), want.Stats())
	}
	if !reflect.DeepEqual(got.Categories(), want.Categories()) || !reflect.DeepEqual(got.Regions(), want.Regions()) {
		t.Fatalf("%s: categories or regions differ:\n%v %v\n%v %v", at, got.Categories(), got.Regions(), want.Categories(), want.Regions())
	}
	for c := -1; c < NumCategories; c++ {
		for d := -1; d < int(NumDominants); d++ {
			for _, r := range []string{"", "TR", "US", "none"} {
				q := ListQuery{Limit: 7, Offset: (c + d + 2) * 3, HasCategory: c >= 0, HasDominant: d >= 0,
					HasRegion: r != "none", Region: r}
				if c >= 0 {
					q.Category = Category(c)
				}
				if d >= 0 {
					q.Dominant = Dominant(d)
				}
				a, an := got.List(q)
				b, bn := want.List(q)
				var naive []string // the filters applied to the whole order, by their fields
				for _, i := range want.all[q.Sort][0] {
					f := want.flags[i]
					if (!q.HasCategory || f.Category == q.Category) && (!q.HasDominant || f.Dominant == q.Dominant) &&
						(!q.HasRegion || f.Region == q.Region) {
						naive = append(naive, f.ID)
					}
				}
				if bn != len(naive) {
					t.Fatalf("%s: List(%+v) total %d, want %d", at, q, bn, len(naive))
				}
				naive = naive[min(q.Offset, len(naive)):]
				naive = naive[:min(q.Limit, len(naive))]
				if len(naive) != len(b) {
					t.Fatalf("%s: List(%+v) has %d flags, want %d", at, q, len(b), len(naive))
				}
				for k := range b {
					if b[k].ID != naive[k] {
						t.Fatalf("%s: List(%+v)[%d] = %s, want %s", at, q, k, b[k].ID, naive[k])
					}
				}
				if an != bn || len(a) != len(b) {
					t.Fatalf("%s: List(%+v) total %d, want %d", at, q, an, bn)
				}
				for k := range a {
					if a[k].ID != b[k].ID || !slices.Equal(a[k].json, b[k].json) {
						t.Fatalf("%s: List(%+v)[%d] = %s, want %s", at, q, k, a[k].ID, b[k].ID)
					}
				}
			}
		}
	}
	for _, q := range []string{"bus", "yaş", "gros", "nin", "kind mon"} {
		a, an := got.Search(q, 1000)
		b, bn := want.Search(q, 1000)
		if an != bn || len(a) != len(b) {
			t.Fatalf("%s: Search(%q) %d, want %d", at, q, an, bn)
		}
		for k := range a {
			if a[k].Flag.ID != b[k].Flag.ID || a[k].Rank != b[k].Rank {
				t.Fatalf("%s: Search(%q)[%d] differs", at, q, k)
			}
		}
	}
}
