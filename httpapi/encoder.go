package httpapi

import (
	"bytes"
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
//
// Each encoding is an allocation of its own, never a piece of a shared
// buffer: a flag's encoding lives exactly as long as the flag. Carved from
// shared chunks, one flag served on for days kept a whole chunk of
// superseded encodings with it, and under votes the heap grew with every
// tick (TestEncodingsHeldByLiveFlagsOnly).
type encoder struct {
	mu      sync.Mutex // held while encoding: one scratch buffer
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
	for f := range s.Fresh() {
		if f.Encoding() != nil {
			continue // a copy that kept its flag's encoding
		}
		enc := new(memstore.Encoding)
		e.scratch, *enc = encodeFlag(e.scratch, f)
		enc.JSON = bytes.Clone(enc.JSON)
		f.SetEncoding(enc)
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
