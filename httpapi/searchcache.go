package httpapi

import (
	"errors"
	"unsafe"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/memstore"
)

// searches runs queries against the index and keeps their results by
// snapshot generation, the query's canonical form (memstore.Query.Key:
// folded, de-duplicated, sorted words), the filters, the language and the
// offset: queries that differ only in separators, case, diacritics, word
// order, repeated words or limit share one run of the index, which finds
// the largest page (memstore.MaxSearchLimit hits) from the offset. Each
// keeps its own rendered response too (q is echoed as given), in the
// response cache.
type searches struct {
	rc                  *ristretto.Cache[string, *memstore.SearchResult]
	runs, work, refused prometheus.Counter
}

func newSearches(maxBytes int64, reg prometheus.Registerer) (*searches, error) {
	s := &searches{
		runs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_runs_total", Help: "Searches run against the index (not answered from a cache).",
		}),
		work: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_work_total", Help: "Work units of the searches run: postings read, words compared, trie nodes visited, matches filtered and ranked.",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_refused_total", Help: "Searches refused with 400 because their work would pass the bound.",
		}),
	}
	if reg != nil {
		reg.MustRegister(s.runs, s.work, s.refused)
	}
	if maxBytes <= 0 {
		return s, nil
	}
	var err error
	s.rc, err = ristretto.NewCache(&ristretto.Config[string, *memstore.SearchResult]{
		NumCounters: max(maxBytes/100, 10_000),
		MaxCost:     maxBytes,
		BufferItems: 64,
	})
	return s, err
}

// find returns the result of q and o at the largest limit, whatever
// o.Limit: from the cache, or run and kept. A query whose work would pass
// the bound is a 400.
func (ss *searches) find(s *memstore.Snapshot, q memstore.Query, o memstore.FindOptions) (*memstore.SearchResult, error) {
	o.Limit = memstore.MaxSearchLimit
	key := string(appendFindOptions([]byte(genKey(s, "search", q.Key())+"\x00"), &o))
	if ss.rc != nil {
		if r, ok := ss.rc.Get(key); ok {
			return r, nil
		}
	}
	r, err := s.Find(q, o)
	ss.runs.Inc()
	ss.work.Add(float64(r.Work))
	var qe *memstore.QueryError
	if errors.As(err, &qe) {
		ss.refused.Inc()
		return nil, invalidParam("q", "%s", qe.Detail)
	}
	if err != nil {
		return nil, err
	}
	if ss.rc != nil {
		ss.rc.Set(key, &r, resultCost(key, &r))
		ss.rc.Wait()
	}
	return &r, nil
}

func (ss *searches) close() {
	if ss.rc != nil {
		ss.rc.Close()
	}
}

// resultCost is about the bytes a cached result holds: its key, the
// result, and each hit with its matches.
func resultCost(key string, r *memstore.SearchResult) int64 {
	n := len(key) + 64 + len(r.Hits)*int(unsafe.Sizeof(memstore.SearchHit{}))
	for i := range r.Hits {
		for _, ms := range r.Hits[i].Matches {
			n += len(ms) * int(unsafe.Sizeof(memstore.Match{}))
		}
	}
	return int64(n)
}
