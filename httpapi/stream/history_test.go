package stream

import (
	"runtime"
	"testing"

	"github.com/flagpole/flagpole/memstore"
)

// The history's byte count (HistoryBytes, which its bound is kept
// against) is what its events hold in memory, within a tenth: the frame
// of every flag, the flags' own parts that followers' frames are made
// of, their slugs and the index of them.
func TestHistoryBytesCountsWhatItHolds(t *testing.T) {
	for _, c := range []struct{ flags, events int }{
		{10, 150}, // events without an index of their slugs
		{500, 6},  // and with one
	} {
		n := c.flags
		h, st, in := testHub(t, n, Options{})
		all := every(in)
		for range c.events {
			vote(t, st, in, all...)
		}
		in[3].Approved = false // an event with a removed flag
		s, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: in[3:4]})
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(s)
		counted := h.Stats().HistoryBytes
		before := liveHeap()
		h.mu.Lock()
		events := len(h.history)
		h.history, h.historyB = nil, 0
		h.mu.Unlock()
		held := before - liveHeap()
		t.Logf("%d flags: %d events hold %d bytes, counted %d", n, events, held, counted)
		if events != c.events+1 || counted < held*9/10 || counted > held*11/10 {
			t.Errorf("%d flags: %d events hold %d bytes, counted %d", n, events, held, counted)
		}
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() int {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int(ms.HeapAlloc)
}
