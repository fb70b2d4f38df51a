package memstore

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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

// delta is how a new snapshot's flags differ from the previous one's.
type delta struct {
	// remap maps a prev slot to the new one, -1 for a flag removed or
	// replaced, when the build renumbered the slots (see collect); nil
	// where every flag kept its slot (see collectSlots).
	remap []int32
	stale []int32 // prev slots of the flags removed or replaced, ascending
	fresh []int32 // new slots of the flags added or replacing one, ascending
	moved bool    // a flag was added or removed
}

// arenaMin is the number of changes from which a build carves its new
// flags from an arena (see arena) rather than allocating each.
const arenaMin = 1024

// slotSlack and holesFree bound the holes that removed flags leave among
// the slots: past a quarter of the flags served and a page more, the
// next build renumbers them (see collect), at the cost of a build from
// scratch. (A variable for the tests, which renumber often.)
const slotSlack = 4

var holesFree = pageLen

// Build makes a new snapshot from prev (nil for the first) and ch. There
// is one route: the flags ch removes or replaces are taken out of prev's
// orders, counts and lookups, and the new ones merged in; a first build is
// the same from an empty snapshot. A flag keeps its slot from one
// snapshot to the next, a new one takes a slot after the last, and a
// removed one leaves a hole, until a build renumbers them in id order
// (see slotSlack). Flags whose data did not change are shared with prev,
// except in a build that renews the lexicon (see compactLexicon), which
// copies them. Two flags with one slug are refused with an error, which
// leaves prev as it was.
func Build(prev *Snapshot, ch Change) (*Snapshot, error) {
	if prev == nil {
		prev = empty()
	}
	s := &Snapshot{Gen: prev.Gen + 1, serial: snapshotSerials.Add(1), base: prev.serial, LoadedAt: ch.LoadedAt,
		Trends: ch.Trends, lexicon: prev.lexicon}
	if s.Trends == nil {
		s.Trends = prev.Trends
	}
	d, kept, err := s.collectSlots(prev, ch)
	if err == nil && !kept {
		d, err = s.collect(prev, ch)
	}
	if err != nil {
		return nil, err
	}
	if err := s.lookups(prev, d); err != nil {
		return nil, err
	}
	s.attributes(prev, d)
	s.buildOrders(prev, d)
	s.buildCounts(prev, d, ch.Aggregates)
	s.search = s.nextSearch(prev, d)
	if s.search != nil && s.search.version == 0 {
		s.search.version = searchVersions.Add(1)
	}
	// After compactLexicon, which may put copies in the flags' places.
	s.recordChanges(prev, d)
	s.fresh = d.fresh
	s.changed, s.remapped = slices.Compact(mergeSorted(d.stale, slices.Clone(d.fresh))), d.remap != nil
	return s, nil
}

// empty is the snapshot before the first: no flag, a lexicon of its own.
func empty() *Snapshot {
	s := &Snapshot{lexicon: newLexicon(), regIdx: map[string]int{}, orders: make([]*orderSet, listRegion+1)}
	for l := range s.orders {
		s.orders[l] = &orderSet{}
	}
	s.counts = make([]int32, s.countIndex(0, 0, 1))
	return s
}

// next is what becomes of one flag: pf is prev's (nil for none) and x the
// change read for it (nil for none). It returns nil for no flag.
func (s *Snapshot) next(pf *Flag, x *FlagInput, full bool, a *arena) (*Flag, error) {
	switch {
	case x == nil && full:
		return nil, nil // not read again: no longer approved
	case x == nil:
		return pf, nil
	case !x.Approved:
		return nil, nil
	}
	cat, ok := ParseCategory(x.Category)
	if !ok {
		return nil, fmt.Errorf("flag %s: unknown category %q", x.ID, x.Category)
	}
	if pf != nil && pf.sameAs(x, cat) {
		return pf, nil
	}
	return newFlag(x, cat, pf, s.lexicon, a), nil
}

// sortedByID returns the indexes of in ordered by id; of a flag read more
// than once, only the last reading.
func sortedByID(in []FlagInput) []int32 {
	idx := make([]int32, len(in))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := strings.Compare(in[a].ID, in[b].ID); c != 0 {
			return c
		}
		return int(a - b)
	})
	out := idx[:0]
	for k, i := range idx {
		if k+1 < len(idx) && in[idx[k+1]].ID == in[i].ID {
			continue
		}
		out = append(out, i)
	}
	return out
}

// attributes numbers the regions that first appear and packs every flag's
// filter attributes (see attrOf). The attributes of a hole are left as
// they were: no list holds it.
func (s *Snapshot) attributes(prev *Snapshot, d delta) {
	s.regIdx = prev.regIdx
	for _, i := range d.fresh {
		r := s.flags.at(i).Region()
		if _, ok := s.regIdx[r]; !ok {
			if len(s.regIdx) == len(prev.regIdx) {
				s.regIdx = maps.Clone(prev.regIdx)
			}
			// A copy: the flag's string is part of its record, which a
			// key of the map would keep alive for as long as it lasts.
			s.regIdx[strings.Clone(r)] = len(s.regIdx) + 1
		}
	}
	if d.remap == nil { // every flag kept its slot: share prev's arrays where no attribute changed
		e := prev.attr.edit()
		for _, i := range d.fresh {
			e.set(i, s.attrOf(s.flags.at(i)))
		}
		s.attr = e.done()
		return
	}
	s.attr = newAttrs(s.flags.len())
	for j, i := range d.remap {
		if i >= 0 {
			s.attr.put(i, prev.attr.at(int32(j)))
		}
	}
	for _, i := range d.fresh {
		s.attr.put(i, s.attrOf(s.flags.at(i)))
	}
}
