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

// collect makes the flags in new slots, ordered by id and without holes:
// prev's with ch's merged in, or for a full change ch's alone, sharing
// prev's flags that did not change. It is the first build's route, and
// that of a build that renumbers (see slotSlack).
func (s *Snapshot) collect(prev *Snapshot, ch Change) (delta, error) {
	in := sortedByID(ch.Flags)
	var a *arena
	if len(in) >= arenaMin {
		a = newArena()
	}
	old := prev.slotsByID()
	n := len(in)
	if !ch.Full {
		n += len(old)
	}
	flags := make([]*Flag, 0, n)
	d := delta{remap: make([]int32, prev.flags.len())}
	for i := range d.remap {
		d.remap[i] = -1
	}
	for i, j := 0, 0; i < len(old) || j < len(in); {
		var pf *Flag
		var x *FlagInput
		switch {
		case j == len(in) || i < len(old) && prev.flags.at(old[i]).ID() < ch.Flags[in[j]].ID:
			pf = prev.flags.at(old[i])
		case i == len(old) || prev.flags.at(old[i]).ID() > ch.Flags[in[j]].ID:
			x = &ch.Flags[in[j]]
		default:
			pf, x = prev.flags.at(old[i]), &ch.Flags[in[j]]
		}
		nf, err := s.next(pf, x, ch.Full, a)
		if err != nil {
			return d, err
		}
		if pf != nil {
			if nf == pf {
				d.remap[old[i]] = int32(len(flags))
			} else {
				d.stale = append(d.stale, old[i])
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
	slices.Sort(d.stale)
	s.flags, s.live = flagListOf(flags), len(flags)
	return d, nil
}

// slotsByID returns the slots of the flags, ordered by their ids.
func (s *Snapshot) slotsByID() []int32 {
	out := make([]int32, 0, s.live)
	for i, f := range s.flags.all() {
		if f != nil {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(a, b int32) int { return strings.Compare(s.flags.at(a).ID(), s.flags.at(b).ID()) })
	return out
}

// collectSlots is collect where every flag keeps its slot: a flag
// replaced takes its place, a new one a slot after the last, and a
// removed one leaves a hole. It copies only the pages of the slots it
// writes, without a walk of every flag (but for a full change, whose
// flags not read again are removed). It reports false, having done
// nothing, for the first build and for one that would leave more holes
// than slotSlack allows; collect then makes the flags.
func (s *Snapshot) collectSlots(prev *Snapshot, ch Change) (delta, bool, error) {
	var d delta
	if prev.live == 0 {
		return d, false, nil
	}
	in := sortedByID(ch.Flags)
	at := make([]int32, len(in)) // prev's slot of each flag of in, -1 for none
	var seen []bool              // of a full change: the slots of prev read again
	if ch.Full {
		seen = make([]bool, prev.flags.len())
	}
	removed, added := 0, 0
	for n, k := range in {
		x := &ch.Flags[k]
		i, ok := prev.byID.get(x.ID, &prev.flags)
		switch {
		case !ok:
			i = -1
			if x.Approved {
				added++
			}
		case !x.Approved:
			removed++
		}
		if ok && seen != nil {
			seen[i] = true
		}
		at[n] = i
	}
	for i, ok := range seen {
		if !ok && prev.flags.at(int32(i)) != nil {
			removed++
		}
	}
	live, slots := prev.live-removed+added, prev.flags.len()+added
	if slots-live > live/slotSlack+holesFree {
		return d, false, nil
	}
	var a *arena
	if len(in) >= arenaMin {
		a = newArena()
	}
	flags := prev.flags.edit()
	for n, k := range in {
		x, i := &ch.Flags[k], at[n]
		if i < 0 {
			if !x.Approved {
				continue
			}
			nf, err := s.next(nil, x, false, a)
			if err != nil {
				return d, false, err
			}
			d.fresh = append(d.fresh, int32(flags.l.n))
			d.moved = true
			flags.push(nf)
			continue
		}
		pf := prev.flags.at(i)
		nf, err := s.next(pf, x, false, a)
		if err != nil {
			return d, false, err
		}
		if nf == pf {
			continue
		}
		flags.set(i, nf)
		d.stale = append(d.stale, i)
		if nf == nil {
			d.moved = true
		} else {
			d.fresh = append(d.fresh, i)
		}
	}
	for i, ok := range seen {
		if !ok && prev.flags.at(int32(i)) != nil {
			flags.set(int32(i), nil)
			d.stale = append(d.stale, int32(i))
			d.moved = true
		}
	}
	slices.Sort(d.stale)
	slices.Sort(d.fresh)
	s.flags, s.live = flags.done(), live
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

// lookups makes the maps by id and by slug: from every flag where the
// build renumbered the slots, else prev's with the entries the delta
// names taken out and put in, sharing every shard it does not write.
func (s *Snapshot) lookups(prev *Snapshot, d delta) error {
	if d.remap != nil {
		ids, slugs := newLookup(s.live, false), newLookup(s.live, true)
		for i, f := range s.flags.all() { // renumbered: no holes
			if j, dup := slugs.get(f.Slug(), &s.flags); dup {
				return errSharedSlug(s.flags.at(j), f)
			}
			ids.add(f.ID(), i)
			slugs.add(f.Slug(), i)
		}
		s.byID, s.bySlug = ids.done(), slugs.done()
		return nil
	}
	s.byID, s.bySlug = prev.byID, prev.bySlug
	var ids, slugs *lookupEditor
	for _, j := range d.stale { // every slug left before any is taken: two flags may swap theirs
		pf, f := prev.flags.at(j), s.flags.at(j)
		if f == nil {
			if ids == nil {
				ids = prev.byID.edit(false)
			}
			ids.del(pf.ID(), &prev.flags)
		}
		if f == nil || f.Slug() != pf.Slug() {
			if slugs == nil {
				slugs = prev.bySlug.edit(true)
			}
			slugs.del(pf.Slug(), &prev.flags)
		}
	}
	for _, i := range d.fresh {
		f := s.flags.at(i)
		var pf *Flag
		if int(i) < prev.flags.len() {
			pf = prev.flags.at(i)
		}
		if pf == nil {
			if ids == nil {
				ids = prev.byID.edit(false)
			}
			ids.add(f.ID(), i)
		}
		if pf == nil || f.Slug() != pf.Slug() {
			if slugs == nil {
				slugs = prev.bySlug.edit(true)
			}
			if j, dup := slugs.get(f.Slug(), &s.flags); dup {
				return errSharedSlug(s.flags.at(j), f)
			}
			slugs.add(f.Slug(), i)
		}
	}
	if ids != nil {
		s.byID = ids.done()
	}
	if slugs != nil {
		s.bySlug = slugs.done()
	}
	return nil
}

// errSharedSlug is the error of a build that would serve two flags under
// one slug, a and b named in id order.
func errSharedSlug(a, b *Flag) error {
	if a.ID() > b.ID() {
		a, b = b, a
	}
	return fmt.Errorf("flags %s and %s share the slug %q", a.ID(), b.ID(), a.Slug())
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
