package micro_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

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
			if r, err := d.snap.Find(pq, memstore.FindOptions{Limit: 20}); err == nil && r.Work > most {
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

// searchBench runs queries in turn, reporting CPU ns/op and the index's
// work per query (postings read and words compared: what the search
// budget bounds) besides ns/op.
func searchBench(b *testing.B, queries []string) { searchOn(b, data(b).snap, queries) }

func searchOn(b *testing.B, snap *memstore.Snapshot, queries []string) {
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
			r, _ := snap.Find(parsed[k], memstore.FindOptions{Limit: 20})
			work += r.Work
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(work)/float64(b.N), "work/op")
}

// BenchmarkSearchRotating is the ordinary query: the data set's queries
// in turn.
func BenchmarkSearchRotating(b *testing.B) { searchBench(b, ordinaryQueries(b)) }

// BenchmarkSearchRotatingDelta is BenchmarkSearchRotating over an index
// with a delta: a load rewrote the texts of 1,000 flags (each given the
// texts of another), so the base holds 1,000 dead entries and the delta
// 1,000 flags, near the most it holds at 100,000 (see memstore.deltaMax).
func BenchmarkSearchRotatingDelta(b *testing.B) {
	d := data(b)
	changed := make([]memstore.FlagInput, 1000)
	for i := range changed {
		changed[i] = d.inputs[i*89%len(d.inputs)]
		changed[i].Text = d.inputs[(i*89+7)%len(d.inputs)].Text
		changed[i].UpdatedAt = changed[i].UpdatedAt.Add(time.Second)
	}
	snap, err := memstore.Build(d.snap, memstore.Change{Flags: changed, LoadedAt: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	searchOn(b, snap, ordinaryQueries(b))
}

// BenchmarkSearchWorst runs each of worstQueries: compare its cpu-ns/op
// with BenchmarkSearchRotating's (the bound: at most 5x, under 2 ms).
func BenchmarkSearchWorst(b *testing.B) {
	for _, w := range worstQueries(b) {
		b.Run(w.name, func(b *testing.B) { searchBench(b, []string{w.q}) })
	}
}
