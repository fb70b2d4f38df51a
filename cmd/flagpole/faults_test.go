package main

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// viaProxy returns u with its host replaced by a proxy to that host.
func viaProxy(t *testing.T, raw string) (string, *loadertest.Proxy) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := loadertest.NewProxy(t, u.Host)
	u.Host = p.Addr()
	return u.String(), p
}

func listenAddr(t *testing.T, s *server) string {
	t.Helper()
	m := s.waitFor(t, "its address", 60*time.Second, func() []string { return listening.FindStringSubmatch(s.stderr.String()) })
	return "http://" + m[1]
}

// getStatus does one GET and returns its status; 0 when it failed or
// took longer than the client's timeout (a hang).
func getStatus(rawURL, key string) int {
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{Timeout: 3 * time.Second}).Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestPostgresOutage cuts PostgreSQL under a running server: every
// endpoint keeps answering from the last snapshot, /readyz says how old it
// is and turns not ready past max_snapshot_age, and loads resume by
// themselves when the database returns.
func TestPostgresOutage(t *testing.T) {
	dbURL := loadertest.URL(t, loader.Postgres)
	mustRun(t, "seed", "--db", dbURL, "--flags", "40", "--users", "10", "--days", "5")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "outage", "--limit", "100000"))
	proxied, proxy := viaProxy(t, dbURL)
	s := startServe(t, noEnv, "--db", proxied, "--addr", "127.0.0.1:0", "--refresh", "@every 1s",
		"--key-refresh", "@every 1s", "--max-snapshot-age", "3s", "--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	paths := []string{"/api/public/flags", "/api/public/stats", "/api/public/categories", "/api/public/regions",
		"/api/public/search?q=the"}

	proxy.Cut()
	db, err := loader.Open(context.Background(), dbURL) // the test's own way in, around the proxy
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id, slug string
	if err := db.QueryRow("SELECT id, slug FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1").Scan(&id, &slug); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO users (id) VALUES ('outage-user')"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'outage-user', 'red')", id); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range append(paths, "/api/public/flag/"+slug) {
			if st := getStatus(base+p, key); st != 200 {
				t.Fatalf("%s during the outage: %d (0: failed or hung)", p, st)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	st, body := readyz(base)
	if st != 503 || !strings.Contains(body["detail"].(string), "max_snapshot_age") {
		t.Fatalf("readyz during a 5 s outage with max age 3 s: %d %v", st, body)
	}
	if stale, _ := body["stale"].(string); !strings.Contains(stale, "max_snapshot_age") || body["snapshot"] == nil ||
		body["status"] != float64(503) {
		t.Errorf("readyz's problem lacks stale and snapshot as members: %v", body)
	}

	proxy.Restore()
	until(t, "ready again after the database returned", 20*time.Second, func() bool { s, _ := readyz(base); return s == 200 })
	_, body = readyz(base)
	if snap, _ := body["snapshot"].(map[string]any); snap == nil || snap["ageSeconds"].(float64) > 3 {
		t.Errorf("readyz after recovery: %v", body)
	}
	// The vote written during the outage arrives with the next load.
	until(t, "the vote of the outage shows", 10*time.Second, func() bool {
		_, b := get(t, base+"/api/public/flag/"+slug, key)
		return strings.Contains(string(b), `"red":`) && checkRedAtLeastOneMore(t, db, id, b)
	})
}

// checkRedAtLeastOneMore compares the API's red count with the database's.
func checkRedAtLeastOneMore(t *testing.T, db *loader.DB, id string, body []byte) bool {
	var red int
	if err := db.QueryRow("SELECT red_count FROM flags WHERE id = $1", id).Scan(&red); err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(body), `"votes":{"red":`+itoa(red)+`,`)
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRedisOutage cuts Redis under a running server: requests are still
// served and limited in-process, /readyz says so, and shared limiting
// resumes by itself.
func TestRedisOutage(t *testing.T) {
	redisURL := loadertest.RedisURL(t)
	proxied, proxy := viaProxy(t, redisURL)
	dbURL := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", dbURL, "--flags", "20", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "redis", "--limit", "1000"))
	s := startServe(t, noEnv, "--db", dbURL, "--addr", "127.0.0.1:0", "--redis", proxied, "--redis-prefix", redisPrefix(),
		"--redis-timeout", "100ms", "--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	shared := func() bool {
		_, m := readyz(base)
		rl, _ := m["rateLimit"].(map[string]any)
		return rl != nil && rl["shared"] == true
	}
	// A call to Redis past the 100 ms timeout on a busy machine counts as
	// an outage too: wait for a request limited in Redis.
	until(t, "shared while Redis is up", 15*time.Second, func() bool {
		return getStatus(base+"/api/public/stats", key) == 200 && shared()
	})
	proxy.Cut()
	for i := 0; i < 30; i++ {
		if st := getStatus(base+"/api/public/flags", key); st != 200 {
			t.Fatalf("request %d with Redis down: %d", i, st)
		}
	}
	if shared() {
		t.Fatal("readyz says shared while Redis is down")
	}
	if !strings.Contains(s.stderr.String(), "limiting in-process") {
		t.Error("no warning logged when Redis failed")
	}
	proxy.Restore()
	until(t, "shared limiting resumes", 15*time.Second, func() bool {
		getStatus(base+"/api/public/stats", key)
		return shared()
	})

	// Redis down at start: not shared from the first /readyz on, before
	// any request with a key.
	proxy.Cut()
	s2 := startServe(t, noEnv, "--db", dbURL, "--addr", "127.0.0.1:0", "--redis", proxied, "--redis-prefix", redisPrefix(),
		"--redis-timeout", "100ms", "--access-log=false", "--snapshot-daily=false")
	base2 := listenAddr(t, s2)
	waitReady(t, s2, base2)
	if _, m := readyz(base2); m["rateLimit"] == nil || m["rateLimit"].(map[string]any)["shared"] != false {
		t.Errorf("readyz with Redis down at start: rateLimit %v, want shared false", m["rateLimit"])
	}
}
