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

// naiveSearch applies the rules of ParseQuery, Find and Rank by reading
// every flag's text: the reference Find must agree with. stemmed and
// typos say which query words Find matched by stem and with typos.
func naiveSearch(flags []FlagInput, texts [][NumLangs][]textWord, q Query, stemmed, typos uint16) map[string]float64 {
	out := map[string]float64{}
	for i := range flags {
		var score float64
		var cnt [NumLangs]int
		ok := true
		for wi, w := range q.words {
			best := -1
			for l, words := range texts[i] {
				k := naiveKind(w, l, words, stemmed&(1<<wi) != 0, typos&(1<<wi) != 0)
				if k >= 0 {
					cnt[l]++
					if best < 0 || k < best {
						best = k
					}
				}
			}
			if best < 0 {
				ok = false
				break
			}
			score += []float64{1331, 121, 11, 1}[best]
		}
		if !ok {
			continue
		}
		share := 0.0
		for l, text := range flags[i].Text {
			if n := len(distinct(Words(text))); n > 0 {
				share = max(share, min(1, float64(cnt[l])/float64(n)))
			}
		}
		out[flags[i].ID] = math.Round((score+share/2)*1000) / 1000
	}
	return out
}

// textWord is one word of a text: folded and its stem in the text's
// language.
type textWord struct{ folded, stem string }

// textWords are the words of each flag's texts.
func textWords(flags []FlagInput) [][NumLangs][]textWord {
	out := make([][NumLangs][]textWord, len(flags))
	for i := range flags {
		for l, text := range flags[i].Text {
			for _, raw := range RawWords(text) {
				out[i][l] = append(out[i][l], textWord{Fold(raw), Stem(Lang(l), raw)})
			}
		}
	}
	return out
}

// naiveKind is the best kind of match of w among the words of a text in
// language l, -1 for none.
func naiveKind(w QueryWord, l int, words []textWord, stem, typo bool) int {
	best := -1
	better := func(k int) {
		if best < 0 || k < best {
			best = k
		}
	}
	for _, tw := range words {
		x := tw.folded
		switch {
		case x == w.Text:
			better(int(MatchExact))
		case w.Prefix && strings.HasPrefix(x, w.Text):
			better(int(MatchPrefix))
		case stem && tw.stem == w.stems[l]:
			better(int(MatchStem))
		case typo && naiveTypo(w, x):
			better(int(MatchTypo))
		}
	}
	return best
}

// naiveTypo reports whether x is within MaxTypos of w or, for a prefix
// word, has a prefix that is.
func naiveTypo(w QueryWord, x string) bool {
	k := MaxTypos(w.runes)
	d := osaPrefixes(w.Text, x)
	if !w.Prefix {
		return d[len(d)-1] <= k
	}
	return slices.Min(d) <= k
}

// osaPrefixes returns the optimal string alignment distance of a to
// each prefix of b, shortest first, in code points: insertions,
// deletions, substitutions and swaps of neighbours.
func osaPrefixes(a, b string) []int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)]
}

func distinct(ws []string) []string {
	slices.Sort(ws)
	return slices.Compact(ws)
}

func TestFindAgreesWithNaiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, flags, vocab := searchCorpus(t, rng, 6000)
	budget := SearchBudget(len(flags))
	texts := textWords(flags)
	var accepted, refused, verified, typoed, stemmed int
	for range 800 {
		var ws []string
		for range 1 + rng.IntN(4) {
			w := vocab[min(int(rng.ExpFloat64()*60), len(vocab)-1)]
			if r := []rune(w); rng.IntN(2) == 0 && len(r) > 1 {
				w = string(r[:1+rng.IntN(len(r)-1)]) // a prefix of it
			}
			if rng.IntN(3) == 0 {
				w = typo(rng, w)
			}
			ws = append(ws, w)
		}
		raw := strings.Join(ws, " ")
		q, err := ParseQuery(raw)
		if err != nil || len(q.words) == 0 {
			continue
		}
		res, err := s.Find(q, FindOptions{Limit: 20})
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
		if res.typos != 0 {
			typoed++
		}
		if res.stemmed != 0 {
			stemmed++
		}
		want := naiveSearch(flags, texts, q, res.stemmed, res.typos)
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
			if h.Flag.ID() != all[k].id || math.Abs(h.Rank-all[k].rank) > 0.0011 {
				t.Fatalf("%q: hit %d is %s (rank %v), want %s (rank %v)", raw, k, h.Flag.ID(), h.Rank, all[k].id, all[k].rank)
			}
		}
	}
	t.Logf("%d accepted, %d refused, %d multi-word with matches, %d with typos, %d with stems", accepted, refused, verified, typoed, stemmed)
	if accepted < 300 || refused == 0 || verified < 100 || typoed < 50 || stemmed < 100 {
		t.Fatalf("the queries exercise too little: %d accepted, %d refused, %d multi-word with matches, %d with typos, %d with stems", accepted, refused, verified, typoed, stemmed)
	}
}

// typo makes one random edit of w: a letter swapped with the next,
// dropped, doubled or replaced.
func typo(rng *rand.Rand, w string) string {
	r := []rune(w)
	i := rng.IntN(len(r))
	switch rng.IntN(4) {
	case 0:
		if i+1 < len(r) {
			r[i], r[i+1] = r[i+1], r[i]
		}
	case 1:
		r = slices.Delete(r, i, i+1)
	case 2:
		r = slices.Insert(r, i, r[i])
	default:
		r[i] = []rune("kaymbşe")[rng.IntN(7)]
	}
	return string(r)
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
		{q: "buses", key: "buses*~buses,buse,bus,bus"}, // stems by language: tr, en, de, es
		{q: "otobüsler", key: "otobusler*~otobus,otobusl,otobusl,otobusl"},
		{q: "otobusler", key: "otobusler*~otobusler,otobusl,otobusl,otobusl"}, // no Turkish stem without ü
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
		res, _ := s.Find(q, FindOptions{Limit: 50})
		if res.Work > budget {
			t.Errorf("%q: work %d over the budget %d", raw, res.Work, budget)
		}
	}
}
