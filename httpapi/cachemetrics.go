package httpapi

import (
	"github.com/prometheus/client_golang/prometheus"
)

// cacheCounts are the hits and lookups of each of the API's caches, by
// the name the metrics give it. A lookup the details', trends' or
// answers' table does not answer goes on to the response or search cache,
// which counts it again: each cache's ratio is its own, and the caches'
// counts do not add up to the requests.
func (a *API) cacheCounts() map[string][2]uint64 {
	m := map[string][2]uint64{}
	found, all := a.cache.lookups()
	m["responses"] = [2]uint64{found, all}
	m["details"] = a.details.counts()
	m["trends"] = a.trends.counts()
	m["answers"] = a.answers.counts()
	found, all = a.searches.lookups()
	m["searches"] = [2]uint64{found, all}
	return m
}

// counts are the table's hits and lookups (hits and misses); none without
// a table.
func (t *table) counts() [2]uint64 {
	if t == nil {
		return [2]uint64{}
	}
	hits := t.hits.Load()
	return [2]uint64{hits, hits + t.misses.Load()}
}

// counts are the answers' table's hits and lookups.
func (as *answers) counts() [2]uint64 {
	if as == nil {
		return [2]uint64{}
	}
	return as.t.counts()
}

// cacheCollector exports each cache's hits and lookups as counters, read
// at scrape time: rate(hits) / rate(lookups) is a cache's hit ratio over
// any window, where a ratio since start would barely move.
type cacheCollector struct {
	a            *API
	hits, lookup *prometheus.Desc
}

func newCacheCollector(a *API) *cacheCollector {
	return &cacheCollector{a: a,
		hits: prometheus.NewDesc("flagpole_cache_hits_total",
			"Lookups a cache answered, by cache: responses (rendered answers), details (/flag/{slug}), trends, "+
				"answers (the routes the query string fixes), searches (results by canonical query).", []string{"cache"}, nil),
		lookup: prometheus.NewDesc("flagpole_cache_lookups_total",
			"Lookups of a cache, answered or not, by cache; a miss of details, trends or answers is looked up again "+
				"in responses or searches.", []string{"cache"}, nil),
	}
}

// Describe sends the two counters' descriptions.
func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.hits
	ch <- c.lookup
}

// Collect sends each cache's counts.
func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for name, n := range c.a.cacheCounts() {
		ch <- prometheus.MustNewConstMetric(c.hits, prometheus.CounterValue, float64(n[0]), name)
		ch <- prometheus.MustNewConstMetric(c.lookup, prometheus.CounterValue, float64(n[1]), name)
	}
}

// MaxStreams is the most live streams this process holds at once.
func (a *API) MaxStreams() int { return a.hub.MaxStreams() }
