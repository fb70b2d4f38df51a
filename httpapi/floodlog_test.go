package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestAnonFloodLog: a keyless flood writes the first refusals of its
// address's minute to the access log, then one line with the count.
func TestAnonFloodLog(t *testing.T) {
	base := newEnv(t, "sqlite", fixtureLines())
	var buf loadertest.Buffer
	e := base.serveWith(httpapi.Options{AnonRateLimit: 10, AccessLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	e.clock.Set(t0)
	c := dialFrom("127.0.0.1")
	for i := 0; i < 1000; i++ {
		statusOf(t, c, e.srv.URL+"/api/public/flags")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	statuses := map[float64]int{}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		statuses[m["status"].(float64)]++
		if m["client"] != "127.0.0.1" {
			t.Errorf("line without the client address: %s", l)
		}
	}
	if statuses[401] != 10 || statuses[429] != ratelimit.LogSample || len(lines) != 10+ratelimit.LogSample {
		t.Fatalf("1000 keyless requests wrote %d lines (%v), want 10 401s and %d 429s", len(lines), statuses, ratelimit.LogSample)
	}
	// A minute later the sweep writes one line for the rest.
	e.api.Sweep(t0.Add(time.Minute))
	last := strings.TrimSpace(buf.String())
	last = last[strings.LastIndexByte(last, '\n')+1:]
	var m map[string]any
	json.Unmarshal([]byte(last), &m)
	if m["refused"] != float64(990-ratelimit.LogSample) || m["client"] != "127.0.0.1" {
		t.Errorf("summary line %s, want refused %d", last, 990-ratelimit.LogSample)
	}
}

// TestAnonFloodLogClose: at Close the counts not yet reported are logged.
func TestAnonFloodLogClose(t *testing.T) {
	base := newEnv(t, "sqlite", fixtureLines())
	var buf loadertest.Buffer
	e := base.serveWith(httpapi.Options{AnonRateLimit: 1, AccessLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	c := dialFrom("127.0.0.1")
	for i := 0; i < 10; i++ {
		statusOf(t, c, e.srv.URL+"/api/public/flags")
	}
	e.api.Close()
	if want := `"refused":4`; !strings.Contains(buf.String(), want) {
		t.Errorf("no line with %s after Close:\n%s", want, buf.String())
	}
}

// TestAccessLogLine: a request with a key writes one line naming its
// request id, the key's id (never the key), the client, the route and
// the status.
func TestAccessLogLine(t *testing.T) {
	base := newEnv(t, "sqlite", fixtureLines())
	secret, key := base.newKey("logged", 0)
	var buf loadertest.Buffer
	e := base.serveWith(httpapi.Options{AccessLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	mustStatus(t, e.get("/api/public/flags?limit=2", "Authorization: Bearer "+secret, "X-Request-Id: logged-1"), 200, "")
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(buf.String())), &m); err != nil {
		t.Fatalf("not one JSON line: %q", buf.String())
	}
	want := map[string]any{"request_id": "logged-1", "key_id": key.ID, "client": "127.0.0.1",
		"route": "/api/public/flags", "path": "/api/public/flags", "method": "GET", "status": 200.0}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s %v, want %v (%s)", k, m[k], v, buf.String())
		}
	}
	if strings.Contains(buf.String(), secret) {
		t.Error("the access log holds the key itself")
	}
}
