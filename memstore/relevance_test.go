package memstore_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

// The relevance set, testdata/relevance.jsonl, holds queries a person
// types against the demo statements (../loader/demo/statements.jsonl,
// keyed by slug), each with the statements that must come back, the
// words of the texts it is meant to match, and a kind:
//
//	exact      a word as the text writes it
//	folded     a word without its diacritics, or in another case
//	prefix     the start of a word that is no word of the texts
//	multiword  two or three words of one statement, together rarer than each
//	dotted_i   a Turkish word with ı, İ, I and i swapped as keyboards do
//	typo1      one edit (insertion, deletion, substitution, transposition) of a word, 5+ letters typed
//	typo2      two edits of a word, 9+ letters typed
//	stem       another inflection of a word (the Snowball stemmer of the
//	           text's language gives both the same stem): otobüsler for
//	           otobüste, Fenstern for Fenster, perros for perro, hiked for hiking
//
// The queries were drawn from the texts by a program and checked against
// them; TestRelevanceSetIsTrue keeps them true as the texts change.

const (
	statementsFile = "../loader/demo/statements.jsonl"
	relevanceFile  = "testdata/relevance.jsonl"
	topK           = 10
	minRecall      = 0.9
)

// enforced are the kinds today's search must serve; the others (typo1,
// typo2, stem) are measured and logged only, until the search learns
// typos and stems: that work switches them on here.
var enforced = map[string]bool{"exact": true, "folded": true, "prefix": true, "multiword": true, "dotted_i": true}

var kinds = []string{"exact", "folded", "prefix", "multiword", "dotted_i", "typo1", "typo2", "stem"}

type statement struct {
	Slug        string            `json:"slug"`
	Category    string            `json:"category"`
	Contexts    []string          `json:"contexts"`
	Lean        int               `json:"lean"`
	Text        map[string]string `json:"text"`
	Description map[string]string `json:"description"`
}

type relQuery struct {
	Kind  string   `json:"kind"`
	Lang  string   `json:"lang"`
	Q     string   `json:"q"`
	Want  []string `json:"want"`
	Match []string `json:"match"`
}

func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var v T
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s line %d: %v", name, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// demoSnapshot builds a snapshot of every statement as an approved flag,
// with vote counts that differ from flag to flag, as ties are broken by
// them.
func demoSnapshot(t *testing.T, sts []statement) *memstore.Snapshot {
	t.Helper()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	flags := make([]memstore.FlagInput, len(sts))
	for i, st := range sts {
		in := memstore.FlagInput{ID: fmt.Sprintf("flg_%04d", i+1), Slug: st.Slug, Approved: true, Category: st.Category,
			Contexts: st.Contexts, CreatedAt: now, UpdatedAt: now, Red: int64(i*37%101 + 1), Green: int64(i*53%97 + 1)}
		for l, code := range memstore.LangCodes {
			in.Text[l] = st.Text[code]
		}
		flags[i] = in
	}
	snap, err := memstore.Build(nil, memstore.Change{Full: true, Flags: flags, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

type score struct {
	n           int
	recall, mrr float64
}

// evaluate runs every query and scores it: recall@10 is the share of the
// wanted statements among the first ten hits, the reciprocal rank is one
// over the position of the first wanted hit (0 when none is in the ten).
func evaluate(snap *memstore.Snapshot, qs []relQuery) (byKind map[string]*score, byKindLang map[string]*score, misses map[string][]string) {
	byKind, byKindLang, misses = map[string]*score{}, map[string]*score{}, map[string][]string{}
	for _, q := range qs {
		hits, _ := snap.Search(q.Q, topK)
		got := make([]string, len(hits))
		for i, h := range hits {
			got[i] = h.Flag.Slug
		}
		found, rr := 0, 0.0
		for _, w := range q.Want {
			if slices.Contains(got, w) {
				found++
			}
		}
		for i, g := range got {
			if slices.Contains(q.Want, g) {
				rr = 1 / float64(i+1)
				break
			}
		}
		recall := float64(found) / float64(len(q.Want))
		for _, key := range []string{q.Kind, q.Kind + "/" + q.Lang} {
			m := byKind
			if strings.Contains(key, "/") {
				m = byKindLang
			}
			s := m[key]
			if s == nil {
				s = &score{}
				m[key] = s
			}
			s.n++
			s.recall += recall
			s.mrr += rr
		}
		if recall < 1 {
			misses[q.Kind] = append(misses[q.Kind], fmt.Sprintf("%q (%s) found %d of %d", q.Q, q.Lang, found, len(q.Want)))
		}
	}
	for _, m := range []map[string]*score{byKind, byKindLang} {
		for _, s := range m {
			s.recall /= float64(s.n)
			s.mrr /= float64(s.n)
		}
	}
	return byKind, byKindLang, misses
}

func TestRelevance(t *testing.T) {
	sts := readJSONL[statement](t, statementsFile)
	qs := readJSONL[relQuery](t, relevanceFile)
	snap := demoSnapshot(t, sts)
	byKind, byKindLang, misses := evaluate(snap, qs)

	var b strings.Builder
	fmt.Fprintf(&b, "relevance over %d statements, %d queries (recall@%d / MRR)\n", len(sts), len(qs), topK)
	fmt.Fprintf(&b, "%-10s %4s %7s %6s   %-13s %-13s %-13s %-13s\n", "kind", "n", "recall", "MRR", "tr", "en", "de", "es")
	for _, k := range kinds {
		s := byKind[k]
		if s == nil {
			t.Errorf("kind %s has no query", k)
			continue
		}
		fmt.Fprintf(&b, "%-10s %4d %7.3f %6.3f  ", k, s.n, s.recall, s.mrr)
		for _, code := range memstore.LangCodes {
			if ls := byKindLang[k+"/"+code]; ls != nil {
				fmt.Fprintf(&b, " %3d %4.2f/%4.2f", ls.n, ls.recall, ls.mrr)
			} else {
				fmt.Fprintf(&b, " %13s", "-")
			}
		}
		if !enforced[k] {
			b.WriteString("   (measured only)")
		}
		b.WriteByte('\n')
	}
	t.Log("\n" + b.String())
	for _, k := range kinds {
		if s := byKind[k]; s != nil && enforced[k] && s.recall < minRecall {
			t.Errorf("%s: recall@%d %.3f, want at least %.2f; misses:\n  %s", k, topK, s.recall, minRecall,
				strings.Join(misses[k], "\n  "))
		}
	}
}

// corpus is the statements' words, to check the relevance set against.
type corpus struct {
	sts    []statement
	folded [][]string            // per statement: its folded words, every language
	plain  []map[string][]string // per statement and language: its words as written
	vocab  map[string]bool
}

func newCorpus(sts []statement) *corpus {
	c := &corpus{sts: sts, vocab: map[string]bool{}}
	for _, st := range sts {
		var fw []string
		pw := map[string][]string{}
		for _, code := range memstore.LangCodes {
			fw = append(fw, memstore.Words(st.Text[code])...)
			pw[code] = strings.FieldsFunc(st.Text[code], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		}
		for _, w := range fw {
			c.vocab[w] = true
		}
		c.folded = append(c.folded, fw)
		c.plain = append(c.plain, pw)
	}
	return c
}

// where returns the slugs of the statements for which every query word
// has a word that ok accepts.
func (c *corpus) where(words []string, ok func(q, w string) bool) []string {
	var out []string
	for i, fw := range c.folded {
		all := true
		for _, q := range words {
			if !slices.ContainsFunc(fw, func(w string) bool { return ok(q, w) }) {
				all = false
				break
			}
		}
		if all {
			out = append(out, c.sts[i].Slug)
		}
	}
	return out
}

func (c *corpus) prefixOfAny(p string) bool {
	for w := range c.vocab {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// osa is the optimal string alignment distance of a and b, in code points:
// insertions, deletions, substitutions and transpositions of neighbours.
func osa(a, b string) int {
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
	return d[len(x)][len(y)]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Every query says something true of the texts: its wanted statements are
// exactly those that hold the word it is meant to match (in the sense of
// its kind), so a recall of 1 is reachable and a search that finds them
// all finds nothing the set forgot.
func TestRelevanceSetIsTrue(t *testing.T) {
	sts := readJSONL[statement](t, statementsFile)
	qs := readJSONL[relQuery](t, relevanceFile)
	c := newCorpus(sts)
	slugs := map[string]int{}
	for i, st := range sts {
		slugs[st.Slug] = i
	}
	perKind, perKindLang, seen := map[string]int{}, map[string]int{}, map[string]bool{}
	for _, q := range qs {
		name := fmt.Sprintf("%s %s %q", q.Kind, q.Lang, q.Q)
		perKind[q.Kind]++
		perKindLang[q.Kind+"/"+q.Lang]++
		if seen[q.Kind+"\x00"+q.Q] {
			t.Errorf("%s: twice", name)
		}
		seen[q.Kind+"\x00"+q.Q] = true
		if !slices.Contains(kinds, q.Kind) || !slices.Contains(memstore.LangCodes[:], q.Lang) {
			t.Errorf("%s: unknown kind or language", name)
			continue
		}
		if len(q.Want) == 0 || len(q.Want) > topK/2 || len(q.Match) == 0 {
			t.Errorf("%s: want 1 to %d statements and at least one matched word, got %d and %d", name, topK/2, len(q.Want), len(q.Match))
			continue
		}
		for _, w := range q.Want {
			if _, ok := slugs[w]; !ok {
				t.Errorf("%s: %s is no statement", name, w)
			}
		}
		words := memstore.Words(q.Q)
		fq := strings.Join(words, " ")
		var want []string
		switch q.Kind {
		case "exact", "folded", "dotted_i", "multiword":
			want = c.where(words, func(q, w string) bool { return q == w })
			if q.Kind == "multiword" && len(words) < 2 || q.Kind != "multiword" && len(words) != 1 {
				t.Errorf("%s: %d words", name, len(words))
			}
		case "prefix":
			want = c.where(words, func(q, w string) bool { return strings.HasPrefix(w, q) })
			if c.vocab[fq] {
				t.Errorf("%s: is a whole word of the texts, not only a prefix", name)
			}
		case "typo1", "typo2":
			k := int(q.Kind[4] - '0')
			near := map[string]bool{}
			for w := range c.vocab {
				if d := utf8.RuneCountInString(w) - utf8.RuneCountInString(fq); d <= k && d >= -k && osa(fq, w) <= k {
					near[w] = true
				}
			}
			want = c.where(words, func(_, w string) bool { return near[w] })
			if n := utf8.RuneCountInString(fq); n < 5 || k == 2 && n < 9 {
				t.Errorf("%s: %d letters are too few for %d typos", name, n, k)
			}
			if c.prefixOfAny(fq) {
				t.Errorf("%s: starts a word of the texts, so it needs no typo tolerance", name)
			}
		case "stem":
			// The stem itself is not computed here: the query must be no word
			// of the texts, nor the start of one, and each wanted statement
			// holds a matched word that shares the query's first letters.
			want = slices.Clone(q.Want)
			if c.prefixOfAny(fq) {
				t.Errorf("%s: starts a word of the texts, so it needs no stemming", name)
			}
			for _, w := range q.Want {
				i, ok := slugs[w]
				if !ok {
					continue
				}
				if !slices.ContainsFunc(c.plain[i][q.Lang], func(p string) bool {
					return slices.Contains(q.Match, p) && commonPrefix(memstore.Fold(p), fq) >= 3
				}) {
					t.Errorf("%s: %s has none of %v in its %s text", name, w, q.Match, q.Lang)
				}
			}
		}
		slices.Sort(want)
		got := slices.Sorted(slices.Values(q.Want))
		if !slices.Equal(want, got) {
			t.Errorf("%s: the texts give %v, the set wants %v", name, want, got)
		}
		// The matched words are in the wanted texts of the query's language,
		// and the kind's relation to the query holds.
		for _, m := range q.Match {
			fm := memstore.Fold(m)
			switch q.Kind {
			case "exact":
				if m != q.Q {
					t.Errorf("%s: matches %q, not itself", name, m)
				}
			case "folded", "dotted_i":
				if m == q.Q || fm != fq {
					t.Errorf("%s: %q is not another spelling of the same folded word", name, m)
				}
				if q.Kind == "dotted_i" && !strings.ContainsAny(q.Q+m, "ıİI") {
					t.Errorf("%s: no dotted or dotless I in %q or %q", name, q.Q, m)
				}
			case "prefix":
				if !strings.HasPrefix(fm, fq) {
					t.Errorf("%s: %q does not start with it", name, m)
				}
			case "typo1", "typo2":
				if k := int(q.Kind[4] - '0'); osa(fq, fm) != k {
					t.Errorf("%s: %q is %d edits away, want %d", name, m, osa(fq, fm), k)
				}
			}
			if !slices.ContainsFunc(q.Want, func(w string) bool { return slices.Contains(c.plain[slugs[w]][q.Lang], m) }) {
				t.Errorf("%s: no wanted statement's %s text has %q", name, q.Lang, m)
			}
		}
	}
	if len(qs) < 300 {
		t.Errorf("%d queries, want at least 300", len(qs))
	}
	for _, k := range kinds {
		if perKind[k] < 30 {
			t.Errorf("kind %s has %d queries, want at least 30", k, perKind[k])
		}
		langs := 0
		for _, code := range memstore.LangCodes {
			if perKindLang[k+"/"+code] > 0 {
				langs++
			}
		}
		if langs < 4 {
			t.Errorf("kind %s has queries in %d languages, want all four", k, langs)
		}
	}
}
