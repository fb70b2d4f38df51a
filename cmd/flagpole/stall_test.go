package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// The queries a proxy stalls on: the first statement of a flag load (the
// transactions' state, loader/position.go: its text, or the EXECUTE of
// it prepared, loader/prepared.go), and the key load.
var flagLoadQuery = []string{"pg_current_snapshot() AS s", "EXECUTE flagpole_load_"}

const keyLoadQuery = "FROM api_keys WHERE revoked_at IS NULL"

// stallRig is a PostgreSQL database with a few flags and a key, a proxy in
// front of it, and a way in around the proxy.
type stallRig struct {
	*liveRig
	proxied string
	proxy   *loadertest.Proxy
}

func newStallRig(t *testing.T) *stallRig {
	t.Helper()
	r := &stallRig{liveRig: newLiveRig(t, loader.Postgres)}
	r.proxied, r.proxy = viaProxy(t, r.dbURL)
	return r
}

// serve starts serve through the proxy with a 1 s db_timeout and
// one-second schedules; it returns the API's and the admin's base URLs.
func (r *stallRig) serve(t *testing.T, extra ...string) (s *server, base, admin string) {
	t.Helper()
	args := append([]string{"--db", r.proxied, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--db-timeout", "1s", "--refresh", "@every 1s", "--key-refresh", "@every 1s", "--access-log=false",
		"--snapshot-daily=false"}, extra...)
	s = startServe(t, noEnv, args...)
	base = listenAddr(t, s)
	admin = "http://" + regexp.MustCompile(`"admin_addr":"([^"]+)"`).FindStringSubmatch(s.stderr.String())[1]
	return s, base, admin
}

// scrape returns one sample of the admin address's /metrics, 0 when absent.
func scrape(t *testing.T, admin, name, labels string) float64 {
	t.Helper()
	_, body := get(t, admin+"/metrics", "")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name+labels) + ` (\S+)$`).FindStringSubmatch(string(body))
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// adminReady returns the admin /readyz's status and body.
func adminReady(t *testing.T, admin string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(admin + "/readyz")
	if err != nil {
		t.Fatalf("admin /readyz: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// serving fails the test unless every public route answers 200 with key.
func serving(t *testing.T, base, key, when string) {
	t.Helper()
	for _, p := range []string{"/api/public/flags", "/api/public/stats", "/api/public/search?q=the", "/healthz"} {
		if st := getStatus(base+p, key); st != 200 {
			t.Fatalf("%s %s: %d, want 200 (0: failed or hung)", when, p, st)
		}
	}
}

// TestStalledFirstLoad: PostgreSQL stops answering in the middle of the
// first flag load. The load fails within db_timeout, is logged with its
// reason and counted, /readyz says why it is not ready, and the server is
// ready once the network returns.
func TestStalledFirstLoad(t *testing.T) {
	r := newStallRig(t)
	r.proxy.StallOn(flagLoadQuery...)
	s, base, admin := r.serve(t)
	until(t, "the stalled first load fails and is counted", 30*time.Second, func() bool {
		return scrape(t, admin, "flagpole_loads_total", `{job="flags",result="error"}`) >= 1
	})
	if !r.proxy.Stalled() {
		t.Fatal("the proxy never stalled: the test did not test a stall")
	}
	st, body := adminReady(t, admin)
	if st != 503 || !strings.Contains(body, `"lastError"`) || !strings.Contains(body, "db_timeout") {
		t.Errorf("admin /readyz during a stalled first load: %d %s", st, body)
	}
	if !strings.Contains(s.stderr.String(), "first load failed") || !strings.Contains(s.stderr.String(), "db_timeout") {
		t.Errorf("no log line with the reason:\n%s", s.stderr)
	}
	if scrape(t, admin, "flagpole_db_timeouts_total", "") < 1 {
		t.Error("flagpole_db_timeouts_total did not move")
	}
	if st := getStatus(base+"/healthz", ""); st != 200 {
		t.Errorf("/healthz while the first load stalls: %d", st)
	}
	r.proxy.Restore()
	waitReady(t, s, base)
	serving(t, base, r.key, "after the network returned")
}

// TestStalledTick: PostgreSQL stops answering under a running server in
// the middle of a tick. Every route keeps answering from memory; the tick
// fails within db_timeout, counted and shown in /readyz and the snapshot's
// age; after the network returns a tick succeeds on a fresh connection.
func TestStalledTick(t *testing.T) {
	r := newStallRig(t)
	s, base, admin := r.serve(t)
	waitReady(t, s, base)
	s.waitFor(t, "the trend history", 30*time.Second, func() []string {
		return regexp.MustCompile(`"trend history loaded"`).FindStringSubmatch(s.stderr.String())
	})
	before := scrape(t, admin, "flagpole_loads_total", `{job="flags",result="error"}`)
	r.proxy.StallOn(flagLoadQuery...)
	until(t, "a stalled tick fails and is counted", 30*time.Second, func() bool {
		serving(t, base, r.key, "during the stall")
		return scrape(t, admin, "flagpole_loads_total", `{job="flags",result="error"}`) > before
	})
	st, body := adminReady(t, admin)
	if st != 200 || !strings.Contains(body, "db_timeout") {
		t.Errorf("admin /readyz after a stalled tick: %d %s (want 200, still serving, with the error)", st, body)
	}
	until(t, "the snapshot's age grows past a second", 30*time.Second, func() bool {
		serving(t, base, r.key, "during the stall")
		return scrape(t, admin, "flagpole_snapshot_age_seconds", "") >= 1
	})
	if !strings.Contains(s.stderr.String(), `"flag load failed"`) {
		t.Errorf("no log line for the failed tick:\n%s", s.stderr)
	}
	held := r.proxy.Held()
	r.proxy.Restore()
	until(t, "a tick succeeds after the network returned", 30*time.Second, func() bool {
		_, body := adminReady(t, admin)
		return !strings.Contains(body, `"lastError"`)
	})
	if r.proxy.Held() != held {
		t.Errorf("the proxy holds %d stalled connections, %d before the network returned", r.proxy.Held(), held)
	}
	serving(t, base, r.key, "after the network returned")
}

// TestStalledKeyLoadThenRevoke: PostgreSQL stops answering in the middle
// of a key load; the load fails within db_timeout, counted and shown in
// /readyz, and keys keep working from memory. A key revoked meanwhile is
// refused once the network returns (within key_refresh + db_timeout; the
// bound below is only a guard against a hang).
func TestStalledKeyLoadThenRevoke(t *testing.T) {
	r := newStallRig(t)
	s, base, admin := r.serve(t)
	waitReady(t, s, base)
	r.proxy.StallOn(keyLoadQuery)
	until(t, "a stalled key load fails and is counted", 30*time.Second, func() bool {
		serving(t, base, r.key, "during the stall")
		return scrape(t, admin, "flagpole_loads_total", `{job="keys",result="error"}`) >= 1
	})
	if _, body := adminReady(t, admin); !strings.Contains(body, `"lastKeyError"`) || !strings.Contains(body, "db_timeout") {
		t.Errorf("admin /readyz after a stalled key load: %s", body)
	}
	keys, err := r.direct.ListKeys(context.Background())
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %v %v", keys, err)
	}
	if err := r.direct.RevokeKey(context.Background(), keys[0].ID); err != nil {
		t.Fatal(err)
	}
	serving(t, base, r.key, "with the revocation not yet seen")
	r.proxy.Restore()
	back := time.Now()
	until(t, "the revoked key is refused after the network returned", 30*time.Second, func() bool {
		return getStatus(base+"/api/public/flags", r.key) == http.StatusUnauthorized
	})
	t.Logf("revoked key refused %s after the network returned", time.Since(back).Round(100*time.Millisecond))
}

// TestServeStalledStartStops: serve started against a PostgreSQL that
// accepts connections and never answers stops on SIGTERM within
// shutdown_timeout, though db_timeout is far longer.
func TestServeStalledStartStops(t *testing.T) {
	r := newStallRig(t)
	r.proxy.Stall()
	s := startServe(t, mapEnv(map[string]string{"FLAGPOLE_SHUTDOWN_TIMEOUT": "2s"}), "--db", r.proxied,
		"--addr", "127.0.0.1:0", "--db-timeout", "5m", "--access-log=false")
	deadline := time.Now().Add(30 * time.Second)
	for r.proxy.Held() == 0 {
		select {
		case err := <-s.done:
			s.stopped = true
			t.Fatalf("serve returned %v before it reached the database\nstderr:\n%s", err, s.stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("serve never connected to the database")
		}
	}
	time.Sleep(200 * time.Millisecond) // well inside the stalled start
	s.cancel()
	select {
	case err := <-s.done:
		s.stopped = true
		if err != nil {
			t.Errorf("serve stopped during a stalled start returned %v, want nil", err)
		}
	case <-time.After(2*time.Second + 3*time.Second): // shutdown_timeout, and a margin against a hang
		t.Fatalf("serve did not stop within shutdown_timeout of SIGTERM during a stalled start\nstderr:\n%s", s.stderr)
	}
}
