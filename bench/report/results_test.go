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

// Rounds of one case and mode fold into their medians, each ratio the
// median of the rounds' own ratios; the other cases stay as they were,
// in order, and a failed round fails the case.
func TestMergeRounds(t *testing.T) {
	c := func(name, mode string, rps, p99, ceil, yard float64) Case {
		return Case{Name: name, Mode: mode, Requests: int64(rps), RPS: rps, P99ms: p99, CeilingRPS: ceil, CeilingP99ms: 10,
			YardRPSRatio: ptr(yard), YardP99Ratio: ptr(p99 / 10), CPU: &CPUUse{Server: rps / 1000}}
	}
	in := []Case{
		c("a", "inproc", 100, 10, 200, 0.9),
		c("a", "redis", 90, 12, 200, 0.8),
		c("b", "inproc", 50, 5, 100, 1.0),
		c("a", "inproc", 300, 30, 300, 1.1),
		c("a", "redis", 80, 11, 100, 0.7),
		c("a", "inproc", 200, 20, 1000, 1.0),
		c("a", "redis", 70, 13, 100, 0.6),
	}
	out := mergeRounds(in)
	if len(out) != 3 || out[0].Name != "a" || out[0].Mode != "inproc" || out[1].Mode != "redis" || out[2].Name != "b" {
		t.Fatalf("merged %+v", out)
	}
	a := out[0]
	// RPS median 200; ratios to the ceiling per round 0.5, 1, 0.2: median 0.5.
	if a.Rounds != 3 || a.RPS != 200 || a.P99ms != 20 || a.Requests != 600 || *a.RPSRatio != 0.5 ||
		*a.YardRPSRatio != 1.0 || *a.YardP99Ratio != 2 || a.CPU.Server != 0.2 {
		t.Errorf("inproc %+v: ratio %v, yardstick %v %v", a, *a.RPSRatio, *a.YardRPSRatio, *a.YardP99Ratio)
	}
	if r := out[1]; r.RPS != 80 || r.P99ms != 12 || *r.RPSRatio != 0.7 || *r.YardRPSRatio != 0.7 {
		t.Errorf("redis %+v", r)
	}
	if b := out[2]; b.Rounds != 0 || b.RPS != 50 {
		t.Errorf("a single round changed: %+v", b)
	}
	in[3].Failed = true
	if out := mergeRounds(in); !out[0].Failed {
		t.Errorf("a failed round did not fail the case: %+v", out[0])
	}
}

// build merges the rounds before the targets: a case whose middle round
// meets issue 22's req/s over its yardstick meets it whatever the others,
// and one whose median misses it misses it.
func TestRoundsTargetsAndOpenLoop(t *testing.T) {
	wrk := func(reqs int) json.RawMessage {
		return json.RawMessage(`{"requests":` + strconv.Itoa(reqs) + `,"duration_us":1000000,"latency_us":{"p50":100,"p99":1000}}`)
	}
	one := func(reqs []int) *Case {
		var rs []record
		rs = append(rs, record{Name: "case", Case: "ceiling", Wrk: wrk(1000)})
		for _, n := range reqs {
			rs = append(rs, record{Name: "case", Case: "ceiling-check", Wrk: wrk(1000)},
				record{Name: "case", Case: "yardstick-check", For: "flag-slug", Wrk: wrk(1000)},
				record{Name: "case", Case: "flag-slug", Mode: "inproc", Wrk: wrk(n)})
		}
		rs = append(rs, record{Name: "case", Case: "yardstick-check", For: "flag-slug", Wrk: wrk(1000)},
			record{Name: "openloop:flag-slug", Value: json.RawMessage(
				`{"rate":10000,"rounds":3,"a":{"p50_ms":0.1,"p90_ms":0.4,"p99_ms":2},"b":{"p50_ms":0.1,"p90_ms":0.4,"p99_ms":2.8},"short":false}`)})
		r := build("sqlite", 1000, "2026-11-28", nil, rs)
		for i := range r.Cases {
			if r.Cases[i].Name == "flag-slug" {
				if len(r.Measures) == 0 {
					t.Fatal("no measures")
				}
				var ol *Measure
				for j := range r.Measures {
					if strings.HasPrefix(r.Measures[j].Name, "flag-slug at 10,000 req/s") {
						ol = &r.Measures[j]
					}
				}
				if ol == nil || ol.Met == nil || *ol.Met || !strings.HasPrefix(ol.Value, "1.00x, 1.00x, 1.40x") {
					t.Errorf("open-loop row %+v: want p99 1.40x, missed", ol)
				}
				return &r.Cases[i]
			}
		}
		t.Fatal("no flag-slug case")
		return nil
	}
	if c := one([]int{950, 700, 990}); c.Rounds != 3 || c.Met == nil || !*c.Met || !strings.Contains(c.Target, ">= 0.90 of its yardstick") {
		t.Errorf("median 0.95 over its yardstick: %+v, target %q", c, c.Target)
	}
	if c := one([]int{950, 700, 850}); c.Met == nil || *c.Met {
		t.Errorf("median 0.85 over its yardstick met the target: %+v", c)
	}
}

// An open-loop run short of the rate is judged only when flagpole carried
// as much as its yardstick; the p99 under swaps is held to the idle one
// each over the ceiling's p99 around it when the run measured that.
func TestOpenLoopShortAndSwapsOverCeiling(t *testing.T) {
	wrk := func(reqs int, p99us int) json.RawMessage {
		return json.RawMessage(`{"requests":` + strconv.Itoa(reqs) + `,"duration_us":1000000,"latency_us":{"p50":100,"p99":` + strconv.Itoa(p99us) + `}}`)
	}
	ol := func(aRPS, bRPS string) json.RawMessage {
		return json.RawMessage(`{"rate":10000,"rounds":3,"a":{"p50_ms":1,"p90_ms":2,"p99_ms":5,"rps":` + aRPS +
			`},"b":{"p50_ms":1,"p90_ms":2,"p99_ms":6,"rps":` + bRPS + `},"short":true}`)
	}
	recs := []record{
		{Name: "case", Case: "ceiling", Wrk: wrk(1000, 5000)},
		{Name: "case", Case: "ceiling-check", Wrk: wrk(1000, 5000)},
		{Name: "case", Case: "flags-default", Mode: "inproc", Wrk: wrk(1000, 6000)},
		{Name: "case", Case: "ceiling-check", Wrk: wrk(1000, 5000)},
		{Name: "case", Case: "flag-slug", Mode: "inproc", Wrk: wrk(1000, 6000)},
		{Name: "case", Case: "ceiling-check", Wrk: wrk(1000, 5000)},
		{Name: "openloop:flags-default", Value: ol("9000", "9100")},
		{Name: "openloop:flag-slug", Value: ol("9000", "8000")},
		// Under swaps 10 ms, 1.67x the idle 6 ms; but the ceiling's p99
		// went from 5 to 8 ms meanwhile: 1.04x.
		{Name: "swap_wrk", Value: wrk(1000, 10000)},
		{Name: "swap_ceiling_0", Value: wrk(1000, 7000)},
		{Name: "swap_ceiling_1", Value: wrk(1000, 9000)},
	}
	r := build("sqlite", 1000, "2026-11-28", nil, recs)
	got := map[string]*Measure{}
	for i := range r.Measures {
		got[strings.Fields(r.Measures[i].Name)[0]] = &r.Measures[i]
	}
	if m := got["flags-default"]; m == nil || m.Met == nil || !*m.Met {
		t.Errorf("flags-default short of the rate at the yardstick's throughput: %+v", m)
	}
	if m := got["flag-slug"]; m == nil || m.Met != nil || !strings.Contains(m.Value, "no verdict") {
		t.Errorf("flag-slug short of the rate below the yardstick's throughput: %+v", m)
	}
	sw := got["flags-default"]
	for i := range r.Measures {
		if strings.HasPrefix(r.Measures[i].Name, "flags-default while loads swap") {
			sw = &r.Measures[i]
		}
	}
	if sw == nil || sw.Met == nil || !*sw.Met || !strings.HasSuffix(sw.Target, "1.04x") {
		t.Errorf("swaps: %+v", sw)
	}
}
