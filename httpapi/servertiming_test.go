package httpapi_test

import (
	"regexp"
	"testing"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader"
)

// TestServerTiming: off by default; turned on (server_timing), the
// answers of the routes that take a key carry Server-Timing: the key's
// lookup, the limiter's decision, whether a cache held the answer, its
// lookup or rendering, and the total, in milliseconds; a refused key's
// answer carries what was done. Turned off, the header goes.
func TestServerTiming(t *testing.T) {
	e := newEnv(t, loader.SQLite, fixtureLines())
	if h := e.get("/api/public/flags?limit=4").header.Get("Server-Timing"); h != "" {
		t.Fatalf("Server-Timing %q with the setting off", h)
	}
	on := httpapi.Settings{RateLimit: 60, MaxStreamsPerKey: 5, CacheBytes: 8 << 20, ServerTiming: true}
	e.api.Apply(on)
	dur := `;dur=\d+(\.\d+)?`
	served := regexp.MustCompile(`^auth` + dur + `, limiter` + dur + `, cache;desc=(hit|miss), render` + dur + `, total` + dur + `$`)
	for _, want := range []string{"miss", "hit"} {
		h := e.get("/api/public/flags?limit=3").header.Get("Server-Timing")
		m := served.FindStringSubmatch(h)
		if m == nil || m[3] != want {
			t.Errorf("Server-Timing %q, want the five metrics with cache %s", h, want)
		}
	}
	slug := fixtures[0].slug
	if h := e.get("/api/public/flag/" + slug).header.Get("Server-Timing"); !regexp.MustCompile(`cache;desc=miss`).MatchString(h) {
		t.Errorf("a flag's first detail: Server-Timing %q, want a miss", h)
	}
	if h := e.get("/api/public/flag/" + slug).header.Get("Server-Timing"); !regexp.MustCompile(`cache;desc=hit`).MatchString(h) {
		t.Errorf("a flag's detail again: Server-Timing %q, want a hit", h)
	}
	refused := e.do("GET", "/api/public/flags", "Authorization: ")
	if h := refused.header.Get("Server-Timing"); !regexp.MustCompile(`^auth` + dur + `, total` + dur + `$`).MatchString(h) {
		t.Errorf("a 401: Server-Timing %q, want auth and total", h)
	}
	if h := e.get("/api/public/flag/no-such-flag").header.Get("Server-Timing"); !regexp.MustCompile(`^auth` + dur + `, limiter` + dur + `, total` + dur + `$`).MatchString(h) {
		t.Errorf("a 404: Server-Timing %q, want auth, limiter and total", h)
	}
	if h := e.get("/healthz").header.Get("Server-Timing"); h != "" {
		t.Errorf("/healthz, which takes no key: Server-Timing %q", h)
	}
	on.ServerTiming = false
	e.api.Apply(on)
	if h := e.get("/api/public/flags?limit=3").header.Get("Server-Timing"); h != "" {
		t.Errorf("Server-Timing %q after the setting went off", h)
	}
}
