package httpapi_test

import (
	"strings"
	"testing"
)

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

// An integer's 400 names its range: offset has no upper bound worth
// naming (it is capped at 2^53-1), limit and days name both ends. A value
// too large for an int is over the top (clamped, as limit=101 is) however
// many digits it has, and leading zeros are zeros.
func TestIntegerParameterDetails(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for path, want := range map[string]string{
		"/api/public/flags?offset=-1":                                 "offset must be an integer of at least 0",
		"/api/public/flags?limit=0":                                   "limit must be an integer between 1 and 100",
		"/api/public/flag/red-exactly-sixty/trend?days=0":             "days must be an integer between 1 and 90",
		"/api/public/search?q=bus&limit=x":                            "limit must be an integer between 1 and 50",
		"/api/public/flags?limit=1" + strings.Repeat("0", 5000) + "x": "limit must be an integer between 1 and 100",
		"/api/public/flags?limit=-" + strings.Repeat("0", 5000) + "1": "limit must be an integer between 1 and 100",
	} {
		r := e.get(path)
		mustStatus(t, r, 400, "invalid_parameter")
		if r.json["detail"] != want {
			t.Errorf("%.60s: detail %q, want %q", path, r.json["detail"], want)
		}
	}
	for _, c := range []struct {
		path string
		key  string
		want float64
	}{
		{"/api/public/flags?limit=1" + strings.Repeat("0", 999), "limit", 100},
		{"/api/public/flags?limit=" + strings.Repeat("9", 5000), "limit", 100},
		{"/api/public/flags?limit=" + strings.Repeat("0", 5000) + "5", "limit", 5},
		{"/api/public/flags?offset=" + strings.Repeat("9", 5000), "offset", 1<<53 - 1},
		{"/api/public/search?q=bus&limit=" + strings.Repeat("9", 5000), "limit", 50},
		{"/api/public/flags?offset=-" + strings.Repeat("0", 5000), "offset", 0},
	} {
		r := e.get(c.path)
		mustStatus(t, r, 200, "")
		if r.json[c.key] != c.want {
			t.Errorf("%.40s... (%d bytes): %s %v, want %v", c.path, len(c.path), c.key, r.json[c.key], c.want)
		}
	}
	r := e.get("/api/public/flag/red-exactly-sixty/trend?days=" + strings.Repeat("9", 5000))
	mustStatus(t, r, 200, "")
	if r.json["days"] != 90.0 {
		t.Errorf("days of 5000 digits: days %v, want 90", r.json["days"])
	}
}
