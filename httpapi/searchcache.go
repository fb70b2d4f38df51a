package httpapi

import (
	"errors"
	"strconv"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/memstore"
)

// searches runs queries against the index and keeps what they answered
// in two caches, so that a swap that changed no text (votes) costs a
// search little or nothing:
//
//   - matched keeps what the texts decide (memstore.Matched: the flags
//     that match, ranked), keyed by the search index's version, the
//     query's canonical form (memstore.Query.Key: folded, de-duplicated,
//     sorted words and their stems) and the language (matchedKey). One
//     run of the index serves every snapshot with that index, every
//     filter and every page.
//   - views keeps a page of it (searchView: the largest page,
//     memstore.MaxSearchLimit hits from the offset, and the responses
//     rendered from it, one per q as given and limit), keyed by the same
//     and the filters and offset (searchKey), with the snapshot it was
//     made from. It answers every later snapshot whose swaps left its
//     page as it was (see searchView.serves: no flag it matched changed,
//     or only by votes that cannot change the page); a swap that may have
//     makes the page again from the kept matches, against the new counts.
//
// Queries that differ only in separators, case, diacritics, word order,
// repeated words or limit share one run and one view; each spelling has
// its own bytes and ETag, rendered once a view.
type searches struct {
	matched *ristretto.Cache[string, *memstore.Matched]
	views   *ristretto.Cache[string, *searchView]
	log     *swapLog
	// pagesMax is the most bytes of rendered responses one view keeps: a
	// client sending endless spellings of one query gets each rendered,
	// not kept, once its view is full.
	pagesMax                     int64
	spellings                    *spellings
	runs, work, refused, repaged prometheus.Counter
}

func newSearches(maxBytes int64, reg prometheus.Registerer, log *swapLog) (*searches, error) {
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
		repaged: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_search_repaged_total", Help: "Search pages made again from kept matches, without running the index: a swap may have changed the page (a matched flag in it or in its runs of one rank), or the filters or offset were new.",
		}),
		pagesMax:  maxBytes / 64,
		spellings: newSpellings(),
		log:       log,
	}
	if reg != nil {
		reg.MustRegister(s.runs, s.work, s.refused, s.repaged)
	}
	if maxBytes <= 0 {
		return s, nil
	}
	var err error
	if s.matched, err = newRistretto[*memstore.Matched](maxBytes / 2); err != nil {
		return nil, err
	}
	s.views, err = newRistretto[*searchView](maxBytes - maxBytes/2)
	return s, err
}

// newRistretto is a cache of at most maxBytes.
func newRistretto[V any](maxBytes int64) (*ristretto.Cache[string, V], error) {
	return ristretto.NewCache(&ristretto.Config[string, V]{
		NumCounters: max(maxBytes/100, 10_000),
		MaxCost:     maxBytes,
		BufferItems: 64,
		Metrics:     true,
	})
}

// answer returns the response to r from s, and the view it was rendered
// from when that view is kept (nil when not): kept in the view, or
// rendered by render from the view's page and kept there. A view that
// does not answer s is made again from the kept matches (the index run
// when there are none). A query whose work would pass the bound is a 400.
func (ss *searches) answer(s *memstore.Snapshot, r *searchReq, render func(*memstore.SearchResult) []byte) (*response, *searchView, error) {
	key := searchKey(s, r)
	var v *searchView
	if ss.views != nil {
		v, _ = ss.views.Get(key)
	}
	if v == nil || !v.serves(s.Serial()) {
		nv, err := ss.view(s, r)
		if err != nil {
			return nil, nil, err
		}
		if ss.views == nil || v != nil && nv.from <= v.from {
			// An older snapshot's request: answered, not kept.
			return newResponse(render(nv.result(s))), nil, nil
		}
		fresh := v == nil
		v = nv
		v.cost.Store(viewCost(key, &v.res, &v.guard))
		ss.views.Set(key, v, v.cost.Load())
		if fresh {
			// In the cache before the next request looks: ristretto admits a
			// new key asynchronously.
			ss.views.Wait()
		}
	}
	return ss.page(s, key, v, r, render), v, nil
}

// page is v's response to r: kept, or rendered and kept while v's bound
// allows.
func (ss *searches) page(s *memstore.Snapshot, key string, v *searchView, r *searchReq, render func(*memstore.SearchResult) []byte) *response {
	pk := pageKey{r.q, r.opt.Limit}
	if p, ok := v.pages.Load(pk); ok {
		return p.(*response)
	}
	p := newResponse(render(v.result(s)))
	if cost := int64(len(p.body) + len(r.q) + 64); v.pageBytes.Load()+cost <= ss.pagesMax {
		if kept, loaded := v.pages.LoadOrStore(pk, p); loaded {
			return kept.(*response)
		}
		v.pageBytes.Add(cost)
		ss.views.Set(key, v, v.cost.Add(cost))
	}
	return p
}

// view makes the view of r in s: its page of the matches kept for s's
// index, or of a run of the index, kept.
func (ss *searches) view(s *memstore.Snapshot, r *searchReq) (*searchView, error) {
	mk := matchedKey(s, r)
	var m *memstore.Matched
	if ss.matched != nil {
		m, _ = ss.matched.Get(mk)
	}
	fresh := m == nil
	cost := int64(0) // m's cost in the cache, before this page
	if fresh {
		var err error
		if m, err = ss.run(s, r); err != nil {
			return nil, err
		}
	} else {
		ss.repaged.Inc()
		cost = m.Bytes()
	}
	o := r.opt
	o.Limit = memstore.MaxSearchLimit
	v := &searchView{m: m, res: m.Page(s, o)}
	v.guard = m.Guard(&v.res, o)
	for i := range v.res.Hits {
		v.res.Hits[i].Flag = nil // see searchView.res
	}
	v.start(ss.log, s.Serial())
	// Kept with the matched words the page found: once when it ran, and
	// again only when a page kept more of them (its cost grew).
	if b := m.Bytes(); ss.matched != nil && b != cost {
		ss.matched.Set(mk, m, b+int64(len(mk)))
		if fresh {
			ss.matched.Wait() // admitted before the next request looks
		}
	}
	ss.work.Add(float64(v.res.Work))
	return v, nil
}

// run runs r's query against the index.
func (ss *searches) run(s *memstore.Snapshot, r *searchReq) (*memstore.Matched, error) {
	m, err := s.Match(r.pq.q, r.opt)
	ss.runs.Inc()
	ss.work.Add(float64(m.Work))
	var qe *memstore.QueryError
	if errors.As(err, &qe) {
		ss.refused.Inc()
		return nil, invalidParam("q", "%s", qe.Detail)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// matchedKey is the cache key of what r's query matches in s: the search
// index's version, the query's canonical form and the language.
func matchedKey(s *memstore.Snapshot, r *searchReq) string {
	k := r.pq.key
	b := make([]byte, 0, 24+len(k))
	b = strconv.AppendUint(b, s.SearchVersion(), 36)
	b = append(b, 0, 'm', 0, boolByte(r.opt.HasLang), byte(r.opt.Lang), 0)
	return string(append(b, k...))
}

// searchKey is the cache key of a search's view: the search index's
// version, the query's canonical form, the filters, language and offset;
// neither the limit (a view holds the largest page) nor q as given, nor
// the snapshot (a view says itself which snapshots it answers).
func searchKey(s *memstore.Snapshot, r *searchReq) string {
	k := r.pq.key
	b := make([]byte, 0, 32+len(k))
	b = strconv.AppendUint(b, s.SearchVersion(), 36)
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

// lookups are the views the cache found, and all it was asked for.
func (ss *searches) lookups() (found, all uint64) {
	if ss.views == nil {
		return 0, 0
	}
	return lookupsOf(ss.views.Metrics)
}

func (ss *searches) close() {
	if ss.views != nil {
		ss.views.Close()
		ss.matched.Close()
	}
}

// resize bounds the search caches to maxBytes from now on.
func (ss *searches) resize(maxBytes int64) {
	if ss.views != nil {
		ss.matched.UpdateMaxCost(maxBytes / 2)
		ss.views.UpdateMaxCost(maxBytes - maxBytes/2)
	}
}
