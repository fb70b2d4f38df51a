package memstore

import (
	"slices"
	"sync"
	"unsafe"
)

// arena hands out the flags of a full load (see Flag: each is one record,
// the Flag followed by its strings and word ids) from a few large chunks
// instead of one allocation each. The survivors of a load then sit
// together rather than scattered among its garbage, so the heap does not
// fragment. A chunk is a []uint64: it holds no pointer, so the collector
// neither scans it nor follows anything out of it, and marks it once for
// every flag that points into it. A chunk lives as long as any flag
// carved from it does; a builder that makes few flags (a tick) uses a nil
// arena, which allocates each record on its own so that nothing it
// replaces later is kept alive by a neighbour.
type arena struct {
	recs []uint64
	// nextRecs is the next chunk's size, in words: it starts small (a
	// tick that adds one flag uses little) and doubles up to maxChunk.
	nextRecs    int
	scratch     []byte
	wordScratch []uint32
}

// maxChunk is the largest chunk, in bytes; a record larger than an eighth
// of it that does not fit in what is left of the current chunk gets an
// allocation of its own.
const maxChunk = 1 << 20

func newArena() *arena { return &arena{nextRecs: 4 << 10 / 8} }

// grow returns the size of the next chunk for a request of n elements.
func grow(next *int, n, limit int) int {
	size := *next
	*next = min(*next*2, limit)
	return max(size, n)
}

// record returns n bytes (a multiple of 8) of zeroed, 8-byte aligned
// memory that holds no pointer.
func (a *arena) record(n int) (p unsafe.Pointer, at uint32) {
	w := n / 8
	if a == nil {
		return unsafe.Pointer(unsafe.SliceData(make([]uint64, w))), 0
	}
	if w > cap(a.recs)-len(a.recs) {
		if n > maxChunk/8 {
			return unsafe.Pointer(unsafe.SliceData(make([]uint64, w))), 0
		}
		a.recs = make([]uint64, 0, grow(&a.nextRecs, w, maxChunk/8))
	}
	start := len(a.recs)
	a.recs = a.recs[:start+w]
	return unsafe.Pointer(&a.recs[start]), uint32(start)
}

// buffer is a scratch buffer of at least n bytes' capacity for encoding
// what a record then keeps; nil's is a new one.
func (a *arena) buffer(n int) []byte {
	if a == nil {
		return make([]byte, 0, n)
	}
	if cap(a.scratch) < n {
		a.scratch = make([]byte, 0, n)
	}
	return a.scratch[:0]
}

// done takes back a buffer that buffer handed out, to reuse it.
func (a *arena) done(b []byte) {
	if a != nil {
		a.scratch = b[:0]
	}
}

// wordBuffer and wordsDone are buffer and done for word ids.
func (a *arena) wordBuffer() []uint32 {
	if a == nil {
		return nil
	}
	return a.wordScratch[:0]
}

func (a *arena) wordsDone(w []uint32) {
	if a != nil {
		a.wordScratch = w[:0]
	}
}

// contextLists are the lists of one to four context enums made so far,
// by their enums' places in Contexts, each one plus one in four bits;
// never more than the 6^4 + 6^3 + 6^2 + 6 lists there can be (repeats
// included). Flag.Contexts answers these, without allocating, for every
// flag whose contexts are such a list.
var contextLists sync.Map // uint16 -> []string

// contextList returns the shared list of the contexts written in s (see
// Flag.Contexts), nil when they are not one to four enums.
func contextList(s string) []string {
	var key uint16
	n := 0
	for c := range contextsOf(s) {
		k := slices.Index(Contexts, c)
		if n++; n > 4 || k < 0 || k >= 15 {
			return nil
		}
		key = key<<4 | uint16(k+1)
	}
	if n == 0 {
		return nil
	}
	if l, ok := contextLists.Load(key); ok {
		return l.([]string)
	}
	l := make([]string, 0, n)
	for c := range contextsOf(s) {
		l = append(l, Contexts[slices.Index(Contexts, c)])
	}
	got, _ := contextLists.LoadOrStore(key, l)
	return got.([]string)
}
