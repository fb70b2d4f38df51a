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
	// remap maps a prev position to its new one, -1 for a flag removed or
	// replaced; nil where no position shifted (see collectInPlace).
	remap []int32
	stale []int32 // prev positions of the flags removed or replaced, ascending
	fresh []int32 // new positions of the flags added or replacing one, ascending
	moved bool    // a flag was added or removed, so positions shifted
}

// arenaMin is the number of changes from which a build carves its new
// flags from an arena (see arena) rather than allocating each.
const arenaMin = 1024

// Build makes a new snapshot from prev (nil for the first) and ch. There
// is one route: the flags ch removes or replaces are taken out of prev's
// orders, counts and lookups, and the new ones merged in; a first build is
// the same from an empty snapshot. Flags whose data did not change are
// shared with prev, except in a build that renews the lexicon (see
// compactLexicon), which copies them. Two flags with one slug are refused
// with an error, which leaves prev as it was.
func Build(prev *Snapshot, ch Change) (*Snapshot, error) {
	if prev == nil {
		prev = empty()
	}
	s := &Snapshot{Gen: prev.Gen + 1, LoadedAt: ch.LoadedAt, Trends: ch.Trends, lexicon: prev.lexicon}
	if s.Trends == nil {
		s.Trends = prev.Trends
	}
	d, inPlace, err := s.collectInPlace(prev, ch)
	if err == nil && !inPlace {
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
	s.search = prev.search
	if s.search == nil || d.moved || textChanged(prev, s, d) {
		s.compactLexicon()
		s.search = buildSearch(&s.flags, s.lexicon)
	}
	// After compactLexicon, which may put copies in the flags' places.
	s.recordChanges(prev, d)
	s.fresh = d.fresh
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

// collect makes the flags, ordered by id: prev's with ch's merged in, or
// for a full change ch's alone, sharing prev's flags that did not change.
func (s *Snapshot) collect(prev *Snapshot, ch Change) (delta, error) {
	in := sortedByID(ch.Flags)
	var a *arena
	if len(in) >= arenaMin {
		a = newArena()
	}
	n := len(in)
	if !ch.Full {
		n += prev.flags.len()
	}
	flags := make([]*Flag, 0, n)
	d := delta{remap: make([]int32, prev.flags.len())}
	old := &prev.flags
	for i, j := 0, 0; i < old.len() || j < len(in); {
		var pf *Flag
		var x *FlagInput
		switch {
		case j == len(in) || i < old.len() && old.at(int32(i)).ID < ch.Flags[in[j]].ID:
			pf = old.at(int32(i))
		case i == old.len() || old.at(int32(i)).ID > ch.Flags[in[j]].ID:
			x = &ch.Flags[in[j]]
		default:
			pf, x = old.at(int32(i)), &ch.Flags[in[j]]
		}
		nf, err := s.next(pf, x, ch.Full, a)
		if err != nil {
			return d, err
		}
		if pf != nil {
			d.remap[i] = -1
			if nf == pf {
				d.remap[i] = int32(len(flags))
			} else {
				d.stale = append(d.stale, int32(i))
				d.moved = d.moved || nf == nil
			}
			i++
		}
		if x != nil {
			j++
		}
		if nf != nil && nf != pf {
			d.fresh = append(d.fresh, int32(len(flags)))
			d.moved = d.moved || pf == nil
		}
		if nf != nil {
			flags = append(flags, nf)
		}
	}
	s.flags = pagedOf(flags)
	return d, nil
}

// collectInPlace is collect for a change that adds and removes no flag
// (votes, edits): the flags keep their positions, so it copies prev's and
// replaces the changed ones, without a walk of every flag or a remap. It
// reports false, having done nothing, for a change that may add or remove
// a flag; collect then makes the flags.
func (s *Snapshot) collectInPlace(prev *Snapshot, ch Change) (delta, bool, error) {
	var d delta
	if ch.Full || prev.flags.len() == 0 {
		return d, false, nil
	}
	in := sortedByID(ch.Flags)
	at := make([]int32, 0, len(in)) // prev's position of each approved flag of in, -1 for a flag approved in neither
	for _, k := range in {
		x := &ch.Flags[k]
		i, ok := prev.byID[x.ID]
		if ok != x.Approved {
			return d, false, nil // an approval, a rejection or a deletion
		}
		if !ok {
			i = -1
		}
		at = append(at, i)
	}
	var a *arena
	if len(in) >= arenaMin {
		a = newArena()
	}
	flags := prev.flags.edit()
	for n, k := range in { // by id, so positions ascend
		i := at[n]
		if i < 0 {
			continue
		}
		pf := prev.flags.at(i)
		nf, err := s.next(pf, &ch.Flags[k], false, a)
		if err != nil {
			return d, false, err
		}
		if nf != pf {
			flags.set(i, nf)
			d.stale = append(d.stale, i)
			d.fresh = append(d.fresh, i)
		}
	}
	s.flags = flags.done()
	return d, true, nil
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

// lookups makes the maps by id and by slug, sharing prev's where no flag
// moved and no slug changed.
func (s *Snapshot) lookups(prev *Snapshot, d delta) error {
	s.byID, s.bySlug = prev.byID, prev.bySlug
	slugs := d.moved
	for _, i := range d.fresh {
		slugs = slugs || s.flags.at(i).Slug != prev.flags.at(i).Slug // unmoved: the same position
	}
	if d.moved {
		s.byID = make(map[string]int32, s.flags.len())
		for i, f := range s.flags.all() {
			s.byID[f.ID] = i
		}
	}
	if !slugs {
		return nil
	}
	s.bySlug = make(map[string]int32, s.flags.len())
	for i, f := range s.flags.all() {
		if j, dup := s.bySlug[f.Slug]; dup {
			return fmt.Errorf("flags %s and %s share the slug %q", s.flags.at(j).ID, f.ID, f.Slug)
		}
		s.bySlug[f.Slug] = i
	}
	return nil
}

// attributes numbers the regions that first appear and packs every flag's
// filter attributes (see attrOf).
func (s *Snapshot) attributes(prev *Snapshot, d delta) {
	s.regIdx = prev.regIdx
	for _, i := range d.fresh {
		r := s.flags.at(i).Region
		if _, ok := s.regIdx[r]; !ok {
			if len(s.regIdx) == len(prev.regIdx) {
				s.regIdx = maps.Clone(prev.regIdx)
			}
			s.regIdx[r] = len(s.regIdx) + 1
		}
	}
	if d.remap == nil { // no position shifted: share prev's where no attribute changed
		s.attr = prev.attr
		own := false
		for _, i := range d.fresh {
			if a := s.attrOf(s.flags.at(i)); a != s.attr[i] {
				if !own {
					s.attr, own = slices.Clone(prev.attr), true
				}
				s.attr[i] = a
			}
		}
		return
	}
	s.attr = make([]uint32, s.flags.len())
	for j, i := range d.remap {
		if i >= 0 {
			s.attr[i] = prev.attr[j]
		}
	}
	for _, i := range d.fresh {
		s.attr[i] = s.attrOf(s.flags.at(i))
	}
}

// textChanged reports whether a flag's texts changed in place: the search
// index, by position, cannot be shared.
func textChanged(prev, s *Snapshot, d delta) bool {
	for _, i := range d.fresh {
		if s.flags.at(i).Text != prev.flags.at(i).Text {
			return true
		}
	}
	return false
}
