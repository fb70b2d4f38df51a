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
	// fence[k] is the key and total of blocks[k]'s last entry: a build
	// finds the block of a position in this array, reading a flag (for its
	// id) only where both tie. No pointer: the array is copied by each
	// build that re-places a flag, and marked by no collection.
	fence []fenceKey
}

// fenceKey is a placeKey without its id, see order.fence.
type fenceKey struct{ key, total int64 }

func (p placeKey) fenced() fenceKey { return fenceKey{p.key, p.total} }

// fenceCompare compares the place of b's last entry, fenced in f, with
// px; place reads the entry's id where the key and the total tie.
func fenceCompare(f fenceKey, b []int32, px placeKey, place func(int32) placeKey) int {
	if f.key != px.key {
		return cmp.Compare(f.key, px.key)
	}
	if f.total != px.total {
		return cmp.Compare(f.total, px.total)
	}
	return strings.Compare(place(b[len(b)-1]).id, px.id)
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
// 4-byte-per-entry copy of at most 2 KB, and the index (copied whole by a
// build that re-places a flag in the list) 44 bytes per block. A vote
// tick copies both: at 512 the blocks were the larger part, and 256 made
// BenchmarkBuildTick/100k/votes 10 % faster and 1M's the same, with fewer
// bytes (13.2 -> 12.4 MB at 1M); 128 copied more index than it spared.
const blockLen = 256

// cut makes the order of the positions flat, sorted by place, whose
// memory its blocks share.
func cut(flat []int32, place func(int32) placeKey) order {
	var o order
	for lo := 0; lo < len(flat); lo += blockLen {
		hi := min(lo+blockLen, len(flat))
		o.blocks = append(o.blocks, flat[lo:hi:hi])
		o.fence = append(o.fence, place(flat[hi-1]).fenced())
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

// neighbour returns the entry next to entry i of block k, the one before
// (step -1) or after (step 1), across blocks; false at either end.
func (o *order) neighbour(k, i, step int) (int32, bool) {
	i += step
	for i < 0 || i >= len(o.blocks[k]) {
		if k += step; k < 0 || k >= len(o.blocks) {
			return 0, false
		}
		if i < 0 {
			i = len(o.blocks[k]) - 1
		} else {
			i = 0
		}
	}
	return o.blocks[k][i], true
}

// locate returns the block of position x, whose place is px (place
// placing o's entries), and x's index in it; false if x is not there.
func (o *order) locate(px placeKey, x int32, place func(int32) placeKey) (k, i int, ok bool) {
	k = sort.Search(len(o.fence), func(k int) bool { return fenceCompare(o.fence[k], o.blocks[k], px, place) >= 0 })
	if k == len(o.blocks) {
		return 0, 0, false
	}
	i = slices.Index(o.blocks[k], x)
	return k, i, i >= 0
}

// entryAt is where an entry is in an order: block k, index i in it.
type entryAt struct{ k, i int }

// refence is a fence a build renews: block k's, to f.
type refence struct {
	k int
	f fenceKey
}

// stayers finds the positions that replace need not move: taken out (at
// gone, in out's order) and put in once each, whose new place (after)
// still falls strictly between the same neighbours in o, neither of them
// moving. So goes a vote in the orders by date (the date decides), and a
// small change of a key among sparse neighbours. It returns gone (its
// own array, filtered in place) and in (a copy: the caller's) without
// them, and the fences to renew: those of the blocks a stayer ends.
func (o *order) stayers(out []int32, gone []entryAt, in []int32, after func(int32) placeKey) ([]entryAt, []int32, []refence) {
	if len(in) == 0 || len(gone) == 0 {
		return gone, in, nil
	}
	moving, joining := slices.Sorted(slices.Values(out)), slices.Sorted(slices.Values(in))
	named := func(list []int32, x int32) int { // how often list (sorted) names x
		i, _ := slices.BinarySearch(list, x)
		n := 0
		for i+n < len(list) && list[i+n] == x {
			n++
		}
		return n
	}
	stillBetween := func(x int32, g entryAt) bool {
		if named(moving, x) != 1 || named(joining, x) != 1 {
			return false
		}
		px := after(x)
		if p, ok := o.neighbour(g.k, g.i, -1); ok && (named(moving, p) > 0 || after(p).compare(px) >= 0) {
			return false
		}
		if p, ok := o.neighbour(g.k, g.i, 1); ok && (named(moving, p) > 0 || after(p).compare(px) <= 0) {
			return false
		}
		return true
	}
	var stayed []int32
	var refenced []refence
	kept := gone[:0]
	for n, x := range out {
		g := gone[n]
		if !stillBetween(x, g) {
			kept = append(kept, g)
			continue
		}
		stayed = append(stayed, x)
		if g.i == len(o.blocks[g.k])-1 {
			refenced = append(refenced, refence{g.k, after(x).fenced()})
		}
	}
	if len(stayed) == 0 {
		return gone, in, nil
	}
	slices.Sort(stayed)
	in = slices.DeleteFunc(slices.Clone(in), func(x int32) bool { _, ok := slices.BinarySearch(stayed, x); return ok })
	return kept, in, refenced
}

// replace returns o with the positions out taken away and in put in their
// places, sharing every block neither touches. before places the
// positions as o is sorted (the snapshot o was built for), after as the
// result is to be; in must be sorted by after. The two may differ only on
// the positions of out: every position that stays is placed the same by
// both. It reports false, and leaves o as it was, if a position of out is
// not in o.
func (o *order) replace(out []int32, before func(int32) placeKey, in []int32, after func(int32) placeKey) (order, bool) {
	gone, ok := o.locateAll(make([]entryAt, 0, len(out)), out, before)
	if !ok {
		return *o, false
	}
	gone, in, refenced := o.stayers(out, gone, in, after)
	if len(gone) == 0 && len(in) == 0 && len(refenced) == 0 {
		return *o, true // every position stayed, between the same neighbours, no fence moved
	}
	// The fences, the blocks and which are this build's own copies (which
	// it may write), as three arrays copied whole: a per-block loop over
	// every block of a large list costs more than the changes themselves.
	// Where every position stayed, the blocks are shared too.
	fence := slices.Clone(o.fence)
	for _, r := range refenced {
		fence[r.k] = r.f
	}
	if len(gone) == 0 && len(in) == 0 {
		return order{blocks: o.blocks, ends: o.ends, fence: fence}, true
	}
	e := blockEdit{blocks: slices.Clone(o.blocks), fence: fence, own: make([]bool, len(o.blocks))}
	e.remove(gone, after)
	for _, x := range in {
		e.insert(x, after)
	}
	return e.done(), true
}

// locateAll appends to gone where each position of out is in o, placed
// by before; false if one is not there. (The caller makes gone: made
// here, it would be allocated on the heap for every order a build
// changes.)
func (o *order) locateAll(gone []entryAt, out []int32, before func(int32) placeKey) ([]entryAt, bool) {
	for _, x := range out {
		k, i, ok := o.locate(before(x), x, before)
		if !ok {
			return nil, false
		}
		gone = append(gone, entryAt{k, i})
	}
	return gone, true
}

// blockEdit is an order that replace is changing: its blocks, their
// fences and which blocks are this build's own copies, which it may
// write (the others are shared with the order it started from).
type blockEdit struct {
	blocks [][]int32
	fence  []fenceKey
	own    []bool
}

// remove takes out the entries at gone, renews the fences of the blocks
// it shortened and drops the blocks it emptied. after places the
// entries that stay, as before does.
func (e *blockEdit) remove(gone []entryAt, after func(int32) placeKey) {
	slices.SortFunc(gone, func(a, b entryAt) int {
		if a.k != b.k {
			return a.k - b.k
		}
		return b.i - a.i // within a block, the last first: indexes stay good
	})
	emptied := false
	for n, g := range gone {
		if n > 0 && gone[n-1] == g {
			continue // a position named twice
		}
		if !e.own[g.k] {
			e.blocks[g.k], e.own[g.k] = slices.Clone(e.blocks[g.k]), true
		}
		e.blocks[g.k] = slices.Delete(e.blocks[g.k], g.i, g.i+1)
		emptied = emptied || len(e.blocks[g.k]) == 0
	}
	for n, g := range gone {
		if b := e.blocks[g.k]; len(b) > 0 && (n == 0 || gone[n-1].k != g.k) {
			e.fence[g.k] = after(b[len(b)-1]).fenced() // it stays: placed the same by both
		}
	}
	if emptied {
		e.dropEmpty()
	}
}

// dropEmpty takes out the blocks with no entry left.
func (e *blockEdit) dropEmpty() {
	j := 0
	for k := range e.blocks {
		if len(e.blocks[k]) > 0 {
			e.blocks[j], e.fence[j], e.own[j] = e.blocks[k], e.fence[k], e.own[k]
			j++
		}
	}
	e.blocks, e.fence, e.own = e.blocks[:j], e.fence[:j], e.own[:j]
}

// insert puts x in the first block whose last entry comes after it (or
// the last block), splitting a block grown past twice blockLen.
func (e *blockEdit) insert(x int32, after func(int32) placeKey) {
	px := after(x)
	if len(e.blocks) == 0 {
		e.blocks, e.fence, e.own = append(e.blocks, []int32{x}), append(e.fence, px.fenced()), append(e.own, true)
		return
	}
	k := sort.Search(len(e.fence), func(k int) bool { return fenceCompare(e.fence[k], e.blocks[k], px, after) > 0 })
	k = min(k, len(e.blocks)-1)
	if !e.own[k] {
		b := make([]int32, len(e.blocks[k]), len(e.blocks[k])+8)
		copy(b, e.blocks[k])
		e.blocks[k], e.own[k] = b, true
	}
	b := e.blocks[k]
	i := sort.Search(len(b), func(i int) bool { return after(b[i]).compare(px) > 0 })
	b = slices.Insert(b, i, x)
	e.blocks[k] = b
	if i == len(b)-1 {
		e.fence[k] = px.fenced()
	}
	if len(b) > 2*blockLen {
		half := len(b) / 2
		e.blocks[k] = slices.Clone(b[:half])
		e.blocks = slices.Insert(e.blocks, k+1, slices.Clone(b[half:]))
		e.fence = slices.Insert(e.fence, k, after(b[half-1]).fenced())
		e.own = slices.Insert(e.own, k+1, true)
	}
}

// done returns the order edited, each short block this build wrote
// merged into its neighbour where the two fit in one, so that blocks
// never dwindle to a few entries each. Blocks this build did not write
// are moved, not copied.
func (e *blockEdit) done() order {
	blocks, fence, own := e.blocks, e.fence, e.own
	j := 0
	for k := range blocks {
		b := blocks[k]
		if j > 0 && (own[k] || own[j-1]) && fitTogether(blocks[j-1], b) {
			m := make([]int32, 0, len(blocks[j-1])+len(b))
			blocks[j-1], fence[j-1], own[j-1] = append(append(m, blocks[j-1]...), b...), fence[k], true
			continue
		}
		if own[k] {
			b = slices.Clip(b)
		}
		blocks[j], fence[j], own[j] = b, fence[k], own[k]
		j++
	}
	// The tail of blocks past j is cleared: it is this build's copy, and a
	// block left there would be kept alive unseen.
	clear(blocks[j:])
	r := order{blocks: blocks[:j:j], fence: fence[:j:j]}
	r.index()
	return r
}

// fitTogether reports whether two neighbouring blocks are to be one: one
// of them is short (under a quarter of blockLen) and the two fit in twice
// blockLen.
func fitTogether(a, b []int32) bool {
	return (len(a) < blockLen/4 || len(b) < blockLen/4) && len(a)+len(b) <= 2*blockLen
}
