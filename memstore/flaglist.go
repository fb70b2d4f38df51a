package memstore

import (
	"iter"
	"unsafe"
)

// flagList is the snapshot's flags by slot, cut into pages that snapshots
// share as paged's are, with no pointer a flag: a page holds, per slot, the
// place of the flag's record in one of the allocations the page's records
// are in (an arena's chunk, or a record made on its own), and those
// allocations once each. A full build carves its records from chunks of a
// few thousand, so a page of 1,024 flags holds one or two pointers where
// it held 1,024, each a pointer into a chunk that the collector resolved
// and marked at every collection: at a million flags the pages were three
// quarters of a forced collection's time (bench/README.md).
type flagList struct {
	pages []*flagPage
	n     int
}

// flagPage is one page of a flagList. Its one pointer, own, comes first,
// so that the collector reads the slice and not the refs after it.
type flagPage struct {
	// own are the allocations the page's records are in, each once.
	own []unsafe.Pointer
	// ref[j] is 0 for a hole, else (k+1)<<refAtBits | at: the record at
	// at 8-byte words into own[k] (see Flag.at).
	ref [pageLen]uint32
}

// refAtBits is the bits of a ref that hold the record's place: a chunk
// is at most maxChunk bytes, a record of its own starts its allocation.
const refAtBits = 17

// The owners a page may hold: a page's edits add one each at most
// (pageLen), and done compacts them to those in use (at most pageLen).
const maxOwners = 1<<(32-refAtBits) - 1

func init() {
	if maxChunk/8 > 1<<refAtBits || 2*pageLen > maxOwners {
		panic("memstore: a flag page's refs cannot hold a chunk's places or a page's owners")
	}
}

// ownerOf is the allocation f's record is in.
func ownerOf(f *Flag) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(f), -8*int(f.at)) }

// flagListOf makes a flag list of flat.
func flagListOf(flat []*Flag) flagList {
	l := flagList{pages: make([]*flagPage, (len(flat)+pageLen-1)/pageLen), n: len(flat)}
	idx := map[unsafe.Pointer]int{}
	for k := range l.pages {
		pg := new(flagPage)
		clear(idx)
		for j, f := range flat[k*pageLen : min(len(flat), (k+1)*pageLen)] {
			pg.putWith(j, f, idx)
		}
		l.pages[k] = pg
	}
	return l
}

// put makes f the flag at j, adding its owner if the page has not got it.
func (pg *flagPage) put(j int, f *Flag) { pg.putWith(j, f, nil) }

// putWith is put finding the owner's index in idx, which holds every
// owner of the page, when not nil: a page of flags that each have a
// record of their own (after many ticks) has as many owners as flags, and
// a walk of them a flag made a full page's list quadratic. An edit's few
// sets walk the list from its end.
func (pg *flagPage) putWith(j int, f *Flag, idx map[unsafe.Pointer]int) {
	if f == nil {
		pg.ref[j] = 0
		return
	}
	o := ownerOf(f)
	k := len(pg.own) - 1
	switch {
	case k >= 0 && pg.own[k] == o: // the common case: the record after the last one in its chunk
	case idx != nil:
		if i, ok := idx[o]; ok {
			k = i
		} else {
			k = -1
		}
	default:
		for k >= 0 && pg.own[k] != o {
			k--
		}
	}
	if k < 0 {
		if len(pg.own) == maxOwners {
			panic("memstore: a flag page's owners overflow")
		}
		pg.own = append(pg.own, o)
		k = len(pg.own) - 1
		if idx != nil {
			idx[o] = k
		}
	}
	pg.ref[j] = uint32(k+1)<<refAtBits | f.at
}

// get returns the flag at j, nil for a hole.
func (pg *flagPage) get(j int) *Flag {
	r := pg.ref[j]
	if r == 0 {
		return nil
	}
	return (*Flag)(unsafe.Add(pg.own[r>>refAtBits-1], 8*int(r&(1<<refAtBits-1))))
}

// compact drops the owners no ref names any longer, so that a record
// replaced lets its allocation go.
func (pg *flagPage) compact() {
	used := make([]int32, len(pg.own)) // the new index+1 of each owner in use
	n := int32(0)
	for _, r := range pg.ref {
		if r == 0 {
			continue
		}
		if k := r>>refAtBits - 1; used[k] == 0 {
			n++
			used[k] = n
		}
	}
	if int(n) == len(pg.own) {
		return
	}
	own := make([]unsafe.Pointer, n)
	for k, u := range used {
		if u > 0 {
			own[u-1] = pg.own[k]
		}
	}
	for j, r := range pg.ref {
		if r != 0 {
			pg.ref[j] = uint32(used[r>>refAtBits-1])<<refAtBits | r&(1<<refAtBits-1)
		}
	}
	pg.own = own
}

// len is the number of slots.
func (l *flagList) len() int { return l.n }

// at returns the flag in slot i (0 <= i < len), nil for a hole.
func (l *flagList) at(i int32) *Flag { return l.pages[i>>pageBits].get(int(i & (pageLen - 1))) }

// all yields every slot and its flag (nil for a hole), in order.
func (l *flagList) all() iter.Seq2[int32, *Flag] {
	return func(yield func(int32, *Flag) bool) {
		for k, pg := range l.pages {
			for j := range min(pageLen, l.n-k*pageLen) {
				if !yield(int32(k*pageLen+j), pg.get(j)) {
					return
				}
			}
		}
	}
}

// flagEditor changes some flags of a list, copying each page it writes
// once.
type flagEditor struct {
	l   flagList
	own map[int32]bool // the pages copied, which it may write
}

// edit starts a copy of l that shares l's pages until set writes them.
func (l *flagList) edit() *flagEditor {
	return &flagEditor{l: flagList{pages: append([]*flagPage(nil), l.pages...), n: l.n}, own: map[int32]bool{}}
}

// set makes f the flag in slot i (0 <= i < len), nil a hole.
func (e *flagEditor) set(i int32, f *Flag) {
	k := i >> pageBits
	if !e.own[k] {
		pg := &flagPage{own: append([]unsafe.Pointer(nil), e.l.pages[k].own...), ref: e.l.pages[k].ref}
		e.l.pages[k] = pg
		e.own[k] = true
	}
	e.l.pages[k].put(int(i&(pageLen-1)), f)
}

// push appends f in slot len, the list growing by one.
func (e *flagEditor) push(f *Flag) {
	i := int32(e.l.n)
	if int(i)&(pageLen-1) == 0 && int(i>>pageBits) == len(e.l.pages) {
		e.l.pages = append(e.l.pages, new(flagPage))
		e.own[i>>pageBits] = true
	}
	e.l.n++
	e.set(i, f)
}

// done returns the list as edited, each page it wrote holding only the
// owners its flags are in; the editor must not be used again.
func (e *flagEditor) done() flagList {
	for k := range e.own {
		e.l.pages[k].compact()
	}
	return e.l
}
