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
	lx := newLexicon()
	if prev != nil {
		lx = prev.lexicon
	}
	s := &Snapshot{LoadedAt: ch.LoadedAt, Trends: ch.Trends, lexicon: lx, Gen: 1}
	if prev != nil {
		s.Gen = prev.Gen + 1
		if s.Trends == nil {
			s.Trends = prev.Trends
		}
	}
	patched := false
	if !ch.Full && prev != nil {
		flags, changed, ok, err := patch(prev, ch.Flags, lx)
		if err != nil {
			return nil, err
		}
		if ok {
			// The same flags in the same places: the lookups are prev's.
			s.flags, s.byID, s.bySlug, patched = flags, prev.byID, prev.bySlug, true
			if s.knownRegions(prev, changed) {
				// Only the changed flags move: orders, counts and the search
				// index are prev's, patched, in time proportional to what
				// changed rather than to every flag.
				s.regIdx = prev.regIdx
				s.attr = prev.attr
				if len(changed) > 0 {
					s.attr = slices.Clone(prev.attr)
					for _, i := range changed {
						s.attr[i] = s.attrOf(s.flags[i])
					}
				}
				s.patchOrders(prev, changed)
				s.patchCounts(prev, changed, ch.Aggregates)
				s.search = prev.search
				for _, i := range changed {
					if s.flags[i].text != prev.flags[i].text {
						s.search = buildSearch(s.flags, lx)
						break
					}
				}
				return s, nil
			}
		}
	}
	if !patched {
		if err := s.collect(prev, ch, lx); err != nil {
			return nil, err
		}
	}
	s.regIdx = map[string]int{}
	s.attr = make([]uint32, len(s.flags))
	for i, f := range s.flags {
		if _, ok := s.regIdx[f.Region]; !ok {
			s.regIdx[f.Region] = len(s.regIdx) + 1
		}
		s.attr[i] = s.attrOf(f)
	}
	s.buildOrders(prev)
	if prev != nil && sameTexts(prev, s) {
		s.search = prev.search
	} else {
		s.search = buildSearch(s.flags, lx)
	}
	s.buildCounts(ch.Aggregates)
	return s, nil
}

// patch applies a tick's changes to prev's flags in place when they only
// change flags prev has, keeping every slug: no flag added or removed, so
// every position and lookup stays. It returns the positions of the flags
// that changed, ascending, and reports false when it cannot patch.
func patch(prev *Snapshot, changes []FlagInput, lx *lexicon) ([]*Flag, []int32, bool, error) {
	flags := slices.Clone(prev.flags)
	var changed []int32
	for i := range changes {
		in := &changes[i]
		j, exists := prev.byID[in.ID]
		if !exists {
			if in.Approved {
				return nil, nil, false, nil // an addition
			}
			continue // a flag that is not approved and was not served
		}
		if !in.Approved {
			return nil, nil, false, nil // a removal
		}
		cat, ok := ParseCategory(in.Category)
		if !ok {
			return nil, nil, false, fmt.Errorf("flag %s: unknown category %q", in.ID, in.Category)
		}
		pf := prev.flags[j]
		if pf.sameAs(in, cat) {
			continue
		}
		if in.Slug != pf.Slug {
			return nil, nil, false, nil
		}
		flags[j] = newFlag(in, cat, pf, lx, nil)
		changed = append(changed, j)
	}
	slices.Sort(changed)
	return flags, slices.Compact(changed), true, nil
}

// knownRegions reports whether every changed flag is in a region prev
// already counts.
func (s *Snapshot) knownRegions(prev *Snapshot, changed []int32) bool {
	for _, i := range changed {
		if _, ok := prev.regIdx[s.flags[i].Region]; !ok {
			return false
		}
	}
	return true
}

// patchOrders makes the orders of a patched snapshot: each of prev's
// orders with the changed flags taken out and merged back in at their
// new places. The orders of a category, colour or region that no changed
// flag was or is in are prev's, shared.
func (s *Snapshot) patchOrders(prev *Snapshot, changed []int32) {
	s.all, s.byCat, s.byDom = prev.all, prev.byCat, prev.byDom
	s.byRegion = prev.byRegion
	if len(changed) == 0 {
		return
	}
	out := make([]uint64, (len(s.flags)+63)/64) // the changed positions, as a bitset
	for _, i := range changed {
		out[i/64] |= 1 << (i % 64)
	}
	var catHit [NumCategories]bool
	var domHit [NumDominants]bool
	regHit := map[string]bool{}
	for _, i := range changed {
		for _, f := range [2]*Flag{prev.flags[i], s.flags[i]} {
			catHit[f.Category], domHit[f.Dominant], regHit[f.Region] = true, true, true
		}
	}
	s.byRegion = make(map[string]*orderSet, len(prev.byRegion))
	for r, o := range prev.byRegion {
		if regHit[r] {
			o = &orderSet{}
		}
		s.byRegion[r] = o
	}
	ins := make([]int32, len(changed))
	sub := make([]int32, 0, len(changed))
	kept := make([]int32, 0, len(s.flags)) // scratch: insertSorted copies out of it
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := 0; dir < 2; dir++ {
			desc := dir == 1
			cmp := func(i, j int32) int { return s.compare(srt, desc, i, j) }
			copy(ins, changed)
			slices.SortFunc(ins, cmp)
			// remerge is old without the changed flags, with those of them
			// that belong in it merged back in.
			remerge := func(old []int32, belongs func(f *Flag) bool) []int32 {
				sub = sub[:0]
				for _, i := range ins {
					if belongs(s.flags[i]) {
						sub = append(sub, i)
					}
				}
				return insertSorted(without(kept, old, out), sub, cmp)
			}
			s.all[srt][dir] = remerge(prev.all[srt][dir], func(*Flag) bool { return true })
			for c := range s.byCat {
				if catHit[c] {
					s.byCat[c][srt][dir] = remerge(prev.byCat[c][srt][dir], func(f *Flag) bool { return f.Category == Category(c) })
				}
			}
			for d := range s.byDom {
				if domHit[d] {
					s.byDom[d][srt][dir] = remerge(prev.byDom[d][srt][dir], func(f *Flag) bool { return f.Dominant == Dominant(d) })
				}
			}
			for r := range regHit {
				s.byRegion[r][srt][dir] = remerge(prev.byRegion[r][srt][dir], func(f *Flag) bool { return f.Region == r })
			}
		}
	}
}

// without is order less the positions set in out, in kept's memory.
func without(kept, order []int32, out []uint64) []int32 {
	kept = kept[:0]
	for _, i := range order {
		if out[i/64]&(1<<(i%64)) == 0 {
			kept = append(kept, i)
		}
	}
	return kept
}

// collect makes the flags of a full load, or of a tick that adds or
// removes flags, ordered by id, with their lookups.
func (s *Snapshot) collect(prev *Snapshot, ch Change, lx *lexicon) error {
	byID := map[string]*Flag{}
	var old map[string]int32
	if prev != nil {
		old = prev.byID
		if !ch.Full {
			for _, f := range prev.flags {
				byID[f.ID] = f
			}
		}
	}
	a := newArena()
	for i := range ch.Flags {
		in := &ch.Flags[i]
		if !in.Approved {
			delete(byID, in.ID)
			continue
		}
		cat, ok := ParseCategory(in.Category)
		if !ok {
			return fmt.Errorf("flag %s: unknown category %q", in.ID, in.Category)
		}
		var pf *Flag
		if j, ok := old[in.ID]; ok {
			pf = prev.flags[j]
			if pf.sameAs(in, cat) {
				byID[in.ID] = pf
				continue
			}
		}
		byID[in.ID] = newFlag(in, cat, pf, lx, a)
	}
	s.flags = make([]*Flag, 0, len(byID))
	for _, f := range byID {
		s.flags = append(s.flags, f)
	}
	slices.SortFunc(s.flags, func(a, b *Flag) int { return cmp.Compare(a.ID, b.ID) })
	s.bySlug = make(map[string]int32, len(s.flags))
	s.byID = make(map[string]int32, len(s.flags))
	for i, f := range s.flags {
		if dup, ok := s.bySlug[f.Slug]; ok {
			return fmt.Errorf("flags %s and %s share the slug %q", s.flags[dup].ID, f.ID, f.Slug)
		}
		s.bySlug[f.Slug] = int32(i)
		s.byID[f.ID] = int32(i)
	}
	return nil
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

// buildOrders sorts the flag positions for every sort and direction, and
// splits each order per category, dominant colour and region. When few
// flags changed since prev, each order is prev's with the changed flags
// taken out and merged back in at their new places, instead of a sort.
func (s *Snapshot) buildOrders(prev *Snapshot) {
	n := len(s.flags)
	remap, changed := s.changesSince(prev)
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := 0; dir < 2; dir++ {
			desc := dir == 1
			cmp := func(i, j int32) int { return s.compare(srt, desc, i, j) }
			if remap == nil {
				idx := make([]int32, n)
				for i := range idx {
					idx[i] = int32(i)
				}
				slices.SortFunc(idx, cmp)
				s.all[srt][dir] = idx
				continue
			}
			s.all[srt][dir] = mergeOrder(prev.all[srt][dir], remap, changed, n, cmp)
		}
	}
	s.splitOrders()
}

// changesSince maps prev's positions to this snapshot's (-1 for a flag
// gone or changed) and lists the positions of the flags that are new or
// changed, ascending. It returns a nil map when a full sort is cheaper.
func (s *Snapshot) changesSince(prev *Snapshot) ([]int32, []int32) {
	if prev == nil || len(prev.flags) == 0 {
		return nil, nil
	}
	remap := make([]int32, len(prev.flags))
	kept := 0
	for j, f := range prev.flags {
		remap[j] = -1
		if i, ok := s.byID[f.ID]; ok && s.flags[i] == f {
			remap[j] = i
			kept++
		}
	}
	if len(s.flags)-kept > len(s.flags)/4 {
		return nil, nil
	}
	unchanged := make([]bool, len(s.flags))
	for _, i := range remap {
		if i >= 0 {
			unchanged[i] = true
		}
	}
	var changed []int32
	for i, u := range unchanged {
		if !u {
			changed = append(changed, int32(i))
		}
	}
	return remap, changed
}

// mergeOrder is old (prev's order, in prev's positions) with the changed
// flags merged in: the unchanged keep their relative order, which the
// comparison has not changed, and each changed flag goes in at the place
// a binary search finds.
func mergeOrder(old, remap, changed []int32, n int, cmp func(i, j int32) int) []int32 {
	kept := make([]int32, 0, n)
	for _, j := range old {
		if i := remap[j]; i >= 0 {
			kept = append(kept, i)
		}
	}
	ins := slices.Clone(changed)
	slices.SortFunc(ins, cmp)
	return insertSorted(kept, ins, cmp)
}

// insertSorted merges ins (sorted by cmp) into kept (sorted by cmp), each
// at the place a binary search finds, into new memory.
func insertSorted(kept, ins []int32, cmp func(i, j int32) int) []int32 {
	out := make([]int32, 0, len(kept)+len(ins))
	start := 0
	for _, x := range ins {
		rest := kept[start:]
		pos, _ := slices.BinarySearchFunc(rest, x, cmp)
		out = append(out, rest[:pos]...)
		out = append(out, x)
		start += pos
	}
	return append(out, kept[start:]...)
}

// splitOrders derives the per-category, per-colour and per-region orders
// from the full ones, keeping their order.
func (s *Snapshot) splitOrders() {
	var catN [NumCategories]int
	var domN [NumDominants]int
	regN := make([]int, len(s.regIdx)+1)
	regOf := make([]int32, len(s.flags))
	for i, f := range s.flags {
		catN[f.Category]++
		domN[f.Dominant]++
		regOf[i] = int32(s.regIdx[f.Region])
		regN[regOf[i]]++
	}
	regs := make([]*orderSet, len(regN))
	s.byRegion = make(map[string]*orderSet, len(s.regIdx))
	for r, k := range s.regIdx {
		regs[k] = &orderSet{}
		s.byRegion[r] = regs[k]
	}
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := 0; dir < 2; dir++ {
			for c := range s.byCat {
				s.byCat[c][srt][dir] = make([]int32, 0, catN[c])
			}
			for d := range s.byDom {
				s.byDom[d][srt][dir] = make([]int32, 0, domN[d])
			}
			for k := 1; k < len(regs); k++ {
				regs[k][srt][dir] = make([]int32, 0, regN[k])
			}
			for _, i := range s.all[srt][dir] {
				f := s.flags[i]
				s.byCat[f.Category][srt][dir] = append(s.byCat[f.Category][srt][dir], i)
				s.byDom[f.Dominant][srt][dir] = append(s.byDom[f.Dominant][srt][dir], i)
				r := regs[regOf[i]]
				r[srt][dir] = append(r[srt][dir], i)
			}
		}
	}
}

func (s *Snapshot) buildCounts(agg Aggregates) {
	s.counts = make([]int32, s.countIndex(0, 0, len(s.regIdx)+1))
	var votes int64
	for _, f := range s.flags {
		s.countFlag(f, 1)
		votes += f.Total()
	}
	s.deriveStats(agg, votes)
}

// patchCounts is buildCounts for a patched snapshot: prev's counts with
// the changed flags' moves.
func (s *Snapshot) patchCounts(prev *Snapshot, changed []int32, agg Aggregates) {
	s.counts = prev.counts
	votes := prev.stats.VotesTotal
	if len(changed) > 0 {
		s.counts = slices.Clone(prev.counts)
		for _, i := range changed {
			s.countFlag(prev.flags[i], -1)
			s.countFlag(s.flags[i], 1)
			votes += s.flags[i].Total() - prev.flags[i].Total()
		}
	}
	s.deriveStats(agg, votes)
}

// countFlag adds (by 1) or takes away (by -1) a flag in every filter
// combination it matches.
func (s *Snapshot) countFlag(f *Flag, by int32) {
	c, d, r := int(f.Category)+1, int(f.Dominant)+1, s.regIdx[f.Region]
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
	newest := s.all[SortNewest][0]
	dayAgo := s.LoadedAt.Add(-24 * time.Hour).UnixMilli()
	first, _ := slices.BinarySearchFunc(newest, dayAgo, func(i int32, t int64) int { return cmp.Compare(s.flags[i].createdMS, t) })
	st.AddedLast24h = int64(len(newest) - first)

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
