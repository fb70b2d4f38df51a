package memstore

import (
	"slices"
	"sort"
)

// PageGuard is what a page of a Matched depends on beyond the texts: a
// swap that changes only the counts of matched flags (a vote) changes the
// page only where it moves a flag within a run of one rank that the page
// shows part of, changes a flag the page shows, or moves a flag in or
// out of the dominant filter. A vote on a flag ranked elsewhere leaves
// the page as it was, to the byte: every rank group keeps its members
// and its place, so the page's groups keep theirs. Kept tells, from the
// swap's list entries of the changed flags, whether a swap is such a one.
type PageGuard struct {
	filter ListQuery // the page's filters (its sort, limit and offset unused)
	// slots are the flags of the rank groups the page's hits are in,
	// ascending; wide is set instead when they are more than
	// maxGuardSlots (then any count-only change to a matched flag that
	// the filters keep counts as touching the page).
	slots []int32
	wide  bool
}

// maxGuardSlots is the most flags a PageGuard lists (16 KB): a page whose
// rank groups hold more is guarded as a whole.
const maxGuardSlots = 4096

// Guard is the guard of res, the page Page gave m with o's filters.
func (m *Matched) Guard(res *SearchResult, o FindOptions) PageGuard {
	g := PageGuard{filter: ListQuery{Category: o.Category, HasCategory: o.HasCategory, Region: o.Region,
		HasRegion: o.HasRegion, Dominant: o.Dominant, HasDominant: o.HasDominant}}
	if len(res.Hits) == 0 {
		return g
	}
	// m.groups is by rank, descending: the page's run from its first
	// hit's group to its last's.
	first := m.groupOf(res.Hits[0].Rank)
	last := m.groupOf(res.Hits[len(res.Hits)-1].Rank)
	lo := int32(0)
	if first > 0 {
		lo = m.groups[first-1].end
	}
	hi := m.groups[last].end
	if hi-lo > maxGuardSlots {
		g.wide = true
		return g
	}
	g.slots = make([]int32, 0, hi-lo)
	for k := lo; k < hi; k++ {
		g.slots = append(g.slots, m.slot(k))
	}
	slices.Sort(g.slots)
	return g
}

// groupOf is the index of m's group of rank r (one of m's).
func (m *Matched) groupOf(r float64) int {
	return min(sort.Search(len(m.groups), func(i int) bool { return m.groups[i].rank <= r }), len(m.groups)-1)
}

// Bytes is about the memory g holds.
func (g *PageGuard) Bytes() int64 { return int64(4*len(g.slots)) + int64(len(g.filter.Region)) + 64 }

// Kept reports whether the page g guards, of m, is the page a snapshot
// gives whose flags differ from the page's snapshot only in slots, each
// of whose entries was old[i] and is now[i] (memstore.EntryOf), with the
// same search index. It is when none of them is a matched flag, or each
// matched one changed only its counts, keeps its dominant side where the
// page filters by it, and is not in a rank group the page shows part of
// (or is not a flag the filters keep). Without old and now (a swap of
// more flags than the log keeps entries of) it reports whether no
// matched flag changed at all.
func (g *PageGuard) Kept(m *Matched, slots []int32, old, now []ListEntry) bool {
	if len(old) != len(slots) || len(now) != len(slots) {
		return !m.Touches(slots)
	}
	for i := range slots {
		if !m.Touches(slots[i : i+1]) {
			continue
		}
		o, n := &old[i], &now[i]
		if !n.countsOnlySince(o) || g.filter.HasDominant && o.dom != n.dom {
			return false // in or out of the filters, or more than its counts
		}
		if !n.in(&g.filter) {
			continue // not in the page's list before or after
		}
		if g.wide {
			return false
		}
		if _, in := slices.BinarySearch(g.slots, slots[i]); in {
			return false
		}
	}
	return true
}

// countsOnlySince reports whether e is the flag o was, differing at most
// in its counts (its total, sort keys of the counts and dominant side):
// the same id, category, region and creation time, present in both.
func (e *ListEntry) countsOnlySince(o *ListEntry) bool {
	return e.present && o.present && e.id == o.id && e.cat == o.cat && e.region == o.region &&
		e.keys[SortNewest] == o.keys[SortNewest]
}
