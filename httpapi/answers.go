package httpapi

import (
	"hash/maphash"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// answers keeps the responses of /search, whose answer the snapshot and
// the query string fix alone, by raw query, in a table (see table): the
// stamp names the snapshot (its Serial) and the route, the entry's key is
// the raw query, compared whole, and its slot the query's hash. A query
// asked before of the same snapshot is then answered by one hash of its
// query and one comparison, where parsing it, keying it and asking the
// search cache took 6 % of a request's instructions (bench/README.md,
// Ledger; for /flags, /categories, /regions and /stats, which ask the
// response cache, it was 3 % or less, and they do without it). A miss
// goes the usual way and keeps what it answered. Entries of an older
// snapshot are dropped when a new one is swapped in (dropBefore); the
// table is bounded by its entries and bytes as the details'.
type answers struct {
	t    *table
	seed maphash.Seed
}

// routeSearch is the route of the answers the table keeps, part of their
// stamps.
const routeSearch = 1

// maxAnswerBody is the longest body the answers' table keeps: a page of
// 100 hits with long texts.
const maxAnswerBody = 96 << 10

// newAnswers makes the answers' table of at most maxBytes (none for 0),
// with entries for bodies of 4 KB (the bytes bind when they are
// longer).
func newAnswers(maxBytes int64) *answers {
	t := newTable(maxBytes, maxAnswerBody, entryCost(4<<10))
	if t == nil {
		return nil
	}
	return &answers{t: t, seed: maphash.MakeSeed()}
}

// place is the slot and stamp of route's answer to raw from s.
func (as *answers) place(s *memstore.Snapshot, route int, raw string) (int, stamp) {
	h := maphash.String(as.seed, raw) ^ uint64(route)*0x9E3779B97F4A7C15
	return int(h >> 33), stamp{serial: s.Serial(), route: route}
}

// dropBefore takes out the entries made from a snapshot built before the
// one of serial n (a snapshot's Serial names it; its Gen repeats across
// lineages): once n is served they can never answer again, and left in
// their sets they would hold the table's bytes until a new entry came to
// each set.
func (as *answers) dropBefore(n uint64) {
	as.t.drop(func(st stamp) bool { return st.serial < n })
}

// lookups are the answers the table gave, and all it was asked for but
// did not pass on (none: a miss asks the response or search cache, which
// counts it).
func (as *answers) lookups() (found, all uint64) {
	if as == nil {
		return 0, 0
	}
	return as.t.lookups()
}

// serveQuery is serve for the handler h of route, whose answer the
// snapshot and the query string fix: answered from the answers' table
// when it holds the answer, else by h, its answer then kept.
func (a *API) serveQuery(route int, h handler) gin.HandlerFunc {
	if a.answers == nil {
		return a.serve(h)
	}
	as := a.answers
	return a.serve(func(c *gin.Context, s *memstore.Snapshot) (*response, error) {
		raw := c.Request.URL.RawQuery
		slot, st := as.place(s, route, raw)
		if r := as.t.lookup(slot, st, raw); r != nil {
			return r, nil
		}
		r, err := h(c, s)
		if err != nil {
			return nil, err
		}
		if kept, ok := as.t.keep(slot, st, raw, r); ok {
			return kept, nil
		}
		return r, nil
	})
}
