package httpapi

import (
	"hash/maphash"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// answers keeps the responses of /search, whose answer the snapshot and
// the query string fix alone, by raw query, in a table (see table): the
// entry's key is the raw query, compared whole, its slot the query's
// hash, and its stamp the route, the search index's version and the
// search view the response was rendered from, which says which snapshots
// it answers (searchView.serves: under votes, most searches answer many
// snapshots the same). A query asked before is then answered by one hash
// of its query and one comparison, where parsing it, keying it and asking
// the search cache took 6 % of a request's instructions (bench/README.md,
// Ledger; for /flags, /categories, /regions and /stats, which ask the
// response cache, it was 3 % or less, and they do without it). A miss
// goes the usual way and keeps what it answered. Entries of another
// search index, or of a view a swap touched, are dropped when a new
// snapshot is swapped in (drop), the others carried to it; the table is bounded by its entries and
// bytes as the details'.
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

// place is the slot of route's answer to raw, and the stamp of a lookup
// of it from s.
func (as *answers) place(s *memstore.Snapshot, route int, raw string) (int, stamp) {
	h := maphash.String(as.seed, raw) ^ uint64(route)*0x9E3779B97F4A7C15
	return int(h >> 33), stamp{serial: s.Serial(), text: s.SearchVersion(), route: route}
}

// drop takes out the entries that cannot answer s, just swapped in, or a
// later snapshot: of another search index, or of a view that s's swap
// (or one before) touched, or, without a view, of an older snapshot. Left
// in their sets they would hold the table's bytes until a new entry came
// to each set. The views of the others are carried to s here, once, not
// by the first request of each.
func (as *answers) drop(s *memstore.Snapshot) {
	n, text := s.Serial(), s.SearchVersion()
	as.t.drop(func(st stamp) bool {
		if st.view != nil {
			return st.text != text || !st.view.serves(n)
		}
		return st.serial < n
	})
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

// viewHandler answers one search request from one snapshot, with the
// search view it rendered the response from when that view is kept (nil
// when not).
type viewHandler func(c *gin.Context, s *memstore.Snapshot) (*response, *searchView, error)

// serveQuery is serve for the handler h of route, whose answer the
// snapshot and the query string fix: answered from the answers' table
// when it holds an answer that serves the snapshot, else by h, its answer
// then kept with its view.
func (a *API) serveQuery(route int, h viewHandler) gin.HandlerFunc {
	if a.answers == nil {
		return a.serve(func(c *gin.Context, s *memstore.Snapshot) (*response, error) {
			r, _, err := h(c, s)
			return r, err
		})
	}
	as := a.answers
	return a.serve(func(c *gin.Context, s *memstore.Snapshot) (*response, error) {
		raw := c.Request.URL.RawQuery
		slot, st := as.place(s, route, raw)
		if r := as.t.found(slot, raw, st); r != nil {
			return r, nil
		}
		r, v, err := h(c, s)
		if err != nil || v == nil {
			return r, err
		}
		st.serial, st.view = v.from, v
		if kept, ok := as.t.keep(slot, st, raw, r); ok {
			return kept, nil
		}
		return r, nil
	})
}
