package httpapi

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/memstore"
)

// searches runs queries against the index and keeps what they answered in
// one cache, keyed by the snapshot (its Serial), the query's canonical form
// (memstore.Query.Key: folded, de-duplicated, sorted words and their
// stems), the filters, the language and the offset (searchKey): queries
// that differ only in separators, case, diacritics, word order, repeated
// words or limit share one entry and one run of the index, which finds
// the largest page (memstore.MaxSearchLimit hits) from the offset. The
// entry also keeps the responses rendered from that result, one per q as
// given and limit: q is echoed as given and limit sizes data, so each
// spelling has its own bytes and ETag, rendered once.
type searches struct {
	rc *ristretto.Cache[string, *searchEntry]
	// pagesMax is the most bytes of rendered responses one entry keeps: a
	// client sending endless spellings of one query gets each rendered,
	// not kept, once its entry is full.
	pagesMax            int64
	spellings           *spellings
	runs, work, refused prometheus.Counter
}

// searchEntry is one canonical search's result and the responses
// rendered from it.
type searchEntry struct {
	res   memstore.SearchResult
	pages sync.Map // pageKey -> *response
	// cost is what the entry holds, as its cache cost; pageBytes the
	// part of it that is rendered responses.
	cost, pageBytes atomic.Int64
}

// pageKey names one response of an entry: q as given and the limit.
type pageKey struct {
	q     string
	limit int
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
		pagesMax:  maxBytes / 64,
		spellings: newSpellings(),
	}
	if reg != nil {
		reg.MustRegister(s.runs, s.work, s.refused)
	}
	if maxBytes <= 0 {
		return s, nil
	}
	var err error
	s.rc, err = ristretto.NewCache(&ristretto.Config[string, *searchEntry]{
		NumCounters: max(maxBytes/100, 10_000),
		MaxCost:     maxBytes,
		BufferItems: 64,
		Metrics:     true,
	})
	return s, err
}

// answer returns the response to r: kept in its entry, or rendered by
// render from the entry's result (the search run and its entry kept when
// there is none) and kept there. A query whose work would pass the bound
// is a 400.
func (ss *searches) answer(s *memstore.Snapshot, r *searchReq, render func(*memstore.SearchResult) []byte) (*response, error) {
	key := searchKey(s, r)
	pk := pageKey{r.q, r.opt.Limit}
	var e *searchEntry
	if ss.rc != nil {
		e, _ = ss.rc.Get(key)
	}
	fresh := e == nil
	if !fresh {
		if p, ok := e.pages.Load(pk); ok {
			return p.(*response), nil
		}
	} else {
		var err error
		if e, err = ss.run(s, r); err != nil {
			return nil, err
		}
		e.cost.Store(resultCost(key, &e.res))
	}
	p := newResponse(render(&e.res))
	if ss.rc == nil {
		return p, nil
	}
	if cost := int64(len(p.body) + len(r.q) + 64); e.pageBytes.Load()+cost <= ss.pagesMax {
		if kept, loaded := e.pages.LoadOrStore(pk, p); loaded {
			return kept.(*response), nil
		}
		e.pageBytes.Add(cost)
		e.cost.Add(cost)
	} else if !fresh {
		return p, nil
	}
	ss.rc.Set(key, e, e.cost.Load())
	if fresh {
		// In the cache before the next request looks: ristretto admits a
		// new key asynchronously.
		ss.rc.Wait()
	}
	return p, nil
}

// run runs r's query against the index at the largest limit, whatever
// r's limit, into a new entry.
func (ss *searches) run(s *memstore.Snapshot, r *searchReq) (*searchEntry, error) {
	o := r.opt
	o.Limit = memstore.MaxSearchLimit
	e := &searchEntry{}
	var err error
	e.res, err = s.Find(r.pq.q, o)
	ss.runs.Inc()
	ss.work.Add(float64(e.res.Work))
	var qe *memstore.QueryError
	if errors.As(err, &qe) {
		ss.refused.Inc()
		return nil, invalidParam("q", "%s", qe.Detail)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// searchKey is the cache key of a search: the snapshot's Serial, the
// query's canonical form, the filters, language and offset; neither the
// limit (an entry holds the largest page) nor q as given.
func searchKey(s *memstore.Snapshot, r *searchReq) string {
	k := r.pq.key
	b := make([]byte, 0, 32+len(k))
	b = strconv.AppendUint(b, s.Serial(), 36)
	b = append(b, 0, 's', 0)
	b = append(b, k...)
	b = append(b, 0)
	return string(appendFindOptions(b, &r.opt))
}

// appendFindOptions appends o's filters, language and offset (not its
// limit) in a fixed layout.
func appendFindOptions(b []byte, o *memstore.FindOptions) []byte {
	b = append(b, boolByte(o.HasCategory), byte(o.Category), boolByte(o.HasDominant), byte(o.Dominant),
		boolByte(o.HasLang), byte(o.Lang), boolByte(o.HasRegion))
	b = append(b, o.Region...)
	b = append(b, 0)
	return strconv.AppendInt(b, int64(o.Offset), 36)
}

// lookups are the entries the cache found, and all it was asked for.
func (ss *searches) lookups() (found, all uint64) {
	if ss.rc == nil {
		return 0, 0
	}
	return lookupsOf(ss.rc.Metrics)
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
