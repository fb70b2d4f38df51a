package main

import "testing"

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
