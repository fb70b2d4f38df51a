package memstore

import (
	"slices"
	"strings"
)

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
		pf, x := nextByID(prev, old, i, ch.Flags, in, j)
		nf, err := s.next(pf, x, ch.Full, a)
		if err != nil {
			return d, err
		}
		if pf != nil {
			d.leave(old[i], int32(len(flags)), pf, nf)
			i++
		}
		if x != nil {
			j++
		}
		if nf != nil {
			d.take(int32(len(flags)), pf, nf)
			flags = append(flags, nf)
		}
	}
	slices.Sort(d.stale)
	s.flags, s.live = flagListOf(flags), len(flags)
	return d, nil
}

// nextByID returns, of prev's flag at old[i] and the change's flag at
// in[j] (each list ordered by id), the one whose id comes first, or both
// where the ids are the same; nil for the other, and for a list at its
// end.
func nextByID(prev *Snapshot, old []int32, i int, flags []FlagInput, in []int32, j int) (*Flag, *FlagInput) {
	switch {
	case j == len(in):
		return prev.flags.at(old[i]), nil
	case i == len(old):
		return nil, &flags[in[j]]
	}
	pf, x := prev.flags.at(old[i]), &flags[in[j]]
	switch id := pf.ID(); {
	case id < x.ID:
		return pf, nil
	case id > x.ID:
		return nil, x
	}
	return pf, x
}

// leave records what became of prev's flag pf at slot j in a build that
// renumbers: nf, the flag for its id (nil for none), takes slot i when it
// is pf; else pf is stale.
func (d *delta) leave(j, i int32, pf, nf *Flag) {
	if nf == pf {
		d.remap[j] = i
		return
	}
	d.stale = append(d.stale, j)
	d.moved = d.moved || nf == nil
}

// take records that nf takes slot i in a build that renumbers, pf being
// prev's flag of its id (nil for none): fresh unless it is pf.
func (d *delta) take(i int32, pf, nf *Flag) {
	if nf != pf {
		d.fresh = append(d.fresh, i)
		d.moved = d.moved || pf == nil
	}
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
	if prev.live == 0 {
		return delta{}, false, nil
	}
	in := sortedByID(ch.Flags)
	r := prev.readSlots(ch, in)
	live, slots := prev.live-r.removed+r.added, prev.flags.len()+r.added
	if slots-live > live/slotSlack+holesFree {
		return delta{}, false, nil
	}
	var a *arena
	if len(in) >= arenaMin {
		a = newArena()
	}
	var d delta
	flags := prev.flags.edit()
	for n, k := range in {
		if err := s.putSlot(&d, flags, prev, &ch.Flags[k], r.at[n], a); err != nil {
			return d, false, err
		}
	}
	for i, ok := range r.seen {
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

// slotReading is what collectSlots reads of a change before it writes
// anything: prev's slot of each flag of the change (at, in id order, -1
// for none), for a full change which of prev's slots it read again
// (seen), and how many flags it removes and adds.
type slotReading struct {
	at             []int32
	seen           []bool
	removed, added int
}

// readSlots reads ch, whose flags in id order are in, against s (see
// slotReading).
func (s *Snapshot) readSlots(ch Change, in []int32) slotReading {
	r := slotReading{at: make([]int32, len(in))}
	if ch.Full {
		r.seen = make([]bool, s.flags.len())
	}
	for n, k := range in {
		x := &ch.Flags[k]
		i, ok := s.byID.get(x.ID, &s.flags)
		switch {
		case !ok:
			i = -1
			if x.Approved {
				r.added++
			}
		case !x.Approved:
			r.removed++
		}
		if ok && r.seen != nil {
			r.seen[i] = true
		}
		r.at[n] = i
	}
	for i, ok := range r.seen {
		if !ok && s.flags.at(int32(i)) != nil {
			r.removed++
		}
	}
	return r
}

// putSlot makes the flag of x, whose slot in prev is i (-1 for none),
// in flags, recording what changed in d: a new flag goes after the last
// slot, one that changed or went replaces prev's in its slot.
func (s *Snapshot) putSlot(d *delta, flags *flagEditor, prev *Snapshot, x *FlagInput, i int32, a *arena) error {
	if i < 0 {
		if !x.Approved {
			return nil
		}
		nf, err := s.next(nil, x, false, a)
		if err != nil {
			return err
		}
		d.fresh = append(d.fresh, int32(flags.l.n))
		d.moved = true
		flags.push(nf)
		return nil
	}
	pf := prev.flags.at(i)
	nf, err := s.next(pf, x, false, a)
	if err != nil || nf == pf {
		return err
	}
	flags.set(i, nf)
	d.stale = append(d.stale, i)
	if nf == nil {
		d.moved = true
	} else {
		d.fresh = append(d.fresh, i)
	}
	return nil
}
