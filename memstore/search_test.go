package memstore

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// searchCorpus builds n flags whose texts are drawn from a small
// vocabulary with shared prefixes, so that queries meet large and small
// posting lists, and both ways of matching a word (reading its postings,
// checking the candidates' own words) are taken.
func searchCorpus(t *testing.T, rng *rand.Rand, n int) (*Snapshot, []FlagInput, []string) {
	t.Helper()
	syll := []string{"ka", "ya", "şı", "lı", "bus", "mi", "ön", "ß", "ta", "ra", "ñ", "e", "o", "ge"}
	var vocab []string
	for range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab = append(vocab, b.String())
	}
	vocab = append(vocab, "a", "y", "o") // one-letter words
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	flags := make([]FlagInput, n)
	for i := range flags {
		in := &flags[i]
		*in = FlagInput{ID: fmt.Sprintf("flg_%05d", i), Slug: fmt.Sprintf("f-%d", i), Approved: true,
			Category: Categories[i%NumCategories], CreatedAt: now, UpdatedAt: now,
			Red: rng.Int64N(4), Green: rng.Int64N(4)} // few totals: many ties
		for l := range in.Text {
			ws := make([]string, 1+rng.IntN(6))
			for j := range ws {
				// Skewed: the first words of the vocabulary are common.
				ws[j] = vocab[min(int(rng.ExpFloat64()*40), len(vocab)-1)]
			}
			in.Text[l] = strings.Join(ws, " ")
		}
	}
	s, err := Build(nil, Change{Full: true, Flags: flags, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return s, flags, vocab
}

// naiveSearch applies the rules of ParseQuery and Find by reading every
// flag's text: the reference Find must agree with.
func naiveSearch(flags []FlagInput, wordsOf [][]string, q Query) map[string]float64 {
	out := map[string]float64{}
	for i := range flags {
		words := wordsOf[i]
		score := 0.0
		ok := true
		for _, w := range q.words {
			best := float32(0)
			for _, x := range words {
				if x == w.Text || w.Prefix && strings.HasPrefix(x, w.Text) {
					best = max(best, wordScore(w.runes, utf8.RuneCountInString(x)))
				}
			}
			if best == 0 {
				ok = false
				break
			}
			score += float64(best)
		}
		if ok {
			out[flags[i].ID] = math.Round(score*1000) / 1000
		}
	}
	return out
}

func TestFindAgreesWithNaiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, flags, vocab := searchCorpus(t, rng, 6000)
	budget := SearchBudget(len(flags))
	wordsOf := make([][]string, len(flags))
	for i := range flags {
		for _, t := range flags[i].Text {
			wordsOf[i] = append(wordsOf[i], Words(t)...)
		}
	}
	var accepted, refused, verified int
	for range 800 {
		var ws []string
		for range 1 + rng.IntN(4) {
			w := vocab[min(int(rng.ExpFloat64()*60), len(vocab)-1)]
			if r := []rune(w); rng.IntN(2) == 0 && len(r) > 1 {
				w = string(r[:1+rng.IntN(len(r)-1)]) // a prefix of it
			}
			ws = append(ws, w)
		}
		raw := strings.Join(ws, " ")
		q, err := ParseQuery(raw)
		if err != nil {
			continue
		}
		res, err := s.Find(q, 20)
		if res.Work > budget {
			t.Fatalf("%q: work %d over the budget %d", raw, res.Work, budget)
		}
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("%q: %v", raw, err)
			}
			refused++
			continue
		}
		accepted++
		if len(q.words) > 1 && res.Total > 0 {
			verified++
		}
		want := naiveSearch(flags, wordsOf, q)
		if res.Total != len(want) {
			t.Fatalf("%q: total %d, want %d", raw, res.Total, len(want))
		}
		if len(res.Hits) != min(20, len(want)) {
			t.Fatalf("%q: %d hits, want %d", raw, len(res.Hits), min(20, len(want)))
		}
		// The hits are the best by rank desc, total desc, id asc.
		type hit struct {
			id    string
			rank  float64
			total int64
		}
		var all []hit
		for i := range flags {
			if r, ok := want[flags[i].ID]; ok {
				all = append(all, hit{flags[i].ID, r, flags[i].Red + flags[i].Green})
			}
		}
		slices.SortFunc(all, func(a, b hit) int {
			switch {
			case a.rank != b.rank:
				return -cmpFloat(a.rank, b.rank)
			case a.total != b.total:
				return int(b.total - a.total)
			}
			return strings.Compare(a.id, b.id)
		})
		for k, h := range res.Hits {
			if h.Flag.ID != all[k].id || math.Abs(h.Rank-all[k].rank) > 0.0011 {
				t.Fatalf("%q: hit %d is %s (rank %v), want %s (rank %v)", raw, k, h.Flag.ID, h.Rank, all[k].id, all[k].rank)
			}
		}
	}
	t.Logf("%d accepted, %d refused, %d multi-word with matches", accepted, refused, verified)
	if accepted < 300 || refused == 0 || verified < 100 {
		t.Fatalf("the queries exercise too little: %d accepted, %d refused, %d multi-word with matches", accepted, refused, verified)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestParseQueryRules(t *testing.T) {
	long := strings.Repeat("a ", 99) + "b"
	tests := []struct {
		q    string
		key  string // the canonical form; "" when refused
		fail string // part of the refusal's reason
	}{
		{q: "yaşlı otobüs", key: "otobus* yasli*"},
		{q: "Otobüs,,,YAŞLI", key: "otobus* yasli*"},
		{q: "bus bus bus dri", key: "bus* dri*"},
		{q: "a bus", key: "a bus*"},    // a one-letter word that is not last: only itself
		{q: "bus a", key: "a* bus*"},   // the last word is a prefix, however short
		{q: "a bus a", key: "a* bus*"}, // repeated: the last one's prefix wins
		{q: "!!", key: ""},             // no word: valid, finds nothing
		{q: "a b", fail: "at least 2 letters"},
		{q: "a.", fail: "at least 2 letters"},
		{q: long, fail: "at least 2 letters"},
		{q: "aa bb cc dd ee ff gg hh ii jj", key: "aa* bb* cc* dd* ee* ff* gg* hh* ii* jj*"},
		{q: "aa bb cc dd ee ff gg hh ii jj kk", fail: "at most 10"},
		{q: strings.Repeat("ab ", 66) + "ab", key: "ab*"},
	}
	for _, tc := range tests {
		q, err := ParseQuery(tc.q)
		if tc.fail != "" {
			var qe *QueryError
			if !errors.As(err, &qe) || !strings.Contains(qe.Detail, tc.fail) {
				t.Errorf("ParseQuery(%q) = %v, want a refusal saying %q", tc.q, err, tc.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tc.q, err)
			continue
		}
		if got := q.Key(); got != tc.key {
			t.Errorf("ParseQuery(%q).Key() = %q, want %q", tc.q, got, tc.key)
		}
	}
}

// The budget holds for the shapes that cost most before it: many short
// words up to the length limit, and the broadest prefixes.
func TestFindWorkWithinBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s, flags, _ := searchCorpus(t, rng, 6000)
	budget := SearchBudget(len(flags))
	for _, raw := range []string{"ka", "ya", "ka ya", "ka ya ta mi ge ra bus lı ön şı", "a ka", "ka e", "e o a y ka"} {
		q, err := ParseQuery(raw)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		res, _ := s.Find(q, 50)
		if res.Work > budget {
			t.Errorf("%q: work %d over the budget %d", raw, res.Work, budget)
		}
	}
}
