package memstore

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Change is what the loader read for one tick: either every approved flag
// (Full) or the flags changed since the last tick, whatever their status.
// A nil Trends keeps the previous snapshot's; a snapshot whose Trends is
// nil is still loading its history.
type Change struct {
	Full       bool
	Flags      []FlagInput
	Trends     *Trends
	Aggregates Aggregates
	LoadedAt   time.Time
}

// Build makes a new snapshot from prev (nil for the first) and ch. Flags
// whose data did not change are shared with prev, with their encoded JSON
// and search words.
func Build(prev *Snapshot, ch Change) (*Snapshot, error) {
	byID := map[string]*Flag{}
	lx := newLexicon()
	if prev != nil {
		lx = prev.lexicon
	}
	var old map[string]int32
	if prev != nil {
		old = prev.byID
	}
	if !ch.Full && prev != nil {
		for _, f := range prev.flags {
			byID[f.ID] = f
		}
	}
	for i := range ch.Flags {
		in := &ch.Flags[i]
		if !in.Approved {
			delete(byID, in.ID)
			continue
		}
		cat, ok := ParseCategory(in.Category)
		if !ok {
			return nil, fmt.Errorf("flag %s: unknown category %q", in.ID, in.Category)
		}
		var pf *Flag
		if j, ok := old[in.ID]; ok {
			pf = prev.flags[j]
			if pf.sameAs(in, cat) {
				byID[in.ID] = pf
				continue
			}
		}
		byID[in.ID] = newFlag(in, cat, pf, lx)
	}

	s := &Snapshot{LoadedAt: ch.LoadedAt, Trends: ch.Trends, lexicon: lx}
	if prev != nil {
		s.Gen = prev.Gen + 1
		if s.Trends == nil {
			s.Trends = prev.Trends
		}
	} else {
		s.Gen = 1
	}
	s.flags = make([]*Flag, 0, len(byID))
	for _, f := range byID {
		s.flags = append(s.flags, f)
	}
	slices.SortFunc(s.flags, func(a, b *Flag) int { return cmp.Compare(a.ID, b.ID) })
	s.bySlug = make(map[string]*Flag, len(s.flags))
	s.byID = make(map[string]int32, len(s.flags))
	for i, f := range s.flags {
		if dup, ok := s.bySlug[f.Slug]; ok {
			return nil, fmt.Errorf("flags %s and %s share the slug %q", dup.ID, f.ID, f.Slug)
		}
		s.bySlug[f.Slug] = f
		s.byID[f.ID] = int32(i)
	}
	s.buildOrders()
	if prev != nil && sameTexts(prev, s) {
		s.search = prev.search
	} else {
		s.search = buildSearch(s.flags, lx)
	}
	s.buildCounts(ch.Aggregates)
	return s, nil
}

// sameAs reports whether f already serves exactly what in says.
func (f *Flag) sameAs(in *FlagInput, cat Category) bool {
	if f.Slug != in.Slug || f.Category != cat || f.Region != in.Region || f.Red != in.Red || f.Green != in.Green ||
		f.createdMS != in.CreatedAt.UnixMilli() || f.updatedMS != in.UpdatedAt.UnixMilli() {
		return false
	}
	content, _ := contentHash(in)
	return content == f.content
}

// sameTexts reports whether two snapshots hold the same flags, in the same
// positions, with the same texts: then the search index is shared.
func sameTexts(a, b *Snapshot) bool {
	if a.search == nil || len(a.flags) != len(b.flags) {
		return false
	}
	for i, f := range a.flags {
		g := b.flags[i]
		if f != g && (f.ID != g.ID || f.text != g.text) {
			return false
		}
	}
	return true
}

// compare orders two flag positions by sort s: the primary key in the
// given direction, then total desc, then id asc (position asc).
func (s *Snapshot) compare(srt Sort, desc bool, i, j int32) int {
	a, b := s.flags[i], s.flags[j]
	var c int
	switch srt {
	case SortNet:
		c = cmp.Compare(a.Net(), b.Net())
	case SortTotal:
		c = cmp.Compare(a.Total(), b.Total())
	case SortControversial:
		c = cmp.Compare(a.controversy, b.controversy)
	case SortNewest:
		c = cmp.Compare(a.createdMS, b.createdMS)
	}
	if desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	if c = cmp.Compare(b.Total(), a.Total()); c != 0 {
		return c
	}
	return cmp.Compare(i, j)
}

func (s *Snapshot) buildOrders() {
	n := len(s.flags)
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := 0; dir < 2; dir++ {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(i)
			}
			desc := dir == 1
			slices.SortFunc(idx, func(i, j int32) int { return s.compare(srt, desc, i, j) })
			s.all[srt][dir] = idx
		}
	}
	s.byRegion = map[string]*orderSet{}
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := 0; dir < 2; dir++ {
			for _, i := range s.all[srt][dir] {
				f := s.flags[i]
				s.byCat[f.Category][srt][dir] = append(s.byCat[f.Category][srt][dir], i)
				s.byDom[f.Dominant][srt][dir] = append(s.byDom[f.Dominant][srt][dir], i)
				os := s.byRegion[f.Region]
				if os == nil {
					os = &orderSet{}
					s.byRegion[f.Region] = os
				}
				os[srt][dir] = append(os[srt][dir], i)
			}
		}
	}
}

func (s *Snapshot) buildCounts(agg Aggregates) {
	s.counts = make(map[filterKey]int32)
	var catCount [NumCategories]int
	regCount := map[string]int{}
	st := Stats{UsersTotal: agg.Users, VotesLast24h: agg.VotesLast24h, VotesLast7d: agg.Last7d,
		VotesLast30d: agg.Last30d, GeneratedAt: s.LoadedAt.UTC()}
	dayAgo := s.LoadedAt.Add(-24 * time.Hour)
	for _, f := range s.flags {
		catCount[f.Category]++
		regCount[f.Region]++
		for mask := 0; mask < 8; mask++ {
			k := filterKey{cat: -1, dom: -1, anyReg: true}
			if mask&1 != 0 {
				k.cat = int8(f.Category)
			}
			if mask&2 != 0 {
				k.dom = int8(f.Dominant)
			}
			if mask&4 != 0 {
				k.anyReg, k.region = false, f.Region
			}
			s.counts[k]++
		}
		st.FlagsTotal++
		switch f.Dominant {
		case Red:
			st.RedDominant++
		case Green:
			st.GreenDominant++
		default:
			st.Mixed++
		}
		if f.createdMS >= dayAgo.UnixMilli() {
			st.AddedLast24h++
		}
		st.VotesTotal += f.Total()
	}
	s.categories = make([]CategoryCount, NumCategories)
	for c := range s.categories {
		s.categories[c] = CategoryCount{Category: Category(c), Count: catCount[c]}
	}
	slices.SortStableFunc(s.categories, func(a, b CategoryCount) int { return cmp.Compare(b.Count, a.Count) })
	st.TopCategories = s.categories[:5]
	s.stats = st

	s.regions = []RegionCount{{Code: "", Count: regCount[""]}}
	for code, n := range regCount {
		if code != "" {
			s.regions = append(s.regions, RegionCount{Code: code, Count: n})
		}
	}
	slices.SortFunc(s.regions[1:], func(a, b RegionCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Code, b.Code)
	})
}
