package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// The operator's files this package's tests keep true.
const (
	alertRules    = "../../docs/deploy/prometheus/alerts.yml"
	alertTests    = "../../docs/deploy/prometheus/alerts_test.yml"
	dashboardJSON = "../../docs/deploy/grafana/flagpole.json"
)

// TestAlertRules: promtool reads the shipped rules, and their unit tests
// (each alert fires on the series it is for, none on a healthy instance)
// pass.
func TestAlertRules(t *testing.T) {
	promtool := needTool(t, "promtool", "prometheus")
	for _, args := range [][]string{{"check", "rules", filepath.Base(alertRules)}, {"test", "rules", filepath.Base(alertTests)}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = filepath.Dir(alertRules)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// dashboardQueries are the expressions of the dashboard's panels.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardJSON)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardJSON, err)
	}
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	if len(out) < 20 {
		t.Fatalf("%s: %d queries; the panels were not read", dashboardJSON, len(out))
	}
	return out
}

// metricNames are the names of the metrics text names: flagpole's own,
// Go's and the process's.
var metricNames = regexp.MustCompile(`\b(?:flagpole|go|process)_[a-z0-9_]+`)

// exported are the names of the samples of a /metrics page.
func exported(page string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(page, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[line[:strings.IndexAny(line, "{ ")]] = true
	}
	return out
}

// promServer is a running Prometheus: its API's base URL.
type promServer struct{ base string }

// startPrometheus runs Debian's prometheus scraping target (host:port)
// every second as the job flagpole, with the shipped rules evaluated
// every second.
func startPrometheus(t *testing.T, target string) *promServer {
	t.Helper()
	bin := needTool(t, "prometheus", "prometheus")
	dir := t.TempDir()
	rules, err := filepath.Abs(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: flagpole
    static_configs:
      - targets: [%q]
`, rules, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen, "--log.level=warn")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("prometheus's log:\n%s", out.String())
		}
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
	})
	p := &promServer{base: "http://" + listen}
	until(t, "prometheus scrapes flagpole", 60*time.Second, func() bool {
		v, err := p.query("up")
		return err == nil && strings.Contains(v, `"value":[`) && strings.Contains(v, `"1"]`)
	})
	return p
}

// query evaluates expr now; it returns the answer's data, or the error
// Prometheus gave.
func (p *promServer) query(expr string) (string, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(p.base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var r struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return "", err
	}
	if r.Status != "success" {
		return "", fmt.Errorf("%s", r.Error)
	}
	return string(r.Data), nil
}

// get decodes the answer of the API's path into v.
func (p *promServer) get(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(p.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// alertState is the state of the alert name (firing, pending), "" when
// it is not active.
func (p *promServer) alertState(t *testing.T, name string) string {
	t.Helper()
	var r struct {
		Data struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
				State  string            `json:"state"`
			} `json:"alerts"`
		} `json:"data"`
	}
	p.get(t, "/api/v1/alerts", &r)
	state := ""
	for _, a := range r.Data.Alerts {
		if a.Labels["alertname"] == name && (state == "" || a.State == "firing") {
			state = a.State
		}
	}
	return state
}

// TestPrometheusAlerts: a real Prometheus scrapes a running instance
// (PostgreSQL through a proxy, Redis) with the shipped rules. Every
// metric the rules and the dashboard name is on the instance's /metrics,
// every dashboard query evaluates, every rule evaluates without error,
// and when the database stalls, FlagpoleLoadsFailing fires.
func TestPrometheusAlerts(t *testing.T) {
	needTool(t, "prometheus", "prometheus")
	r := newStallRig(t)
	s, base, admin := r.serve(t, "--redis", loadertest.RedisURL(t), "--redis-prefix", redisPrefix())
	waitReady(t, s, base)
	for _, path := range []string{"/api/public/flags", "/api/public/search?q=the", "/api/public/stats"} {
		get(t, base+path, r.key)
		get(t, base+path, "")
	}
	_, page := get(t, admin+"/metrics", "")
	have := exported(string(page))
	rules, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	queries := dashboardQueries(t)
	for file, text := range map[string]string{alertRules: string(rules), dashboardJSON: strings.Join(queries, "\n")} {
		for _, name := range metricNames.FindAllString(text, -1) {
			if !have[name] {
				t.Errorf("%s names %s, which /metrics does not serve", file, name)
			}
		}
	}

	p := startPrometheus(t, strings.TrimPrefix(admin, "http://"))
	vars := strings.NewReplacer("$job", "flagpole", "$instance", ".*", "$__rate_interval", "1m")
	for _, q := range queries {
		if _, err := p.query(vars.Replace(q)); err != nil {
			t.Errorf("the dashboard's query %s: %v", q, err)
		}
	}
	var health []string
	until(t, "every rule evaluated", 30*time.Second, func() bool {
		var rs struct {
			Data struct {
				Groups []struct {
					Rules []struct {
						Name      string `json:"name"`
						Health    string `json:"health"`
						LastError string `json:"lastError"`
					} `json:"rules"`
				} `json:"groups"`
			} `json:"data"`
		}
		p.get(t, "/api/v1/rules", &rs)
		health = health[:0]
		for _, g := range rs.Data.Groups {
			for _, rule := range g.Rules {
				health = append(health, rule.Name+": "+rule.Health+" "+rule.LastError)
			}
		}
		return len(health) > 0 && !slices.ContainsFunc(health, func(h string) bool { return !strings.Contains(h, ": ok ") })
	})
	if st := p.alertState(t, "FlagpoleLoadsFailing"); st != "" {
		t.Fatalf("FlagpoleLoadsFailing is %s before the database stalls", st)
	}

	r.proxy.StallOn(flagLoadQuery...)
	until(t, "FlagpoleLoadsFailing fires", 2*time.Minute, func() bool {
		return p.alertState(t, "FlagpoleLoadsFailing") == "firing"
	})
	serving(t, base, r.key, "while the alert fires")
}
