package memstore

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// What an arena hands out is zeroed, 8-byte aligned, as large as asked,
// and stays as it was written, whatever is carved after it.
func TestArenaKeepsRecords(t *testing.T) {
	for _, a := range []*arena{nil, newArena()} {
		var recs [][]byte
		for i := range 5000 {
			n := (i%700 + 1) * 8
			p, at := a.record(n)
			if uintptr(p)%8 != 0 {
				t.Fatalf("arena %v: record %d at %#x, not 8-byte aligned", a != nil, i, uintptr(p))
			}
			// at is the record's place in its chunk, 0 for one of its own.
			if a == nil && at != 0 || a != nil && unsafe.Pointer(&a.recs[at]) != p {
				t.Fatalf("arena %v: record %d told place %d, not where it is", a != nil, i, at)
			}
			b := unsafe.Slice((*byte)(p), n)
			for k, c := range b {
				if c != 0 {
					t.Fatalf("arena %v: record %d not zero at %d", a != nil, i, k)
				}
			}
			for k := range b {
				b[k] = byte(i + k)
			}
			recs = append(recs, b)
		}
		for i, b := range recs {
			for k, c := range b {
				if c != byte(i+k) {
					t.Fatalf("arena %v: record %d changed at %d", a != nil, i, k)
				}
			}
		}
	}
}

// place is where a slice lies: its first element's address, its length and
// its capacity in elements.
type place struct {
	p        uintptr
	len, cap int
}

func placeOf[T any](s []T) place {
	if cap(s) == 0 {
		return place{}
	}
	return place{uintptr(unsafe.Pointer(unsafe.SliceData(s))), len(s), cap(s)}
}

// chunkRule is the arena's placement rule for one kind of element: a piece
// that fits in what is left of the current chunk goes right after the
// previous piece; one that does not starts a new chunk, which is as large
// as the piece or the next size, whichever is larger, the sizes doubling
// from the first up to the limit; a piece larger than own (when own > 0)
// gets an allocation of its own and leaves the current chunk in use.
type chunkRule struct {
	elem        uintptr
	next, limit int
	own         int
	chunks      int
}

func (r *chunkRule) check(t *testing.T, what string, n int, before, after place, got uintptr) {
	t.Helper()
	rem := before.cap - before.len
	switch {
	case n <= rem:
		if got != before.p+uintptr(before.len)*r.elem || after.p != before.p || after.len != before.len+n {
			t.Fatalf("%s: a piece of %d that fits in the %d left was not put right after the previous one", what, n, rem)
		}
	case r.own > 0 && n > r.own:
		if after != before || got >= before.p && got < before.p+uintptr(before.cap)*r.elem {
			t.Fatalf("%s: a piece of %d (over %d) did not get an allocation of its own, or the current chunk was dropped", what, n, r.own)
		}
	default:
		if want := max(r.next, n); after.p != got || after.len != n || after.cap != want {
			t.Fatalf("%s: a piece of %d with %d left: at %d of a new chunk of %d (length %d), want at 0 of a chunk of %d",
				what, n, rem, (got-after.p)/r.elem, after.cap, after.len, want)
		}
		r.next = min(r.next*2, r.limit)
		r.chunks++
	}
}

// The placement rule holds for records, with records that fill a chunk
// exactly, records one word too large, and records too large for any chunk.
func TestArenaPlacement(t *testing.T) {
	a := newArena()
	r := chunkRule{elem: 8, next: a.nextRecs, limit: maxChunk / 8, own: maxChunk / 8 / 8}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 6000 {
		before := placeOf(a.recs)
		left := before.cap - before.len
		var n int // in words
		switch {
		case i%500 == 499:
			n = maxChunk/8/8 + 1 + rng.IntN(1000)
		case rng.IntN(8) == 0:
			n = max(left, 1)
		case rng.IntN(8) == 0:
			n = left + 1
		default:
			n = 1 + rng.IntN(80)
		}
		p, _ := a.record(n * 8)
		r.check(t, fmt.Sprintf("record %d", i), n, before, placeOf(a.recs), uintptr(p))
	}
	// Chunks double up to their limit: few chunks for all that.
	if r.chunks < 3 || r.next != r.limit {
		t.Errorf("%d chunks, next %d: the sizes did not double up to %d", r.chunks, r.next, r.limit)
	}
}

// Building with an arena allocates per chunk, not per object: carving
// 100,000 flag records takes a few dozen allocations.
func TestArenaAllocatesPerChunk(t *testing.T) {
	allocs := testing.AllocsPerRun(1, func() {
		a := newArena()
		for range 100_000 {
			newRecord(a, 300, 40)
		}
	})
	if allocs > 300 {
		t.Errorf("%v allocations for 100,000 flag records", allocs)
	}
}

// The scratch buffer is reused while it is large enough, and replaced by
// a larger one when it is not.
func TestArenaReusesScratch(t *testing.T) {
	a := newArena()
	first := a.buffer(100)
	a.done(append(first, make([]byte, 100)...))
	if again := a.buffer(100); cap(again) != cap(first) || unsafe.SliceData(again[:1]) != unsafe.SliceData(first[:1]) {
		t.Fatal("a buffer as large as the last one is not the same memory")
	}
	if small := a.buffer(10); unsafe.SliceData(small[:1]) != unsafe.SliceData(first[:1]) {
		t.Fatal("a smaller buffer is not the same memory")
	}
	if larger := a.buffer(101); cap(larger) < 101 {
		t.Fatalf("a buffer of 101 bytes has room for %d", cap(larger))
	}
}

// TestFlagSize: a flag is 120 bytes on a 64-bit machine, its strings and
// words after it; every byte more is 100 KB at 100,000 flags, and a
// field out of place costs a word of padding.
func TestFlagSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit machines")
	}
	if n := unsafe.Sizeof(Flag{}); n != 120 {
		t.Errorf("a Flag is %d bytes, want 120", n)
	}
}

// A Flag must hold no pointer: its record is memory the collector does
// not scan (see arena), so a pointer in it would not keep what it points
// to alive.
func TestFlagHoldsNoPointer(t *testing.T) {
	for _, path := range pointersIn(reflect.TypeFor[Flag](), "Flag") {
		t.Errorf("%s: a pointer, or holds one", path)
	}
}

// pointersIn lists the paths in ty (named name) that are or hold a
// pointer: what the collector reads in a value of ty.
func pointersIn(ty reflect.Type, name string) []string {
	switch ty.Kind() {
	case reflect.Struct:
		var out []string
		for i := range ty.NumField() {
			out = append(out, pointersIn(ty.Field(i).Type, name+"."+ty.Field(i).Name)...)
		}
		return out
	case reflect.Array:
		return pointersIn(ty.Elem(), name+"[]")
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return nil
	}
	return []string{name + " (" + ty.Kind().String() + ")"}
}

// An order's fences hold no pointer: a build copies the array whole for
// each list it re-places a flag in, and the collector marks it unread.
func TestFenceHoldsNoPointer(t *testing.T) {
	if got := pointersIn(reflect.TypeFor[fenceKey](), "fenceKey"); len(got) > 0 {
		t.Errorf("pointers in an order's fence: %v", got)
	}
}

// A trie's arrays, whose length is its vocabulary's or its postings',
// hold no pointer: the collector marks each of them without reading it.
// Only the one string of the words and the sparse map (a few words) are
// one pointer each.
func TestTrieArraysHoldNoPointer(t *testing.T) {
	ty := reflect.TypeFor[trie]()
	for i := range ty.NumField() {
		f := ty.Field(i)
		switch f.Type.Kind() {
		case reflect.Slice:
			for _, path := range pointersIn(f.Type.Elem(), "trie."+f.Name+"[]") {
				t.Errorf("%s: a pointer, or holds one, in every element", path)
			}
		case reflect.Map:
			for _, path := range append(pointersIn(f.Type.Key(), "trie."+f.Name+" key"),
				pointersIn(f.Type.Elem(), "trie."+f.Name+" value")...) {
				t.Errorf("%s: a pointer, or holds one, in every entry", path)
			}
		}
	}
}

// A flag's record holds its strings and words exactly, whether carved
// from an arena or made alone, and a copy of it (renumbered) holds the
// same strings with the words it was given.
func TestFlagRecord(t *testing.T) {
	lx := newLexicon()
	for _, a := range []*arena{nil, newArena()} {
		var flags []*Flag
		var ins []FlagInput
		for i := range 300 {
			in := changeFixture(fmt.Sprintf("flg_rec_%d", i))
			in.Slug = fmt.Sprintf("slug-%d%s", i, string(make([]byte, i%9)))
			in.Text[EN] = fmt.Sprintf("word%d another%d and more words %d", i, i%7, i%3)
			in.Contexts = Contexts[:i%len(Contexts)]
			f := newFlag(&in, catSocial, nil, lx, a)
			flags, ins = append(flags, f), append(ins, in)
		}
		for i, f := range flags {
			in := &ins[i]
			if !f.sameAs(in, catSocial) || f.Slug() != in.Slug || f.Text(EN) != in.Text[EN] || !slices.Equal(f.Contexts(), in.Contexts) && len(in.Contexts) > 0 {
				t.Fatalf("arena %v: flag %d reads %q %q %q", a != nil, i, f.Slug(), f.Text(EN), f.Contexts())
			}
			if len(f.words()) == 0 || len(f.words()) != int(f.stemEnd[NumLangs-1]) {
				t.Fatalf("arena %v: flag %d has %d word ids", a != nil, i, len(f.words()))
			}
			w := slices.Clone(f.words())
			for k := range w {
				w[k] += 7
			}
			g := f.renumbered(newArena(), w)
			if g.strs() != f.strs() || !slices.Equal(g.words(), w) || g.ends != f.ends || g.version != f.version || g.Red != f.Red {
				t.Fatalf("arena %v: flag %d renumbered differs", a != nil, i)
			}
		}
	}
}

// A flag's contexts read back as given; a list of one to four enums is
// one list shared by every flag that carries it, any other value is the
// flag's own.
func TestFlagContexts(t *testing.T) {
	lx := newLexicon()
	mk := func(cs ...string) *Flag {
		in := changeFixture("flg_ctx")
		in.Contexts = cs
		return newFlag(&in, catSocial, nil, lx, nil)
	}
	if mk().Contexts() != nil || mk([]string{}...).Contexts() != nil {
		t.Error("no contexts must be nil")
	}
	for _, list := range [][]string{{"WORK"}, {"ONLINE", "FRIEND"}, {"FAMILY", "FAMILY", "WORK", "ROMANTIC"}} {
		one, two := mk(slices.Clone(list)...).Contexts(), mk(slices.Clone(list)...).Contexts()
		if !slices.Equal(one, list) || &one[0] != &two[0] || cap(one) != len(one) {
			t.Errorf("%q gave %q and %q, shared %v", list, one, two, &one[0] == &two[0])
		}
		for k, c := range one {
			if unsafe.StringData(c) != unsafe.StringData(Contexts[slices.Index(Contexts, list[k])]) {
				t.Errorf("%q: %s is not the enum's string", list, c)
			}
		}
	}
	if one, two := mk("WORK", "FRIEND").Contexts(), mk("FRIEND", "WORK").Contexts(); !slices.Equal(two, []string{"FRIEND", "WORK"}) || &one[0] == &two[0] {
		t.Errorf("an order is its own list: %q %q", one, two)
	}
	five := []string{"WORK", "WORK", "WORK", "WORK", "WORK"}
	if one, two := mk(five...).Contexts(), mk(five...).Contexts(); !slices.Equal(one, five) || &one[0] == &two[0] {
		t.Errorf("five contexts %q shared", one)
	}
	odd := []string{"PEN_PAL", "", "WORK"}
	if got := mk(odd...).Contexts(); !slices.Equal(got, odd) {
		t.Errorf("contexts %q read back %q", odd, got)
	}
	f := mk("WORK", "FRIEND")
	if !sameContexts(f.str(strContexts), []string{"WORK", "FRIEND"}) {
		t.Errorf("the flag's own contexts %q taken as others", f.Contexts())
	}
	for _, cs := range [][]string{{"WORK"}, {"WORK", "FRIEND", ""}, {"WORKFRIEND"}, {"WORK", "FRIENDS"}, {"FRIEND", "WORK"}, nil} {
		if sameContexts(f.str(strContexts), cs) {
			t.Errorf("contexts %q taken as the flag's %q", cs, f.Contexts())
		}
	}
}

// catSocial is the category of changeFixture's flags.
var catSocial, _ = ParseCategory("SOCIAL")
