package httpapi

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/flagpole/flagpole/memstore"
)

// searchView is one page of a search (its filters and offset, the largest
// limit) as a snapshot answers it, and the responses rendered from it:
// what the counts decide (which flags pass the dominant filter, the
// tie-break by total, the votes shown), made from the matches kept for
// the snapshot's search index (m). It answers the snapshots from the one
// it was made from (from) up to through, which serves moves forward while
// the swaps in between change no text and no flag m matched: those
// snapshots would page m exactly so, to the byte. Once a swap touches m,
// it is dead: the next request makes a new view from m against the new
// counts.
type searchView struct {
	m    *memstore.Matched
	log  *swapLog
	text uint64 // the search index's version (memstore.Snapshot.SearchVersion)
	from uint64 // the serial of the snapshot it was made from
	// epoch is the log's when it was made (see swapLog.epoch).
	epoch uint64
	// through is the last serial it is known to answer; dead is set once
	// a swap after through touched m (or the log cannot say).
	through atomic.Uint64
	dead    atomic.Bool
	res     memstore.SearchResult
	pages   sync.Map // pageKey -> *response
	// cost is what the view holds, as its cache cost; pageBytes the
	// part of it that is rendered responses.
	cost, pageBytes atomic.Int64
}

// pageKey names one response of a view: q as given and the limit.
type pageKey struct {
	q     string
	limit int
}

// serves reports whether v answers the snapshot of serial n as a page
// made from it would: n is from or after v's snapshot, and no swap up to
// it changed the texts or a flag v's matches hold.
func (v *searchView) serves(n uint64) bool {
	if n < v.from || v.epoch != v.log.epoch.Load() {
		return false
	}
	t := v.through.Load()
	if n <= t {
		return true
	}
	if v.dead.Load() {
		return false
	}
	last, ok := v.log.untouched(v.m, v.text, t)
	if !ok {
		v.dead.Store(true)
		return false
	}
	for t < last && !v.through.CompareAndSwap(t, last) {
		t = v.through.Load()
	}
	return n <= last
}

// viewCost is about the bytes a view's page holds: its key, the result,
// and each hit with its matches.
func viewCost(key string, r *memstore.SearchResult) int64 {
	n := len(key) + 160 + len(r.Hits)*int(unsafe.Sizeof(memstore.SearchHit{}))
	for i := range r.Hits {
		for _, ms := range r.Hits[i].Matches {
			n += len(ms) * int(unsafe.Sizeof(memstore.Match{}))
		}
	}
	return int64(n)
}
