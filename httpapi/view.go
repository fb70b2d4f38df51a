package httpapi

import (
	"sync"
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// view is the rendered form of one snapshot: each flag's encodings, by
// position. A request takes the view of the snapshot it pinned, so its
// bytes never come from two loads.
type view struct {
	snap  *memstore.Snapshot
	flags []flagJSON
}

// views renders each snapshot once, when the store swaps it in (or, for a
// snapshot the store held before, on first demand), and keeps the view of
// the current snapshot and of the one before, which requests that started
// before the swap still read.
type views struct {
	mu       sync.Mutex // held while rendering
	cur, old atomic.Pointer[view]
	store    *memstore.Store
	unwatch  func()
}

// watch renders st's snapshot, if it has one, and every snapshot it swaps
// in from now on.
func watch(st *memstore.Store) *views {
	vs := &views{store: st}
	vs.unwatch = st.OnSwap(vs.prepare)
	if s := st.Snapshot(); s != nil {
		vs.prepare(s)
	}
	return vs
}

// close stops watching the store.
func (vs *views) close() { vs.unwatch() }

// of returns the view of s, rendering it if s is neither the current
// snapshot's nor the one before (a snapshot the store held before watch);
// it becomes the current view only if s is the store's current snapshot.
func (vs *views) of(s *memstore.Snapshot) *view {
	if v := vs.find(s); v != nil {
		return v
	}
	return vs.render(s, func() bool { return vs.store.Snapshot() == s })
}

// render renders s from the current view, under the lock, unless another
// request did meanwhile; the view becomes current when current says so.
func (vs *views) render(s *memstore.Snapshot, current func() bool) *view {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v := vs.find(s)
	if v == nil {
		v = render(vs.cur.Load(), s)
	}
	if v != vs.cur.Load() && current() {
		vs.old.Store(vs.cur.Load())
		vs.cur.Store(v)
	}
	return v
}

func (vs *views) find(s *memstore.Snapshot) *view {
	if v := vs.cur.Load(); v != nil && v.snap == s {
		return v
	}
	if v := vs.old.Load(); v != nil && v.snap == s {
		return v
	}
	return nil
}

// prepare renders s before the store swaps it in, as the current view.
func (vs *views) prepare(s *memstore.Snapshot) { vs.render(s, func() bool { return true }) }

// render makes the view of s, sharing prev's encodings of the flags the
// two snapshots share, so a tick encodes only the flags it changed.
func render(prev *view, s *memstore.Snapshot) *view {
	v := &view{snap: s, flags: make([]flagJSON, s.Len())}
	var src *memstore.Snapshot
	if prev != nil {
		src = prev.snap
	}
	var keep chunks
	var scratch []byte
	j := 0
	for i := range v.flags {
		f := s.At(i)
		if src != nil {
			// Both are ordered by id: walk prev's flags up to f.
			for j < src.Len() && src.At(j) != f && src.At(j).ID < f.ID {
				j++
			}
			if j < src.Len() && src.At(j) == f {
				v.flags[i] = prev.flags[j]
				j++
				continue
			}
		}
		var e flagJSON
		scratch, e = encodeFlag(scratch, f)
		e.json = keep.copy(scratch)
		v.flags[i] = e
	}
	return v
}

// chunks hands out copies of encodings from a few large chunks instead of
// one allocation each: the collector sees few objects and the heap does not
// fragment. A chunk starts small (a tick encodes few flags) and doubles up
// to a limit.
type chunks struct {
	buf  []byte
	next int
}

const maxChunk = 1 << 20

func (c *chunks) copy(b []byte) []byte {
	if len(b) > cap(c.buf)-len(c.buf) {
		c.next = min(max(c.next*2, 4<<10), maxChunk)
		c.buf = make([]byte, 0, max(c.next, len(b)))
	}
	start := len(c.buf)
	c.buf = append(c.buf, b...)
	return c.buf[start:len(c.buf):len(c.buf)]
}
