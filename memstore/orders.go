package memstore

import (
	"cmp"
	"slices"
)

// buildOrders makes the orders of every list: prev's, without the flags
// removed or replaced and in the new positions, with the fresh flags
// merged in at their places. A list no flag left or joined keeps prev's
// orders, shared, unless positions shifted. From an empty snapshot this
// is a sort of every flag, split per list.
func (s *Snapshot) buildOrders(prev *Snapshot, d delta) {
	s.orders = make([]*orderSet, listRegion+1+len(s.regIdx))
	copy(s.orders, prev.orders)
	redo := make([]bool, len(s.orders))
	joins := make([]int, len(s.orders)) // fresh flags per list
	for _, j := range d.stale {
		for _, l := range listsOf(prev.attr[j]) {
			redo[l] = true
		}
	}
	for _, i := range d.fresh {
		for _, l := range listsOf(s.attr[i]) {
			redo[l] = true
			joins[l]++
		}
	}
	var lists []int
	for l := range s.orders {
		if d.moved || redo[l] { // a new region's list is one a fresh flag joined
			lists = append(lists, l)
			s.orders[l] = &orderSet{}
		}
	}
	if len(lists) == 0 {
		return
	}
	ins := slices.Clone(d.fresh)
	joined := make([][]int32, len(s.orders))
	var kept []int32 // scratch: merge copies out of it
	for srt := Sort(0); srt < NumSorts; srt++ {
		for dir := range 2 {
			desc := dir == 1
			order := func(i, j int32) int { return s.compare(srt, desc, i, j) }
			slices.SortFunc(ins, order)
			for _, l := range lists {
				joined[l] = make([]int32, 0, joins[l])
			}
			for _, i := range ins {
				for _, l := range listsOf(s.attr[i]) {
					joined[l] = append(joined[l], i)
				}
			}
			for _, l := range lists {
				kept = kept[:0]
				if l < len(prev.orders) {
					for _, j := range prev.orders[l][srt][dir] {
						if i := d.remap[j]; i >= 0 {
							kept = append(kept, i)
						}
					}
				}
				s.orders[l][srt][dir] = merge(kept, joined[l], order)
			}
		}
	}
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

// compare orders two flag positions by sort srt: the primary key in the
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
