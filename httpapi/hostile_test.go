package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/config/addrset"
	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// serveWith serves e's store again with opt (Store and Now filled in) and
// returns an env that talks to it.
func (e *env) serveWith(opt httpapi.Options) *env {
	e.t.Helper()
	opt.Store, opt.Now = e.store, e.clock.Now
	api, err := httpapi.New(opt)
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	e.t.Cleanup(func() { srv.Close(); api.Close() })
	c := *e
	c.api, c.srv = api, srv
	return &c
}

// countingLimiter is a key limiter that counts its calls (as a shared
// limiter would count round trips).
type countingLimiter struct {
	ratelimit.Limiter
	calls atomic.Int64
}

func (l *countingLimiter) Allow(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error) {
	l.calls.Add(1)
	return l.Limiter.Allow(ctx, key, limit, now)
}

func (l *countingLimiter) Peek(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error) {
	l.calls.Add(1)
	return l.Limiter.Peek(ctx, key, limit, now)
}

// TestAnonLimit: requests without a valid key (none, unknown, wrong
// scheme) share one budget per client address; past it they get 429 with
// Retry-After, never reaching the key limiter; a valid key from the same
// address is never refused by it; the refusals are counted.
func TestAnonLimit(t *testing.T) {
	base := newEnv(t, "sqlite", fixtureLines())
	keys := &countingLimiter{Limiter: ratelimit.NewLocal()}
	reg := prometheus.NewRegistry()
	e := base.serveWith(httpapi.Options{Limiter: keys, AnonRateLimit: 10, Metrics: reg})
	e.clock.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	bad := []string{"Authorization: ", "Authorization: Bearer grf_unknown", "Authorization: Basic abc"}
	for i := 0; i < 10; i++ {
		mustStatus(t, e.get("/api/public/flags", bad[i%3]), 401, "unauthorized")
	}
	for i, h := range bad {
		r := e.get("/api/public/flags", h)
		mustStatus(t, r, 429, "rate_limited")
		if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 6 {
			t.Errorf("%d: Retry-After %q, want 1..6 (one request every 6 s)", i, r.header.Get("Retry-After"))
		}
		if r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Error("a keyless 429 without CORS")
		}
	}
	// Unknown paths and methods without a key count too.
	e.noSpec = true
	mustStatus(t, e.get("/nope", "Authorization: "), 429, "rate_limited")
	e.noSpec = false
	if n := keys.calls.Load(); n != 0 {
		t.Errorf("keyless traffic made %d calls to the key limiter", n)
	}
	// A valid key from the same address is served, and counted by key.
	for i := 0; i < 20; i++ {
		mustStatus(t, e.get("/api/public/flags"), 200, "")
	}
	if keys.calls.Load() != 20 {
		t.Errorf("%d key decisions for 20 keyed requests", keys.calls.Load())
	}
	// Probes and preflights are not limited.
	mustStatus(t, e.get("/healthz", "Authorization: "), 200, "")
	if r := e.do(http.MethodOptions, "/api/public/flags", "Authorization: "); r.status != 204 {
		t.Errorf("preflight %d", r.status)
	}
	if got := counter(t, reg, "flagpole_anon_rate_limited_total"); got != 4 {
		t.Errorf("flagpole_anon_rate_limited_total %v, want 4", got)
	}
	// The bucket refills: one more request every 6 s.
	e.clock.Set(time.Date(2026, 6, 1, 12, 0, 7, 0, time.UTC))
	mustStatus(t, e.get("/api/public/flags", "Authorization: "), 401, "unauthorized")
	mustStatus(t, e.get("/api/public/flags", "Authorization: "), 429, "rate_limited")

	// Every 429 counts once; the addresses are a gauge; an unknown path
	// is its own route.
	if got := counter(t, reg, "flagpole_rate_limited_total"); got != 5 {
		t.Errorf("flagpole_rate_limited_total %v, want the 5 refusals", got)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var addrs, unmatched float64 = -1, 0
	for _, mf := range mfs {
		switch mf.GetName() {
		case "flagpole_anon_addresses":
			addrs = mf.GetMetric()[0].GetGauge().GetValue()
		case "flagpole_http_requests_total":
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "route" && l.GetValue() == "unmatched" {
						unmatched += m.GetCounter().GetValue()
					}
				}
			}
		}
	}
	if addrs != 1 {
		t.Errorf("flagpole_anon_addresses %v, want the one address", addrs)
	}
	if unmatched != 1 {
		t.Errorf("requests to route \"unmatched\": %v, want the one to /nope", unmatched)
	}
}

// counter is the value of a counter of reg.
func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// dialFrom is an HTTP client whose connections come from the local
// address from (127.0.0.x: the whole of 127/8 is loopback on Linux).
func dialFrom(from string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

func statusOf(t *testing.T, c *http.Client, url string, headers ...string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestAnonLimitClientAddr: the limit is per connection address; a made-up
// X-Forwarded-For from a peer that is not a trusted proxy changes
// nothing; behind a trusted proxy the right-most untrusted address of
// X-Forwarded-For is the client, so a client cannot dodge the limit by
// prepending addresses of its own.
func TestAnonLimitClientAddr(t *testing.T) {
	loadertest.OtherLoopbacks(t)
	base := newEnv(t, "sqlite", fixtureLines())
	direct := base.serveWith(httpapi.Options{AnonRateLimit: 3})
	one, two := dialFrom("127.0.0.1"), dialFrom("127.0.0.2")
	url := direct.srv.URL + "/api/public/stats"
	for i := 0; i < 3; i++ {
		if st := statusOf(t, one, url, "X-Forwarded-For: 198.51.100."+strconv.Itoa(i)); st != 401 {
			t.Fatalf("request %d: %d", i, st)
		}
	}
	if st := statusOf(t, one, url, "X-Forwarded-For: 203.0.113.9"); st != 429 {
		t.Errorf("a made-up X-Forwarded-For from an untrusted peer dodged the limit: %d", st)
	}
	if st := statusOf(t, two, url); st != 401 {
		t.Errorf("another address was limited: %d", st)
	}

	proxies, err := addrset.Parse([]string{"127.0.0.1", "10.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	behind := base.serveWith(httpapi.Options{AnonRateLimit: 3, TrustedProxies: proxies})
	url = behind.srv.URL + "/api/public/stats"
	// Three clients behind the proxy (127.0.0.1), each with its own budget;
	// what a client wrote itself sits left of what the proxies appended.
	for i := 0; i < 3; i++ {
		for _, xff := range []string{"192.0.2.1", "198.51.100.7, 10.1.2.3", "192.0.2.3"} {
			if st := statusOf(t, one, url, "X-Forwarded-For: "+xff); st != 401 {
				t.Fatalf("%s, request %d: %d", xff, i, st)
			}
		}
	}
	for _, xff := range []string{"192.0.2.1", "203.0.113.50, 192.0.2.1", "1.2.3.4, 192.0.2.1", "garbage, 192.0.2.1",
		"198.51.100.7:4711, 10.9.9.9", ", 192.0.2.1", "198.51.100.7,10.9.9.9"} {
		if st := statusOf(t, one, url, "X-Forwarded-For: "+xff); st != 429 {
			t.Errorf("X-Forwarded-For %q dodged the limit of its client: %d", xff, st)
		}
	}
	// Two header lines are one list, read from the last line back.
	for _, lines := range [][]string{{"X-Forwarded-For: 203.0.113.77", "X-Forwarded-For: 192.0.2.3"},
		{"X-Forwarded-For: 192.0.2.3", "X-Forwarded-For: 10.0.0.9"}} {
		if st := statusOf(t, one, url, lines...); st != 429 {
			t.Errorf("X-Forwarded-For in two lines %q dodged the limit of its client: %d", lines, st)
		}
	}
	// None of the requests above was charged to the proxy itself: its own
	// budget (a request of its own carries no header) is whole.
	for i := 0; i < 3; i++ {
		if st := statusOf(t, one, url); st != 401 {
			t.Fatalf("the trusted proxy's own request %d: %d; a client's request was charged to it", i, st)
		}
	}
	if st := statusOf(t, one, url, "X-Forwarded-For: 192.0.2.200"); st != 401 {
		t.Errorf("a fresh client behind the proxy: %d", st)
	}
	// A trusted peer without the header is limited as itself.
	if st := statusOf(t, two, url, "X-Forwarded-For: 192.0.2.1"); st != 401 {
		t.Errorf("127.0.0.2 is not a trusted proxy; its header must be ignored: %d", st)
	}
}

// TestMetricsMethodsBounded: a method no client should send is counted
// under "other", so clients inventing methods add no series: the request
// metrics stay as many as routes, known methods and statuses.
func TestMetricsMethodsBounded(t *testing.T) {
	base := newEnv(t, "sqlite", fixtureLines())
	reg := prometheus.NewRegistry()
	e := base.serveWith(httpapi.Options{Metrics: reg})
	e.noSpec = true // methods the document cannot describe; the status is checked here
	for i := range 40 {
		if r := e.do(fmt.Sprintf("FOO%d", i), "/api/public/flags"); r.status != 405 {
			t.Fatalf("method FOO%d: %d, want 405", i, r.status)
		}
	}
	if r := e.do(http.MethodDelete, "/api/public/flags"); r.status != 405 {
		t.Fatalf("DELETE: %d, want 405", r.status)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byMethod := map[string]float64{}
	series := 0
	for _, mf := range mfs {
		if mf.GetName() != "flagpole_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			series++
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" {
					byMethod[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	if byMethod["other"] != 40 || byMethod["DELETE"] != 1 || len(byMethod) != 2 || series != 2 {
		t.Errorf("requests by method %v in %d series, want 40 other and 1 DELETE in 2", byMethod, series)
	}
}
