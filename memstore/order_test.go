package memstore

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// An order re-placed over and over equals a sort of what it holds, keeps
// its blocks within their bounds, and copies only the blocks it touched.
func TestOrderReplace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 6 * blockLen
	keys := make([]int64, 2*n)
	for i := range keys {
		keys[i] = rng.Int64N(200) // many ties: position breaks them
	}
	place := func(k []int64) func(i int32) placeKey {
		return func(i int32) placeKey { return placeKey{key: k[i], id: idKey(i)} }
	}
	by := func(k []int64) func(i, j int32) int {
		return func(i, j int32) int { return place(k)(i).compare(place(k)(j)) }
	}
	var held []int32 // the positions in the order
	for i := range int32(n) {
		held = append(held, i)
	}
	slices.SortFunc(held, by(keys))
	o := cut(slices.Clone(held), place(keys))
	for round := range 300 {
		newKeys := slices.Clone(keys)
		var out, in []int32
		for range rng.IntN(3 * blockLen / 2) { // some rounds empty whole blocks
			i := held[rng.IntN(len(held))]
			if slices.Contains(out, i) {
				continue
			}
			out = append(out, i)
			switch rng.IntN(3) {
			case 0: // leaves the list
			case 1: // same key: back at its place
				in = append(in, i)
			default:
				newKeys[i] = rng.Int64N(200)
				in = append(in, i)
			}
		}
		for range rng.IntN(blockLen) { // joins the list
			i := int32(rng.IntN(len(keys)))
			if !slices.Contains(held, i) && !slices.Contains(in, i) {
				newKeys[i] = rng.Int64N(200)
				in = append(in, i)
			}
		}
		slices.SortFunc(in, by(newKeys))
		next, ok := o.replace(out, place(keys), in, place(newKeys))
		if !ok {
			t.Fatalf("round %d: a held position was not found", round)
		}
		held = slices.DeleteFunc(held, func(i int32) bool { return slices.Contains(out, i) })
		held = append(held, in...)
		slices.SortFunc(held, by(newKeys))
		if got := next.flat(); !slices.Equal(got, held) {
			t.Fatalf("round %d: %d positions, want %d, or in another order", round, len(got), len(held))
		}
		shared := 0
		for k, b := range next.blocks {
			if len(b) == 0 || len(b) > 2*blockLen || int(next.ends[k]) != next.start(k)+len(b) ||
				next.fence[k] != place(newKeys)(b[len(b)-1]).fenced() {
				t.Fatalf("round %d: block %d of %d entries, ends %d, fence %v", round, k, len(b), next.ends[k], next.fence[k])
			}
			if slices.ContainsFunc(o.blocks, func(p []int32) bool { return &p[0] == &b[0] }) {
				shared++
			}
		}
		if len(next.blocks) > 8*len(held)/blockLen+2 {
			t.Fatalf("round %d: %d blocks for %d positions", round, len(next.blocks), len(held))
		}
		// Each position taken out or put in copies at most its block, a
		// split's other half and a merged neighbour.
		if copied := len(next.blocks) - shared; copied > 3*(len(out)+len(in)) {
			t.Fatalf("round %d: %d of %d blocks copied for %d changes", round, copied, len(next.blocks), len(out)+len(in))
		}
		if len(out)+len(in) == 0 && shared != len(next.blocks) {
			t.Fatalf("round %d: no change, yet %d blocks copied", round, len(next.blocks)-shared)
		}
		o, keys = next, newKeys
	}
	// Blocks emptied to one entry each merge into one.
	flat := make([]int32, 20*blockLen)
	for i := range flat {
		flat[i] = int32(i)
	}
	var out []int32
	for _, i := range flat {
		if i%blockLen != 0 {
			out = append(out, i)
		}
	}
	id := func(i int32) placeKey { return placeKey{id: idKey(i)} }
	whole := cut(flat, id)
	thin, _ := whole.replace(out, id, nil, id)
	if len(thin.blocks) != 1 || !slices.Equal(thin.flat(), []int32{0, blockLen, 2 * blockLen, 3 * blockLen, 4 * blockLen,
		5 * blockLen, 6 * blockLen, 7 * blockLen, 8 * blockLen, 9 * blockLen, 10 * blockLen, 11 * blockLen, 12 * blockLen,
		13 * blockLen, 14 * blockLen, 15 * blockLen, 16 * blockLen, 17 * blockLen, 18 * blockLen, 19 * blockLen}) {
		t.Fatalf("20 blocks thinned to one entry each: %d blocks", len(thin.blocks))
	}
	// A position that is not there is refused, the order left whole.
	missing := int32(len(keys) + 1)
	keys = append(keys, make([]int64, 2)...)
	if _, ok := o.replace([]int32{missing}, place(keys), nil, place(keys)); ok {
		t.Fatal("a position not in the order was taken out")
	}
}

// A position whose new key still falls between the same neighbours stays
// where it is: no block is copied, and the fence of a block whose last
// entry it is follows its key. One that passes a neighbour, or whose
// neighbour moves too, is placed again.
func TestOrderReplaceKeepsPlace(t *testing.T) {
	const n = 4 * blockLen
	keys := make([]int64, n)
	flat := make([]int32, n)
	for i := range keys {
		keys[i], flat[i] = 10*int64(i), int32(i)
	}
	place := func(k []int64) func(i int32) placeKey {
		return func(i int32) placeKey { return placeKey{key: k[i], id: idKey(i)} }
	}
	o := cut(slices.Clone(flat), place(keys))
	copied := func(next order) int {
		n := 0
		for _, b := range next.blocks {
			if !slices.ContainsFunc(o.blocks, func(p []int32) bool { return &p[0] == &b[0] }) {
				n++
			}
		}
		return n
	}
	// Three keys nudged within their gaps: the first entry, a block's
	// last, one in the middle of a block.
	nudged := slices.Clone(keys)
	moved := []int32{0, blockLen - 1, 2*blockLen + 7}
	for _, i := range moved {
		nudged[i] += 3
	}
	next, ok := o.replace(moved, place(keys), moved, place(nudged))
	if !ok || !slices.Equal(next.flat(), flat) {
		t.Fatal("nudged keys moved their positions")
	}
	if c := copied(next); c != 0 {
		t.Errorf("nudged keys copied %d blocks", c)
	}
	for k, b := range next.blocks {
		if next.fence[k] != place(nudged)(b[len(b)-1]).fenced() {
			t.Errorf("block %d: fence %v, want its last entry's new place", k, next.fence[k])
		}
	}
	if &next.blocks[0] != &o.blocks[0] || &next.fence[0] == &o.fence[0] {
		t.Error("every position stayed: the blocks' index should be shared, the fences (one renewed) not")
	}
	// One in the middle of a block: nothing renewed, the order shared whole.
	middle := slices.Clone(keys)
	middle[7]++
	next, _ = o.replace([]int32{7}, place(keys), []int32{7}, place(middle))
	if &next.blocks[0] != &o.blocks[0] || &next.fence[0] != &o.fence[0] || !slices.Equal(next.flat(), flat) {
		t.Error("a key nudged in the middle of a block: the order should be shared whole")
	}
	// Past a neighbour: placed again, its block copied.
	past := slices.Clone(keys)
	past[5] = keys[6] + 1
	next, _ = o.replace([]int32{5}, place(keys), []int32{5}, place(past))
	if want := append(append(slices.Clone(flat[:5]), 6, 5), flat[7:]...); !slices.Equal(next.flat(), want) || copied(next) != 1 {
		t.Errorf("a key past its neighbour: order %v..., %d blocks copied", next.flat()[:8], copied(next))
	}
	// Two neighbours that both move, each within the old gaps yet
	// crossing each other.
	crossed := slices.Clone(keys)
	crossed[8], crossed[9] = keys[9]+1, keys[8]+1
	pair := []int32{8, 9}
	in := []int32{9, 8} // sorted by the new keys
	next, _ = o.replace(pair, place(keys), in, place(crossed))
	if want := append(append(slices.Clone(flat[:8]), 9, 8), flat[10:]...); !slices.Equal(next.flat(), want) {
		t.Errorf("two neighbours crossing: order %v...", next.flat()[:12])
	}
	// A key that stays below its moving neighbour's new key, yet passes
	// the entry after the two: 20 goes to 105 under 21's 110, past 22's 100.
	leap := slices.Clone(keys)
	leap[20], leap[21] = keys[22]+5, keys[22]+10
	next, _ = o.replace([]int32{20, 21}, place(keys), []int32{20, 21}, place(leap))
	if want := append(append(slices.Clone(flat[:20]), 22, 20, 21), flat[23:]...); !slices.Equal(next.flat(), want) {
		t.Errorf("a key past the entry after its moving neighbour: order %v...", next.flat()[18:25])
	}
}

// Chained re-placements against a sort: many positions nudged within
// their gaps (they stay) beside others that move, leave or join, keys
// and totals that tie a lot (fences tie, ids decide), ids in another
// order than the positions, a position named twice in out. The order
// before is never written.
func TestOrderReplaceTiesAndStays(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		n := 1 + rng.IntN(5*blockLen)
		keyRange := int64(1 + rng.IntN(40))
		totRange := int64(1 + rng.IntN(3))
		type kt struct{ k, t int64 }
		vals := make([]kt, 3*n+10)
		for i := range vals {
			vals[i] = kt{rng.Int64N(keyRange), rng.Int64N(totRange)}
		}
		place := func(v []kt) func(i int32) placeKey {
			return func(i int32) placeKey { return placeKey{key: v[i].k, total: v[i].t, id: scrambledID(i)} }
		}
		by := func(v []kt) func(i, j int32) int {
			return func(i, j int32) int { return place(v)(i).compare(place(v)(j)) }
		}
		var held []int32
		for i := range int32(n) {
			held = append(held, i)
		}
		slices.SortFunc(held, by(vals))
		o := cut(slices.Clone(held), place(vals))
		for round := range 40 {
			nv := slices.Clone(vals)
			var out, in []int32
			inHeld := map[int32]bool{}
			for _, x := range held {
				inHeld[x] = true
			}
			touched := map[int32]bool{}
			cnt := rng.IntN(len(held) + 1)
			if rng.IntN(3) == 0 {
				cnt = rng.IntN(4)
			}
			for range cnt {
				if len(held) == 0 {
					break
				}
				x := held[rng.IntN(len(held))]
				if touched[x] {
					if rng.IntN(4) == 0 && len(out) > 0 { // duplicate in out
						out = append(out, x)
					}
					continue
				}
				touched[x] = true
				out = append(out, x)
				switch rng.IntN(5) {
				case 0: // leaves
				case 1: // same place
					in = append(in, x)
				case 2: // small nudge
					nv[x].k += rng.Int64N(3) - 1
					in = append(in, x)
				case 3:
					nv[x].t = rng.Int64N(totRange)
					in = append(in, x)
				default:
					nv[x] = kt{rng.Int64N(keyRange), rng.Int64N(totRange)}
					in = append(in, x)
				}
			}
			for range rng.IntN(20) {
				x := int32(rng.IntN(len(vals)))
				if !inHeld[x] && !touched[x] {
					touched[x] = true
					nv[x] = kt{rng.Int64N(keyRange), rng.Int64N(totRange)}
					in = append(in, x)
				}
			}
			slices.SortFunc(in, by(nv))
			oldFlat, oldFence := slices.Clone(o.flat()), slices.Clone(o.fence)
			next, ok := o.replace(out, place(vals), in, place(nv))
			if !slices.Equal(oldFlat, o.flat()) || !slices.Equal(oldFence, o.fence) {
				t.Fatalf("seed %d round %d: the order before was written", seed, round)
			}
			if !ok {
				t.Fatalf("seed %d round %d: a held position was not found", seed, round)
			}
			outSet := map[int32]bool{}
			for _, x := range out {
				outSet[x] = true
			}
			held = slices.DeleteFunc(held, func(i int32) bool { return outSet[i] })
			held = append(held, in...)
			slices.SortFunc(held, by(nv))
			if got := next.flat(); !slices.Equal(got, held) {
				t.Fatalf("seed %d round %d: wrong order (%d vs %d)", seed, round, len(got), len(held))
			}
			for k, b := range next.blocks {
				if len(b) == 0 || len(b) > 2*blockLen || int(next.ends[k]) != next.start(k)+len(b) ||
					next.fence[k] != place(nv)(b[len(b)-1]).fenced() {
					t.Fatalf("seed %d round %d: block %d of %d entries, ends %d, fence %v", seed, round, k, len(b), next.ends[k], next.fence[k])
				}
			}
			o, vals = next, nv
		}
	}
}

// scrambledID is an id for position i that sorts apart from i.
func scrambledID(i int32) string {
	h := uint32(i)*2654435761 ^ 0x5bd1e995
	return string([]byte{byte('a' + h%3), byte('a' + (h>>3)%26), byte('a' + (h>>9)%26), byte('a' + (h>>14)%26), byte('a' + (h>>19)%26)}) + idKey(i)
}

// A page's slice is the order's entries, within one block or across.
func TestOrderSlice(t *testing.T) {
	flat := make([]int32, 3*blockLen+7)
	for i := range flat {
		flat[i] = int32(i * 3)
	}
	o := cut(flat, func(i int32) placeKey { return placeKey{id: idKey(i)} })
	for _, r := range [][2]int{{0, 0}, {0, 10}, {blockLen - 3, blockLen + 5}, {blockLen, 2 * blockLen}, {5, len(flat)}, {len(flat) - 1, len(flat)}} {
		if got := o.slice(r[0], r[1]); !slices.Equal(got, flat[r[0]:r[1]]) {
			t.Fatalf("slice(%d, %d) = %d entries, want %d", r[0], r[1], len(got), r[1]-r[0])
		}
	}
	for _, v := range []int32{-1, 0, 1, 3 * blockLen, int32(3*len(flat)) + 1} {
		want, _ := slices.BinarySearch(flat, v)
		if got := o.search(func(x int32) bool { return x >= v }); got != want {
			t.Fatalf("search(>= %d) = %d, want %d", v, got, want)
		}
	}
}

// Ticks that add and remove no flag re-place flags in orders of many
// blocks; each list then equals a build's from scratch of the same data.
func TestPlacedOrdersEqualBuildFromScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	regions := []string{"", "TR", "DE", "ES"}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	flags := make([]FlagInput, 8*blockLen)
	for i := range flags {
		flags[i] = FlagInput{ID: fmt.Sprintf("flg_%05d", i), Slug: fmt.Sprintf("s-%d", i), Approved: true,
			Category: Categories[rng.IntN(NumCategories)], Region: regions[rng.IntN(len(regions))],
			CreatedAt: now.Add(-time.Duration(rng.IntN(1000)) * time.Minute), UpdatedAt: now,
			Red: rng.Int64N(30), Green: rng.Int64N(30)}
		flags[i].Text[EN] = "words"
	}
	snap, err := Build(nil, Change{Full: true, Flags: flags, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	faults := placeFaults.Load()
	for tick := range 25 {
		var ch []FlagInput
		for range 1 + rng.IntN(2*blockLen) {
			i := rng.IntN(len(flags))
			f := &flags[i]
			switch rng.IntN(10) {
			case 0:
				f.Category = Categories[rng.IntN(NumCategories)]
			case 1:
				f.Region = regions[rng.IntN(len(regions))]
			default:
				f.Red, f.Green = rng.Int64N(30), rng.Int64N(30)
			}
			ch = append(ch, *f)
		}
		next, err := Build(snap, Change{Flags: ch, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		scratch, err := Build(nil, Change{Full: true, Flags: flags, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		for srt := range NumSorts {
			for _, desc := range []bool{false, true} {
				qs := []ListQuery{{}}
				for c := range NumCategories {
					qs = append(qs, ListQuery{HasCategory: true, Category: Category(c)})
				}
				for d := range NumDominants {
					qs = append(qs, ListQuery{HasDominant: true, Dominant: d})
				}
				for _, r := range regions {
					qs = append(qs, ListQuery{HasRegion: true, Region: r})
				}
				for _, q := range qs {
					q.Sort, q.Desc, q.Limit = srt, desc, 1<<20
					g, gn := next.List(q)
					w, wn := scratch.List(q)
					if gn != wn || !slices.Equal(pageIDs(next, g), pageIDs(scratch, w)) {
						t.Fatalf("tick %d: List(%+v) differs from a build from scratch", tick, q)
					}
				}
			}
		}
		if !reflect.DeepEqual(next.Stats(), scratch.Stats()) {
			t.Fatalf("tick %d: stats differ", tick)
		}
		snap = next
	}
	if n := placeFaults.Load() - faults; n != 0 {
		t.Fatalf("%d builds could not re-place a flag", n)
	}
}

// idKey is an id that orders as the position i does.
func idKey(i int32) string { return fmt.Sprintf("%010d", i) }

// A placeSorter sorts as a comparison of places does, ties of key and
// total broken by id, and reads each position's place once, its buffer
// reused from one sort to the next.
func TestPlaceSorter(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var ps placeSorter
	for _, n := range []int{0, 1, 2, 300, 3, 17} {
		keys := make([]placeKey, n)
		for i := range keys {
			keys[i] = placeKey{key: rng.Int64N(5), total: rng.Int64N(3), id: scrambledID(int32(i))}
		}
		xs := rng.Perm(n)
		in := make([]int32, n)
		for i, x := range xs {
			in[i] = int32(x)
		}
		want := slices.Clone(in)
		slices.SortFunc(want, func(a, b int32) int { return keys[a].compare(keys[b]) })
		reads := make([]int, n)
		ps.sort(in, func(i int32) placeKey { reads[i]++; return keys[i] })
		if !slices.Equal(in, want) {
			t.Fatalf("n=%d: sorted %v, want %v", n, in, want)
		}
		for i, r := range reads {
			if n > 1 && r != 1 {
				t.Fatalf("n=%d: position %d's place read %d times, want once", n, i, r)
			}
		}
	}
}
