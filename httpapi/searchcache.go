package httpapi

import (
	"errors"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/memstore"
)

// searches runs queries against the index and keeps their results by
// snapshot generation and the query's canonical form (memstore.Query.Key:
// folded, de-duplicated, sorted words), so queries that differ only in
// separators, case, diacritics, word order, repeated words or limit share
// one run of the index. Each keeps its own rendered response too (q is
// echoed as given), in the response cache.
type searches struct {
	rc                *ristretto.Cache[string, *memstore.SearchResult]
	runs, work, tooBr prometheus.Counter
}

func newSearches(maxBytes int64, reg prometheus.Registerer) (*searches, error) {
	s := &searches{
		runs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_runs_total", Help: "Searches run against the index (not answered from a cache).",
		}),
		work: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_work_total", Help: "Work units of the searches run: postings read, words compared, matches ranked.",
		}),
		tooBr: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_refused_total", Help: "Searches refused with 400 because their work would pass the bound.",
		}),
	}
	if reg != nil {
		reg.MustRegister(s.runs, s.work, s.tooBr)
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

// find returns the result of q at the largest limit: from the cache, or
// run and kept. A query whose work would pass the bound is a 400.
func (ss *searches) find(s *memstore.Snapshot, q memstore.Query) (*memstore.SearchResult, error) {
	key := genKey(s, "search", q.Key())
	if ss.rc != nil {
		if r, ok := ss.rc.Get(key); ok {
			return r, nil
		}
	}
	r, err := s.Find(q, memstore.MaxSearchLimit)
	ss.runs.Inc()
	ss.work.Add(float64(r.Work))
	var qe *memstore.QueryError
	if errors.As(err, &qe) {
		ss.tooBr.Inc()
		return nil, invalidParam("q", "%s", qe.Detail)
	}
	if err != nil {
		return nil, err
	}
	if ss.rc != nil {
		ss.rc.Set(key, &r, int64(len(key)+64+16*len(r.Hits)))
		ss.rc.Wait()
	}
	return &r, nil
}

func (ss *searches) close() {
	if ss.rc != nil {
		ss.rc.Close()
	}
}
