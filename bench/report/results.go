package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// wrkResult is what bench/wrk.lua prints for one case.
type wrkResult struct {
	Requests   int64   `json:"requests"`
	DurationUS float64 `json:"duration_us"`
	Bytes      int64   `json:"bytes"`
	Errors     struct {
		Connect, Read, Write, Status, Timeout int64
	} `json:"errors"`
	Latency map[string]float64 `json:"latency_us"`
}

// Case is one wrk run in the results.
type Case struct {
	Name string `json:"name"`
	// Mode is how the case was served: "inproc" (one instance, the
	// in-process limiter), "redis" (one instance with --redis) or "nginx"
	// (three --redis instances behind nginx); empty for the ceiling.
	Mode         string   `json:"mode,omitempty"`
	Paths        int      `json:"paths"`
	Gzip         bool     `json:"gzip,omitempty"`
	Requests     int64    `json:"requests"`
	RPS          float64  `json:"rps"`
	P50ms        float64  `json:"p50_ms"`
	P90ms        float64  `json:"p90_ms"`
	P99ms        float64  `json:"p99_ms"`
	P999ms       float64  `json:"p99_9_ms"`
	MaxMs        float64  `json:"max_ms"`
	MBps         float64  `json:"mb_per_s"`
	BytesPerResp float64  `json:"bytes_per_response"`
	Non2xx       int64    `json:"non_2xx"`
	SocketErrors int64    `json:"socket_errors"`
	RPSRatio     *float64 `json:"rps_vs_ceiling,omitempty"`
	P99Ratio     *float64 `json:"p99_vs_ceiling,omitempty"`
	// HeadersRPSRatio and HeadersP99Ratio are the case's ratios to the
	// ceiling over those of ceiling-headers (the same body with the
	// contract's headers on plain net/http): how close the case comes to
	// the least any net/http server answering the contract pays.
	HeadersRPSRatio *float64 `json:"rps_vs_headers_yardstick,omitempty"`
	HeadersP99Ratio *float64 `json:"p99_vs_headers_yardstick,omitempty"`
	// YardRPSRatio and YardP99Ratio are the case's req/s and p99 over
	// those of its own yardstick (YardRPS, YardP99ms: the mean of its
	// checks just before and after the case): plain net/http answering
	// the case's paths with the bodies flagpole sent for them and the
	// contract's headers.
	YardRPSRatio *float64 `json:"rps_vs_own_yardstick,omitempty"`
	YardP99Ratio *float64 `json:"p99_vs_own_yardstick,omitempty"`
	YardRPS      float64  `json:"yardstick_rps,omitempty"`
	YardP99ms    float64  `json:"yardstick_p99_ms,omitempty"`
	// For is, on a yardstick check, the case it is the yardstick of.
	For string `json:"-"`
	// CeilingRPS and CeilingP99ms are what the ratios are to: the mean of
	// the ceiling's checks just before and after the case.
	CeilingRPS   float64   `json:"ceiling_rps,omitempty"`
	CeilingP99ms float64   `json:"ceiling_p99_ms,omitempty"`
	Checks       []float64 `json:"ceiling_checks_rps,omitempty"` // the ceiling row: every check's req/s
	Target       string    `json:"target,omitempty"`
	Met          *bool     `json:"met,omitempty"`
	Failed       bool      `json:"failed,omitempty"`
	// CPU is the CPU time the server side used per request answered.
	CPU *CPUUse `json:"cpu_us_per_request,omitempty"`
	// Rounds is how many times the case was measured (BENCH_ROUNDS); its
	// figures and ratios are then their medians (see mergeRounds).
	Rounds int `json:"rounds,omitempty"`
}

// cpuSeconds is bench/run's CPU sample of a measured run: the seconds
// the flagpole instances, nginx and Redis used during it.
type cpuSeconds struct {
	Server   float64 `json:"server_s"`
	ServerGC float64 `json:"server_gc_s"` // of Server, the Go collector's (its /metrics)
	Nginx    float64 `json:"nginx_s"`
	Redis    float64 `json:"redis_s"`
}

// CPUUse is the CPU per request answered, in microseconds: the flagpole
// instances', nginx's and Redis's (Redis's only when it runs on this
// machine).
type CPUUse struct {
	Server float64 `json:"server"`
	// GCShare is the part of Server the instances' Go collector used, in
	// percent (0 in records from before it was measured).
	GCShare float64 `json:"server_gc_percent,omitempty"`
	Nginx   float64 `json:"nginx"`
	Redis   float64 `json:"redis"`
}

// Measure is one row that is not a wrk case.
type Measure struct {
	Name   string  `json:"name"`
	Value  string  `json:"value"`
	P50    string  `json:"p50,omitempty"`
	P99    string  `json:"p99,omitempty"`
	Number any     `json:"number,omitempty"`
	Unit   string  `json:"unit,omitempty"`
	Target string  `json:"target,omitempty"`
	Met    *bool   `json:"met,omitempty"`
	Extra  any     `json:"detail,omitempty"`
	ratio  float64 // for the RPS column of a wrk-backed measure
}

// Result is the JSON file of one source.
type Result struct {
	Date   string         `json:"date"`
	Source string         `json:"source"`
	Flags  int            `json:"flags"`
	Run    map[string]any `json:"run"`
	Cases  []Case         `json:"cases"`
	// Production compares each case measured in more than one mode.
	Production []ProdRow                  `json:"production,omitempty"`
	Measures   []Measure                  `json:"measures"`
	Raw        map[string]json.RawMessage `json:"raw"`
}

func toCase(name string, paths int, gz bool, raw json.RawMessage) Case {
	c := Case{Name: name, Paths: paths, Gzip: gz}
	var w wrkResult
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &w) != nil || w.DurationUS == 0 {
		c.Failed = true
		return c
	}
	c.Requests = w.Requests
	c.RPS = float64(w.Requests) / (w.DurationUS / 1e6)
	c.P50ms = w.Latency["p50"] / 1000
	c.P90ms = w.Latency["p90"] / 1000
	c.P99ms = w.Latency["p99"] / 1000
	c.P999ms = w.Latency["p99_9"] / 1000
	c.MaxMs = w.Latency["max"] / 1000
	c.MBps = float64(w.Bytes) / (w.DurationUS / 1e6) / 1e6
	if w.Requests > 0 {
		c.BytesPerResp = float64(w.Bytes) / float64(w.Requests)
	}
	c.Non2xx = w.Errors.Status
	c.SocketErrors = w.Errors.Connect + w.Errors.Read + w.Errors.Write + w.Errors.Timeout
	return c
}

// target is the goal for a case: the share of the ceiling's req/s
// and, for the list and the detail, the most its p99 may be against the
// ceiling's (0: none).
func target(name string) (rps float64, p99 float64) {
	switch {
	case name == "ceiling":
		return 0, 0
	case name == "flags-gzip":
		return 0.50, 0
	case strings.HasPrefix(name, "flags"), name == "flag-slug":
		return 0.75, 1.5
	case name == "search":
		return 0.25, 0
	case name == "trend", name == "categories", name == "regions", name == "stats":
		return 0.75, 0
	}
	return 0, 0
}

// hotRoutes are the cases issue 22 holds to their own yardsticks: at
// least yardRPSTarget of the yardstick's req/s in process (wrk), and a
// p99 at most openLoopP99Target times its p99 at one fixed rate
// (bench/openloop; see openLoop).
var hotRoutes = map[string]bool{"flags-default": true, "flags-category-offset90": true, "flags-worst": true,
	"flag-slug": true, "trend": true, "search": true}

const (
	yardRPSTarget     = 0.90
	openLoopP99Target = 1.3
)

// metric finds a sample by name, preferring the flags job's.
func metric(m map[string]float64, name string) (float64, bool) {
	if v, ok := m[name+`{job="flags"}`]; ok {
		return v, true
	}
	v, ok := m[name]
	return v, ok
}

// build makes the result of one source from its records: the cases with
// their ratios to the ceiling and their targets, then the measures.
func build(src string, flags int, date string, run map[string]any, recs []record) *Result {
	r := &Result{Date: date, Source: src, Flags: flags, Run: run, Raw: map[string]json.RawMessage{}}
	var seq []Case // the cases in the order they ran, the ceiling's checks included
	for _, rec := range recs {
		if rec.Name == "case" {
			c := toCase(rec.Case, rec.Paths, rec.Gzip, rec.Wrk)
			c.Mode, c.For = rec.Mode, rec.For
			if rec.CPU != nil && c.Requests > 0 {
				n := float64(c.Requests) / 1e6
				c.CPU = &CPUUse{Server: rec.CPU.Server / n, Nginx: rec.CPU.Nginx / n, Redis: rec.CPU.Redis / n}
				if rec.CPU.Server > 0 {
					c.CPU.GCShare = 100 * rec.CPU.ServerGC / rec.CPU.Server
				}
			}
			switch {
			case strings.HasPrefix(c.Name, "ceiling"): // the ceiling, its checks, through nginx
				c.Mode = ""
			case c.Mode == "" || c.Mode == "-":
				c.Mode = "inproc" // records from before the modes
			}
			seq = append(seq, c)
			continue
		}
		r.Raw[rec.Name] = rec.Value
	}
	checks := r.addCases(seq)
	r.Cases = mergeRounds(r.Cases)
	var ceil *Case
	for i := range r.Cases {
		if r.Cases[i].Name == "ceiling" && !r.Cases[i].Failed {
			ceil = &r.Cases[i]
			ceil.Checks = checks
		}
	}
	idle := r.setTargets(ceil)
	r.setHeadersRatios()
	r.Production = production(r.Cases)
	ms := &measurer{r: r, flags: flags, big: flags >= 1_000_000, ceil: ceil, idle: idle}
	ms.all()
	return r
}

// addCases adds the cases of seq but the checks, each with the mean of
// the ceiling's checks just before and after it (a run without checks:
// the ceiling's one measurement, set later) and its ratios to the mean of
// its own yardstick's, and returns the ceiling checks' req/s.
func (r *Result) addCases(seq []Case) (checks []float64) {
	for i := range seq {
		c := seq[i]
		switch c.Name {
		case "ceiling-check":
			if !c.Failed {
				checks = append(checks, c.RPS)
			}
			continue
		case "yardstick-check":
			continue
		case "ceiling": // the reference itself
			r.Cases = append(r.Cases, c)
			continue
		}
		c.CeilingRPS, c.CeilingP99ms = around(seq, i, func(k Case) bool { return k.Name == "ceiling-check" })
		c.YardRPS, c.YardP99ms = around(seq, i, func(k Case) bool { return k.Name == "yardstick-check" && k.For == c.Name })
		if !c.Failed && c.YardRPS > 0 && c.YardP99ms > 0 {
			c.YardRPSRatio, c.YardP99Ratio = ptr(c.RPS/c.YardRPS), ptr(c.P99ms/c.YardP99ms)
		}
		r.Cases = append(r.Cases, c)
	}
	return checks
}

// around is the mean req/s and p99 of the checks that is accepts nearest
// to seq[i] on either side, among the checks right next to it (0, 0 when
// there is none).
func around(seq []Case, i int, is func(Case) bool) (rps, p99 float64) {
	var n float64
	for _, step := range []int{-1, 1} {
		for j := i + step; j >= 0 && j < len(seq) && strings.HasSuffix(seq[j].Name, "-check"); j += step {
			if is(seq[j]) {
				if !seq[j].Failed {
					n, rps, p99 = n+1, rps+seq[j].RPS, p99+seq[j].P99ms
				}
				break
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return rps / n, p99 / n
}

// setHeadersRatios sets each served case's ratios to ceiling-headers, when
// the run measured it.
func (r *Result) setHeadersRatios() {
	i := slices.IndexFunc(r.Cases, func(c Case) bool { return c.Name == "ceiling-headers" && !c.Failed && c.RPSRatio != nil })
	if i < 0 {
		return
	}
	h := r.Cases[i]
	for j := range r.Cases {
		c := &r.Cases[j]
		if c.Mode == "" || c.Failed || c.RPSRatio == nil {
			continue
		}
		c.HeadersRPSRatio = ptr(*c.RPSRatio / *h.RPSRatio)
		c.HeadersP99Ratio = ptr(*c.P99Ratio / *h.P99Ratio)
	}
}

// setTargets sets each case's ratios to the ceiling and whether an
// in-process case met its target (issue 4's), and returns flags-default
// in process (the idle p99 and the ceiling's around it), nil without it.
func (r *Result) setTargets(ceil *Case) (idle *Case) {
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Name == "flags-default" && c.Mode == "inproc" && !c.Failed {
			idle = c
		}
		if ceil == nil || c.Failed {
			if c.Failed {
				c.Met = ptr(false)
				c.Target = "wrk failed"
			}
			continue
		}
		if c.CeilingRPS == 0 {
			c.CeilingRPS, c.CeilingP99ms = ceil.RPS, ceil.P99ms
		}
		if c.RPSRatio == nil || c.P99Ratio == nil { // a merged case has its rounds' medians
			c.RPSRatio = ptr(c.RPS / c.CeilingRPS)
			c.P99Ratio = ptr(c.P99ms / c.CeilingP99ms)
		}
		rt, pt := target(c.Name)
		if rt == 0 || c.Mode != "inproc" {
			continue
		}
		met := *c.RPSRatio >= rt
		c.Target = fmt.Sprintf(">= %.0f %%", rt*100)
		if pt > 0 {
			c.Target += fmt.Sprintf(", p99 <= %.1fx", pt)
			met = met && *c.P99Ratio <= pt
		}
		if hotRoutes[c.Name] && c.YardRPSRatio != nil {
			c.Target += fmt.Sprintf("; >= %.2f of its yardstick", yardRPSTarget)
			met = met && *c.YardRPSRatio >= yardRPSTarget
		}
		if c.Non2xx > 0 || c.SocketErrors > 0 {
			met = false
		}
		c.Met = ptr(met)
	}
	return idle
}
