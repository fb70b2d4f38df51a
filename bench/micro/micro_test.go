// Package micro_test holds the unit benchmarks of flagpole's hot paths,
// written against exported APIs only, so that a regression in the snapshot
// build, the page list, the search index, the limiter or the HTTP stack
// shows without the full `bench/run`:
//
//	go test ./bench/micro -run '^$' -bench . -benchtime 200x
//
// The data set is synthetic and built in memory: 100,000 approved flags
// with texts in the four languages drawn from a generated vocabulary (with
// Turkish, German and Spanish letters), every category, dominant colour and
// a dozen regions.
package micro_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/memstore"
)

// NumFlags is the size of the synthetic data set.
const NumFlags = 100_000

var regions = []string{"", "", "", "", "TR", "TR", "DE", "ES", "US", "GB", "MX", "AR", "AT", "CH", "FR", "NL", "BR"}

// syllables per language; words are 2 to 4 of them, so each language has a
// vocabulary of a few thousand words with shared prefixes, as real text has.
var syllables = [memstore.NumLangs][]string{
	{"ya", "şa", "lı", "ğı", "ö", "çe", "kü", "ır", "mak", "lar", "ler", "sı", "de", "ta", "gü", "in", "an", "ka", "bi", "ol"},
	{"the", "pre", "con", "tion", "al", "ing", "er", "ly", "ment", "sta", "for", "ro", "un", "ex", "pl", "ar", "ve", "ta", "mi", "ho"},
	{"ge", "ver", "ung", "ßen", "ä", "ü", "ö", "sch", "ein", "ich", "ber", "lich", "ke", "te", "an", "zu", "st", "mi", "na", "ri"},
	{"ca", "ño", "ción", "es", "mi", "á", "é", "pa", "lo", "ra", "ta", "do", "con", "tu", "ni", "ma", "re", "ví", "ga", "se"},
}

func makeVocab(rng *rand.Rand, lang int, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		k := 2 + rng.IntN(3)
		var b strings.Builder
		for j := 0; j < k; j++ {
			b.WriteString(syllables[lang][rng.IntN(len(syllables[lang]))])
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

type dataset struct {
	inputs  []memstore.FlagInput
	vocab   [memstore.NumLangs][]string
	snap    *memstore.Snapshot
	queries []string
	slugs   []string
}

var (
	dsOnce sync.Once
	ds     *dataset
)

// data builds the synthetic data set, its snapshot and the query set once.
func data(b testing.TB) *dataset {
	dsOnce.Do(func() {
		rng := rand.New(rand.NewPCG(42, 7))
		d := &dataset{}
		for l := range d.vocab {
			d.vocab[l] = makeVocab(rng, l, 4000)
		}
		now := time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)
		d.inputs = make([]memstore.FlagInput, NumFlags)
		for i := range d.inputs {
			in := &d.inputs[i]
			in.ID = fmt.Sprintf("flg_%010x%04x", rng.Uint64()&0xffffffffff, i&0xffff)
			in.Slug = fmt.Sprintf("flag-%d", i)
			in.Approved = true
			in.Category = memstore.Categories[i%len(memstore.Categories)]
			in.Region = regions[rng.IntN(len(regions))]
			for l := range in.Text {
				n := 5 + rng.IntN(8)
				ws := make([]string, n)
				for j := range ws {
					ws[j] = d.vocab[l][rng.IntN(len(d.vocab[l]))]
				}
				ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
				in.Text[l] = strings.Join(ws, " ") + "."
				if rng.IntN(3) == 0 {
					s := "Description: " + strings.Join(ws[:3], ", ") + "."
					in.Description[l] = &s
				}
			}
			in.Contexts = []string{memstore.Contexts[i%len(memstore.Contexts)]}
			total := int64(rng.ExpFloat64() * 300)
			in.Red = int64(float64(total) * rng.Float64())
			in.Green = total - in.Red
			in.CreatedAt = now.Add(-time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Millisecond)
			in.UpdatedAt = in.CreatedAt
			d.slugs = append(d.slugs, in.Slug)
		}
		snap, err := memstore.Build(nil, memstore.Change{Full: true, Flags: d.inputs, LoadedAt: now})
		if err != nil {
			panic(err)
		}
		d.snap = snap
		d.queries = makeQueries(rng, d)
		ds = d
	})
	if ds == nil {
		b.Fatal("the data set could not be built")
	}
	return ds
}

// makeQueries builds at least 600 distinct queries: 2- to 8-letter prefixes
// of words of the flags' texts, one and two words, in all four languages,
// some with their original letters and some folded.
func makeQueries(rng *rand.Rand, d *dataset) []string {
	seen := map[string]bool{}
	var out []string
	prefix := func(w string, n int) string {
		r := []rune(w)
		return string(r[:min(n, len(r))])
	}
	for len(out) < 600 {
		in := &d.inputs[rng.IntN(len(d.inputs))]
		l := rng.IntN(int(memstore.NumLangs))
		words := strings.Fields(strings.TrimSuffix(in.Text[l], "."))
		n := 2 + rng.IntN(7)
		var q string
		if rng.IntN(3) == 0 && len(words) > 1 {
			q = strings.ToLower(words[0]) + " " + prefix(words[1], n)
		} else {
			q = prefix(words[rng.IntN(len(words))], n)
		}
		if rng.IntN(2) == 0 {
			q = memstore.Fold(q)
		}
		if len([]rune(strings.TrimSpace(q))) < 2 || seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, q)
	}
	return out
}

// maxBuilds caps the iterations of the two build benchmarks: one full
// build takes seconds on a 2-core machine, so -benchtime 200x would outlast
// go test's 10-minute timeout. ns/op stays exact (the testing package
// divides by the b.N the benchmark leaves); the iteration count shown is
// the capped one. BENCH_MICRO_MAX_BUILDS changes the cap.
func maxBuilds(b *testing.B) int {
	n := 10
	if v, err := strconv.Atoi(os.Getenv("BENCH_MICRO_MAX_BUILDS")); err == nil && v > 0 {
		n = v
	}
	if b.N > n {
		//lint:ignore SA3001 the cap is deliberate, and ns/op stays exact (above)
		b.N = n
	}
	return b.N
}

func BenchmarkBuild100k(b *testing.B) {
	d := data(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range maxBuilds(b) {
		if _, err := memstore.Build(nil, memstore.Change{Full: true, Flags: d.inputs, LoadedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildTick100k is one incremental tick: 100 flags got a vote.
func BenchmarkBuildTick100k(b *testing.B) {
	d := data(b)
	changed := make([]memstore.FlagInput, 100)
	for i := range changed {
		changed[i] = d.inputs[i*997%len(d.inputs)]
		changed[i].Red++
		changed[i].UpdatedAt = changed[i].UpdatedAt.Add(time.Second)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range maxBuilds(b) {
		if _, err := memstore.Build(d.snap, memstore.Change{Flags: changed, LoadedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListDefault(b *testing.B) {
	d := data(b)
	q := memstore.ListQuery{Sort: memstore.SortNet, Limit: 20}
	b.ReportAllocs()
	for b.Loop() {
		page, _ := d.snap.List(q)
		if page.Len() != 20 {
			b.Fatalf("page of %d", page.Len())
		}
	}
}

// BenchmarkListFilteredDeepOffset filters on category and dominant colour
// (two lists: the snapshot intersects them) at 90 % of the matches.
func BenchmarkListFilteredDeepOffset(b *testing.B) {
	d := data(b)
	q := memstore.ListQuery{Sort: memstore.SortTotal, Desc: true, HasCategory: true, Category: 3,
		HasDominant: true, Dominant: memstore.Green, Limit: 20}
	_, total := d.snap.List(q)
	q.Offset = total * 9 / 10
	b.ReportAllocs()
	for b.Loop() {
		page, _ := d.snap.List(q)
		if page.Len() == 0 {
			b.Fatalf("empty page at offset %d of %d", q.Offset, total)
		}
	}
}

// BenchmarkListDeepOffset is the unfiltered list at 90 %.
func BenchmarkListDeepOffset(b *testing.B) {
	d := data(b)
	q := memstore.ListQuery{Sort: memstore.SortNewest, Desc: true, Limit: 20, Offset: NumFlags * 9 / 10}
	b.ReportAllocs()
	for b.Loop() {
		d.snap.List(q)
	}
}

func BenchmarkLimiterAllow(b *testing.B) {
	l := ratelimit.NewLocal()
	keys := []string{"k1", "k2", "k3", "k4"}
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			d, err := l.Allow(ctx, keys[i%len(keys)], 1<<30, time.Now())
			if err != nil || !d.Allowed {
				b.Fatalf("refused: %v", err)
			}
			i++
		}
	})
}

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
			if _, err := d.snap.Find(pq, 20); err == nil {
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

// prefixLoad counts, over the data set, the flags that have a word
// starting with each folded prefix of n letters (any language): the
// postings a search for that prefix unions.
func prefixLoad(d *dataset, n int) []string {
	count := map[string]int{}
	for i := range d.inputs {
		seen := map[string]bool{}
		for _, t := range d.inputs[i].Text {
			for _, w := range memstore.Words(t) {
				r := []rune(w)
				if len(r) < n {
					continue
				}
				p := string(r[:n])
				if !seen[p] {
					seen[p] = true
					count[p]++
				}
			}
		}
	}
	var ps []string
	for p := range count {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	return ps
}

// fill joins words (cycling) with sep up to 200 characters.
func fill(words []string, sep string) string {
	var b strings.Builder
	for i := 0; ; i++ {
		w := words[i%len(words)]
		if utf8.RuneCountInString(b.String())+len(sep)+utf8.RuneCountInString(w) > 200 {
			return b.String()
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(w)
	}
}

// worstQueries are the most expensive queries of the report (one-
// and two-letter words up to the 200-character limit, a lone one-letter
// prefix: refused now) and the most expensive the rules still answer: the
// broadest prefix and the broadest ten words under the work bound, and
// ten long words up to the length limit.
func worstQueries(b testing.TB) []struct{ name, q string } {
	d := data(b)
	one, two, three := prefixLoad(d, 1), prefixLoad(d, 2), prefixLoad(d, 3)
	// heaviest is the accepted candidate that takes the most work.
	heaviest := func(cands []string) string {
		best, most := "", -1
		for _, q := range cands {
			pq, err := memstore.ParseQuery(q)
			if err != nil {
				continue
			}
			if r, err := d.snap.Find(pq, 20); err == nil && r.Work > most {
				best, most = q, r.Work
			}
		}
		if most < 0 {
			b.Fatal("no candidate is accepted")
		}
		return best
	}
	var tens, longs []string
	for k := 0; k+10 <= len(three); k++ {
		tens = append(tens, strings.Join(three[k:k+10], " "))
	}
	for k := 0; k+10 <= len(d.vocab[1]); k += 10 {
		var ws []string
		for _, w := range d.vocab[1][k : k+10] {
			ws = append(ws, memstore.Fold(w)[:min(len(w), 18)])
		}
		if q := strings.Join(ws, " "); utf8.RuneCountInString(q) <= 200 {
			longs = append(longs, q)
		}
	}
	return []struct{ name, q string }{
		{"refused-one-letter-words-200", fill(one, " ")},
		{"refused-two-letter-words-200", fill(two, " ")},
		{"refused-lone-one-letter", one[0] + "."},
		{"refused-broadest-prefix", two[0]},
		{"broadest-accepted-prefix", heaviest(append(two, three...))},
		{"broadest-accepted-ten-words", heaviest(tens)},
		{"ten-long-words", heaviest(longs)},
	}
}

// cpuTime is the CPU time (user and system) the process has used: on
// shared cores it tells the cost of an operation better than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// searchBench runs queries in turn, reporting CPU ns/op and the index's
// work per query (postings read and words compared: what the search
// budget bounds) besides ns/op.
func searchBench(b *testing.B, queries []string) {
	d := data(b)
	parsed := make([]memstore.Query, len(queries))
	for i, q := range queries {
		parsed[i], _ = memstore.ParseQuery(q)
	}
	b.ReportAllocs()
	work, i := 0, 0
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		k := i % len(queries)
		if _, err := memstore.ParseQuery(queries[k]); err == nil {
			r, _ := d.snap.Find(parsed[k], 20)
			work += r.Work
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(work)/float64(b.N), "work/op")
}

// BenchmarkListWorst is /flags at its most expensive: filters whose
// lists must be intersected, at the deepest offset with the largest
// limit (the snapshot walks the shortest list to the page), and a region
// with no flag.
func BenchmarkListWorst(b *testing.B) {
	d := data(b)
	cases := []struct {
		name string
		q    memstore.ListQuery
	}{
		{"default", memstore.ListQuery{Sort: memstore.SortNet, Limit: 20}},
		{"every-filter-deepest-limit100", memstore.ListQuery{Sort: memstore.SortControversial, Desc: true,
			HasCategory: true, Category: 3, HasDominant: true, Dominant: memstore.Yellow, HasRegion: true, Limit: 100}},
		{"world+dominant-deepest-limit100", memstore.ListQuery{Sort: memstore.SortNewest, Desc: true,
			HasDominant: true, Dominant: memstore.Red, HasRegion: true, Limit: 100}},
		{"deepest-limit100", memstore.ListQuery{Sort: memstore.SortTotal, Desc: true, Limit: 100}},
		{"region-with-no-flag", memstore.ListQuery{Sort: memstore.SortNet, HasRegion: true, Region: "AQ", Limit: 100}},
	}
	for _, c := range cases {
		if _, total := d.snap.List(c.q); c.name != "default" {
			c.q.Offset = max(total-c.q.Limit, 0)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				d.snap.List(c.q)
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSearchRotating is the ordinary query: the data set's queries
// in turn.
func BenchmarkSearchRotating(b *testing.B) { searchBench(b, ordinaryQueries(b)) }

// BenchmarkSearchWorst runs each of worstQueries: compare its cpu-ns/op
// with BenchmarkSearchRotating's (the bound: at most 5x, under 2 ms).
func BenchmarkSearchWorst(b *testing.B) {
	for _, w := range worstQueries(b) {
		b.Run(w.name, func(b *testing.B) { searchBench(b, []string{w.q}) })
	}
}
