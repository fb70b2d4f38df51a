package httpapi_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// item is the part of a list item the sort order depends on.
type item struct {
	id                string
	red, green, total int64
	created           time.Time
}

func toItem(t testing.TB, m map[string]any) item {
	t.Helper()
	v := m["votes"].(map[string]any)
	created, err := time.Parse(time.RFC3339Nano, m["createdAt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	it := item{id: m["id"].(string), red: int64(v["red"].(float64)), green: int64(v["green"].(float64)), created: created}
	it.total = it.red + it.green
	if int64(v["total"].(float64)) != it.total || int64(v["net"].(float64)) != it.red-it.green {
		t.Errorf("%s: votes %v do not add up", it.id, v)
	}
	return it
}

func controversy(it item) float64 {
	if it.red == 0 || it.green == 0 {
		return 1
	}
	lo, hi := float64(min(it.red, it.green)), float64(max(it.red, it.green))
	return math.Pow(float64(it.total), lo/hi)
}

// wantOrder is the contract's order: the primary key in its direction,
// then total desc, then id asc.
func wantOrder(sort string, desc bool) func(a, b item) int {
	return func(a, b item) int {
		var c int
		switch sort {
		case "net":
			c = cmp.Compare(a.red-a.green, b.red-b.green)
		case "total":
			c = cmp.Compare(a.total, b.total)
		case "newest":
			c = a.created.Compare(b.created)
		case "controversial":
			c = cmp.Compare(controversy(a), controversy(b))
		}
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		if c = cmp.Compare(b.total, a.total); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
}

func TestFlags(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		t.Run("default", func(t *testing.T) {
			r := e.get("/api/public/flags")
			mustStatus(t, r, 200, "")
			if r.json["sort"] != "net" || r.json["order"] != "asc" || r.json["limit"] != 20.0 || r.json["offset"] != 0.0 {
				t.Errorf("envelope %v", r.json)
			}
			items := data(t, r)
			if r.json["count"] != float64(len(items)) || r.json["total"] != float64(approved()) || len(items) != approved() {
				t.Errorf("count %v total %v len %d, want %d approved", r.json["count"], r.json["total"], len(items), approved())
			}
			if items[0]["slug"] != "very-green" {
				t.Errorf("net asc must open with the greenest flag, got %v", items[0]["slug"])
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, it := range items {
				if it["slug"] == "pending-one" || it["slug"] == "rejected-one" {
					t.Errorf("a flag that is not approved is listed: %v", it["slug"])
				}
			}
		})

		// Paging through every item, 3 at a time, gives exactly the full
		// list in the contract's order, for every sort and direction.
		for _, sort := range []string{"net", "total", "controversial", "newest"} {
			for _, order := range []string{"", "asc", "desc"} {
				t.Run("paging "+sort+" "+order, func(t *testing.T) {
					desc := sort != "net"
					q := "sort=" + sort
					if order != "" {
						desc = order == "desc"
						q += "&order=" + order
					}
					full := data(t, e.get("/api/public/flags?limit=100&"+q))
					var paged []map[string]any
					for off := 0; off < len(full)+3; off += 3 {
						r := e.get(fmt.Sprintf("/api/public/flags?%s&limit=3&offset=%d", q, off))
						mustStatus(t, r, 200, "")
						if r.json["total"] != float64(len(full)) {
							t.Fatalf("total %v, want %d", r.json["total"], len(full))
						}
						paged = append(paged, data(t, r)...)
					}
					if got, want := slugs(paged), slugs(full); !slices.Equal(got, want) {
						t.Fatalf("paged\n%v\nwant\n%v", got, want)
					}
					items := make([]item, len(full))
					for i, m := range full {
						items[i] = toItem(t, m)
					}
					want := slices.Clone(items)
					slices.SortFunc(want, wantOrder(sort, desc))
					for i := range want {
						if items[i].id != want[i].id {
							t.Fatalf("position %d: %s, want %s (sort %s desc %v)", i, items[i].id, want[i].id, sort, desc)
						}
					}
				})
			}
		}

		t.Run("tie-break", func(t *testing.T) {
			// tie-a, tie-b, tie-c share every key: id asc in both directions.
			for _, order := range []string{"asc", "desc"} {
				items := data(t, e.get("/api/public/flags?category=LIFESTYLE&sort=net&order="+order))
				if got := slugs(items); !slices.Equal(got, []string{"tie-a", "tie-b", "tie-c"}) {
					t.Errorf("order %s: %v", order, got)
				}
			}
			// net 0: total desc first (tie-* total 20 before net-zero-small total 10).
			items := data(t, e.get("/api/public/flags?sort=net&limit=100"))
			pos := map[string]int{}
			for i, s := range slugs(items) {
				pos[s] = i
			}
			if pos["tie-c"] > pos["net-zero-small"] {
				t.Errorf("net tie must break on total desc: %v", slugs(items))
			}
		})

		t.Run("offset past the end", func(t *testing.T) {
			r := e.get("/api/public/flags?offset=1000")
			mustStatus(t, r, 200, "")
			if len(data(t, r)) != 0 || r.json["count"] != 0.0 || r.json["total"] != float64(approved()) {
				t.Errorf("got %s", r.body)
			}
			r = e.get("/api/public/flags?offset=99999999999999999999999")
			mustStatus(t, r, 200, "")
		})

		t.Run("clamp", func(t *testing.T) {
			r := e.get("/api/public/flags?limit=1000")
			mustStatus(t, r, 200, "")
			if r.json["limit"] != 100.0 {
				t.Errorf("limit %v, want 100", r.json["limit"])
			}
			r = e.get("/api/public/flags?limit=100000000000000000000000")
			mustStatus(t, r, 200, "")
			if r.json["limit"] != 100.0 {
				t.Errorf("limit %v, want 100", r.json["limit"])
			}
			r = e.get("/api/public/flags?limit=1")
			if r.json["limit"] != 1.0 || len(data(t, r)) != 1 {
				t.Errorf("limit=1: %s", r.body)
			}
		})
	})
}

func TestDominant(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		want := map[string]string{
			"red-exactly-sixty": "red", "red-just-below-sixty": "yellow", "green-exactly-sixty": "green",
			"no-votes-yet": "yellow", "red-six-of-ten": "red", "red-sixty-of-hundred": "red",
			"green-sixty-of-hundred": "green", "tie-a": "yellow", "one-sided-red": "red",
		}
		for slug, dom := range want {
			r := e.get("/api/public/flag/" + slug)
			mustStatus(t, r, 200, "")
			if r.json["dominant"] != dom {
				t.Errorf("%s: dominant %v, want %s", slug, r.json["dominant"], dom)
			}
		}
		// The filter applies before paging: every page is full and total
		// counts all matches.
		counts := map[string]int{}
		for _, it := range data(t, e.get("/api/public/flags?limit=100")) {
			counts[it["dominant"].(string)]++
		}
		for _, dom := range []string{"red", "green", "yellow"} {
			r := e.get("/api/public/flags?limit=2&dominant=" + dom)
			mustStatus(t, r, 200, "")
			items := data(t, r)
			if r.json["total"] != float64(counts[dom]) || len(items) != min(2, counts[dom]) {
				t.Errorf("dominant=%s: total %v count %d, want total %d", dom, r.json["total"], len(items), counts[dom])
			}
			for _, it := range items {
				if it["dominant"] != dom {
					t.Errorf("dominant=%s lists %v", dom, it["dominant"])
				}
			}
		}
		st := e.get("/api/public/stats").json["flags"].(map[string]any)
		if st["redDominant"] != float64(counts["red"]) || st["greenDominant"] != float64(counts["green"]) ||
			st["mixed"] != float64(counts["yellow"]) || st["total"] != float64(approved()) {
			t.Errorf("stats flags %v, want red %d green %d mixed %d", st, counts["red"], counts["green"], counts["yellow"])
		}
	})
}

func TestFilters(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		count := func(q string) int {
			t.Helper()
			r := e.get("/api/public/flags?limit=100&" + q)
			mustStatus(t, r, 200, "")
			if int(r.json["total"].(float64)) != len(data(t, r)) {
				t.Errorf("%s: total %v but %d items", q, r.json["total"], len(data(t, r)))
			}
			return len(data(t, r))
		}
		tests := []struct {
			q    string
			want int
		}{
			{"category=CHARACTER", 2}, {"category=character", 2}, {"category=Character", 2},
			{"category=LIFESTYLE", 3}, {"region=TR", 4}, {"region=tr", 4}, {"region=world", 8},
			{"region=WORLD", 8}, {"region=FR", 0}, {"region=TR&category=CHARACTER", 2},
			{"region=TR&dominant=red", 2}, {"region=TR&category=CHARACTER&dominant=yellow", 1},
			{"category=SOCIAL&dominant=red", 2}, {"category=SOCIAL&region=world", 2},
		}
		for _, tc := range tests {
			if got := count(tc.q); got != tc.want {
				t.Errorf("%s: %d flags, want %d", tc.q, got, tc.want)
			}
		}
		for _, it := range data(t, e.get("/api/public/flags?region=world&limit=100")) {
			if it["region"] != nil {
				t.Errorf("region=world lists region %v", it["region"])
			}
		}
		// Combined filters page like single ones.
		all := slugs(data(t, e.get("/api/public/flags?region=TR&dominant=red&sort=total")))
		var paged []string
		for off := 0; off < 4; off++ {
			paged = append(paged, slugs(data(t, e.get(fmt.Sprintf("/api/public/flags?region=TR&dominant=red&sort=total&limit=1&offset=%d", off))))...)
		}
		if !slices.Equal(all, paged) {
			t.Errorf("paged %v, want %v", paged, all)
		}
	})
}

func TestParameterErrors(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	tests := []struct{ path, param string }{
		{"/api/public/flags?limit=0", "limit"},
		{"/api/public/flags?limit=-1", "limit"},
		{"/api/public/flags?limit=abc", "limit"},
		{"/api/public/flags?limit=1.5", "limit"},
		{"/api/public/flags?limit=", "limit"},
		{"/api/public/flags?limit=%2B5", "limit"},
		{"/api/public/flags?limit=1&limit=2", "limit"},
		{"/api/public/flags?offset=-1", "offset"},
		{"/api/public/flags?offset=x", "offset"},
		{"/api/public/flags?sort=best", "sort"},
		{"/api/public/flags?sort=NET", "sort"},
		{"/api/public/flags?order=up", "order"},
		{"/api/public/flags?dominant=blue", "dominant"},
		{"/api/public/flags?category=FOOD", "category"},
		{"/api/public/flags?region=XX", "region"},
		{"/api/public/flags?region=TUR", "region"},
		{"/api/public/flags?region=", "region"},
		{"/api/public/flags?region=UK", "region"},
		{"/api/public/flags?sort=net&sort=total", "sort"},
		{"/api/public/flag/red-exactly-sixty/trend?days=0", "days"},
		{"/api/public/flag/red-exactly-sixty/trend?days=x", "days"},
		{"/api/public/flag/red-exactly-sixty/trend?days=-3", "days"},
		{"/api/public/search", "q"},
		{"/api/public/search?q=a", "q"},
		{"/api/public/search?q=%20a%20", "q"},
		{"/api/public/search?q=%20%20%20", "q"},
		{"/api/public/search?q=" + strings.Repeat("a", 201), "q"},
		{"/api/public/search?q=%FF%FE", "q"},
		{"/api/public/search?q=ab&limit=0", "limit"},
		{"/api/public/search?q=ab&q=cd", "q"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(tc.path)
			mustStatus(t, r, 400, "invalid_parameter")
			if r.json["param"] != tc.param {
				t.Errorf("param %v, want %s", r.json["param"], tc.param)
			}
			if r.header.Get("X-RateLimit-Limit") == "" {
				t.Error("an authenticated 400 must carry the rate-limit headers")
			}
		})
	}
	// The allowed values are named.
	if d := e.get("/api/public/flags?sort=x").json["detail"].(string); !strings.Contains(d, "controversial") {
		t.Errorf("detail %q does not name the sorts", d)
	}
	if d := e.get("/api/public/flags?category=x").json["detail"].(string); !strings.Contains(d, "RELATIONSHIP") {
		t.Errorf("detail %q does not name the categories", d)
	}
	// Unknown parameters are ignored, even repeated or malformed.
	for _, q := range []string{"foo=1", "foo=1&foo=2", "foo=%zz", "%zz=1", "&&", "limit=5&x"} {
		mustStatus(t, e.get("/api/public/flags?"+q), 200, "")
	}
	// Two characters counted as characters, not bytes.
	mustStatus(t, e.get("/api/public/search?q=%C3%BC%C3%9F"), 200, "")
	mustStatus(t, e.get("/api/public/search?q="+strings.Repeat("%C3%BC", 200)), 200, "")
}

func TestFlagDetail(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		r := e.get("/api/public/flag/seat-for-the-elderly")
		mustStatus(t, r, 200, "")
		f := fixtureBySlug("seat-for-the-elderly")
		if r.json["id"] != f.id || r.json["category"] != "BEHAVIORAL" || r.json["region"] != "TR" ||
			r.json["createdAt"] != f.created.Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("detail %s", r.body)
		}
		text := r.json["text"].(map[string]any)
		if text["tr"] != "Yaşlılara otobüste yer verir" || text["de"] != f.text[2] {
			t.Errorf("text %v", text)
		}
		desc := r.json["description"].(map[string]any)
		if desc["tr"] != "Küçük bir nezaket." || desc["en"] != nil || desc["es"] != nil {
			t.Errorf("description %v", desc)
		}
		if got := fmt.Sprint(r.json["contexts"]); got != "[FAMILY ONLINE]" {
			t.Errorf("contexts %s", got)
		}
		// The world region is null, not absent.
		if r := e.get("/api/public/flag/no-votes-yet"); !strings.Contains(string(r.body), `"region":null`) {
			t.Errorf("world region: %s", r.body)
		}
		for _, slug := range []string{"nope", "pending-one", "rejected-one", "RED-EXACTLY-SIXTY"} {
			mustStatus(t, e.get("/api/public/flag/"+slug), 404, "not_found")
			mustStatus(t, e.get("/api/public/flag/"+slug+"/trend"), 404, "not_found")
		}
	})
}

func TestTrend(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		r := e.get("/api/public/flag/red-exactly-sixty/trend")
		mustStatus(t, r, 200, "")
		if r.json["slug"] != "red-exactly-sixty" || r.json["days"] != 30.0 {
			t.Errorf("envelope %s", r.body)
		}
		snaps := r.json["snapshots"].([]any)
		// Fixture days ago: 0, 1, 5, 29 inside 30 days; 30 (the edge: at >=
		// today - 29 days), 40 and 100 outside.
		var ats []string
		for _, s := range snaps {
			m := s.(map[string]any)
			ats = append(ats, m["at"].(string))
			if m["total"].(float64) != m["red"].(float64)+m["green"].(float64) || m["net"].(float64) != m["red"].(float64)-m["green"].(float64) {
				t.Errorf("snapshot %v does not add up", m)
			}
		}
		want := []string{day(29), day(5), day(1), day(0)}
		if !slices.Equal(ats, want) || r.json["count"] != 4.0 {
			t.Errorf("at %v count %v, want %v", ats, r.json["count"], want)
		}
		cur := r.json["current"].(map[string]any)
		if cur["red"] != 3.0 || cur["green"] != 2.0 || cur["total"] != 5.0 || cur["net"] != 1.0 {
			t.Errorf("current %v", cur)
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=31"); r.json["count"] != 5.0 {
			t.Errorf("days=31: count %v, want 5 (the day 30 days ago is in)", r.json["count"])
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=90"); r.json["count"] != 6.0 {
			t.Errorf("days=90: count %v, want 6 (the 100-day-old one is out)", r.json["count"])
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=1000"); r.json["days"] != 90.0 {
			t.Errorf("days=1000 must clamp to 90: %v", r.json["days"])
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=1"); r.json["count"] != 1.0 {
			t.Errorf("days=1: %s", r.body)
		}
		r = e.get("/api/public/flag/tie-a/trend")
		mustStatus(t, r, 200, "")
		if r.json["count"] != 0.0 || !strings.Contains(string(r.body), `"snapshots":[]`) {
			t.Errorf("no snapshots: %s", r.body)
		}
	})
}

func day(ago int) string { return today.AddDate(0, 0, -ago).Format("2006-01-02T15:04:05.000Z") }

func TestCategoriesRegionsStats(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		r := e.get("/api/public/categories")
		mustStatus(t, r, 200, "")
		cats := data(t, r)
		if len(cats) != 8 || r.json["count"] != 8.0 {
			t.Fatalf("categories %s", r.body)
		}
		sum := 0.0
		for i, c := range cats {
			if c["slug"] != strings.ToLower(c["enum"].(string)) {
				t.Errorf("slug %v enum %v", c["slug"], c["enum"])
			}
			if i > 0 && c["count"].(float64) > cats[i-1]["count"].(float64) {
				t.Errorf("categories not by count desc: %s", r.body)
			}
			sum += c["count"].(float64)
		}
		if sum != float64(approved()) {
			t.Errorf("category counts sum to %v, want %d", sum, approved())
		}

		r = e.get("/api/public/regions")
		mustStatus(t, r, 200, "")
		regs := data(t, r)
		if regs[0]["code"] != nil || regs[0]["label"] != "world" || regs[0]["count"] != 8.0 {
			t.Errorf("world first: %v", regs[0])
		}
		got := map[string]float64{}
		for _, rg := range regs[1:] {
			if rg["label"] != rg["code"] {
				t.Errorf("label %v for code %v", rg["label"], rg["code"])
			}
			got[rg["code"].(string)] = rg["count"].(float64)
		}
		if want := map[string]float64{"TR": 4, "DE": 2, "ES": 2, "US": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("regions %v, want %v", got, want)
		}

		r = e.get("/api/public/stats")
		mustStatus(t, r, 200, "")
		// topCategories is the head of /categories: the five largest, in
		// its order, with the same fields.
		top := r.json["topCategories"].([]any)
		if len(cats) < 5 {
			t.Fatalf("the fixtures have %d categories, want 5 or more", len(cats))
		}
		if fmt.Sprint(top) != fmt.Sprint(cats[:5]) {
			t.Errorf("topCategories %v, want the first five of /categories %v", top, cats[:5])
		}
		var votes float64
		for _, it := range data(t, e.get("/api/public/flags?limit=100")) {
			votes += it["votes"].(map[string]any)["total"].(float64)
		}
		if v := r.json["votes"].(map[string]any); v["total"] != votes {
			t.Errorf("votes.total %v, want %v", v["total"], votes)
		}
		gen, err := time.Parse(time.RFC3339Nano, r.json["generatedAt"].(string))
		if err != nil || time.Since(gen) > time.Minute {
			t.Errorf("generatedAt %v", r.json["generatedAt"])
		}
	})
}

func TestHeadETagGzip(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, path := range []string{"/api/public/flags", "/api/public/flag/tie-a", "/api/public/flag/tie-a/trend",
		"/api/public/categories", "/api/public/regions", "/api/public/stats", "/api/public/search?q=bus"} {
		get := e.get(path)
		mustStatus(t, get, 200, "")
		etag := get.header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
			t.Fatalf("%s: ETag %q is not a strong tag", path, etag)
		}
		head := e.do(http.MethodHead, path)
		if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag ||
			head.header.Get("Content-Length") != get.header.Get("Content-Length") {
			t.Errorf("HEAD %s: %d etag %q length %q body %d", path, head.status, head.header.Get("ETag"),
				head.header.Get("Content-Length"), len(head.body))
		}
		nm := e.get(path, "If-None-Match: "+etag)
		if nm.status != 304 || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d", path, nm.status)
		}
		if r := e.get(path, `If-None-Match: "other", `+etag); r.status != 304 {
			t.Errorf("a list naming the tag must match: %d", r.status)
		}
		if r := e.get(path, `If-None-Match: "other"`); r.status != 200 {
			t.Errorf("another tag must not match: %d", r.status)
		}
	}
	r := e.get("/api/public/flags?limit=100", "Accept-Encoding: gzip")
	if r.header.Get("Content-Encoding") != "gzip" || r.header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip not applied: %v", r.header)
	}
	plain := e.get("/api/public/flags?limit=100")
	if plain.header.Get("ETag") != r.header.Get("ETag") {
		t.Error("the same representation must keep one ETag whatever its encoding")
	}
	// The compressed body is whole, its own length, and the same document.
	if r.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
		t.Errorf("gzip Content-Length %q for %d bytes", r.header.Get("Content-Length"), len(r.body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, plain.body) {
		t.Errorf("gzip body does not inflate to the plain one (err %v)", err)
	}
	if r := e.get("/api/public/flags?limit=100", "Accept-Encoding: gzip;q=0"); r.header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 refuses gzip")
	}
}
