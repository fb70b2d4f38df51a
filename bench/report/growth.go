package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// growthCases are the cases whose p50 must not grow with the data set.
var growthCases = []string{"flags-default", "flags-offset90", "flags-cat+dom-offset90", "flag-slug"}

// resultName is a results file: <date>-<source>-<flags>.json.
var resultName = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})-([a-z]+)-(\d+)\.json$`)

// growth compares the newest result of each size of each source in dir:
// how req/s, RSS and the load times grow from the smallest size to the
// largest, against the growth targets. It returns the Markdown.
func growth(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	newest := map[string]map[int]string{} // source -> flags -> file (names sort by date)
	for _, e := range entries {
		m := resultName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[3])
		if newest[m[2]] == nil {
			newest[m[2]] = map[int]string{}
		}
		if old, ok := newest[m[2]][n]; !ok || e.Name() > old {
			newest[m[2]][n] = e.Name()
		}
	}
	var sources []string
	for s := range newest {
		sources = append(sources, s)
	}
	slices.Sort(sources)
	var b strings.Builder
	b.WriteString("## flagpole benchmark: growth with the data set\n\n")
	b.WriteString("The newest run of each size in this folder (`bench/report -growth`); each size's ratios are to its own run's ceiling.\n")
	for _, src := range sources {
		var sizes []int
		for n := range newest[src] {
			sizes = append(sizes, n)
		}
		if len(sizes) < 2 {
			continue
		}
		slices.Sort(sizes)
		var rs []*Result
		for _, n := range sizes {
			raw, err := os.ReadFile(filepath.Join(dir, newest[src][n]))
			if err != nil {
				return "", err
			}
			var r Result
			if err := json.Unmarshal(raw, &r); err != nil {
				return "", fmt.Errorf("%s: %w", newest[src][n], err)
			}
			rs = append(rs, &r)
		}
		growthTable(&b, src, rs)
	}
	return b.String(), nil
}

func growthTable(b *strings.Builder, src string, rs []*Result) {
	small, big := rs[0], rs[len(rs)-1]
	fmt.Fprintf(b, "\n### %s\n\n| measure |", src)
	for _, r := range rs {
		fmt.Fprintf(b, " %s flags (%s) |", thousands(float64(r.Flags)), r.Date)
	}
	fmt.Fprintf(b, " target (%s vs %s) | |\n|---|", thousands(float64(big.Flags)), thousands(float64(small.Flags)))
	for range rs {
		b.WriteString("---:|")
	}
	b.WriteString("---|---|\n")
	row := func(name string, cell func(r *Result) string, target string, met *bool) {
		fmt.Fprintf(b, "| %s |", name)
		for _, r := range rs {
			fmt.Fprintf(b, " %s |", cell(r))
		}
		fmt.Fprintf(b, " %s | %s |\n", target, mark(met))
	}
	var names []string
	for _, c := range small.Cases {
		if c.Mode == "" || c.Mode == "inproc" {
			names = append(names, c.Name)
		}
	}
	for _, name := range names {
		row(name+": req/s (vs ceiling)", func(r *Result) string {
			c := findCase(r, name)
			if c == nil {
				return "–"
			}
			s := thousands(c.RPS)
			if c.RPSRatio != nil && name != "ceiling" {
				s += fmt.Sprintf(" (%.0f %%)", *c.RPSRatio*100)
			}
			return s
		}, "", nil)
	}
	for _, name := range growthCases {
		c0, c1 := findCase(small, name), findCase(big, name)
		if c0 == nil || c1 == nil || c0.P50ms == 0 {
			continue
		}
		ratio := c1.P50ms / c0.P50ms
		row(name+": p50 ms", func(r *Result) string {
			if c := findCase(r, name); c != nil {
				return ms(c.P50ms)
			}
			return "–"
		}, fmt.Sprintf("<= 1.5x: %.2fx", ratio), ptr(ratio <= 1.5))
	}
	measureRow := func(prefix, target string, ok func(v float64) bool, show func(m *Measure) string) {
		m := findMeasure(big, prefix)
		var met *bool
		if m != nil && ok != nil {
			if v, isNum := m.Number.(float64); isNum {
				met = ptr(ok(v))
			}
		}
		row(prefix, func(r *Result) string {
			if m := findMeasure(r, prefix); m != nil {
				return show(m)
			}
			return "–"
		}, target, met)
	}
	value := func(m *Measure) string { return m.Value }
	measureRow("RSS after load", "", nil, value)
	measureRow("memory per flag", "< 3 KB", func(v float64) bool { return v < 3000 }, value)
	measureRow("RSS after the cases", "", nil, value)
	measureRow("time from start to /readyz 200", "", nil, value)
	measureRow("first load (log", "<= 60 s", func(v float64) bool { return v <= 60000 }, value)
	measureRow("trend history load", "", nil, value)
	measureRow("tick load at @every 1s", "<= 2 s", func(v float64) bool { return v <= 2000 },
		func(m *Measure) string { return "p50 " + m.P50 + ", " + m.P99 })
	measureRow("one tick's cost", "", nil, value)
	measureRow("freshness at @every 1s", "", nil, func(m *Measure) string { return "p50 " + m.P50 + ", p99 " + m.P99 })
}

// findCase is the case called name measured in process (or the ceiling).
func findCase(r *Result, name string) *Case {
	for i := range r.Cases {
		if r.Cases[i].Name == name && (r.Cases[i].Mode == "" || r.Cases[i].Mode == "inproc") {
			return &r.Cases[i]
		}
	}
	return nil
}

func findMeasure(r *Result, prefix string) *Measure {
	for i := range r.Measures {
		if strings.HasPrefix(r.Measures[i].Name, prefix) {
			return &r.Measures[i]
		}
	}
	return nil
}
