package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzQueryParams sends arbitrary query strings and slugs to every
// endpoint: the answer is never a 5xx, and every error is problem+json.
//
//	go test ./httpapi -run '^$' -fuzz FuzzQueryParams -fuzztime 60s
func FuzzQueryParams(f *testing.F) {
	seeds := []struct {
		route uint8
		slug  string
		query string
	}{
		{0, "", "sort=net&order=desc&limit=5&offset=2"},
		{0, "", "limit=99999999999999999999999999&offset=-0"},
		{0, "", "category=character&region=tr&dominant=yellow"},
		{0, "", "limit=1&limit=2"},
		{0, "", "%zz=%zz&region=%00"},
		{0, "", "offset=9223372036854775807&limit=100"},
		{1, "tie-a", ""},
		{1, "../../etc/passwd", ""},
		{2, "red-exactly-sixty", "days=90000000000000000000"},
		{2, "red-exactly-sixty", "days=-1"},
		{3, "", "q=yaşlı&limit=50"},
		{3, "", "q=%ff%fe%fd"},
		{3, "", "q=" + strings.Repeat("ı", 199)},
		{3, "", "q=a%20b%20c%20d%20e%20f%20g%20h%20i%20j%20k%20l%20m%20n%20o%20p%20q%20r%20s%20t%20u%20v%20w%20x%20y%20z%20aa%20bb%20cc%20dd%20ee%20ff%20gg%20hh%20ii%20jj%20kk%20ll%20mm%20nn%20oo%20pp%20qq%20rr%20ss%20tt%20uu%20vv%20ww%20xx%20yy%20zz%20ab%20ac%20ad%20ae%20af%20ag%20ah%20ai%20aj%20ak%20al%20am%20an%20ao%20ap"},
		{4, "", "x=1"},
		// The expensive shapes: one- and two-letter words up to the length
		// limit, a lone letter, separators that vary, too many words.
		{3, "", "q=" + url.QueryEscape(strings.TrimSpace(strings.Repeat("a b c d e f g h i j k l m n o p q r s t u v w x y z ", 8))[:199])},
		{3, "", "q=" + url.QueryEscape(strings.Repeat("ab ", 66)+"ab")},
		{3, "", "q=a%21"},
		{3, "", "q=bus%2C%2C%3B%3Bbus--DRIVER%09d&limit=50"},
		{3, "", "q=" + url.QueryEscape("the to on a e i o u y bu")},
		{3, "", "q=" + url.QueryEscape("aa bb cc dd ee ff gg hh ii jj kk")},
		{3, "", "q=%CC%81%CC%81&limit=1"},
		{0, "", "category=social&dominant=green&region=tr&sort=controversial&order=asc&limit=100&offset=9007199254740991"},
		{0, "", "region=aq&limit=100&offset=0"},
		// Search's filters, language and paging.
		{3, "", "q=bus&category=cultural&region=world&dominant=yellow&lang=en&offset=1&limit=1"},
		{3, "", "q=otobus&lang=tr&offset=9007199254740992"},
		{3, "", "q=bus&lang=EN&region=xx&offset=-1"},
		{3, "", "q=text&region=TR&dominant=red&category=CHARACTER&offset=0&limit=50&lang=de"},
		{3, "", "q=bus&lang=es&lang=es"},
	}
	for _, s := range seeds {
		f.Add(s.route, s.slug, s.query)
	}
	e := newEnv(f, "sqlite", fixtureLines())
	f.Fuzz(func(t *testing.T, route uint8, slug, query string) {
		paths := []string{"/api/public/flags", "/api/public/flag/" + slug, "/api/public/flag/" + slug + "/trend",
			"/api/public/search", "/api/public/categories", "/api/public/regions", "/api/public/stats"}
		p := paths[int(route)%len(paths)]
		req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: p, RawQuery: query},
			Header: http.Header{"Authorization": {"Bearer " + e.key}}, Host: "fuzz", RequestURI: p}
		w := httptest.NewRecorder()
		e.api.Handler().ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s?%s: %d %s", p, query, w.Code, w.Body)
		}
		if w.Code >= 400 && w.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s?%s: %d with Content-Type %q", p, query, w.Code, w.Header().Get("Content-Type"))
		}
	})
}
