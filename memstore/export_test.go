package memstore

import (
	"slices"
	"strings"
)

// OSAPrefixes lends the external tests (the relevance set's) the
// reference distance the internal ones check typos with.
var OSAPrefixes = osaPrefixes

// Search is Find for a query string, with no error (a query the rules
// refuse finds nothing), for the tests that compare or rank results.
func (s *Snapshot) Search(q string, limit int) ([]SearchHit, int) {
	pq, err := ParseQuery(q)
	if err != nil {
		return nil, 0
	}
	r, err := s.Find(pq, FindOptions{Limit: limit})
	if err != nil {
		return nil, 0
	}
	return r.Hits, r.Total
}

// byIDOrder returns the flags of s in id order.
func byIDOrder(s *Snapshot) []*Flag {
	out := slices.Collect(s.Flags())
	slices.SortFunc(out, func(a, b *Flag) int { return strings.Compare(a.ID(), b.ID()) })
	return out
}

// flat is the order's positions in one slice.
func (o *order) flat() []int32 { return o.slice(0, o.len()) }
