package httpapi_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/memstore"
)

var langCodes = []string{"tr", "en", "de", "es"}

// checkMatches checks a hit's matches against its text: each is a whole
// word of the text in its language, a word that folds to a query word
// (exact) or to a word a query word starts (prefix); and every query word
// is matched somewhere. It returns the kinds seen.
func checkMatches(t *testing.T, q string, it map[string]any) map[string]bool {
	t.Helper()
	words := memstore.Words(q)
	kinds := map[string]bool{}
	ms, ok := it["matches"].(map[string]any)
	if !ok {
		t.Errorf("%q: %s has no matches object", q, it["slug"])
		return kinds
	}
	text := it["text"].(map[string]any)
	covered := map[string]bool{}
	for lang, list := range ms {
		if !slices.Contains(langCodes, lang) {
			t.Errorf("%q: %s: matches in %q", q, it["slug"], lang)
			continue
		}
		runes := []rune(text[lang].(string))
		if len(list.([]any)) == 0 {
			t.Errorf("%q: %s: an empty list for %s (a language with no match is left out)", q, it["slug"], lang)
		}
		for _, x := range list.([]any) {
			m := x.(map[string]any)
			start, end, kind := int(m["start"].(float64)), int(m["end"].(float64)), m["kind"].(string)
			kinds[kind] = true
			if start < 0 || end <= start || end > len(runes) {
				t.Errorf("%q: %s %s [%d,%d) outside %q", q, it["slug"], lang, start, end, string(runes))
				continue
			}
			word := string(runes[start:end])
			if ws := memstore.Words(word); len(ws) != 1 || !separator(runes, start-1) || !separator(runes, end) {
				t.Errorf("%q: %s %s [%d,%d) = %q is not a whole word of %q", q, it["slug"], lang, start, end, word, string(runes))
				continue
			}
			folded := memstore.Words(word)[0]
			switch kind {
			case "exact":
				if !slices.Contains(words, folded) {
					t.Errorf("%q: %s %s: exact match %q (%q) is no query word", q, it["slug"], lang, word, folded)
				}
				covered[folded] = true
			case "prefix":
				found := false
				for _, w := range words {
					if strings.HasPrefix(folded, w) {
						found, covered[w] = true, true
					}
				}
				if !found {
					t.Errorf("%q: %s %s: prefix match %q (%q) starts with no query word", q, it["slug"], lang, word, folded)
				}
			case "stem", "typo":
				covered["~"+kind] = true
			default:
				t.Errorf("%q: %s: kind %q", q, it["slug"], kind)
			}
		}
	}
	for _, w := range words {
		if !covered[w] && !covered["~stem"] && !covered["~typo"] {
			t.Errorf("%q: %s: the query word %q is marked nowhere: %v", q, it["slug"], w, ms)
		}
	}
	return kinds
}

// separator reports whether runes[i] is outside the text or no part of a
// word.
func separator(runes []rune, i int) bool {
	return i < 0 || i >= len(runes) || len(memstore.Words(string(runes[i]))) == 0
}

// Each hit says which words of its text matched, per language, as code
// point offsets (so a text with ş, ü or İ before the word is counted in
// characters, not bytes) and the kind of match.
func TestSearchMatches(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, q := range []string{"yasli", "otobus", "Yaşlılara otobüste", "bus dri", "istanbul", "strasse", "nino perdon",
		"autobus", "isik", "grusst", "komsularini", "text of", "bus"} {
		for _, lang := range []string{"", "&lang=tr", "&lang=en", "&lang=de", "&lang=es"} {
			r := e.get("/api/public/search?q=" + url.QueryEscape(q) + lang)
			mustStatus(t, r, 200, "")
			items := data(t, r)
			if lang == "" && len(items) == 0 {
				t.Fatalf("%q finds nothing", q)
			}
			for _, it := range items {
				checkMatches(t, q, it)
				if lang != "" {
					for l := range it["matches"].(map[string]any) {
						if l != lang[len("&lang="):] {
							t.Errorf("%q%s: %s has matches in %s", q, lang, it["slug"], l)
						}
					}
				}
			}
		}
	}
	// Forgiven matches say so: a typo, and an inflection.
	for _, tc := range []struct{ q, slug, kind string }{
		{"nieghbours", "never-greets-neighbours", "typo"},
		{"greeting", "never-greets-neighbours", "stem"},
	} {
		r := e.get("/api/public/search?q=" + url.QueryEscape(tc.q))
		mustStatus(t, r, 200, "")
		found := false
		for _, it := range data(t, r) {
			if it["slug"] == tc.slug {
				found = true
				if kinds := checkMatches(t, tc.q, it); !kinds[tc.kind] {
					t.Errorf("%q: %s matched with %v, want a %s match", tc.q, tc.slug, kinds, tc.kind)
				}
			}
		}
		if !found {
			t.Errorf("%q does not find %s", tc.q, tc.slug)
		}
	}
}
