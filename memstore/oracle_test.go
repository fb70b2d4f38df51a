package memstore

import (
	"cmp"
	"reflect"
	"slices"
	"testing"
	"time"
)

// checkOracle checks a snapshot against the contract's rules applied by
// hand to the approved flags of w: the orders of every sort, the counts,
// the category and region lists and the statistics.
func checkOracle(t *testing.T, at string, s *Snapshot, w *world, agg Aggregates) {
	t.Helper()
	flags := w.approved()
	for srt := range NumSorts {
		for _, desc := range []bool{false, true} {
			key := func(in FlagInput) float64 {
				switch srt {
				case SortNet:
					return float64(in.Red - in.Green)
				case SortTotal:
					return float64(in.Red + in.Green)
				case SortControversial:
					return Controversy(in.Red, in.Green)
				}
				return float64(in.CreatedAt.UnixMilli())
			}
			slices.SortFunc(flags, func(a, b FlagInput) int {
				c := cmp.Compare(key(a), key(b))
				if desc {
					c = -c
				}
				if c != 0 {
					return c
				}
				if c = cmp.Compare(b.Red+b.Green, a.Red+a.Green); c != 0 {
					return c
				}
				return cmp.Compare(a.ID, b.ID)
			})
			want := make([]string, len(flags))
			for k, in := range flags {
				want[k] = in.ID
			}
			page, total := s.List(ListQuery{Sort: srt, Desc: desc, Limit: 1 << 20})
			if got := pageIDs(s, page); total != len(want) || !slices.Equal(got, want) {
				t.Fatalf("%s: order %s desc %v is %v, want %v", at, srt, desc, got, want)
			}
		}
	}
	st := Stats{UsersTotal: agg.Users, VotesLast24h: agg.VotesLast24h, VotesLast7d: agg.Last7d, VotesLast30d: agg.Last30d,
		GeneratedAt: w.now, FlagsTotal: int64(len(flags))}
	cats := make([]CategoryCount, NumCategories)
	for c := range cats {
		cats[c].Category = Category(c)
	}
	regions := map[string]int{}
	for _, in := range flags {
		switch DominantOf(in.Red, in.Green) {
		case Red:
			st.RedDominant++
		case Green:
			st.GreenDominant++
		default:
			st.Mixed++
		}
		if !in.CreatedAt.Before(w.now.Add(-24 * time.Hour)) {
			st.AddedLast24h++
		}
		st.VotesTotal += in.Red + in.Green
		c, _ := ParseCategory(in.Category)
		cats[c].Count++
		regions[in.Region]++
	}
	slices.SortStableFunc(cats, func(a, b CategoryCount) int { return b.Count - a.Count })
	st.TopCategories = cats[:5]
	wantRegions := []RegionCount{{Code: "", Count: regions[""]}}
	for _, code := range slices.Sorted(func(yield func(string) bool) {
		for code := range regions {
			if code != "" && !yield(code) {
				return
			}
		}
	}) {
		wantRegions = append(wantRegions, RegionCount{Code: code, Count: regions[code]})
	}
	slices.SortStableFunc(wantRegions[1:], func(a, b RegionCount) int { return b.Count - a.Count })
	if !reflect.DeepEqual(s.Stats(), st) || !reflect.DeepEqual(s.Categories(), cats) || !reflect.DeepEqual(s.Regions(), wantRegions) {
		t.Fatalf("%s: stats, categories or regions\n got %+v %v %v\nwant %+v %v %v", at, s.Stats(), s.Categories(), s.Regions(),
			st, cats, wantRegions)
	}
}

// sameAs tells a flag from its reading field by field.
func TestSameAs(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	d := "why"
	in := FlagInput{ID: "a", Slug: "s", Approved: true, Category: "SOCIAL", Region: "TR", Text: [NumLangs]string{"a", "b", "c", "d"},
		Description: [NumLangs]*string{nil, &d}, Contexts: []string{"WORK"}, CreatedAt: now, UpdatedAt: now, Red: 3, Green: 4}
	f := newFlag(&in, 7, nil, newLexicon(), nil)
	if !f.sameAs(&in, 7) {
		t.Fatal("a flag is not the same as its own reading")
	}
	other := "other"
	for name, change := range map[string]func(*FlagInput){
		"slug": func(x *FlagInput) { x.Slug = "t" }, "region": func(x *FlagInput) { x.Region = "" },
		"red": func(x *FlagInput) { x.Red++ }, "green": func(x *FlagInput) { x.Green++ },
		"created": func(x *FlagInput) { x.CreatedAt = now.Add(time.Millisecond) },
		"updated": func(x *FlagInput) { x.UpdatedAt = now.Add(time.Millisecond) },
		"text":    func(x *FlagInput) { x.Text[ES] = "e" }, "contexts": func(x *FlagInput) { x.Contexts = nil },
		"description":    func(x *FlagInput) { x.Description[EN] = &other },
		"no description": func(x *FlagInput) { x.Description[EN] = nil },
		"a description":  func(x *FlagInput) { x.Description[TR] = &d },
	} {
		x := in
		x.Description = in.Description
		change(&x)
		if f.sameAs(&x, 7) {
			t.Errorf("a changed %s is the same", name)
		}
	}
	if f.sameAs(&in, 6) {
		t.Error("a changed category is the same")
	}
}
