package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAuth(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	const realm = `Bearer realm="public-api"`
	tests := []struct {
		name, header, challenge string
	}{
		{"missing", "Authorization: ", realm},
		{"wrong scheme", "Authorization: Basic " + e.key, realm},
		{"scheme only", "Authorization: Bearer", realm},
		{"unknown key", "Authorization: Bearer grf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", realm + `, error="invalid_token"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/api/public/flags", "/api/public/flag/nope", "/api/public/search?q=x"} {
				r := e.get(path, tc.header)
				mustStatus(t, r, 401, "unauthorized")
				if got := r.header.Get("WWW-Authenticate"); got != tc.challenge {
					t.Errorf("WWW-Authenticate %q, want %q", got, tc.challenge)
				}
				if r.header.Get("Access-Control-Allow-Origin") != "*" {
					t.Error("401 without CORS")
				}
			}
		})
	}
	for _, scheme := range []string{"bearer", "BEARER", "Bearer"} {
		mustStatus(t, e.get("/api/public/flags", "Authorization: "+scheme+" "+e.key), 200, "")
	}
	// The key-less routes.
	for _, path := range []string{"/healthz", "/readyz", "/api/public/openapi.json"} {
		mustStatus(t, e.get(path, "Authorization: "), 200, "")
	}
}

// A percent-encoded unreserved character in a path is the character
// (RFC 3986, 6.2.2.2), in a route's name as in a slug; an encoded slash
// or other reserved character stays what it was sent as.
func TestEncodedUnreservedRoutes(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	e.noSpec = true // the document's validator matches a path as sent
	for plain, encoded := range map[string]string{
		"/api/public/flags?sort=total": "/api/public/fl%61gs?sort=total",
		"/api/public/flag/tie-a":       "/api/public/%66lag/tie%2da",
		"/api/public/flag/tie-a/trend": "/api/%70ublic/flag/tie%2Da/tr%65nd",
		"/api/public/categories":       "/api/public/c%61t%65gories",
		"/api/public/search?q=tie":     "/api/public/se%61rch?q=tie",
	} {
		want := e.get(plain)
		mustStatus(t, want, 200, "")
		got := e.get(encoded)
		if got.status != 200 || !reflect.DeepEqual(got.json["data"], want.json["data"]) {
			t.Errorf("%s: %d %s, want the answer of %s", encoded, got.status, got.body, plain)
		}
	}
	for _, path := range []string{"/api/public/flag/tie-a%2Ftrend", "/api/public/flags%2F", "/api/public/flag%2Ftie-a"} {
		mustStatus(t, e.get(path), 404, "not_found")
	}
}

func TestRoutingErrors(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	e.noSpec = true
	// The detail says what the path misses.
	for path, says := range map[string]string{
		"/nope": "lives under /api/public/", "/api/public": "lives under /api/public/",
		"/api/public/flags/": "takes no trailing slash", "/api/public/flag/": "takes no trailing slash",
		"/api/public/flag/a/b/c": "routes are listed in /api/public/openapi.json",
	} {
		r := e.get(path)
		mustStatus(t, r, 404, "not_found")
		if r.header.Get("X-Request-Id") == "" || r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: 404 without request id or CORS", path)
		}
		if d, _ := r.json["detail"].(string); !strings.Contains(d, says) {
			t.Errorf("%s: detail %q, want it to say %q", path, d, says)
		}
	}
	// A preflight of an unknown path is answered too: the request that
	// follows gets the 404, with CORS headers a script can read.
	if r := e.do(http.MethodOptions, "/api/public/nope", "Origin: https://example.org"); r.status != 204 {
		t.Errorf("preflight of an unknown path: %d", r.status)
	}
	// An encoded slash stays in the slug.
	mustStatus(t, e.get("/api/public/flag/tie-a%2Ftrend"), 404, "not_found")
	// Every authenticated request counts, unknown paths and methods too.
	before := e.get("/api/public/stats").header.Get("X-RateLimit-Remaining")
	r := e.get("/api/public/nope")
	if r.header.Get("X-RateLimit-Remaining") == "" || r.header.Get("X-RateLimit-Remaining") == before {
		t.Errorf("an authenticated 404 must spend the budget: %q then %q", before, r.header.Get("X-RateLimit-Remaining"))
	}
	if r := e.do(http.MethodPost, "/api/public/flags"); r.header.Get("X-RateLimit-Limit") == "" {
		t.Error("an authenticated 405 must carry the rate-limit headers")
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := e.do(m, "/api/public/flags")
		mustStatus(t, r, 405, "method_not_allowed")
		if got := r.header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: Allow %q", m, got)
		}
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, origin := range []string{"", "https://example.org"} {
		h := []string{"Authorization: "}
		if origin != "" {
			h = append(h, "Origin: "+origin, "Access-Control-Request-Method: GET",
				"Access-Control-Request-Headers: authorization")
		}
		r := e.do(http.MethodOptions, "/api/public/flags", h...)
		if r.status != 204 {
			t.Fatalf("preflight (origin %q): %d %s", origin, r.status, r.body)
		}
		// The lists as the contract spells them (gin-contrib/cors alone
		// writes "GET,HEAD,OPTIONS" and "Etag,X-Ratelimit-Limit,...").
		for k, want := range map[string]string{
			"Access-Control-Allow-Origin":   "*",
			"Access-Control-Max-Age":        "86400",
			"Access-Control-Allow-Methods":  "GET, HEAD, OPTIONS",
			"Access-Control-Allow-Headers":  "Authorization, Content-Type, If-None-Match",
			"Access-Control-Expose-Headers": contractExpose,
			"Allow":                         "GET, HEAD, OPTIONS",
		} {
			if got := r.header.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("origin %q: %s %q, want %q", origin, k, got, want)
			}
		}
		if r.header.Get("Access-Control-Allow-Credentials") != "" {
			t.Error("no credentials mode")
		}
	}
	for _, path := range []string{"/api/public/flags?sort=bad", "/api/public/flags"} {
		r := e.get(path, "Origin: https://example.org")
		if got := r.header.Values("Access-Control-Expose-Headers"); len(got) != 1 || got[0] != contractExpose {
			t.Errorf("%s: Expose-Headers %q, want %q", path, got, contractExpose)
		}
		if r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no Access-Control-Allow-Origin", path)
		}
		if r.header.Get("Access-Control-Allow-Methods") != "" {
			t.Errorf("%s: Allow-Methods on a request that is no preflight", path)
		}
	}
}

// contractExpose is Access-Control-Expose-Headers as the contract names
// the headers: ETag, the rate-limit headers, Retry-After and X-Request-Id
// (and WWW-Authenticate, which a script reads on a 401).
const contractExpose = "ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, " +
	"RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, WWW-Authenticate"

func TestRequestID(t *testing.T) {
	e := newEnv(t, "sqlite", nil)
	if got := e.get("/api/public/flags", "X-Request-Id: abc-123").header.Get("X-Request-Id"); got != "abc-123" {
		t.Errorf("sane id not echoed: %q", got)
	}
	for _, bad := range []string{"has space", strings.Repeat("a", 200), "quote\"d", "<script>"} {
		got := e.get("/api/public/flags", "X-Request-Id: "+bad).header.Get("X-Request-Id")
		if got == bad || got == "" {
			t.Errorf("insane id %q answered with %q", bad, got)
		}
	}
	// The longest sane id and every allowed punctuation mark are echoed,
	// and an id that looks like a number still matches the document's
	// string header.
	for _, good := range []string{strings.Repeat("a", 128), "A-z_0.9:+/=~", "42", "1e3"} {
		if got := e.get("/api/public/flags", "X-Request-Id: "+good).header.Get("X-Request-Id"); got != good {
			t.Errorf("sane id %q answered with %q", good, got)
		}
	}
	if got := e.get("/api/public/flags", "X-Request-Id: "+strings.Repeat("a", 129)).header.Get("X-Request-Id"); strings.Contains(got, strings.Repeat("a", 100)) {
		t.Errorf("an id of 129 characters was echoed, whole or cut: %q", got)
	}
	// Of two incoming ids the first is echoed, once.
	res := e.raw(http.MethodGet, "/api/public/flags", http.Header{"X-Request-Id": {"first", "second"}})
	if got := res.Header.Values("X-Request-Id"); len(got) != 1 || got[0] != "first" {
		t.Errorf("two incoming ids answered with %q, want [first]", got)
	}
	a, b := e.get("/api/public/flags").header.Get("X-Request-Id"), e.get("/api/public/flags").header.Get("X-Request-Id")
	if a == b || a == "" {
		t.Errorf("ids %q %q are not fresh", a, b)
	}
	r := e.get("/api/public/flags?limit=0")
	if r.json["requestId"] != r.header.Get("X-Request-Id") {
		t.Errorf("problem requestId %v, header %q", r.json["requestId"], r.header.Get("X-Request-Id"))
	}
}

// TestRateLimit sends 61 requests in one minute with a key of the default
// budget: 60 pass, the 61st is refused, and a minute after the first the
// budget returns.
func TestRateLimit(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	key, _ := e.newKey("limited", 0)
	start := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	auth := "Authorization: Bearer " + key
	for i := 1; i <= 60; i++ {
		e.clock.Set(start.Add(time.Duration(i) * 500 * time.Millisecond))
		path := "/api/public/flags"
		if i%3 == 0 {
			path = "/api/public/flag/nope" // every status counts
		}
		r := e.get(path, auth)
		if r.status != 200 && r.status != 404 {
			t.Fatalf("request %d: %d", i, r.status)
		}
		if got := r.header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(60-i) {
			t.Fatalf("request %d: remaining %q, want %d", i, got, 60-i)
		}
		if r.header.Get("X-RateLimit-Limit") != "60" || r.header.Get("RateLimit-Policy") != `"per-key";q=60;w=60` {
			t.Fatalf("headers %v", r.header)
		}
		wantReset := start.Add(500*time.Millisecond + time.Minute)
		if got := r.header.Get("X-RateLimit-Reset"); got != strconv.FormatInt(wantReset.Unix()+1, 10) && got != strconv.FormatInt(wantReset.Unix(), 10) {
			t.Fatalf("request %d: reset %s, want about %d", i, got, wantReset.Unix())
		}
	}
	e.clock.Set(start.Add(40 * time.Second))
	r := e.get("/api/public/flags", auth)
	mustStatus(t, r, 429, "rate_limited")
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 21 {
		t.Errorf("Retry-After %q, want about 21", r.header.Get("Retry-After"))
	}
	if r.header.Get("X-RateLimit-Remaining") != "0" || !strings.Contains(r.header.Get("RateLimit"), "r=0") {
		t.Errorf("429 headers %v", r.header)
	}
	if r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("X-Request-Id") == "" {
		t.Errorf("a 429 without CORS or request id: %v", r.header)
	}
	// The refused request did not count: once the first request leaves the
	// window, exactly one more is allowed.
	e.clock.Set(start.Add(500*time.Millisecond + time.Minute))
	mustStatus(t, e.get("/api/public/flags", auth), 200, "")
	mustStatus(t, e.get("/api/public/flags", auth), 429, "rate_limited")
	// Other keys have their own budget; preflights spend none, even with a
	// key.
	before := e.get("/api/public/flags").header.Get("X-RateLimit-Remaining")
	for i := 0; i < 3; i++ {
		if r := e.do(http.MethodOptions, "/api/public/flags", "Origin: https://example.org"); r.status != 204 {
			t.Errorf("preflight %d", r.status)
		}
	}
	after := e.get("/api/public/flags").header.Get("X-RateLimit-Remaining")
	if b, _ := strconv.Atoi(before); after != strconv.Itoa(b-1) {
		t.Errorf("remaining %s then %s around 3 preflights: they spent budget", before, after)
	}
	// A key's own limit.
	k5, _ := e.newKey("five", 5)
	for i := 0; i < 5; i++ {
		mustStatus(t, e.get("/api/public/stats", "Authorization: Bearer "+k5), 200, "")
	}
	r = e.get("/api/public/stats", "Authorization: Bearer "+k5)
	mustStatus(t, r, 429, "rate_limited")
	if r.header.Get("X-RateLimit-Limit") != "5" {
		t.Errorf("own limit %q", r.header.Get("X-RateLimit-Limit"))
	}
}

// TestAnyKeyShape: a key the service did not make (any shape) is accepted
// when its SHA-256 is on file.
func TestAnyKeyShape(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	const secret = "legacy.key-42_XYZ"
	sum := sha256.Sum256([]byte(secret))
	e.exec("INSERT INTO api_keys (id, name, key_hash, prefix) VALUES (?, ?, ?, ?)",
		"key_legacy", "legacy", hex.EncodeToString(sum[:]), "legacy.k")
	e.reload()
	mustStatus(t, e.get("/api/public/flags", "Authorization: Bearer "+secret), 200, "")
	mustStatus(t, e.get("/api/public/flags", "Authorization: Bearer "+secret+"x"), 401, "unauthorized")
}

func TestRevokedKey(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		ctx := context.Background()
		secret, k, err := e.db.CreateKey(ctx, "to revoke", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		auth := "Authorization: Bearer " + secret
		mustStatus(t, e.get("/api/public/flags", auth), 401, "unauthorized") // not loaded yet
		if err := e.ld.LoadKeys(ctx); err != nil {
			t.Fatal(err)
		}
		mustStatus(t, e.get("/api/public/flags", auth), 200, "")
		if err := e.db.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		if err := e.ld.LoadKeys(ctx); err != nil {
			t.Fatal(err)
		}
		r := e.get("/api/public/flags", auth)
		mustStatus(t, r, 401, "unauthorized")
		if !strings.Contains(r.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
		}
		mustStatus(t, e.get("/api/public/flags"), 200, "")
		// The database keeps the hash and the visible prefix only: no
		// column of the key's row holds the secret past its prefix.
		row := map[string]any{}
		if err := e.db.QueryRowx(e.db.Rebind("SELECT * FROM api_keys WHERE id = ?"), k.ID).MapScan(row); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(secret))
		if got := fmt.Sprintf("%s", row["key_hash"]); got != hex.EncodeToString(sum[:]) {
			t.Errorf("key_hash %q, want the hex SHA-256 of the key", got)
		}
		for col, v := range row {
			if text := fmt.Sprintf("%s", v); strings.Contains(text, secret[len(k.Prefix):]) {
				t.Errorf("api_keys.%s holds the key: %q", col, text)
			}
		}
	})
}
