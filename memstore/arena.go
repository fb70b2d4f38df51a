package memstore

import (
	"slices"
	"sync"
	"unsafe"
)

// arena hands out the immutable parts of many objects built together (the
// flags of a full load, a whole trend history) from a few large chunks
// instead of one allocation each. The survivors of a load then sit
// together rather than scattered among its garbage, so the heap does not
// fragment, and the collector marks a few chunks instead of hundreds of
// thousands of small objects. A chunk lives as long as anything carved
// from it does; a builder that makes few objects (a tick) uses a nil
// arena, which allocates each object on its own so that nothing it
// replaces later is kept alive by a neighbour.
type arena struct {
	bytes []byte
	words []uint32
	flags []Flag
	strs  []string
	// Chunk sizes, in elements: each starts small (a tick that adds one
	// flag uses little) and doubles up to a limit.
	nextBytes, nextWords, nextFlags, nextStrs int
	scratch                                   []byte
	wordScratch                               []uint32
}

const (
	maxChunk     = 1 << 20 // bytes
	maxFlagChunk = 1024    // flags
)

func newArena() *arena {
	return &arena{nextBytes: 4 << 10, nextWords: 1 << 10, nextFlags: 16, nextStrs: 16}
}

// grow returns the size of the next chunk for a request of n elements.
func grow(next *int, n, limit int) int {
	size := *next
	*next = min(*next*2, limit)
	return max(size, n)
}

// copyBytes returns a copy of b with no spare capacity.
func (a *arena) copyBytes(b []byte) []byte {
	if a == nil {
		return append(make([]byte, 0, len(b)), b...)
	}
	if len(b) > cap(a.bytes)-len(a.bytes) {
		if len(b) > maxChunk/8 {
			return append(make([]byte, 0, len(b)), b...)
		}
		a.bytes = make([]byte, 0, grow(&a.nextBytes, len(b), maxChunk))
	}
	start := len(a.bytes)
	a.bytes = append(a.bytes, b...)
	return a.bytes[start:len(a.bytes):len(a.bytes)]
}

// str returns a copy of s.
func (a *arena) str(s string) string {
	if a == nil || s == "" {
		return s
	}
	return a.strBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// strBytes returns b as a string.
func (a *arena) strBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if a == nil {
		return string(b)
	}
	c := a.copyBytes(b)
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// copyWords returns a copy of w with no spare capacity.
func (a *arena) copyWords(w []uint32) []uint32 {
	if a == nil || len(w) == 0 {
		return append([]uint32(nil), w...)
	}
	if len(w) > cap(a.words)-len(a.words) {
		a.words = make([]uint32, 0, grow(&a.nextWords, len(w), maxChunk/4))
	}
	start := len(a.words)
	a.words = append(a.words, w...)
	return a.words[start:len(a.words):len(a.words)]
}

// flag returns a new zero Flag.
func (a *arena) flag() *Flag {
	if a == nil {
		return new(Flag)
	}
	if len(a.flags) == cap(a.flags) {
		a.flags = make([]Flag, 0, grow(&a.nextFlags, 1, maxFlagChunk))
	}
	a.flags = a.flags[:len(a.flags)+1]
	return &a.flags[len(a.flags)-1]
}

// contexts returns a copy of cs, each value that is one of the context
// enums sharing the enum's string. A list of one to four enums is shared
// by every flag that carries it (contextLists): there are at most 1,554
// such lists, and a copy per flag was 40 bytes of every flag.
func (a *arena) contexts(cs []string) []string {
	if len(cs) == 0 {
		return nil
	}
	if shared := contextList(cs); shared != nil {
		return shared
	}
	var out []string
	if a == nil {
		out = make([]string, 0, len(cs))
	} else {
		if len(cs) > cap(a.strs)-len(a.strs) {
			a.strs = make([]string, 0, grow(&a.nextStrs, len(cs), maxFlagChunk))
		}
		start := len(a.strs)
		out = a.strs[start : start : start+len(cs)]
		a.strs = a.strs[:start+len(cs)]
	}
	for _, c := range cs {
		if k := slices.Index(Contexts, c); k >= 0 {
			c = Contexts[k]
		} else {
			c = a.str(c)
		}
		out = append(out, c)
	}
	return out
}

// contextLists are the lists of one to four context enums made so far,
// by their enums' places in Contexts, each one plus one in four bits;
// never more than the 6^4 + 6^3 + 6^2 + 6 lists there can be (repeats
// included).
var contextLists sync.Map // uint16 -> []string

// contextList returns the shared list equal to cs, nil when cs is not
// one to four enums.
func contextList(cs []string) []string {
	if len(cs) > 4 {
		return nil
	}
	var key uint16
	for _, c := range cs {
		k := slices.Index(Contexts, c)
		if k < 0 || k >= 15 {
			return nil
		}
		key = key<<4 | uint16(k+1)
	}
	if l, ok := contextLists.Load(key); ok {
		return l.([]string)
	}
	l := make([]string, len(cs))
	for i, c := range cs {
		l[i] = Contexts[slices.Index(Contexts, c)]
	}
	got, _ := contextLists.LoadOrStore(key, l)
	return got.([]string)
}

// buffer is a scratch buffer of at least n bytes' capacity for encoding
// something that copyBytes then keeps.
func (a *arena) buffer(n int) []byte {
	if a == nil {
		return make([]byte, 0, n)
	}
	if cap(a.scratch) < n {
		a.scratch = make([]byte, 0, n)
	}
	return a.scratch[:0]
}

// keep stores an encoded buffer that buffer handed out.
func (a *arena) keep(b []byte) []byte {
	if a == nil {
		return b[:len(b):len(b)]
	}
	a.scratch = b[:0]
	return a.copyBytes(b)
}

// wordBuffer and keepWords are buffer and keep for word ids.
func (a *arena) wordBuffer() []uint32 {
	if a == nil {
		return nil
	}
	return a.wordScratch[:0]
}

func (a *arena) keepWords(w []uint32) []uint32 {
	if a == nil {
		return w[:len(w):len(w)]
	}
	a.wordScratch = w[:0]
	return a.copyWords(w)
}
