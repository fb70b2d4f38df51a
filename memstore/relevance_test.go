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

// enforced are the kinds the search must serve: all of them.
var enforced = map[string]bool{"exact": true, "folded": true, "prefix": true, "multiword": true, "dotted_i": true,
	"typo1": true, "typo2": true, "stem": true}

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
			got[i] = h.Flag.Slug()
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
	if testing.Verbose() {
		for _, k := range kinds {
			if len(misses[k]) > 0 {
				t.Logf("%s misses:\n  %s", k, strings.Join(misses[k], "\n  "))
			}
		}
	}
	for _, k := range kinds {
		if s := byKind[k]; s != nil && enforced[k] && s.recall < minRecall {
			t.Errorf("%s: recall@%d %.3f, want at least %.2f; misses:\n  %s", k, topK, s.recall, minRecall,
				strings.Join(misses[k], "\n  "))
		}
	}
}
