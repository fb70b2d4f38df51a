package memstore

import (
	"cmp"
	"slices"
	"time"
)

// buildCounts makes the counts of every filter combination, prev's less
// the flags removed or replaced plus the fresh ones, and the lists and
// statistics derived from them.
func (s *Snapshot) buildCounts(prev *Snapshot, d delta, agg Aggregates) {
	s.counts = make([]int32, s.countIndex(0, 0, len(s.regIdx)+1))
	copy(s.counts, prev.counts) // a new region's counts come last
	votes := prev.stats.VotesTotal
	for _, j := range d.stale {
		s.countFlag(prev.attr.at(j), -1)
		votes -= prev.flags.at(j).Total()
	}
	for _, i := range d.fresh {
		s.countFlag(s.attr.at(i), 1)
		votes += s.flags.at(i).Total()
	}
	s.deriveStats(agg, votes)
}

// countFlag adds (by 1) or takes away (by -1) a flag with attributes attr
// in every filter combination it matches.
func (s *Snapshot) countFlag(attr uint32, by int32) {
	c, d, r := int(attr&attrCatMask)+1, int(attr&attrDomMask>>attrDomShift)+1, int(attr>>attrRegShift)
	for _, cat := range [2]int{0, c} {
		for _, dom := range [2]int{0, d} {
			s.counts[s.countIndex(cat, dom, 0)] += by
			s.counts[s.countIndex(cat, dom, r)] += by
		}
	}
}

// deriveStats makes /categories, /regions and /stats from the counts.
func (s *Snapshot) deriveStats(agg Aggregates, votes int64) {
	count := func(cat, dom, reg int) int64 { return int64(s.counts[s.countIndex(cat, dom, reg)]) }
	st := Stats{UsersTotal: agg.Users, VotesLast24h: agg.VotesLast24h, VotesLast7d: agg.Last7d,
		VotesLast30d: agg.Last30d, GeneratedAt: s.LoadedAt.UTC(), VotesTotal: votes,
		FlagsTotal: count(0, 0, 0), RedDominant: count(0, int(Red)+1, 0), GreenDominant: count(0, int(Green)+1, 0),
		Mixed: count(0, int(Yellow)+1, 0)}
	// The newest order ascends by creation time: the flags of the last
	// 24 hours are its tail.
	newest := &s.orders[listAll][SortNewest][0]
	dayAgo := s.LoadedAt.Add(-24 * time.Hour).UnixMilli()
	first := newest.search(func(i int32) bool { return s.flags.at(i).createdMS >= dayAgo })
	st.AddedLast24h = int64(newest.len() - first)

	s.categories = make([]CategoryCount, NumCategories)
	for c := range s.categories {
		s.categories[c] = CategoryCount{Category: Category(c), Count: int(count(c+1, 0, 0))}
	}
	slices.SortStableFunc(s.categories, func(a, b CategoryCount) int { return cmp.Compare(b.Count, a.Count) })
	st.TopCategories = s.categories[:5]
	s.stats = st

	world := 0 // the world region is listed first, even with no flag
	if k, ok := s.regIdx[""]; ok {
		world = int(count(0, 0, k))
	}
	s.regions = []RegionCount{{Code: "", Count: world}}
	for code, k := range s.regIdx {
		if n := count(0, 0, k); code != "" && n > 0 {
			s.regions = append(s.regions, RegionCount{Code: code, Count: int(n)})
		}
	}
	slices.SortFunc(s.regions[1:], func(a, b RegionCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Code, b.Code)
	})
}
