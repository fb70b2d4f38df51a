package httpapi_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/memstore"
)

func TestSearch(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		search := func(q string) ([]string, result) {
			t.Helper()
			r := e.get("/api/public/search?q=" + url.QueryEscape(q))
			mustStatus(t, r, 200, "")
			items := data(t, r)
			if r.json["count"] != float64(len(items)) {
				t.Errorf("%q: count %v for %d items", q, r.json["count"], len(items))
			}
			if r.json["q"] != q {
				t.Errorf("q echoed as %q, want %q", r.json["q"], q)
			}
			for i, it := range items {
				if _, ok := it["createdAt"]; ok {
					t.Errorf("search items have no createdAt: %v", it)
				}
				rank := it["rank"].(float64)
				if i > 0 {
					prev := items[i-1]
					pr := prev["rank"].(float64)
					if rank > pr || (rank == pr && total(it) > total(prev)) ||
						(rank == pr && total(it) == total(prev) && it["id"].(string) < prev["id"].(string)) {
						t.Errorf("%q: not ordered by rank desc, total desc, id asc: %v", q, slugs(items))
					}
				}
			}
			return slugs(items), r
		}
		tests := []struct {
			q    string
			want []string // every slug that must be found
			not  []string // slugs that must not be
		}{
			// Turkish: ş ı ğ ç ö ü and the dotted and dotless i.
			{q: "yasli", want: []string{"seat-for-the-elderly"}},
			{q: "YAŞLI", want: []string{"seat-for-the-elderly"}},
			{q: "Yaşlılara", want: []string{"seat-for-the-elderly"}},
			{q: "yaslilara otobuste", want: []string{"seat-for-the-elderly"}},
			{q: "otobus", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			{q: "ISTANBUL", want: []string{"never-greets-neighbours"}},
			{q: "istanbul", want: []string{"never-greets-neighbours"}},
			{q: "İstanbul", want: []string{"never-greets-neighbours"}},
			{q: "isik", want: []string{"child-says-sorry"}},
			{q: "IŞIK", want: []string{"child-says-sorry"}},
			{q: "soforuyle", want: []string{"bus-driver-friend"}},
			// German: ß, ä, ö, ü.
			{q: "strasse", want: []string{"never-greets-neighbours"}},
			{q: "Straße", want: []string{"never-greets-neighbours"}},
			{q: "grusst", want: []string{"never-greets-neighbours"}},
			{q: "uberlasst alteren", want: []string{"seat-for-the-elderly"}},
			{q: "Überlässt", want: []string{"seat-for-the-elderly"}},
			// Spanish: ñ and the accents.
			{q: "nino", want: []string{"child-says-sorry"}},
			{q: "niño perdon", want: []string{"child-says-sorry"}},
			{q: "autobus", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			{q: "AUTOBÚS", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			// Every word must match; the last one as a prefix.
			{q: "bus driver", want: []string{"bus-driver-friend"}, not: []string{"seat-for-the-elderly"}},
			{q: "bus dri", want: []string{"bus-driver-friend"}, not: []string{"seat-for-the-elderly"}},
			{q: "bus zzzz", not: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			// Words may come from different languages of one flag.
			{q: "otobus driver", want: []string{"bus-driver-friend"}},
			{q: "  yasli  ", want: []string{"seat-for-the-elderly"}},
			{q: "!!", not: []string{"seat-for-the-elderly"}},
			// A one-letter word that is not the last matches only itself
			// (Spanish "a"); the last word is a prefix however short.
			{q: "a autobus", want: []string{"seat-for-the-elderly"}, not: []string{"bus-driver-friend"}},
			{q: "bus d", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			// Repeated words and other separators find the same.
			{q: "bus,bus;;DRIVER", want: []string{"bus-driver-friend"}, not: []string{"seat-for-the-elderly"}},
		}
		for _, tc := range tests {
			got, _ := search(tc.q)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q: %v lacks %s", tc.q, got, w)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("%q: %v has %s", tc.q, got, n)
				}
			}
		}
		// Approved flags only.
		e.exec("UPDATE flags SET status = ? WHERE id = ?", "PENDING", "f23")
		e.reload()
		if got, _ := search("otobus"); slices.Contains(got, "bus-driver-friend") {
			t.Errorf("a pending flag is found: %v", got)
		}
		// A whole word ranks above a longer word it starts.
		got, r := search("bus")
		if len(got) == 0 {
			t.Fatal("bus finds nothing")
		}
		for _, it := range data(t, r) {
			if it["slug"] == "seat-for-the-elderly" && it["rank"].(float64) <= 0 {
				t.Errorf("rank %v", it["rank"])
			}
		}
		// limit and its clamp.
		r = e.get("/api/public/search?q=the&limit=1")
		if len(data(t, r)) != 1 || r.json["limit"] != 1.0 {
			t.Errorf("limit=1: %s", r.body)
		}
		if r := e.get("/api/public/search?q=the&limit=500"); r.json["limit"] != 50.0 {
			t.Errorf("limit=500 must clamp to 50: %v", r.json["limit"])
		}
		if r := e.get("/api/public/search?q=" + url.QueryEscape(strings.Repeat("ab ", 66)+"ab")); r.status != 200 {
			t.Errorf("200 characters: %d", r.status)
		}
	})
}

// searchEnv serves lines from SQLite with a metrics registry, so a test
// can read the search counters.
func searchEnv(t *testing.T, lines []string) (*env, *prometheus.Registry) {
	e := newEnv(t, loader.SQLite, lines)
	reg := prometheus.NewRegistry()
	api, err := httpapi.New(httpapi.Options{Store: e.store, CacheBytes: 8 << 20, Now: e.clock.Now, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	e.api, e.srv = api, httptest.NewServer(api.Handler())
	t.Cleanup(func() { e.srv.Close(); api.Close() })
	return e, reg
}

// The shapes that cost 10-100x an ordinary search are refused with a 400
// that says why, or answered within the work bound.
func TestSearchBoundedCost(t *testing.T) {
	e, reg := searchEnv(t, fixtureLines())
	refused := []struct{ q, why string }{
		{strings.TrimSpace(strings.Repeat("a b c d e f g h i j k l m n o p q r s t u v w x y z ", 8))[:199], "at most 10"},
		{"ab cd ef gh ij kl mn op qr st uv wx yz ba dc fe hg ji lk nm po rq ts vu xw zy", "at most 10"},
		{"a.b,c;d e", "at least 2 letters"},
		{"a!", "at least 2 letters"},
		{"y o", "at least 2 letters"},
		{"bus driver the elderly seat friends with on to up their", "at most 10"},
	}
	for _, tc := range refused {
		r := e.get("/api/public/search?q=" + url.QueryEscape(tc.q))
		mustStatus(t, r, 400, "invalid_parameter")
		if r.json["param"] != "q" || !strings.Contains(r.json["detail"].(string), tc.why) {
			t.Errorf("%q: %s, want a detail saying %q", tc.q, r.body, tc.why)
		}
	}
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 0 {
		t.Errorf("refused queries ran %v searches", n)
	}
	// Accepted: many words, repeated words, long and short, up to the
	// length limit; each within the bound.
	budget := float64(memstore.SearchBudget(e.store.Snapshot().Len()))
	for _, q := range []string{
		strings.Repeat("ab ", 66) + "ab",
		strings.TrimSpace(strings.Repeat("bus the a e ", 16)),
		"the to on a e i o u y bu",
		"e a el",
	} {
		before := counter(t, reg, "flagpole_search_work_total")
		r := e.get("/api/public/search?q=" + url.QueryEscape(q))
		mustStatus(t, r, 200, "")
		if w := counter(t, reg, "flagpole_search_work_total") - before; w > budget {
			t.Errorf("%q: work %v over the bound %v", q, w, budget)
		}
	}
}

// A query too broad for the bound gets a 400 that says so: 3,000 flags
// that all have words starting with "co".
func TestSearchTooBroad(t *testing.T) {
	lines := fixtureLines()
	words := []string{"coat", "cold", "cook", "corn", "cow", "cord", "code", "coin"}
	for i := range 3000 {
		w := func(k int) string { return words[(i+k)%len(words)] }
		lines = append(lines, fx{id: fmt.Sprintf("g%04d", i), slug: fmt.Sprintf("broad-%d", i), cat: "SOCIAL", created: base,
			text: [4]string{w(0) + " " + w(1), w(2) + " " + w(3), w(4) + " " + w(5), w(6) + " mavi " + w(7)}}.line())
	}
	e, reg := searchEnv(t, lines)
	r := e.get("/api/public/search?q=co")
	mustStatus(t, r, 400, "invalid_parameter")
	if r.json["param"] != "q" || !strings.Contains(r.json["detail"].(string), "too broad") {
		t.Errorf("co: %s", r.body)
	}
	if n := counter(t, reg, "flagpole_search_refused_total"); n != 1 {
		t.Errorf("refused %v, want 1", n)
	}
	// Narrower queries over the same flags are answered.
	for _, q := range []string{"coat", "mavi coat", "cow cor"} {
		r := e.get("/api/public/search?q=" + url.QueryEscape(q))
		mustStatus(t, r, 200, "")
		if r.json["total"].(float64) == 0 {
			t.Errorf("%q finds nothing", q)
		}
	}
}

// Queries that differ only in separators, case, diacritics, word order,
// repeated words or limit share one run of the index; each echoes its q.
func TestSearchCacheNormalisedQuery(t *testing.T) {
	e, reg := searchEnv(t, fixtureLines())
	var first []string
	for i, q := range []string{"yasli otobus", "YAŞLI,,,otobüs", "otobüs  yaşlı", "yasli;otobus;yasli", "Yasli--Otobus"} {
		for _, limit := range []string{"", "&limit=1", "&limit=50"} {
			r := e.get("/api/public/search?q=" + url.QueryEscape(q) + limit)
			mustStatus(t, r, 200, "")
			if r.json["q"] != q {
				t.Errorf("q echoed as %q, want %q", r.json["q"], q)
			}
			got := slugs(data(t, r))
			if i == 0 && limit == "" {
				first = got
			} else if limit == "" && !slices.Equal(got, first) {
				t.Errorf("%q: %v, want %v", q, got, first)
			}
		}
	}
	if len(first) == 0 {
		t.Fatal("yasli otobus finds nothing")
	}
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 1 {
		t.Errorf("%v runs of the index, want 1", n)
	}
	// Filters, language and offset are part of the key, limit is not;
	// only the language runs the index again, the others page what the
	// first run matched.
	for _, extra := range []string{"&region=tr", "&region=TR&limit=1", "&offset=1", "&offset=1&limit=2", "&lang=tr",
		"&lang=tr&limit=3", "&dominant=green&category=behavioral", "&category=BEHAVIORAL&limit=5&dominant=green"} {
		mustStatus(t, e.get("/api/public/search?q=otob%C3%BCs+YASLI"+extra), 200, "")
	}
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 2 {
		t.Errorf("%v runs of the index, want 2", n)
	}
	if n := counter(t, reg, "flagpole_search_repaged_total"); n != 3 {
		t.Errorf("%v pages made from kept matches, want 3", n)
	}
}

// Spellings of one query share one cache entry: the second spelling is
// answered from the entry the first made (a cache hit, no second run),
// with its own q echoed; a spelling asked again gets the same bytes and
// ETag, and a 304 for that ETag.
func TestSearchSpellingsShareOneEntry(t *testing.T) {
	e, reg := searchEnv(t, fixtureLines())
	first := e.get("/api/public/search?q=" + url.QueryEscape("yasli otobus"))
	mustStatus(t, first, 200, "")
	if hr := e.api.CacheHitRatio(); hr != 0 {
		t.Fatalf("hit ratio %v before any answer was kept", hr)
	}
	other := e.get("/api/public/search?q=" + url.QueryEscape("Otobüs,  YAŞLI "))
	mustStatus(t, other, 200, "")
	if hr := e.api.CacheHitRatio(); hr <= 0 {
		t.Errorf("hit ratio %v: the second spelling was not answered from the first's entry", hr)
	}
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 1 {
		t.Errorf("%v runs of the index, want 1", n)
	}
	if other.json["q"] != "Otobüs,  YAŞLI " || !slices.Equal(slugs(data(t, other)), slugs(data(t, first))) ||
		other.json["total"] != first.json["total"] {
		t.Errorf("the second spelling answers %s\nthe first %s", other.body, first.body)
	}
	again := e.get("/api/public/search?q=" + url.QueryEscape("yasli otobus"))
	tag := first.header.Get("ETag")
	if string(again.body) != string(first.body) || again.header.Get("ETag") != tag || tag == "" {
		t.Errorf("asked again: ETag %s, body\n%s\nwant ETag %s, body\n%s", again.header.Get("ETag"), again.body, tag, first.body)
	}
	if other.header.Get("ETag") == tag {
		t.Error("two spellings, whose bodies differ in q, have one ETag")
	}
	mustStatus(t, e.get("/api/public/search?q="+url.QueryEscape("yasli otobus"), "If-None-Match: "+tag), 304, "")
}

func total(it map[string]any) float64 { return it["votes"].(map[string]any)["total"].(float64) }
