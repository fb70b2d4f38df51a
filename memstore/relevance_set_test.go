package memstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

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
	d := memstore.OSAPrefixes(a, b)
	return d[len(d)-1]
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
			// The query is no word of the texts, nor the start of one; the
			// wanted statements are those whose text in the query's language
			// has a word with the query's Snowball stem in that language.
			lang := memstore.Lang(slices.Index(memstore.LangCodes[:], q.Lang))
			if len(words) != 1 {
				t.Errorf("%s: %d words", name, len(words))
			}
			if c.prefixOfAny(fq) {
				t.Errorf("%s: starts a word of the texts, so it needs no stemming", name)
			}
			stem := memstore.Stem(lang, q.Q)
			for i, st := range sts {
				if slices.ContainsFunc(c.plain[i][q.Lang], func(p string) bool { return memstore.Stem(lang, p) == stem }) {
					want = append(want, st.Slug)
				}
			}
			for _, m := range q.Match {
				if memstore.Stem(lang, m) != stem {
					t.Errorf("%s: %q has the stem %q, the query %q", name, m, memstore.Stem(lang, m), stem)
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
