package httpapi

import (
	"slices"
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
// the swaps in between change no text and leave its page as it was (no
// flag m matched changed, or only by votes its guard shows cannot change
// the page): those snapshots would page m exactly so, to the byte. Once
// a swap touches it, it is dead: the next request makes a new view from
// m against the new counts.
type searchView struct {
	span
	m *memstore.Matched // found in the search index of version m.Version()
	// res is the page, its hits without their flags (nil): a view
	// outlives the snapshot it was made from, and a flag it held would
	// keep alive the memory the flag was carved with. result puts back
	// the flags of the snapshot asked, which holds the same ones in the
	// same slots.
	res memstore.SearchResult
	// guard tells which swaps that change only counts leave res as it
	// is (memstore.PageGuard).
	guard memstore.PageGuard
	// pages are the responses rendered from res, by pageKey.
	pages sync.Map
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
// it touched v (see touched).
func (v *searchView) serves(n uint64) bool { return v.span.serves(n, v.touched) }

// result is v's page with the flags of s, a snapshot v serves.
func (v *searchView) result(s *memstore.Snapshot) *memstore.SearchResult {
	res := v.res
	res.Hits = slices.Clone(res.Hits)
	for i := range res.Hits {
		res.Hits[i].Flag = s.At(res.Hits[i].Slot())
	}
	return &res
}

// touched reports whether the swap r may have changed v's page: it
// changed the texts, or a matched flag other than by a vote that leaves
// the page as it was (memstore.PageGuard.Kept).
func (v *searchView) touched(r *swapRec) bool {
	return r.all || r.text != v.m.Version() || !v.guard.Kept(v.m, r.slots, r.old, r.now)
}

// viewCost is about the bytes a view's page holds: its key, the result,
// each hit with its matches, and its guard.
func viewCost(key string, r *memstore.SearchResult, g *memstore.PageGuard) int64 {
	n := len(key) + 160 + len(r.Hits)*int(unsafe.Sizeof(memstore.SearchHit{})) + int(g.Bytes())
	for i := range r.Hits {
		for _, ms := range r.Hits[i].Matches {
			n += len(ms) * int(unsafe.Sizeof(memstore.Match{}))
		}
	}
	return int64(n)
}
