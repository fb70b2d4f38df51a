package memstore

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// A build's steps on their own: the kept slots' remap, the moves a slot
// makes in the lists it leaves and joins, and the blocks an edited order
// merges when it is done.

func TestKeptSlots(t *testing.T) {
	if got, want := keptSlots(5, []int32{1, 3}), []int32{0, -1, 2, -1, 4}; !slices.Equal(got, want) {
		t.Errorf("keptSlots(5, [1 3]) = %v, want %v", got, want)
	}
	if got := keptSlots(0, nil); len(got) != 0 {
		t.Errorf("keptSlots(0) = %v", got)
	}
}

// A slot whose place did not change moves only out of the lists it left
// and into those it joined; one whose place changed leaves and joins
// every list it is in.
func TestMoveSetNote(t *testing.T) {
	ms := moveSet{}
	ms.note(7, SortNet, []int{0, 1, 2}, []int{0, 1, 3}, false)
	want := moveSet{2: {}, 3: {}}
	want[2].out[SortNet] = []int32{7}
	want[3].in[SortNet] = []int32{7}
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("the same place: %v, want %v", ms, want)
	}
	ms = moveSet{}
	ms.note(7, SortTotal, []int{0, 1}, []int{0, 1}, true)
	for _, l := range []int{0, 1} {
		if m := ms[l]; m == nil || !slices.Equal(m.out[SortTotal], []int32{7}) || !slices.Equal(m.in[SortTotal], []int32{7}) {
			t.Errorf("rekeyed, list %d: %v, want out and in", l, m)
		}
	}
	if len(ms) != 2 {
		t.Errorf("rekeyed: %d lists moved, want 2", len(ms))
	}
}

// replaced: a flag's place in a sort changes with its key there or its
// total, and a slot with no flag before or after always moves.
func TestReplacedPlace(t *testing.T) {
	now := time.Now()
	at := func(red, green int64, created time.Time) *Flag {
		f := newRecord(nil, 0, 0)
		f.Red, f.Green, f.createdMS = red, green, created.UnixMilli()
		return f
	}
	pf := at(3, 1, now)
	for _, c := range []struct {
		f    *Flag
		srt  Sort
		want bool
	}{
		{at(3, 1, now), SortNet, false},
		{at(4, 2, now), SortNet, true},                     // net the same, total not
		{at(2, 2, now), SortTotal, false},                  // total the same
		{at(3, 1, now.Add(time.Second)), SortNewest, true}, // a newer date
		{at(3, 1, now.Add(time.Second)), SortTotal, false}, // the date is not this sort's key
		{nil, SortNet, true},
	} {
		if got := replaced(pf, c.f, c.srt); got != c.want {
			t.Errorf("replaced(%v, sort %d) = %v, want %v", c.f, c.srt, got, c.want)
		}
	}
	if !replaced(nil, pf, SortNet) {
		t.Error("a slot with no flag before: not moved")
	}
}

// done merges a short block this build wrote into its neighbour when the
// two fit in one, leaves alone two blocks neither of which it wrote, and
// indexes the result.
func TestBlockEditDone(t *testing.T) {
	run := func(from, n int32) []int32 {
		b := make([]int32, n)
		for i := range b {
			b[i] = from + int32(i)
		}
		return b
	}
	short, long := int32(blockLen/4-1), int32(blockLen)
	fences := func(n int) []fenceKey { return make([]fenceKey, n) }
	e := blockEdit{blocks: [][]int32{run(0, long), run(long, short), run(long+short, long)},
		fence: fences(3), own: []bool{false, true, false}}
	o := e.done()
	if got := len(o.blocks); got != 2 {
		t.Fatalf("%d blocks, want 2: the short written one merged into the first", got)
	}
	if len(o.blocks[0]) != int(long+short) || o.len() != int(2*long+short) || o.ends[0] != long+short {
		t.Errorf("blocks of %d and %d, ends %v", len(o.blocks[0]), len(o.blocks[1]), o.ends)
	}
	e = blockEdit{blocks: [][]int32{run(0, short), run(short, short)}, fence: fences(2), own: []bool{false, false}}
	if o := e.done(); len(o.blocks) != 2 {
		t.Errorf("two shared short blocks: %d blocks, want them left as they are", len(o.blocks))
	}
	e = blockEdit{blocks: [][]int32{run(0, 2*blockLen), run(2*blockLen, short)}, fence: fences(2), own: []bool{true, true}}
	if o := e.done(); len(o.blocks) != 2 {
		t.Errorf("a short block after a full one: %d blocks, want 2 (the two do not fit in one)", len(o.blocks))
	}
}

// nextByID walks prev's flags and a change's, both by id, as a merge.
func TestNextByID(t *testing.T) {
	now := time.Now().UTC()
	var ins []FlagInput
	for _, id := range []string{"a", "c", "e"} {
		ins = append(ins, FlagInput{ID: id, Slug: "s" + id, Approved: true, Category: "SOCIAL", CreatedAt: now, UpdatedAt: now})
	}
	prev, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	old := prev.slotsByID()
	ch := []FlagInput{{ID: "b"}, {ID: "c"}, {ID: "f"}}
	in := []int32{0, 1, 2}
	var got []string
	for i, j := 0, 0; i < len(old) || j < len(in); {
		pf, x := nextByID(prev, old, i, ch, in, j)
		s := ""
		if pf != nil {
			s += pf.ID()
			i++
		}
		s += "/"
		if x != nil {
			s += x.ID
			j++
		}
		got = append(got, s)
	}
	if want := []string{"a/", "/b", "c/c", "e/", "/f"}; !slices.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
}
