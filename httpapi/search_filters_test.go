package httpapi_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// searchAll is every hit of q with the extra parameters, in order, read
// page by page with offset; it checks total, count, limit and offset on
// every page and that the page past the end is empty.
func searchAll(t *testing.T, e *env, q, extra string, limit int) []map[string]any {
	t.Helper()
	var all []map[string]any
	total := -1.0
	for off := 0; ; off += limit {
		r := e.get(fmt.Sprintf("/api/public/search?q=%s&limit=%d&offset=%d%s", url.QueryEscape(q), limit, off, extra))
		mustStatus(t, r, 200, "")
		items := data(t, r)
		if r.json["count"] != float64(len(items)) || r.json["offset"] != float64(off) || r.json["limit"] != float64(limit) {
			t.Fatalf("%q%s offset %d: count %v offset %v limit %v for %d items", q, extra, off, r.json["count"],
				r.json["offset"], r.json["limit"], len(items))
		}
		if total >= 0 && r.json["total"] != total {
			t.Fatalf("%q%s: total %v at offset %d, %v before", q, extra, r.json["total"], off, total)
		}
		total = r.json["total"].(float64)
		all = append(all, items...)
		if len(items) < limit {
			if len(all) != int(total) {
				t.Fatalf("%q%s: %d items over the pages, total %v", q, extra, len(all), total)
			}
			return all
		}
	}
}

// Filters narrow a search to the flags /flags lists with the same
// filters, keeping the search's order; total counts them all; offset
// pages through them without a gap or a repeat.
func TestSearchFiltersAndPaging(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	queries := []string{"text", "bus", "of", "otobus", "the"}
	filters := []string{"category=CHARACTER", "category=lifestyle", "region=TR", "region=world", "region=de",
		"region=FR", "dominant=red", "dominant=yellow", "dominant=green", "region=TR&category=character&dominant=red",
		"category=SOCIAL&region=world", "category=BEHAVIORAL&dominant=green"}
	for _, q := range queries {
		all := slugs(searchAll(t, e, q, "", 50))
		if len(all) == 0 {
			t.Fatalf("%q finds nothing", q)
		}
		if paged := slugs(searchAll(t, e, q, "", 2)); !slices.Equal(paged, all) {
			t.Errorf("%q by pages of 2: %v, in one page %v", q, paged, all)
		}
		for _, f := range filters {
			listed := slugs(data(t, e.get("/api/public/flags?limit=100&"+f)))
			var want []string
			for _, s := range all {
				if slices.Contains(listed, s) {
					want = append(want, s)
				}
			}
			for _, limit := range []int{50, 1, 3} {
				if got := slugs(searchAll(t, e, q, "&"+f, limit)); !slices.Equal(got, want) {
					t.Errorf("%q&%s (limit %d): %v, want %v", q, f, limit, got, want)
				}
			}
		}
	}
	// Offset past the end, as on /flags: 200, empty data, total still all.
	for _, tc := range []struct {
		off  string
		echo float64
	}{{"1000", 1000}, {"9007199254740991", 1<<53 - 1}, {"99999999999999999999999", 1<<53 - 1}} {
		r := e.get("/api/public/search?q=text&offset=" + tc.off)
		mustStatus(t, r, 200, "")
		if len(data(t, r)) != 0 || r.json["count"] != 0.0 || r.json["total"].(float64) == 0 || r.json["offset"] != tc.echo {
			t.Errorf("offset=%s: %s", tc.off, truncate(r.body))
		}
	}
}

// lang restricts a search to one language's text.
func TestSearchLang(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, q := range []string{"bus", "otobus", "autobus", "yasli", "strasse", "text", "nino"} {
		all := slugs(searchAll(t, e, q, "", 50))
		var union []string
		for _, lang := range []string{"tr", "en", "de", "es"} {
			got := slugs(searchAll(t, e, q, "&lang="+lang, 50))
			for _, s := range got {
				if !slices.Contains(all, s) {
					t.Errorf("%q&lang=%s finds %s, which %q alone does not", q, lang, s, q)
				}
				if !slices.Contains(union, s) {
					union = append(union, s)
				}
			}
		}
		slices.Sort(union)
		if slices.Sort(all); !slices.Equal(union, all) {
			t.Errorf("%q: the four languages alone find %v, all together %v", q, union, all)
		}
	}
	// Each language's own word, and only there.
	for _, tc := range []struct{ q, lang, slug string }{
		{"yasli", "tr", "seat-for-the-elderly"}, {"elderly", "en", "seat-for-the-elderly"},
		{"strasse", "de", "never-greets-neighbours"}, {"calle", "es", "never-greets-neighbours"},
	} {
		for _, lang := range []string{"tr", "en", "de", "es"} {
			got := slugs(searchAll(t, e, tc.q, "&lang="+lang, 50))
			if has := slices.Contains(got, tc.slug); has != (lang == tc.lang) {
				t.Errorf("%q&lang=%s: %v (its word is in %s)", tc.q, lang, got, tc.lang)
			}
		}
	}
	// A query with one word in one language and one in another finds the
	// flag only when both languages are searched.
	if got := slugs(searchAll(t, e, "otobus driver", "&lang=en", 50)); slices.Contains(got, "bus-driver-friend") {
		t.Errorf("otobus driver&lang=en: %v", got)
	}
}

// /search validates category, region, dominant and offset exactly as
// /flags does: the same status, code, param and detail.
func TestSearchParameterErrorsAsFlags(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, bad := range []string{"category=FOOD", "category=", "category=a&category=b", "region=XX", "region=TUR",
		"region=", "region=UK", "region=%zz", "dominant=blue", "dominant=RED", "dominant=", "offset=-1", "offset=x",
		"offset=1.5", "offset=", "offset=%2B1", "offset=1&offset=2", "offset=-0x1"} {
		fl := e.get("/api/public/flags?" + bad)
		se := e.get("/api/public/search?q=bus&" + bad)
		mustStatus(t, fl, 400, "invalid_parameter")
		mustStatus(t, se, 400, "invalid_parameter")
		for _, k := range []string{"status", "title", "code", "param", "detail"} {
			if fl.json[k] != se.json[k] {
				t.Errorf("%s: /search %s %v, /flags %v", bad, k, se.json[k], fl.json[k])
			}
		}
	}
	for _, bad := range []string{"lang=fr", "lang=EN", "lang=", "lang=en&lang=de", "lang=en,de"} {
		r := e.get("/api/public/search?q=bus&" + bad)
		mustStatus(t, r, 400, "invalid_parameter")
		if r.json["param"] != "lang" {
			t.Errorf("%s: param %v", bad, r.json["param"])
		}
		if d := r.json["detail"].(string); !strings.Contains(d, "tr, en, de, es") && !strings.Contains(d, "more than once") {
			t.Errorf("%s: detail %q does not name the languages", bad, d)
		}
	}
}

// Pages past the first 50 hits keep the order (rank desc, total desc, id
// asc) without a gap or a repeat, with ties on rank and on total.
func TestSearchDeepPages(t *testing.T) {
	lines := fixtureLines()
	for i := range 130 {
		text := [4]string{"mavi kapı", "blue door", "blaue Tür", "puerta azul"}
		if i%3 == 1 {
			text[1] = "blueberry door"
		}
		if i%5 == 2 {
			text[1] = "blue doorway, blue door"
		}
		lines = append(lines, fx{id: fmt.Sprintf("p%03d", (i*37)%130), slug: fmt.Sprintf("deep-%d", i), cat: "SOCIAL",
			created: base, red: int64(i % 4), green: int64(i % 7), text: text}.line())
	}
	e := newEnv(t, "sqlite", lines)
	for _, q := range []string{"blue", "blue door", "door"} {
		for _, limit := range []int{7, 50} {
			items := searchAll(t, e, q, "", limit)
			if len(items) < 100 {
				t.Fatalf("%q: %d hits", q, len(items))
			}
			seen := map[string]bool{}
			for i, it := range items {
				if seen[it["slug"].(string)] {
					t.Fatalf("%q by %d: %s twice", q, limit, it["slug"])
				}
				seen[it["slug"].(string)] = true
				if i == 0 {
					continue
				}
				prev := items[i-1]
				r, pr := it["rank"].(float64), prev["rank"].(float64)
				if r > pr || r == pr && (total(it) > total(prev) ||
					total(it) == total(prev) && it["id"].(string) < prev["id"].(string)) {
					t.Fatalf("%q by %d: %v (%v) after %v (%v) at %d", q, limit, it["id"], r, prev["id"], pr, i)
				}
			}
		}
	}
}

// q's own rules (ParseQuery: at most 10 distinct words, a word of two
// letters) are checked before the other parameters, whether or not an
// answer to the request is cached, and a refused q is never answered from
// the cache of a similar valid one.
func TestSearchQueryErrorFirst(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	many := url.QueryEscape("a1 b2 c3 d4 e5 f6 g7 h8 i9 j10 k11")
	for _, q := range []string{many, "a+b+c", "x%20y"} {
		for _, extra := range []string{"", "&category=FOOD", "&lang=fr", "&limit=0", "&offset=-1", "&region=XX&dominant=blue"} {
			for range 2 {
				r := e.get("/api/public/search?q=" + q + extra)
				mustStatus(t, r, 400, "invalid_parameter")
				if r.json["param"] != "q" {
					t.Errorf("q=%s%s: param %v (%v), want q", q, extra, r.json["param"], r.json["detail"])
				}
			}
		}
	}
	// A valid q with a bad parameter names that parameter.
	if r := e.get("/api/public/search?q=bus&limit=0"); r.json["param"] != "limit" {
		t.Errorf("q=bus&limit=0: param %v", r.json["param"])
	}
	// The valid query is cached; the same words past the word limit are
	// still refused, and a cached answer is served again as before.
	mustStatus(t, e.get("/api/public/search?q=bus+of"), 200, "")
	mustStatus(t, e.get("/api/public/search?q=bus+of"), 200, "")
	r := e.get("/api/public/search?q=bus+of+" + many)
	mustStatus(t, r, 400, "invalid_parameter")
}
