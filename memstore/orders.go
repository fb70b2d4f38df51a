package memstore

import (
	"iter"
	"math"
	"slices"
	"sync/atomic"
)

// buildOrders makes the orders of every list: prev's, without the flags
// removed or replaced and in the new positions, with the fresh flags
// merged in at their places. A list no flag left or joined keeps prev's
// orders, shared, unless positions shifted. From an empty snapshot this
// is a sort of every flag, split per list. Where no position shifted,
// placeOrders does the same in the blocks the changes touch.
func (s *Snapshot) buildOrders(prev *Snapshot, d delta) {
	if d.remap == nil && !ledgerOff.place && s.placeOrders(prev, d) {
		return
	}
	s.orders = make([]*orderSet, listRegion+1+len(s.regIdx))
	copy(s.orders, prev.orders)
	lists, joins := s.listsToMerge(prev, d)
	if len(lists) == 0 {
		return
	}
	remap := d.remap
	if remap == nil { // collectSlots: the same positions, less the stale
		remap = keptSlots(prev.flags.len(), d.stale)
	}
	ins := slices.Clone(d.fresh)
	joined := make([][]int32, len(s.orders))
	var kept []int32 // scratch: merge copies out of it
	var sorter placeSorter
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := range 2 {
			desc := dir == 1
			order := func(i, j int32) int { return s.compare(srt, desc, i, j) }
			place := func(i int32) placeKey { return s.place(srt, desc, i) }
			sorter.sort(ins, place)
			s.joinLists(ins, lists, joins, joined)
			for _, l := range lists {
				kept = kept[:0]
				if l < len(prev.orders) {
					kept = appendKept(kept, &prev.orders[l][srt][dir], remap)
				}
				s.orders[l][srt][dir] = cut(merge(kept, joined[l], order), place)
			}
		}
	}
}

// listsToMerge returns the lists buildOrders makes anew, each given an
// empty set of orders: every one where the build renumbered the slots,
// else those a flag left (stale) or joined (fresh), a new region's among
// them. It also returns how many fresh flags join each list.
func (s *Snapshot) listsToMerge(prev *Snapshot, d delta) (lists, joins []int) {
	redo := make([]bool, len(s.orders))
	joins = make([]int, len(s.orders))
	for _, j := range d.stale {
		for _, l := range listsOf(prev.attr.at(j)) {
			redo[l] = true
		}
	}
	for _, i := range d.fresh {
		for _, l := range listsOf(s.attr.at(i)) {
			redo[l] = true
			joins[l]++
		}
	}
	for l := range s.orders {
		if d.remap != nil || redo[l] {
			lists = append(lists, l)
			s.orders[l] = &orderSet{}
		}
	}
	return lists, joins
}

// keptSlots maps each of n slots to itself but those of stale, removed
// or replaced, to -1: the remap of a build where every flag kept its
// slot.
func keptSlots(n int, stale []int32) []int32 {
	remap := make([]int32, n)
	for j := range remap {
		remap[j] = int32(j)
	}
	for _, j := range stale {
		remap[j] = -1
	}
	return remap
}

// joinLists sets joined[l], for each of lists, to the flags of ins in
// list l, in the order of ins; joins[l] is how many there are.
func (s *Snapshot) joinLists(ins []int32, lists, joins []int, joined [][]int32) {
	for _, l := range lists {
		joined[l] = make([]int32, 0, joins[l])
	}
	for _, i := range ins {
		for _, l := range listsOf(s.attr.at(i)) {
			joined[l] = append(joined[l], i)
		}
	}
}

// appendKept appends to kept the entries of o that stay, in their new
// slots (remap), in o's order.
func appendKept(kept []int32, o *order, remap []int32) []int32 {
	for _, b := range o.blocks {
		for _, j := range b {
			if i := remap[j]; i >= 0 {
				kept = append(kept, i)
			}
		}
	}
	return kept
}

// placeOrders is buildOrders where every flag kept its slot: each flag
// removed is taken out of the orders it was in, each one added put into
// those it is in, and each replaced one whose sort key (or total, the
// first tie-break) changed, or that changed lists, taken out and put
// in, each order copying only the blocks this touches. Lists no fresh or
// stale flag was or is in stay shared. It reports false if a flag was
// not where prev's order says (a fault of the build's, counted in
// placeFaults), and buildOrders then merges every list again.
func (s *Snapshot) placeOrders(prev *Snapshot, d delta) bool {
	s.orders = make([]*orderSet, listRegion+1+len(s.regIdx))
	copy(s.orders, prev.orders)
	for l := len(prev.orders); l < len(s.orders); l++ {
		s.orders[l] = &orderSet{} // a region no flag was in before
	}
	var sorter placeSorter
	for l, m := range s.orderMoves(prev, d) {
		set, ok := s.moved(prev, *s.orders[l], m, &sorter)
		if !ok {
			placeFaults.Add(1)
			return false
		}
		s.orders[l] = set
	}
	return true
}

// listMoves are the slots placeOrders takes out of (out) and puts into
// (in) one list's orders, by sort.
type listMoves struct{ out, in [NumSorts][]int32 }

// moveSet is placeOrders' moves, by list.
type moveSet map[int]*listMoves

// of is list l's moves.
func (ms moveSet) of(l int) *listMoves {
	m := ms[l]
	if m == nil {
		m = &listMoves{}
		ms[l] = m
	}
	return m
}

// note records that slot x leaves the lists was and joins the lists is
// in sort srt: all of them where its place in that sort changed
// (rekeyed), else those it is in only before or only after.
func (ms moveSet) note(x int32, srt Sort, was, is []int, rekeyed bool) {
	for _, l := range was {
		if rekeyed || !slices.Contains(is, l) {
			m := ms.of(l)
			m.out[srt] = append(m.out[srt], x)
		}
	}
	for _, l := range is {
		if rekeyed || !slices.Contains(was, l) {
			m := ms.of(l)
			m.in[srt] = append(m.in[srt], x)
		}
	}
}

// orderMoves is what placeOrders moves in each list a flag left or
// joined. Every flag kept its slot: a slot in stale and fresh holds
// prev's flag and the one replacing it, one in stale alone a flag
// removed, one in fresh alone a flag added.
func (s *Snapshot) orderMoves(prev *Snapshot, d delta) moveSet {
	moves := moveSet{}
	for i, in := range unionOf(d.stale, d.fresh) {
		var pf, f *Flag
		var was, is []int
		if in&inA != 0 {
			pf, was = prev.flags.at(i), listsOfSlice(prev.attr.at(i))
		}
		if in&inB != 0 {
			f, is = s.flags.at(i), listsOfSlice(s.attr.at(i))
		}
		for srt := Sort(0); srt < NumSorts; srt++ {
			moves.note(i, srt, was, is, replaced(pf, f, srt))
		}
	}
	return moves
}

// replaced reports whether f, in pf's slot, has another place than pf in
// sort srt: one of them is none, or its key or total (the first
// tie-break) differs.
func replaced(pf, f *Flag, srt Sort) bool {
	return pf == nil || f == nil || sortKey(pf, srt) != sortKey(f, srt) || pf.Total() != f.Total()
}

// moved returns set, prev's orders of a list, with m's moves made in
// both directions of each sort they touch (see order.replace); false
// where a slot of m.out was not in its order.
func (s *Snapshot) moved(prev *Snapshot, set orderSet, m *listMoves, sorter *placeSorter) (*orderSet, bool) {
	for srt := Sort(0); srt < NumSorts; srt++ {
		if len(m.out[srt]) == 0 && len(m.in[srt]) == 0 {
			continue
		}
		for dir := range 2 {
			desc := dir == 1
			before := func(i int32) placeKey { return prev.place(srt, desc, i) }
			after := func(i int32) placeKey { return s.place(srt, desc, i) }
			in := slices.Clone(m.in[srt])
			sorter.sort(in, after)
			o, ok := set[srt][dir].replace(m.out[srt], before, in, after)
			if !ok {
				return nil, false
			}
			set[srt][dir] = o
		}
	}
	return &set, true
}

// placeSorter sorts positions by their places, reading each flag once: a
// comparison sort reads each about 2 log n times, at a million flags a
// cache miss or two a read. Its buffer is reused from one sort to the
// next (a full build sorts every flag eight times).
type placeSorter struct{ buf []placed }

// placed is a position and its place.
type placed struct {
	p placeKey
	x int32
}

// sort sorts xs by place.
func (ps *placeSorter) sort(xs []int32, place func(int32) placeKey) {
	if len(xs) < 2 {
		return
	}
	if cap(ps.buf) < len(xs) {
		ps.buf = make([]placed, 0, len(xs))
	}
	b := ps.buf[:0]
	for _, x := range xs {
		b = append(b, placed{place(x), x})
	}
	slices.SortFunc(b, func(a, b placed) int { return a.p.compare(b.p) })
	for n := range b {
		xs[n] = b[n].x
	}
	ps.buf = b
}

// listsOfSlice is listsOf as a slice.
func listsOfSlice(attr uint32) []int {
	l := listsOf(attr)
	return l[:]
}

// Where unionOf found a value: in a, in b, or both.
const (
	inA = 1 << iota
	inB
)

// unionOf yields each value of a or b (both ascending) once, ascending,
// and where it is (inA, inB or both).
func unionOf(a, b []int32) iter.Seq2[int32, int] {
	return func(yield func(int32, int) bool) {
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			switch {
			case j == len(b) || i < len(a) && a[i] < b[j]:
				if !yield(a[i], inA) {
					return
				}
				i++
			case i == len(a) || b[j] < a[i]:
				if !yield(b[j], inB) {
					return
				}
				j++
			default:
				if !yield(a[i], inA|inB) {
					return
				}
				i, j = i+1, j+1
			}
		}
	}
}

// placeFaults counts the builds placeOrders gave up (see there); the tests
// require none.
var placeFaults atomic.Int64

// sortKey is f's primary key in sort srt; the controversy (at least 1)
// as its bits, which order as a positive float does.
func sortKey(f *Flag, srt Sort) int64 {
	switch srt {
	case SortNet:
		return f.Net()
	case SortTotal:
		return f.Total()
	case SortControversial:
		return int64(math.Float64bits(f.controversy))
	}
	return f.createdMS
}

// merge merges ins (sorted by order) into kept (sorted by order), each at
// the place a binary search finds; the result is in new memory, or is ins.
func merge(kept, ins []int32, order func(i, j int32) int) []int32 {
	if len(kept) == 0 {
		return ins
	}
	out := make([]int32, 0, len(kept)+len(ins))
	start := 0
	for _, x := range ins {
		rest := kept[start:]
		pos, _ := slices.BinarySearchFunc(rest, x, order)
		out = append(out, rest[:pos]...)
		out = append(out, x)
		start += pos
	}
	return append(out, kept[start:]...)
}

// compare orders two flag slots by sort srt: the primary key in the
// given direction, then total desc, then id asc.
func (s *Snapshot) compare(srt Sort, desc bool, i, j int32) int {
	return s.place(srt, desc, i).compare(s.place(srt, desc, j))
}

// place is where position i goes in the order of sort srt and direction
// desc (see compare).
func (s *Snapshot) place(srt Sort, desc bool, i int32) placeKey {
	f := s.flags.at(i)
	return placeFor(sortKey(f, srt), desc, f.Total(), f.ID())
}

// placeFor is the place of a flag of sort key key (in the ascending
// direction), total and id, in the direction desc: the key (complemented
// when descending), then the total descending, then the id.
func placeFor(key int64, desc bool, total int64, id string) placeKey {
	if desc {
		key = ^key
	}
	return placeKey{key: key, total: ^total, id: id}
}
