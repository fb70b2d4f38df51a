package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCORSByPackage: gin-contrib/cors answers preflights and sets the
// headers on every response, with or without an Origin, errors included.
func TestCORSByPackage(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	list := func(v string) string {
		parts := strings.Split(v, ",")
		for i := range parts {
			parts[i] = strings.ToLower(strings.TrimSpace(parts[i]))
		}
		return strings.Join(parts, ",")
	}
	for _, origin := range []string{"", "https://example.org", e.srv.URL} {
		h := []string{"Authorization: ", "Origin: " + origin, "Access-Control-Request-Method: GET"}
		for _, path := range []string{"/api/public/flags", "/api/public/rate_limit", "/healthz", "/api/public/nope"} {
			e.noSpec = path == "/api/public/nope"
			r := e.do(http.MethodOptions, path, h...)
			if r.status != 204 {
				t.Errorf("preflight %s (origin %q): %d", path, origin, r.status)
			}
			want := map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Max-Age": "86400",
				"Access-Control-Allow-Methods": "get,head,options",
				"Access-Control-Allow-Headers": "authorization,content-type,if-none-match"}
			for k, v := range want {
				if got := list(r.header.Get(k)); got != v {
					t.Errorf("preflight %s (origin %q): %s %q, want %q", path, origin, k, got, v)
				}
			}
			if r.header.Get("Access-Control-Allow-Credentials") != "" || r.header.Get("X-RateLimit-Limit") != "" {
				t.Errorf("preflight %s: credentials or a spent budget: %v", path, r.header)
			}
		}
		e.noSpec = true
		for path, status := range map[string]int{"/api/public/flags": 200, "/api/public/flags?sort=bad": 400,
			"/nope": 404, "/healthz": 200} {
			r := e.get(path, "Origin: "+origin)
			if r.status != status {
				t.Errorf("%s: %d", path, r.status)
			}
			if r.header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s (origin %q) without Access-Control-Allow-Origin", path, origin)
			}
			want := "etag,x-ratelimit-limit,x-ratelimit-remaining,x-ratelimit-reset,ratelimit,ratelimit-policy,retry-after,x-request-id,www-authenticate"
			if got := list(r.header.Get("Access-Control-Expose-Headers")); got != want {
				t.Errorf("%s: Expose-Headers %q, want %q", path, got, want)
			}
		}
		e.noSpec = false
	}
}

// TestCORSOriginEdges: an empty Origin header and the page's own origin
// over https get the CORS headers like any other request; only a
// preflight carries Allow.
func TestCORSOriginEdges(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	host := strings.TrimPrefix(e.srv.URL, "http://")
	for _, origin := range [][]string{{""}, {"https://" + host}, {"http://" + host}} {
		for _, method := range []string{http.MethodGet, http.MethodOptions} {
			h := http.Header{"Origin": origin}
			if method == http.MethodOptions {
				h.Set("Access-Control-Request-Method", "GET")
			}
			res := e.raw(method, "/api/public/flags", h)
			if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("%s with Origin %q: Access-Control-Allow-Origin %q, want *", method, origin, got)
			}
			allow := res.Header.Get("Allow")
			if method == http.MethodOptions && allow != "GET, HEAD, OPTIONS" {
				t.Errorf("preflight with Origin %q: Allow %q", origin, allow)
			}
			if method == http.MethodGet && allow != "" {
				t.Errorf("GET with Origin %q carries Allow %q", origin, allow)
			}
		}
	}
}

// TestPreflightEveryRoute: corsEverywhere alone answers OPTIONS, on every
// route and off them: 204, Allow and the policy, nothing spent.
func TestPreflightEveryRoute(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	e.noSpec = true
	for _, path := range []string{"/", "/healthz", "/readyz", "/api/public/openapi.json", "/api/public/docs",
		"/ui/nope.js", "/api/public/flags", "/api/public/flag/x", "/api/public/flag/x/trend", "/api/public/categories",
		"/api/public/regions", "/api/public/stats", "/api/public/search", "/api/public/stream",
		"/api/public/rate_limit", "/api/public/nope", "/nope"} {
		r := e.do(http.MethodOptions, path, "Origin: https://example.org", "Access-Control-Request-Method: GET")
		if r.status != 204 || r.header.Get("Allow") != "GET, HEAD, OPTIONS" ||
			r.header.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" || r.header.Get("X-RateLimit-Limit") != "" {
			t.Errorf("OPTIONS %s: %d %v", path, r.status, r.header)
		}
	}
}
