package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/httpapi/connlimit"
	"github.com/flagpole/flagpole/loader"
)

// needTool is the path of the program name, which Debian's package pkg
// installs; without it the test skips, except under CI.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin/", "/usr/bin/"} {
		if _, err := os.Stat(dir + name); err == nil {
			return dir + name
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s is not installed (apt-get install %s)", name, pkg)
	}
	t.Skipf("%s is not installed (apt-get install %s)", name, pkg)
	return ""
}

// TestVersion: flagpole version (and --version) prints the build's
// version, commit and Go version on one line.
func TestVersion(t *testing.T) {
	b := thisBuild()
	want := "flagpole " + b.Version + " (revision " + b.Revision + ", " + runtime.Version() + ")\n"
	for _, arg := range []string{"version", "--version"} {
		if got := mustRun(t, arg); got != want {
			t.Errorf("flagpole %s: %q, want %q", arg, got, want)
		}
	}
	if msg := mustFail(t, noEnv, nil, "version", "extra"); !strings.Contains(msg, "takes none") {
		t.Errorf("flagpole version extra: %q", msg)
	}
}

// TestVCSRevision: the commit of a build from a checkout, marked dirty
// when it had changes.
func TestVCSRevision(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, "abc"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc"}}, "abc-dirty"},
	} {
		if got := vcsRevision(c.settings); got != c.want {
			t.Errorf("vcsRevision(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
}

// TestOperatorMetrics: /metrics has what a dashboard needs: the build,
// readiness, each cache's hits and lookups as counters that move, the
// latency by status class, the streams' bound; and promtool finds nothing
// to fault in the page.
func TestOperatorMetrics(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	s := startServe(t, noEnv, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	admin := "http://" + adminAddr.FindStringSubmatch(s.stderr.String())[1]
	waitReady(t, s, base)
	_, slug := r.anyFlag(t)
	word, _, _ := strings.Cut(slug, "-")
	for range 3 {
		get(t, base+"/api/public/flag/"+slug, r.key)
		get(t, base+"/api/public/search?q="+word, r.key) // the answers' table serves /search
	}
	get(t, base+"/api/public/flags?limit=2", r.key)
	get(t, base+"/api/public/flags?limit=0", r.key)
	_, body := get(t, admin+"/metrics", "")
	page := string(body)

	b := thisBuild()
	if v := metricValue(t, page, "flagpole_build_info", `{goversion="`+runtime.Version()+`",revision="`+b.Revision+
		`",version="`+b.Version+`"}`); v != 1 {
		t.Errorf("flagpole_build_info %v, want 1", v)
	}
	if v := metricValue(t, page, "flagpole_ready", ""); v != 1 {
		t.Errorf("flagpole_ready %v, want 1", v)
	}
	if v, want := metricValue(t, page, "flagpole_streams_max", ""), float64(min(12288, connlimit.StreamShare(connlimit.DefaultMax()))); v != want {
		t.Errorf("flagpole_streams_max %v, want %v (the hub's cap or the streams' share of max_conns)", v, want)
	}
	for _, c := range []string{"details", "answers"} {
		hits := metricValue(t, page, "flagpole_cache_hits_total", `{cache="`+c+`"}`)
		lookups := metricValue(t, page, "flagpole_cache_lookups_total", `{cache="`+c+`"}`)
		if hits < 2 || lookups < 3 || lookups <= hits {
			t.Errorf("cache %s: %v hits of %v lookups, want at least 2 of 3 (three asks, the first a miss)", c, hits, lookups)
		}
	}
	for _, c := range []string{"responses", "trends", "searches"} {
		metricValue(t, page, "flagpole_cache_lookups_total", `{cache="`+c+`"}`)
	}
	for _, class := range []string{"2xx", "4xx"} {
		if v := metricValue(t, page, "flagpole_http_request_duration_seconds_count",
			`{route="/api/public/flags",status_class="`+class+`"}`); v < 1 {
			t.Errorf("latency of /flags answers %s: %v observed", class, v)
		}
	}
	if regexp.MustCompile(`flagpole_http_request_duration_seconds_count\{route="[^"]*"\}`).MatchString(page) {
		t.Error("a latency series without its status class")
	}
	promtool := needTool(t, "promtool", "prometheus")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
