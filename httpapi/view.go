package httpapi

import (
	"sync"

	"github.com/flagpole/flagpole/memstore"
)

// encoder keeps each flag's encodings with the flag (memstore.Encoding):
// a flag never changes once built and snapshots share the flags a load did
// not change, so a load encodes only the flags it brings
// (Snapshot.Fresh), when the store swaps their snapshot in, before any
// request can see them. A request's bytes then always come from the
// snapshot it pinned, and encodingOf encodes a flag no swap prepared (of
// a snapshot the store held before the encoder watched it) on first use.
type encoder struct {
	mu      sync.Mutex // held while encoding: one chunk writer
	keep    chunks
	scratch []byte
	unwatch func()
}

// watch encodes st's snapshot, if it has one, and every snapshot it
// swaps in from now on.
func watch(st *memstore.Store) *encoder {
	e := &encoder{}
	e.unwatch = st.OnSwap(e.prepare)
	if s := st.Snapshot(); s != nil {
		e.prepare(s)
	}
	return e
}

// close stops watching the store.
func (e *encoder) close() { e.unwatch() }

// prepare encodes the flags s brings that have no encoding yet.
func (e *encoder) prepare(s *memstore.Snapshot) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var encs []memstore.Encoding // one allocation for a batch, not one per flag
	for f := range s.Fresh() {
		if f.Encoding() != nil {
			continue // a copy that kept its flag's encoding
		}
		if len(encs) == cap(encs) {
			encs = make([]memstore.Encoding, 0, min(max(2*cap(encs), 16), 4096))
		}
		var enc memstore.Encoding
		e.scratch, enc = encodeFlag(e.scratch, f)
		enc.JSON = e.keep.copy(enc.JSON)
		encs = append(encs, enc)
		f.SetEncoding(&encs[len(encs)-1])
	}
}

// encodingOf returns f's encoding, encoding f if no swap did.
func encodingOf(f *memstore.Flag) *memstore.Encoding {
	if enc := f.Encoding(); enc != nil {
		return enc
	}
	_, enc := encodeFlag(nil, f)
	return f.SetEncoding(&enc)
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
