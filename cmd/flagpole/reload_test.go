package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
)

// request does one GET of base+path with key (none: "") and the headers
// ("Name: value"), and returns the answer with its body read and closed.
func request(t *testing.T, url, key string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// reloadRig is a serve in the process reading its settings from a file,
// with a key that has no limit of its own.
type reloadRig struct {
	*liveRig
	s           *server
	sigs        chan<- os.Signal
	file        string
	plain       string // a key without a limit of its own: rate_limit's
	base, admin string
}

// baseSettings are a configuration file's settings under every reload
// test's own: no wake-ups and hour-long schedules, so that no load runs
// unless the test asks for one.
const baseSettings = "listen: false\nrefresh: \"@every 1h\"\nkey_refresh: \"@every 1h\"\nfull_reload: 0s\nsnapshot_daily: false\n"

func newReloadRig(t *testing.T, settings string) *reloadRig {
	t.Helper()
	r := &reloadRig{liveRig: newLiveRig(t, loader.SQLite)}
	r.plain = strings.TrimSpace(mustRun(t, "keys", "create", "--db", r.dbURL, "--name", "plain"))
	r.file = filepath.Join(t.TempDir(), "flagpole.yaml")
	r.write(t, settings)
	r.s, r.sigs = startSignalled(t, false, "--config", r.file, "--db", r.dbURL, "--addr", "127.0.0.1:0",
		"--admin-addr", "127.0.0.1:0")
	r.base = listenAddr(t, r.s)
	r.admin = "http://" + adminAddr.FindStringSubmatch(r.s.stderr.String())[1]
	waitReady(t, r.s, r.base)
	// The trend history's load follows the first and makes the next
	// generation: wait for it, so that the tests see no load of their own.
	r.s.waitFor(t, "the trend history", 30*time.Second, func() []string {
		return regexp.MustCompile(`"trend history loaded"`).FindStringSubmatch(r.s.stderr.String())
	})
	return r
}

// write makes settings the configuration file's, with those of
// baseSettings that settings does not set.
func (r *reloadRig) write(t *testing.T, settings string) {
	t.Helper()
	writeSettings(t, r.file, settings)
}

// writeSettings writes settings to file, with those of baseSettings that
// settings does not set.
func writeSettings(t *testing.T, file, settings string) {
	t.Helper()
	text := settings
	for _, line := range lines(baseSettings) {
		key, _, _ := strings.Cut(line, ":")
		if !strings.Contains("\n"+settings, "\n"+key+":") {
			text += line + "\n"
		}
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reload writes settings to the file, sends SIGHUP and waits until the
// reload is counted with result.
func (r *reloadRig) reload(t *testing.T, settings, result string) {
	t.Helper()
	if settings != "" {
		r.write(t, settings)
	}
	before := scrape(t, r.admin, "flagpole_config_reloads_total", `{result="`+result+`"}`)
	r.sigs <- syscall.SIGHUP
	deadline := time.Now().Add(10 * time.Second)
	for scrape(t, r.admin, "flagpole_config_reloads_total", `{result="`+result+`"}`) != before+1 {
		if time.Now().After(deadline) {
			t.Fatalf("no reload counted %s within 10 s\nstderr:\n%s", result, r.s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// snapshotState is the admin /readyz's snapshot generation and load time.
func (r *reloadRig) snapshotState(t *testing.T) (float64, string) {
	t.Helper()
	_, m := readyz(r.admin)
	s, _ := m["snapshot"].(map[string]any)
	at, _ := s["loadedAt"].(string)
	gen, _ := s["generation"].(float64)
	return gen, at
}

// TestReloadLimits: SIGHUP applies the new rate limit (the key's window
// carries over), the keyless limit, the trusted proxies, the streams a
// key may hold, max_snapshot_age, the caches' size where they take it,
// the access log and the log's level, without loading the data again:
// the snapshot and its generation stay.
func TestReloadLimits(t *testing.T) {
	r := newReloadRig(t, "rate_limit: 5\nanon_rate_limit: 3\nmax_streams_per_key: 1\naccess_log: false\n")
	_, slug := r.anyFlag(t)
	for range 3 {
		request(t, r.base+"/api/public/stats", r.plain)
	}
	if resp := request(t, r.base+"/api/public/stats", r.plain); resp.Header.Get("X-RateLimit-Limit") != "5" ||
		resp.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("before the reload: limit %s, remaining %s; want 5 and 1", resp.Header.Get("X-RateLimit-Limit"),
			resp.Header.Get("X-RateLimit-Remaining"))
	}
	for range 3 {
		request(t, r.base+"/api/public/stats", "")
	}
	forwarded := "X-Forwarded-For: 198.51.100.7"
	if st := request(t, r.base+"/api/public/stats", "", forwarded).StatusCode; st != 429 {
		t.Fatalf("a 4th keyless request (X-Forwarded-For not trusted yet): %d, want 429", st)
	}
	openStream(t, r.base, r.key, slug)
	if st := request(t, r.base+"/api/public/stream?slug="+slug, r.key).StatusCode; st != 429 {
		t.Fatalf("a second stream of the key at max_streams_per_key 1: %d, want 429", st)
	}
	gen, at := r.snapshotState(t)

	r.reload(t, "rate_limit: 10\nanon_rate_limit: 100\nmax_streams_per_key: 2\naccess_log: true\n"+
		"trusted_proxies: [127.0.0.1]\nmax_snapshot_age: 1ms\ncache_mb: 32\n", "ok")
	resp := request(t, r.base+"/api/public/stats", r.plain)
	if resp.Header.Get("X-RateLimit-Limit") != "10" || resp.Header.Get("X-RateLimit-Remaining") != "5" {
		t.Errorf("after the reload: limit %s, remaining %s; want 10 and 5 (the 5 requests of the window kept)",
			resp.Header.Get("X-RateLimit-Limit"), resp.Header.Get("X-RateLimit-Remaining"))
	}
	if st := request(t, r.base+"/api/public/stats", "", forwarded).StatusCode; st != 401 {
		t.Errorf("a keyless request forwarded by a trusted proxy: %d, want 401 (its client's own budget)", st)
	}
	for i := range 10 {
		if st := request(t, r.base+"/api/public/stats", "", "X-Forwarded-For: 198.51.100.8").StatusCode; st != 401 {
			t.Fatalf("keyless request %d of a new client under anon_rate_limit 100: %d, want 401", i+1, st)
		}
	}
	openStream(t, r.base, r.key, slug)
	if st := request(t, r.base+"/api/public/stream?slug="+slug, r.key).StatusCode; st != 429 {
		t.Errorf("a third stream of the key at max_streams_per_key 2: %d, want 429", st)
	}
	if st, why := readyReason(t, r.base); st != 503 || why != "stale" {
		t.Errorf("/readyz at max_snapshot_age 1ms: %d %q, want 503 stale", st, why)
	}
	if !strings.Contains(r.s.stderr.String(), `"msg":"request"`) {
		t.Error("access_log turned on, yet no request was logged")
	}
	if !strings.Contains(r.s.stderr.String(), "cache_mb: the response and search caches take the new size; "+
		"the details', trends' and answers' tables keep their 56 MB until a restart") {
		t.Errorf("no log line saying which caches took cache_mb 32:\n%s", r.s.stderr)
	}
	if g, a := r.snapshotState(t); g != gen || a != at {
		t.Errorf("the snapshot after the reload: generation %v loaded at %s, want %v at %s (not loaded again)", g, a, gen, at)
	}

	// log_level warn: the next reload's info line is not written, the
	// access log still is; back at info, it is written again.
	reloaded := func() int { return strings.Count(r.s.stderr.String(), `"msg":"configuration reloaded"`) }
	r.reload(t, "log_level: warn\naccess_log: true\n", "ok")
	n := reloaded()
	lines := strings.Count(r.s.stderr.String(), `"msg":"request"`)
	r.reload(t, "log_level: warn\naccess_log: true\nrate_limit: 7\n", "ok")
	request(t, r.base+"/api/public/stats", r.plain)
	if reloaded() != n {
		t.Error("at log_level warn, the reload's info line was written")
	}
	if strings.Count(r.s.stderr.String(), `"msg":"request"`) == lines {
		t.Error("at log_level warn, the access log stopped")
	}
	r.reload(t, "log_level: info\n", "ok")
	if reloaded() != n+1 {
		t.Error("back at log_level info, the reload's info line was not written")
	}
	if st, _ := readyReason(t, r.base); st != 200 {
		t.Errorf("/readyz with max_snapshot_age back at 0: %d, want 200", st)
	}
}

// TestReloadSchedules: SIGHUP reschedules the loads at once: on
// hour-long schedules nothing loads; after a reload to a second, the
// flags and the keys load every second.
func TestReloadSchedules(t *testing.T) {
	r := newReloadRig(t, "")
	flags := scrape(t, r.admin, "flagpole_loads_total", `{job="flags",result="ok"}`)
	keys := scrape(t, r.admin, "flagpole_loads_total", `{job="keys",result="ok"}`)
	r.reload(t, "refresh: \"@every 1s\"\nkey_refresh: \"@every 1s\"\n", "ok")
	until(t, "flag and key loads every second", 30*time.Second, func() bool {
		return scrape(t, r.admin, "flagpole_loads_total", `{job="flags",result="ok"}`) >= flags+3 &&
			scrape(t, r.admin, "flagpole_loads_total", `{job="keys",result="ok"}`) >= keys+3
	})
}

// TestReloadRefused: a file that does not read, or holds a value out of
// range, is refused whole: counted as an error, logged, and the running
// settings stay, the valid settings beside the bad one included.
func TestReloadRefused(t *testing.T) {
	r := newReloadRig(t, "rate_limit: 5\n")
	limit := func() string { return request(t, r.base+"/api/public/stats", r.plain).Header.Get("X-RateLimit-Limit") }
	for _, bad := range []string{"rate_limit: 9\nrefresh: [not, a, schedule\n", "rate_limit: 9\nmax_streams_per_key: 0\n",
		"rate_limit: 9\nno_such_setting: 1\n"} {
		r.reload(t, bad, "error")
		if got := limit(); got != "5" {
			t.Errorf("after a refused file %q: limit %s, want 5", bad, got)
		}
		if v := scrape(t, r.admin, "flagpole_config_last_reload_successful", ""); v != 0 {
			t.Errorf("flagpole_config_last_reload_successful %v after a refused file, want 0", v)
		}
	}
	if !strings.Contains(r.s.stderr.String(), "configuration reload refused") {
		t.Errorf("no log line for the refused reload:\n%s", r.s.stderr)
	}
	r.reload(t, "rate_limit: 9\n", "ok")
	if got := limit(); got != "9" {
		t.Errorf("after a good file: limit %s, want 9", got)
	}
	if v := scrape(t, r.admin, "flagpole_config_last_reload_successful", ""); v != 1 {
		t.Errorf("flagpole_config_last_reload_successful %v after a good file, want 1", v)
	}
}

// TestReloadNeedsRestart: a changed setting that only a restart applies
// (an address, Redis, the connection bounds) is logged as such and keeps
// its running value, while the live ones beside it apply; a flag given on
// the command line still wins over the file.
func TestReloadNeedsRestart(t *testing.T) {
	r := newReloadRig(t, "rate_limit: 5\n")
	r.reload(t, "rate_limit: 6\naddr: 127.0.0.1:1\nredis: redis://127.0.0.1:1/0\nmax_conns_per_ip: 3\n", "ok")
	if got := request(t, r.base+"/api/public/stats", r.plain).Header.Get("X-RateLimit-Limit"); got != "6" {
		t.Errorf("the live setting beside them: limit %s, want 6", got)
	}
	if v := scrape(t, r.admin, "flagpole_config_restart_pending", ""); v != 2 {
		t.Errorf("flagpole_config_restart_pending %v, want 2 (redis, max_conns_per_ip; addr is a flag)", v)
	}
	logs := r.s.stderr.String()
	for _, key := range []string{"redis", "max_conns_per_ip"} {
		if !strings.Contains(logs, `only a restart applies it; it keeps its running value","setting":"`+key+`"`) {
			t.Errorf("no log line saying %s needs a restart:\n%s", key, logs)
		}
	}
	if strings.Contains(logs, "redis://127.0.0.1:1") {
		t.Error("the log shows the Redis URL of the file")
	}
	if !strings.Contains(logs, `"set_by_flag_or_env":"addr,admin_addr,db"`) {
		t.Errorf("the reload's line does not name the settings the flags set:\n%s", logs)
	}
	if st := request(t, r.base+"/healthz", "").StatusCode; st != 200 {
		t.Errorf("the running address after the reload: %d", st)
	}
}

// TestSIGHUP: a real SIGHUP to a serve process reloads its configuration
// and leaves it running; it used to kill it.
func TestSIGHUP(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	plain := strings.TrimSpace(mustRun(t, "keys", "create", "--db", r.dbURL, "--name", "plain"))
	file := filepath.Join(t.TempDir(), "flagpole.yaml")
	writeSettings(t, file, "rate_limit: 5\n")
	p := startProc(t, "--config", file, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0")
	p.wait(t)
	until(t, "ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
	writeSettings(t, file, "rate_limit: 8\n")
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	until(t, "the reload is counted", 10*time.Second, func() bool {
		return scrape(t, p.admin, "flagpole_config_reloads_total", `{result="ok"}`) == 1
	})
	if got := request(t, p.base+"/api/public/stats", plain).Header.Get("X-RateLimit-Limit"); got != "8" {
		t.Errorf("after SIGHUP: limit %s, want 8", got)
	}
}
