package micro_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

const secret = "grf_benchbenchbenchbenchbenchbench"

// api serves the data set the way `flagpole serve` does, with the
// in-process limiter, the response cache and no access log.
func api(b *testing.B) http.Handler { return apiWithCache(b, 64<<20) }

// apiWithCache is api with a response cache of cacheBytes (0: none, so
// every request renders its page: the page encoder's cost).
func apiWithCache(b *testing.B, cacheBytes int64) http.Handler {
	d := data(b)
	st := &memstore.Store{}
	st.SetSnapshot(d.snap)
	st.SetKeys(memstore.NewKeySet([][32]byte{sha256.Sum256([]byte(secret))},
		[]memstore.Key{{ID: "bench", Limit: 1 << 30}}, time.Now()))
	a, err := httpapi.New(httpapi.Options{Store: st, CacheBytes: cacheBytes,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.Close)
	return a.Handler()
}

// serveAll runs one request per iteration over paths in turn, in
// parallel as wrk's connections do.
func serveAll(b *testing.B, h http.Handler, paths []string, header map[string]string) {
	serveAllStatus(b, h, paths, header, http.StatusOK)
}

// serveAllStatus is serveAll for answers of status want.
func serveAllStatus(b *testing.B, h http.Handler, paths []string, header map[string]string, want int) {
	reqs := make([]*http.Request, len(paths))
	for i, p := range paths {
		reqs[i] = httptest.NewRequest("GET", p, nil)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var mu sync.Mutex
	next := 0
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		i := next
		next += 7919
		mu.Unlock()
		for pb.Next() {
			base := reqs[i%len(reqs)]
			r := base.Clone(context.Background())
			r.Header.Set("Authorization", "Bearer "+secret)
			for k, v := range header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != want {
				b.Fatalf("%s: %d %s", base.URL, w.Code, w.Body.String())
			}
			i++
		}
	})
}

func flagsPaths() []string {
	var paths []string
	for _, s := range memstore.SortNames() {
		for _, o := range []string{"asc", "desc"} {
			paths = append(paths, "/api/public/flags?sort="+s+"&order="+o)
		}
	}
	return append(paths, "/api/public/flags", "/api/public/flags?category=social&dominant=green",
		fmt.Sprintf("/api/public/flags?offset=%d", NumFlags*9/10))
}

func BenchmarkHTTPFlags(b *testing.B) { serveAll(b, api(b), flagsPaths(), nil) }

// BenchmarkHTTPFlagsNoCache renders every page: list, page encoder and
// middleware, without the response cache.
func BenchmarkHTTPFlagsNoCache(b *testing.B) { serveAll(b, apiWithCache(b, 0), flagsPaths(), nil) }

func BenchmarkHTTPFlagsGzip(b *testing.B) {
	serveAll(b, api(b), []string{"/api/public/flags"}, map[string]string{"Accept-Encoding": "gzip"})
}

func BenchmarkHTTPFlag(b *testing.B) {
	d := data(b)
	h := api(b)
	paths := make([]string, 0, 1000)
	for i := 0; i < 1000; i++ {
		paths = append(paths, "/api/public/flag/"+d.slugs[i*97%len(d.slugs)])
	}
	serveAll(b, h, paths, nil)
}

// ordinaryQueries are the queries of the data set the API answers: the
// rules refuse the few that match most flags (a 2-letter syllable alone).
func ordinaryQueries(b testing.TB) []string {
	d := data(b)
	var out []string
	for _, q := range d.queries {
		if pq, err := memstore.ParseQuery(q); err == nil {
			if _, err := d.snap.Find(pq, memstore.FindOptions{Limit: 20}); err == nil {
				out = append(out, q)
			}
		}
	}
	return out
}

func searchPaths(b *testing.B) []string {
	var paths []string
	for _, q := range ordinaryQueries(b) {
		paths = append(paths, "/api/public/search?q="+url.QueryEscape(q))
	}
	return paths
}

func BenchmarkHTTPSearch(b *testing.B) { serveAll(b, api(b), searchPaths(b), nil) }

// BenchmarkHTTPSearchWorst is BenchmarkHTTPSearchNoCache for each of
// worstQueries: what the most expensive requests cost over HTTP.
func BenchmarkHTTPSearchWorst(b *testing.B) {
	h := apiWithCache(b, 0)
	for _, w := range worstQueries(b) {
		want := http.StatusOK
		if strings.HasPrefix(w.name, "refused-") {
			want = http.StatusBadRequest
		}
		b.Run(w.name, func(b *testing.B) {
			serveAllStatus(b, h, []string{"/api/public/search?q=" + url.QueryEscape(w.q)}, nil, want)
		})
	}
}

// BenchmarkHTTPSearchSeparators sends the broadest accepted ten words with
// 600 different separators: with the cache on, they share one run.
func BenchmarkHTTPSearchSeparators(b *testing.B) {
	var q string
	for _, w := range worstQueries(b) {
		if w.name == "broadest-accepted-ten-words" {
			q = w.q
		}
	}
	seps := []string{" ", ",", ";", "  ", "-", ".", "/", "+", "\t", "!"}
	var paths []string
	for i := range 600 {
		words := strings.Fields(q)
		var sb strings.Builder
		for k, w := range words {
			if k > 0 {
				sb.WriteString(seps[(i/(k*k+1)+k)%len(seps)])
			}
			sb.WriteString(w)
		}
		paths = append(paths, "/api/public/search?q="+url.QueryEscape(sb.String()+strings.Repeat(" ", i/60)))
	}
	serveAll(b, api(b), paths, nil)
}

// BenchmarkHTTPSearchNoCache runs every search: what a rotating query set
// larger than the cache costs.
func BenchmarkHTTPSearchNoCache(b *testing.B) { serveAll(b, apiWithCache(b, 0), searchPaths(b), nil) }
