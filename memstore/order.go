package memstore

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// order is one sorted list of flag positions, cut into blocks that
// snapshots share: a build that re-places a few flags copies only the
// blocks they leave or join, and the block index, never the whole list.
// At a million flags a list is 4 MB and a snapshot has 32 of them per
// flag list; a vote re-places its flag in 32 blocks of at most a few KB.
type order struct {
	blocks [][]int32 // never empty, never written once the order is built
	ends   []int32   // ends[k] is the number of entries in blocks[:k+1]
	// fence[k] is the place of blocks[k]'s last entry: a build finds the
	// block of a position in this array, without reading a flag.
	fence []placeKey
}

// placeKey is where a flag goes in an order: its sort key in the order's
// direction, then its total, descending, then its id, compared in that
// sequence, each ascending (a descending field is complemented).
type placeKey struct {
	key, total int64
	id         string
}

func (a placeKey) compare(b placeKey) int {
	if a.key != b.key {
		return cmp.Compare(a.key, b.key)
	}
	if a.total != b.total {
		return cmp.Compare(a.total, b.total)
	}
	return strings.Compare(a.id, b.id)
}

// blockLen is the length a sorted list is cut at. A block that grows past
// twice that splits in two; one that shrinks below a quarter merges with a
// neighbour when the two fit in twice that. A block then costs a
// 4-byte-per-entry copy of at most 4 KB, and the index one entry per few
// hundred flags.
const blockLen = 512

// cut makes the order of the positions flat, sorted by place, whose
// memory its blocks share.
func cut(flat []int32, place func(int32) placeKey) order {
	var o order
	for lo := 0; lo < len(flat); lo += blockLen {
		hi := min(lo+blockLen, len(flat))
		o.blocks = append(o.blocks, flat[lo:hi:hi])
		o.fence = append(o.fence, place(flat[hi-1]))
	}
	o.index()
	return o
}

// index fills ends from blocks.
func (o *order) index() {
	o.ends = make([]int32, len(o.blocks))
	n := int32(0)
	for k, b := range o.blocks {
		n += int32(len(b))
		o.ends[k] = n
	}
}

// len is the number of positions in the order.
func (o *order) len() int {
	if len(o.ends) == 0 {
		return 0
	}
	return int(o.ends[len(o.ends)-1])
}

// start is the index in the order of block k's first entry.
func (o *order) start(k int) int {
	if k == 0 {
		return 0
	}
	return int(o.ends[k-1])
}

// slice returns the entries [lo, hi) of the order (0 <= lo <= hi <=
// len): the memory of the block that holds them all, which the caller
// must not write, or a copy where they span blocks.
func (o *order) slice(lo, hi int) []int32 {
	if lo >= hi {
		return nil
	}
	k := sort.Search(len(o.ends), func(k int) bool { return int(o.ends[k]) > lo })
	i := lo - o.start(k)
	if b := o.blocks[k]; i+hi-lo <= len(b) {
		return b[i : i+hi-lo : i+hi-lo]
	}
	out := make([]int32, 0, hi-lo)
	for ; len(out) < hi-lo; k, i = k+1, 0 {
		b := o.blocks[k]
		out = append(out, b[i:min(len(b), i+hi-lo-len(out))]...)
	}
	return out
}

// search returns the index of the first entry for which ok is true, ok
// being false and then true along the order; len if it never is.
func (o *order) search(ok func(int32) bool) int {
	k := sort.Search(len(o.blocks), func(k int) bool { b := o.blocks[k]; return ok(b[len(b)-1]) })
	if k == len(o.blocks) {
		return o.len()
	}
	b := o.blocks[k]
	return o.start(k) + sort.Search(len(b), func(i int) bool { return ok(b[i]) })
}

// locate returns the block of position x, whose place is px, and x's
// index in it; false if x is not there.
func (o *order) locate(px placeKey, x int32) (k, i int, ok bool) {
	k = sort.Search(len(o.fence), func(k int) bool { return o.fence[k].compare(px) >= 0 })
	if k == len(o.blocks) {
		return 0, 0, false
	}
	i = slices.Index(o.blocks[k], x)
	return k, i, i >= 0
}

// replace returns o with the positions out taken away and in put in their
// places, sharing every block neither touches. before places the
// positions as o is sorted (the snapshot o was built for), after as the
// result is to be; in must be sorted by after. The two may differ only on
// the positions of out: every position that stays is placed the same by
// both. It reports false, and leaves o as it was, if a position of out is
// not in o.
func (o *order) replace(out []int32, before func(int32) placeKey, in []int32, after func(int32) placeKey) (order, bool) {
	type block struct {
		e     []int32
		fence placeKey
		own   bool // a copy of this build's, which it may write
	}
	w := make([]block, len(o.blocks))
	for k, b := range o.blocks {
		w[k] = block{e: b, fence: o.fence[k]}
	}
	// Find every position to take out in o as it is, then take them out.
	type at struct{ k, i int }
	gone := make([]at, 0, len(out))
	for _, x := range out {
		k, i, ok := o.locate(before(x), x)
		if !ok {
			return *o, false
		}
		gone = append(gone, at{k, i})
	}
	slices.SortFunc(gone, func(a, b at) int {
		if a.k != b.k {
			return a.k - b.k
		}
		return b.i - a.i // within a block, the last first: indexes stay good
	})
	for n, g := range gone {
		if n > 0 && gone[n-1] == g {
			continue // a position named twice
		}
		b := &w[g.k]
		if !b.own {
			*b = block{e: slices.Clone(b.e), fence: b.fence, own: true}
		}
		b.e = slices.Delete(b.e, g.i, g.i+1)
	}
	for k := range w {
		if b := &w[k]; b.own && len(b.e) > 0 {
			b.fence = after(b.e[len(b.e)-1]) // it stays: placed the same by both
		}
	}
	w = slices.DeleteFunc(w, func(b block) bool { return len(b.e) == 0 })
	// Put each new position in the first block whose last entry comes
	// after it (or the last block), splitting a block grown too long.
	for _, x := range in {
		px := after(x)
		if len(w) == 0 {
			w = append(w, block{e: []int32{x}, fence: px, own: true})
			continue
		}
		k := sort.Search(len(w), func(k int) bool { return w[k].fence.compare(px) > 0 })
		k = min(k, len(w)-1)
		b := &w[k]
		if !b.own {
			e := make([]int32, len(b.e), len(b.e)+8)
			copy(e, b.e)
			*b = block{e: e, fence: b.fence, own: true}
		}
		i := sort.Search(len(b.e), func(i int) bool { return after(b.e[i]).compare(px) > 0 })
		b.e = slices.Insert(b.e, i, x)
		if i == len(b.e)-1 {
			b.fence = px
		}
		if len(b.e) > 2*blockLen {
			half := len(b.e) / 2
			lo := block{e: slices.Clone(b.e[:half]), fence: after(b.e[half-1]), own: true}
			hi := block{e: slices.Clone(b.e[half:]), fence: b.fence, own: true}
			w[k] = lo
			w = slices.Insert(w, k+1, hi)
		}
	}
	// Merge a short block this build wrote into its neighbour where the two
	// fit in one: blocks never dwindle to a few entries each.
	var r order
	r.blocks = make([][]int32, 0, len(w))
	r.fence = make([]placeKey, 0, len(w))
	for k := 0; k < len(w); k++ {
		b := w[k]
		if n := len(r.blocks); n > 0 && (b.own || w[k-1].own) {
			last := r.blocks[n-1]
			if (len(b.e) < blockLen/4 || len(last) < blockLen/4) && len(last)+len(b.e) <= 2*blockLen {
				m := make([]int32, 0, len(last)+len(b.e))
				r.blocks[n-1] = append(append(m, last...), b.e...)
				r.fence[n-1] = b.fence
				w[k].own = true // the merged block is this build's
				continue
			}
		}
		r.blocks = append(r.blocks, slices.Clip(b.e))
		r.fence = append(r.fence, b.fence)
	}
	r.index()
	return r, true
}
