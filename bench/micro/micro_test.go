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
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// NumFlags is the size of the synthetic data set: 100,000, or
// BENCH_MICRO_FLAGS (bench/instructions sets 10,000, which builds ten
// times sooner under valgrind).
var NumFlags = func() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_MICRO_FLAGS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}()

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
	dsMu sync.Mutex
	ds   = map[int]*dataset{}
)

// data builds the synthetic data set of NumFlags flags, its snapshot and
// the query set once.
func data(b testing.TB) *dataset { return sizedData(b, NumFlags) }

// sizedData is data of n flags, built once per size.
func sizedData(b testing.TB, n int) *dataset {
	dsMu.Lock()
	defer dsMu.Unlock()
	if d := ds[n]; d != nil {
		return d
	}
	rng := rand.New(rand.NewPCG(42, 7))
	d := &dataset{}
	for l := range d.vocab {
		d.vocab[l] = makeVocab(rng, l, 4000)
	}
	now := time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)
	d.inputs = make([]memstore.FlagInput, n)
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
	// A trend history of 90 days to today for the flags the trend
	// benchmark asks for (every 97th of the first 1,000 places).
	today := memstore.DayOf(time.Now())
	tb := memstore.NewTrendBuilder(today - memstore.TrendDays)
	seen := map[int]bool{}
	for i := range 1000 {
		seen[i*97%n] = true
	}
	for i := range d.inputs {
		if !seen[i] {
			continue
		}
		for day := today - 89; day <= today; day++ {
			tb.Add([]byte(d.inputs[i].ID), day, int64(rng.IntN(50)), int64(rng.IntN(50)))
		}
	}
	snap, err := memstore.Build(nil, memstore.Change{Full: true, Flags: d.inputs, LoadedAt: now, Trends: tb.Done()})
	if err != nil {
		b.Fatalf("the data set could not be built: %v", err)
	}
	d.snap = snap
	d.queries = makeQueries(rng, d)
	ds[n] = d
	return d
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
