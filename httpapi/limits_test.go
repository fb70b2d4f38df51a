package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
)

// TestLimiterSweep: the API sweeps its key limiter by itself.
func TestLimiterSweep(t *testing.T) {
	base := newEnv(t, "sqlite", fixtureLines())
	local := ratelimit.NewLocal()
	e := base.serveWith(httpapi.Options{Limiter: local, SweepEvery: 20 * time.Millisecond})
	t0 := time.Now()
	e.clock.Set(t0)
	mustStatus(t, e.get("/api/public/stats"), 200, "")
	if local.Len() != 1 {
		t.Fatalf("%d keys remembered after one request", local.Len())
	}
	e.clock.Set(t0.Add(2 * time.Minute))
	deadline := time.Now().Add(10 * time.Second)
	for local.Len() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if local.Len() != 0 {
		t.Error("the idle key was never swept")
	}
}

// TestRateLimitRoute: GET /api/public/rate_limit tells the budget, with
// the usual headers, spends none of it, and answers 200 when it is spent.
func TestRateLimitRoute(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	k5, _ := e.newKey("five", 5)
	auth := "Authorization: Bearer " + k5
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	e.clock.Set(t0)
	budget := func(wantUsed int) result {
		t.Helper()
		r := e.get("/api/public/rate_limit", auth)
		mustStatus(t, r, 200, "")
		want := map[string]any{"limit": 5.0, "remaining": float64(5 - wantUsed), "used": float64(wantUsed), "window": 60.0}
		for k, v := range want {
			if r.json[k] != v {
				t.Errorf("%s %v, want %v (%s)", k, r.json[k], v, r.body)
			}
		}
		if r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(5-wantUsed) || r.header.Get("X-RateLimit-Limit") != "5" {
			t.Errorf("headers %v", r.header)
		}
		if got := r.header.Get("X-RateLimit-Reset"); got != strconv.FormatInt(int64(r.json["reset"].(float64)), 10) {
			t.Errorf("X-RateLimit-Reset %s, body reset %v", got, r.json["reset"])
		}
		return r
	}
	for i := 0; i < 5; i++ {
		budget(0)
	}
	for i := 1; i <= 3; i++ {
		e.clock.Set(t0.Add(time.Duration(i) * time.Second))
		mustStatus(t, e.get("/api/public/stats", auth), 200, "")
		budget(i)
	}
	mustStatus(t, e.get("/api/public/stats", auth), 200, "")
	mustStatus(t, e.get("/api/public/stats", auth), 200, "")
	mustStatus(t, e.get("/api/public/stats", auth), 429, "rate_limited")
	r := budget(5)
	if want := t0.Add(time.Second + time.Minute).Unix(); r.json["reset"] != float64(want) {
		t.Errorf("reset %v, want %d (the first request leaves the window)", r.json["reset"], want)
	}
	mustStatus(t, e.get("/api/public/rate_limit"+"", "Authorization: "), 401, "unauthorized")
	if r := e.do(http.MethodHead, "/api/public/rate_limit", auth); r.status != 200 || len(r.body) != 0 {
		t.Errorf("HEAD: %d %q", r.status, r.body)
	}

	// A key without a limit of its own has the service's, as when it spends.
	k0, _ := e.newKey("default", 0)
	r = e.get("/api/public/rate_limit", "Authorization: Bearer "+k0)
	mustStatus(t, r, 200, "")
	if r.json["limit"] != 60.0 || r.json["remaining"] != 60.0 || r.header.Get("X-RateLimit-Limit") != "60" {
		t.Errorf("a key without its own limit: %s, X-RateLimit-Limit %q; want the service's 60",
			r.body, r.header.Get("X-RateLimit-Limit"))
	}
}
