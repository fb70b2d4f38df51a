package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// metricValue finds one sample of the Prometheus text format.
func metricValue(t *testing.T, body, name, labels string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name+labels) + ` (\S+)$`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no sample %s%s in /metrics", name, labels)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMetrics: after a few requests, the counters of /metrics on the admin
// address have moved; pprof is there and not on the API's address.
func TestMetrics(t *testing.T) {
	dbURL := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", dbURL, "--flags", "20", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "m"))
	s := startServe(t, noEnv, "--db", dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--access-log", "--snapshot-daily=false")
	base := listenAddr(t, s)
	admin := "http://" + regexp.MustCompile(`"admin_addr":"([^"]+)"`).FindStringSubmatch(s.stderr.String())[1]
	waitReady(t, s, base)
	for i := 0; i < 3; i++ {
		get(t, base+"/api/public/flags", key)
	}
	get(t, base+"/api/public/flags?limit=0", key)
	get(t, base+"/api/public/stats", "")
	// Readiness comes with the first snapshot; the load that made it is
	// counted a moment later (after the heap is given back), so wait for
	// it rather than race it.
	var m string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, body := get(t, admin+"/metrics", "")
		if st != 200 {
			t.Fatalf("/metrics: %d", st)
		}
		m = string(body)
		if strings.Contains(m, `flagpole_loads_total{job="flags",result="ok"}`) || time.Now().After(deadline) {
			break
		}
	}
	if v := metricValue(t, m, "flagpole_http_requests_total", `{method="GET",route="/api/public/flags",status="200"}`); v != 3 {
		t.Errorf("200s on /flags: %v, want 3", v)
	}
	if v := metricValue(t, m, "flagpole_http_requests_total", `{method="GET",route="/api/public/flags",status="400"}`); v != 1 {
		t.Errorf("400s on /flags: %v, want 1", v)
	}
	if v := metricValue(t, m, "flagpole_http_requests_total", `{method="GET",route="/api/public/stats",status="401"}`); v != 1 {
		t.Errorf("401s on /stats: %v, want 1", v)
	}
	if v := metricValue(t, m, "flagpole_loads_total", `{job="flags",result="ok"}`); v < 1 {
		t.Errorf("flag loads %v", v)
	}
	if v := metricValue(t, m, "flagpole_snapshot_flags", ""); v < 10 {
		t.Errorf("snapshot flags %v", v)
	}
	for _, name := range []string{"flagpole_http_request_duration_seconds_bucket", "flagpole_snapshot_age_seconds",
		"flagpole_load_duration_seconds_bucket", "flagpole_response_cache_hit_ratio", "flagpole_keys_active",
		"flagpole_load_rows_total", "flagpole_rate_limited_total"} {
		if !strings.Contains(m, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	// The collector's cost: its CPU and the heap it scans, which the
	// snapshot holds most of.
	if v := metricValue(t, m, "go_cpu_classes_gc_total_cpu_seconds_total", ""); v <= 0 {
		t.Errorf("the collector's CPU: %v, want > 0 after a load", v)
	}
	if v := metricValue(t, m, "go_gc_scan_heap_bytes", ""); v <= 0 {
		t.Errorf("the heap scanned: %v, want > 0", v)
	}
	if st, _ := get(t, admin+"/debug/pprof/", ""); st != 200 {
		t.Errorf("pprof on the admin address: %d", st)
	}
	if st, _ := get(t, base+"/debug/pprof/", ""); st != 404 {
		t.Errorf("pprof on the API's address: %d, want 404", st)
	}
	checkReadyzBodies(t, base, admin)
	checkAdminRequestIDs(t, admin)
	// The access log: request id, key id (never the key), route, status.
	logs := s.stderr.String()
	if !strings.Contains(logs, `"route":"/api/public/flags"`) || !strings.Contains(logs, `"key_id":"key_`) ||
		strings.Contains(logs, key) {
		t.Errorf("access log lines missing or leaking the key:\n%s", logs)
	}
}

// checkReadyzBodies: the admin address's /readyz has the operator's detail
// and the public one only the status and the data's freshness, each field
// of the type it has always had, the keys in sorted order.
func checkReadyzBodies(t *testing.T, base, admin string) {
	t.Helper()
	snapshot := map[string]string{"ageSeconds": "float64", "flags": "float64", "generation": "float64",
		"lastLoadMs": "float64", "loadedAt": "string", "trendsLoaded": "bool"}
	for _, c := range []struct {
		url  string
		want map[string]string
	}{
		{base + "/readyz", map[string]string{"snapshot": "map[string]interface {}", "status": "string"}},
		{admin + "/readyz", map[string]string{"dbTimeouts": "float64", "keyLoadFailures": "float64",
			"keys": "map[string]interface {}", "lastLoadAt": "string", "loadFailures": "float64", "loads": "float64",
			"snapshot": "map[string]interface {}", "status": "string"}},
	} {
		st, body := get(t, c.url, "")
		var m map[string]any
		if err := json.Unmarshal(body, &m); st != 200 || err != nil {
			t.Fatalf("%s: %d %s", c.url, st, body)
		}
		keys := slices.Sorted(maps.Keys(m))
		if got := typesOf(m); !maps.Equal(got, c.want) {
			t.Errorf("%s: fields %v, want %v", c.url, got, c.want)
		}
		if got := typesOf(m["snapshot"].(map[string]any)); !maps.Equal(got, snapshot) {
			t.Errorf("%s: snapshot fields %v, want %v", c.url, got, snapshot)
		}
		if m["status"] != "ready" || !regexp.MustCompile(`^\{"`+strings.Join(keys, `":.*,"`)+`":`).Match(body) {
			t.Errorf("%s: status %v, or keys not in sorted order: %s", c.url, m["status"], body)
		}
		if k, ok := m["keys"].(map[string]any); ok && (k["count"] != 1.0 || k["loadedAt"] == nil) {
			t.Errorf("%s: keys %v", c.url, k)
		}
	}
}

// checkAdminRequestIDs: every answer of the admin address carries an
// X-Request-Id, a new one each, or the sane one the request sent, and,
// but for /healthz (the API's handler), no CORS header.
func checkAdminRequestIDs(t *testing.T, admin string) {
	t.Helper()
	seen := map[string]bool{}
	for _, path := range []string{"/metrics", "/readyz", "/healthz", "/debug/pprof/", "/nowhere"} {
		for _, sent := range []string{"", "trace-4711", "not sane!"} {
			req, _ := http.NewRequest(http.MethodGet, admin+path, nil)
			if sent != "" {
				req.Header.Set("X-Request-Id", sent)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			id := resp.Header.Values("X-Request-Id")
			switch {
			case len(id) != 1:
				t.Errorf("admin %s (sent %q): X-Request-Id %q, want one", path, sent, id)
			case sent == "trace-4711" && id[0] != sent:
				t.Errorf("admin %s: X-Request-Id %q, want the sane %q echoed", path, id[0], sent)
			case sent != "trace-4711" && (id[0] == sent || seen[id[0]]):
				t.Errorf("admin %s (sent %q): X-Request-Id %q, want a new one", path, sent, id[0])
			}
			if sent != "trace-4711" && len(id) == 1 {
				seen[id[0]] = true
			}
			// The operator's address: no web page may read it (docs/decisions.md).
			if o := resp.Header.Get("Access-Control-Allow-Origin"); o != "" && path != "/healthz" {
				t.Errorf("admin %s: Access-Control-Allow-Origin %q, want none", path, o)
			}
		}
	}
}

func typesOf(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = fmt.Sprintf("%T", v)
	}
	return out
}
