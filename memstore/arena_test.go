package memstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// What an arena hands out must stay as it was kept, exact in length and
// capacity, whatever is carved or encoded after it.
func TestArenaKeepsCopies(t *testing.T) {
	for _, a := range []*arena{nil, newArena()} {
		var kept [][]byte
		var strs []string
		var words [][]uint32
		for i := range 5000 {
			want := bytes.Repeat([]byte{byte(i)}, i%700+1)
			b := a.buffer(8)
			b = append(b, want...)
			k := a.keep(b)
			if cap(k) != len(k) {
				t.Fatalf("kept %d bytes with capacity %d", len(k), cap(k))
			}
			kept = append(kept, k)
			strs = append(strs, a.str(fmt.Sprintf("flg_%08d", i)))
			ids := append(a.wordBuffer(), uint32(i), uint32(i+1), uint32(i+2))
			words = append(words, a.keepWords(ids))
			f := a.flag()
			if f.strs != "" || f.Contexts != nil {
				t.Fatalf("flag %d not zero", i)
			}
			f.strs = strs[i]
		}
		for i, k := range kept {
			if want := bytes.Repeat([]byte{byte(i)}, i%700+1); !bytes.Equal(k, want) {
				t.Fatalf("arena %v: bytes %d changed", a != nil, i)
			}
			if strs[i] != fmt.Sprintf("flg_%08d", i) {
				t.Fatalf("arena %v: string %d is %q", a != nil, i, strs[i])
			}
			if w := words[i]; len(w) != 3 || cap(w) != 3 || w[0] != uint32(i) || w[2] != uint32(i+2) {
				t.Fatalf("arena %v: words %d are %v (cap %d)", a != nil, i, w, cap(w))
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

// placement carves pieces of every kind from one arena and checks each
// against the kind's chunkRule.
type placement struct {
	t                         *testing.T
	rng                       *rand.Rand
	a                         *arena
	bytes, words, flags, strs chunkRule
	srcBytes                  []byte
	srcWords                  []uint32
}

// size is a piece's size: mostly small, sometimes exactly what is left in
// the chunk, sometimes one more.
func (pl *placement) size(left int) int {
	switch pl.rng.IntN(8) {
	case 0:
		return max(left, 1)
	case 1:
		return left + 1
	default:
		return 1 + pl.rng.IntN(300)
	}
}

// carveBytes keeps an encoding, a string or bytes as a string, in turn;
// every 500th piece is too large for any chunk.
func (pl *placement) carveBytes(i int) {
	a, before := pl.a, placeOf(pl.a.bytes)
	n := pl.size(before.cap - before.len)
	if i%500 == 499 {
		n = maxChunk/8 + 1 + pl.rng.IntN(1000)
	}
	off := pl.rng.IntN(maxChunk)
	piece := pl.srcBytes[off : off+n]
	var got []byte
	switch i % 3 {
	case 0:
		got = a.keep(append(a.buffer(n), piece...))
	case 1:
		s := a.str(string(piece))
		got = unsafe.Slice(unsafe.StringData(s), len(s))
	default:
		s := a.strBytes(piece)
		got = unsafe.Slice(unsafe.StringData(s), len(s))
	}
	if !bytes.Equal(got, piece) {
		pl.t.Fatalf("bytes %d: the copy differs", i)
	}
	pl.bytes.check(pl.t, fmt.Sprintf("bytes %d", i), n, before, placeOf(a.bytes), placeOf(got).p)
}

func (pl *placement) carveWords(i int) {
	a, before := pl.a, placeOf(pl.a.words)
	n := pl.size(before.cap - before.len)
	w := a.keepWords(append(a.wordBuffer(), pl.srcWords[i:i+n]...))
	if len(w) != n || cap(w) != n || w[0] != uint32(i) || w[n-1] != uint32(i+n-1) {
		pl.t.Fatalf("words %d: %d ids (cap %d), want %d", i, len(w), cap(w), n)
	}
	pl.words.check(pl.t, fmt.Sprintf("words %d", i), n, before, placeOf(a.words), placeOf(w).p)
}

func (pl *placement) carveFlag(i int) {
	before := placeOf(pl.a.flags)
	f := pl.a.flag()
	pl.flags.check(pl.t, fmt.Sprintf("flag %d", i), 1, before, placeOf(pl.a.flags), uintptr(unsafe.Pointer(f)))
}

// carveStrs takes a list of contexts.
func (pl *placement) carveStrs(i int) {
	a, before := pl.a, placeOf(pl.a.strs)
	cs := make([]string, min(pl.size(before.cap-before.len), 40))
	for k := range cs {
		cs[k] = Contexts[(i+k)%len(Contexts)]
	}
	got := a.contexts(cs)
	if !slices.Equal(got, cs) || cap(got) != len(cs) {
		pl.t.Fatalf("contexts %d: %q (cap %d), want %q", i, got, cap(got), cs)
	}
	if len(cs) <= 4 {
		return // a shared list (contextList), not the arena's
	}
	pl.strs.check(pl.t, fmt.Sprintf("contexts %d", i), len(cs), before, placeOf(a.strs), placeOf(got).p)
}

// The placement rule holds for bytes (strings, encodings), word ids,
// flags and string slots, with pieces that fill a chunk exactly, pieces
// one too large, and pieces too large for any chunk.
func TestArenaPlacement(t *testing.T) {
	a := newArena()
	pl := &placement{t: t, rng: rand.New(rand.NewPCG(3, 4)), a: a,
		bytes:    chunkRule{elem: 1, next: a.nextBytes, limit: maxChunk, own: maxChunk / 8},
		words:    chunkRule{elem: 4, next: a.nextWords, limit: maxChunk / 4},
		flags:    chunkRule{elem: unsafe.Sizeof(Flag{}), next: a.nextFlags, limit: maxFlagChunk},
		strs:     chunkRule{elem: unsafe.Sizeof(""), next: a.nextStrs, limit: maxFlagChunk},
		srcBytes: make([]byte, 2*maxChunk), srcWords: make([]uint32, maxChunk)}
	for k := range pl.srcBytes {
		pl.srcBytes[k] = byte(k * 7)
	}
	for k := range pl.srcWords {
		pl.srcWords[k] = uint32(k)
	}
	for i := range 1500 {
		pl.carveBytes(i)
		pl.carveWords(i)
		pl.carveFlag(i)
		pl.carveStrs(i)
	}
	// Chunks double up to their limit: few chunks for all that.
	for _, r := range []*chunkRule{&pl.bytes, &pl.words, &pl.flags, &pl.strs} {
		if r.chunks < 3 || r.next != r.limit {
			t.Errorf("%d chunks of %d-byte elements, next %d: the sizes did not double up to %d", r.chunks, r.elem, r.next, r.limit)
		}
	}
}

// A context that is one of the enums shares the enum's string; any other
// value is copied (into the arena, when there is one).
func TestArenaContexts(t *testing.T) {
	custom := string([]byte("PEN_PAL"))
	for _, a := range []*arena{nil, newArena()} {
		in := []string{custom}
		for _, c := range Contexts {
			in = append(in, string([]byte(c))) // equal, not the same string
		}
		got := a.contexts(in)
		if !slices.Equal(got, in) {
			t.Fatalf("arena %v: %q", a != nil, got)
		}
		for k, c := range Contexts {
			if unsafe.StringData(got[k+1]) != unsafe.StringData(c) {
				t.Errorf("arena %v: %s is not the enum's string", a != nil, c)
			}
		}
		if shared := unsafe.StringData(got[0]) == unsafe.StringData(custom); shared == (a != nil) {
			t.Errorf("arena %v: the other value shared with the input: %v", a != nil, shared)
		}
		if a.contexts(nil) != nil || a.contexts([]string{}) != nil {
			t.Errorf("arena %v: no contexts must be nil", a != nil)
		}
		// One to four enums: one list, shared by every flag that has it.
		for _, list := range [][]string{{"WORK"}, {"ONLINE", "FRIEND"}, {"FAMILY", "FAMILY", "WORK", "ROMANTIC"}} {
			one, two := a.contexts(slices.Clone(list)), newArena().contexts(slices.Clone(list))
			if !slices.Equal(one, list) || &one[0] != &two[0] || cap(one) != len(one) {
				t.Errorf("arena %v: %q gave %q and %q, shared %v", a != nil, list, one, two, &one[0] == &two[0])
			}
		}
		if one, two := a.contexts([]string{"WORK", "FRIEND"}), a.contexts([]string{"FRIEND", "WORK"}); !slices.Equal(two, []string{"FRIEND", "WORK"}) || &one[0] == &two[0] {
			t.Errorf("arena %v: an order is its own list: %q %q", a != nil, one, two)
		}
		five := []string{"WORK", "WORK", "WORK", "WORK", "WORK"}
		if one, two := a.contexts(five), a.contexts(five); !slices.Equal(one, five) || &one[0] == &two[0] {
			t.Errorf("arena %v: five contexts %q shared", a != nil, one)
		}
	}
}

// Building with an arena allocates per chunk, not per object: carving
// 100,000 small strings, word lists and flags takes a few dozen
// allocations, where one each would take 300,000.
func TestArenaAllocatesPerChunk(t *testing.T) {
	b := []byte("twenty-four bytes long!!")
	ids := []uint32{1, 2, 3, 4}
	allocs := testing.AllocsPerRun(1, func() {
		a := newArena()
		for range 100_000 {
			a.strBytes(b)
			a.keepWords(append(a.wordBuffer(), ids...))
			a.flag()
		}
	})
	if allocs > 300 {
		t.Errorf("%v allocations for 100,000 strings, word lists and flags", allocs)
	}
}

// The scratch buffer is reused while it is large enough, and replaced by
// a larger one when it is not.
func TestArenaReusesScratch(t *testing.T) {
	a := newArena()
	first := a.buffer(100)
	a.keep(append(first, make([]byte, 100)...))
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

// TestFlagSize: a flag is 176 bytes on a 64-bit machine, its version in
// what was padding; every byte more is 100 KB at 100,000 flags, and a
// field out of place costs a word of padding.
func TestFlagSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit machines")
	}
	if n := unsafe.Sizeof(Flag{}); n != 176 {
		t.Errorf("a Flag is %d bytes, want 176", n)
	}
}
