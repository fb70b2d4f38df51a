package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Each case's ratios are to the ceiling checks and to the checks of its
// own yardstick next to it, not to another case's yardstick.
func TestAddCasesYardstick(t *testing.T) {
	c := func(name, of string, rps, p99 float64) Case {
		return Case{Name: name, For: of, RPS: rps, P99ms: p99}
	}
	seq := []Case{
		c("ceiling-check", "", 100, 10),
		c("yardstick-check", "a", 80, 8),
		c("a", "", 60, 12),
		c("yardstick-check", "a", 120, 12),
		c("ceiling-check", "", 300, 30),
		c("yardstick-check", "b", 50, 5),
		c("b", "", 40, 10),
		c("yardstick-check", "b", 50, 15),
		c("ceiling-check", "", 100, 10),
	}
	r := &Result{}
	if checks := r.addCases(seq); len(checks) != 3 {
		t.Fatalf("ceiling checks %v", checks)
	}
	want := []struct {
		name                  string
		ceil, ceilP99, yr, yp float64
	}{{"a", 200, 20, 0.6, 1.2}, {"b", 200, 20, 0.8, 1.0}}
	if len(r.Cases) != len(want) {
		t.Fatalf("cases %+v", r.Cases)
	}
	for i, w := range want {
		g := r.Cases[i]
		if g.Name != w.name || g.CeilingRPS != w.ceil || g.CeilingP99ms != w.ceilP99 ||
			g.YardRPSRatio == nil || *g.YardRPSRatio != w.yr || *g.YardP99Ratio != w.yp {
			t.Errorf("case %s: ceiling %v, %v; yardstick ratios %v, %v; want %+v", g.Name, g.CeilingRPS, g.CeilingP99ms,
				g.YardRPSRatio, g.YardP99Ratio, w)
		}
	}
}

// A case's CPU a request and its collector's share come from the CPU
// seconds bench/run recorded around it; the cell shows both.
func TestCaseCPUAndGCShare(t *testing.T) {
	wrk := json.RawMessage(`{"requests":200000,"duration_us":5000000,"latency_us":{"p50":1000,"p99":9000}}`)
	recs := []record{{Name: "case", Case: "flag-slug", Mode: "inproc", Paths: 10, Wrk: wrk,
		CPU: &cpuSeconds{Server: 8, ServerGC: 0.2, Redis: 1}}}
	r := build("sqlite", 1000, "2026-11-28", nil, recs)
	var c *Case
	for i := range r.Cases {
		if r.Cases[i].Name == "flag-slug" {
			c = &r.Cases[i]
		}
	}
	if c == nil || c.CPU == nil {
		t.Fatalf("no case with its CPU: %+v", r.Cases)
	}
	if c.CPU.Server != 40 || c.CPU.Redis != 5 || c.CPU.GCShare != 2.5 {
		t.Errorf("CPU %+v, want 40 µs a request, Redis 5, the collector 2.5 %%", *c.CPU)
	}
	if got, want := cpuCell(c), "40 (GC 2.5 %) + Redis 5 = 45"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
}

// The report's first paragraph says how wrk and the servers shared the
// CPUs: apart when the run pinned them (BENCH_PIN), else both on all.
func TestIntroSaysWherePinned(t *testing.T) {
	for _, pinned := range []bool{false, true} {
		var run map[string]any
		if err := json.Unmarshal([]byte(`{"flags":1000,"date":"2026-11-28","threads":2,"connections":64,"cpus":2,"pinned":`+strconv.FormatBool(pinned)+`}`), &run); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		intro(&b, nil, run)
		apart := strings.Contains(b.String(), "wrk on CPU 1")
		sharing := strings.Contains(b.String(), "wrk and the server sharing them")
		if apart != pinned || sharing == pinned {
			t.Errorf("pinned %v: the intro says %q", pinned, b.String())
		}
	}
}
