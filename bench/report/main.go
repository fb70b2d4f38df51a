// Command report turns the records bench/run collected (one JSON object a
// line) into the benchmark's table, printed and written as Markdown, and
// into one JSON file per source under bench/results.
//
//	report -in results.jsonl -results bench/results
//	report -growth -results bench/results   # growth.md: the sizes compared
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type record struct {
	Source string          `json:"source"`
	Name   string          `json:"name"`
	Case   string          `json:"case"`
	Paths  int             `json:"paths"`
	Gzip   bool            `json:"gzip"`
	Wrk    json.RawMessage `json:"wrk"`
	Value  json.RawMessage `json:"value"`
}

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
	Name         string   `json:"name"`
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
	// CeilingRPS and CeilingP99ms are what the ratios are to: the mean of
	// the ceiling's checks just before and after the case.
	CeilingRPS   float64   `json:"ceiling_rps,omitempty"`
	CeilingP99ms float64   `json:"ceiling_p99_ms,omitempty"`
	Checks       []float64 `json:"ceiling_checks_rps,omitempty"` // the ceiling row: every check's req/s
	Target       string    `json:"target,omitempty"`
	Met          *bool     `json:"met,omitempty"`
	Failed       bool      `json:"failed,omitempty"`
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
	Date     string                     `json:"date"`
	Source   string                     `json:"source"`
	Flags    int                        `json:"flags"`
	Run      map[string]any             `json:"run"`
	Cases    []Case                     `json:"cases"`
	Measures []Measure                  `json:"measures"`
	Raw      map[string]json.RawMessage `json:"raw"`
}

func main() {
	in := flag.String("in", "", "records, one JSON object a line")
	dir := flag.String("results", "bench/results", "where to write <date>-<source>-<flags>.json and latest.md")
	grow := flag.Bool("growth", false, "instead: compare the newest result of each size in -results, write growth.md there")
	flag.Parse()
	if *grow {
		md, err := growth(*dir)
		if err == nil {
			err = os.WriteFile(filepath.Join(*dir, "growth.md"), []byte(md), 0o644)
		}
		if err != nil {
			fail(err)
		}
		fmt.Print(md)
		return
	}
	f, err := os.Open(*in)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	var run map[string]any
	var sources []string
	bySource := map[string][]record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			fmt.Fprintf(os.Stderr, "report: skipping a bad record: %v: %.200s\n", err, sc.Text())
			continue
		}
		if r.Name == "run" || r.Name == "run_end" {
			var m map[string]any
			json.Unmarshal(r.Value, &m)
			if run == nil {
				run = map[string]any{}
			}
			for k, v := range m {
				run[k] = v
			}
			continue
		}
		if _, ok := bySource[r.Source]; !ok {
			sources = append(sources, r.Source)
		}
		bySource[r.Source] = append(bySource[r.Source], r)
	}
	if err := sc.Err(); err != nil {
		fail(err)
	}
	flags := int(num(run["flags"]))
	date := time.Now().UTC().Format("2006-01-02")
	if s, ok := run["date"].(string); ok {
		date = s
	}
	var results []*Result
	for _, src := range sources {
		results = append(results, build(src, flags, date, run, bySource[src]))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fail(err)
	}
	for _, r := range results {
		b, _ := json.MarshalIndent(r, "", "  ")
		name := filepath.Join(*dir, fmt.Sprintf("%s-%s-%d.json", r.Date, r.Source, r.Flags))
		if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
		fmt.Fprintln(os.Stderr, "report: wrote", name)
	}
	md := markdown(results, run)
	if err := os.WriteFile(filepath.Join(*dir, "latest.md"), []byte(md), 0o644); err != nil {
		fail(err)
	}
	fmt.Print(md)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
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

func ptr[T any](v T) *T { return &v }

// metric finds a sample by name, preferring the flags job's.
func metric(m map[string]float64, name string) (float64, bool) {
	if v, ok := m[name+`{job="flags"}`]; ok {
		return v, true
	}
	v, ok := m[name]
	return v, ok
}

func build(src string, flags int, date string, run map[string]any, recs []record) *Result {
	r := &Result{Date: date, Source: src, Flags: flags, Run: run, Raw: map[string]json.RawMessage{}}
	var seq []Case // the cases in the order they ran, the ceiling's checks included
	for _, rec := range recs {
		if rec.Name == "case" {
			seq = append(seq, toCase(rec.Case, rec.Paths, rec.Gzip, rec.Wrk))
			continue
		}
		r.Raw[rec.Name] = rec.Value
	}
	// Each case is compared with the ceiling's checks just before and after
	// it (a run without checks: with the ceiling's one measurement).
	var checks []float64
	for i := range seq {
		c := seq[i]
		if c.Name == "ceiling-check" {
			if !c.Failed {
				checks = append(checks, c.RPS)
			}
			continue
		}
		var n, rps, p99 float64
		for _, j := range []int{i - 1, i + 1} {
			if c.Name == "ceiling" {
				break // the ceiling row is the reference itself
			}
			if j >= 0 && j < len(seq) && seq[j].Name == "ceiling-check" && !seq[j].Failed {
				n, rps, p99 = n+1, rps+seq[j].RPS, p99+seq[j].P99ms
			}
		}
		if n > 0 {
			c.CeilingRPS, c.CeilingP99ms = rps/n, p99/n
		}
		r.Cases = append(r.Cases, c)
	}
	var ceil *Case
	for i := range r.Cases {
		if r.Cases[i].Name == "ceiling" && !r.Cases[i].Failed {
			ceil = &r.Cases[i]
			ceil.Checks = checks
		}
	}
	var idleP99 float64
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Name == "flags-default" {
			idleP99 = c.P99ms
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
		c.RPSRatio = ptr(c.RPS / c.CeilingRPS)
		c.P99Ratio = ptr(c.P99ms / c.CeilingP99ms)
		rt, pt := target(c.Name)
		if rt == 0 {
			continue
		}
		met := *c.RPSRatio >= rt
		c.Target = fmt.Sprintf(">= %.0f %%", rt*100)
		if pt > 0 {
			c.Target += fmt.Sprintf(", p99 <= %.1fx", pt)
			met = met && *c.P99Ratio <= pt
		}
		if c.Non2xx > 0 || c.SocketErrors > 0 {
			met = false
		}
		c.Met = ptr(met)
	}

	get := func(name string, v any) bool {
		raw, ok := r.Raw[name]
		return ok && json.Unmarshal(raw, v) == nil
	}
	big := flags >= 1_000_000
	add := func(m Measure) { r.Measures = append(r.Measures, m) }

	var seed struct {
		Seconds       float64 `json:"seconds"`
		Cached        bool    `json:"cached"`
		SeededSeconds float64 `json:"seeded_seconds"`
	}
	if get("seed", &seed) {
		v := fmt.Sprintf("%.0f s", seed.Seconds)
		if seed.Cached {
			v = fmt.Sprintf("cached (took %.0f s to seed)", seed.SeededSeconds)
		}
		add(Measure{Name: "seed (not in the run's budget when cached)", Value: v, Number: seed.Seconds, Unit: "s"})
	}

	var ready struct {
		Ms     float64  `json:"ms"`
		FullMs *float64 `json:"full_ms"`
	}
	if get("ready", &ready) {
		add(Measure{Name: "time from start to /readyz 200", Value: secs(ready.Ms), Number: ready.Ms, Unit: "ms"})
		if ready.FullMs != nil && *ready.FullMs > ready.Ms+1 {
			add(Measure{Name: "time from start to trends loaded (/readyz trendsLoaded)", Value: secs(*ready.FullMs),
				Number: *ready.FullMs, Unit: "ms"})
		}
	}
	lim := 5000.0
	if big {
		lim = 60000
	}
	var fl map[string]any
	if get("first_load_line", &fl) && fl != nil {
		msv := durationMs(fl["duration"])
		m := Measure{Name: "first load (log: first load done)", Value: secs(msv), Number: msv, Unit: "ms",
			Target: "<= " + secs(lim), Met: ptr(msv <= lim), Extra: fl}
		if msv < 0 {
			m.Value, m.Met = "n/a", nil
		}
		add(m)
	} else {
		add(Measure{Name: "first load (log: first load done)", Value: "n/a (no log line)"})
	}
	var tl map[string]any
	if get("trend_load_line", &tl) && tl != nil {
		msv := durationMs(tl["duration"])
		v := secs(msv)
		if p, ok := tl["trend_points"]; ok {
			v += fmt.Sprintf(", %s points", thousands(num(p)))
		}
		if b, ok := tl["trend_bytes"]; ok {
			v += ", " + mb(num(b))
		}
		add(Measure{Name: "trend history load, after ready (log)", Value: v, Number: msv, Unit: "ms", Extra: tl})
	}
	var mr map[string]float64
	if get("metrics_ready", &mr) {
		parts := []string{}
		if n, ok := fl["flags"]; ok {
			parts = append(parts, fmt.Sprintf("%s flags", thousands(num(n))))
		}
		if v, ok := metric(mr, "flagpole_load_rows_total"); ok && v > 0 {
			parts = append(parts, fmt.Sprintf("%s rows", thousands(v)))
		} else {
			parts = append(parts, "rows n/a")
		}
		if v, ok := metric(mr, "flagpole_load_bytes_total"); ok {
			parts = append(parts, mb(v)+" read")
		} else {
			parts = append(parts, "bytes read n/a")
		}
		if v, ok := mr["go_memstats_alloc_bytes_total"]; ok {
			parts = append(parts, mb(v)+" allocated (whole start-up)")
		} else {
			parts = append(parts, "allocations n/a")
		}
		add(Measure{Name: "first load: rows, bytes, allocations", Value: strings.Join(parts, ", "), Extra: mr})
	} else {
		add(Measure{Name: "first load: rows, bytes, allocations", Value: "n/a (no /metrics)"})
	}

	var pl struct{ RssKB, HwmKB float64 }
	if get("proc_load", &pl) {
		m := Measure{Name: "RSS after load (peak VmHWM)", Value: fmt.Sprintf("%s (peak %s)", mb(pl.RssKB*1024), mb(pl.HwmKB*1024)),
			Number: pl.RssKB * 1024, Unit: "B"}
		if !big && flags <= 100_000 {
			m.Target, m.Met = "<= 400 MB", ptr(pl.RssKB*1024 <= 400e6)
		}
		add(m)
		if flags >= 100_000 { // below, the runtime's own few tens of MB dominate
			served := float64(flags)
			if n := num(fl["flags"]); n > 0 {
				served = n // the approved flags the snapshot holds
			}
			per := pl.RssKB * 1024 / served
			add(Measure{Name: fmt.Sprintf("memory per flag (RSS / %s served flags)", thousands(served)),
				Value: fmt.Sprintf("%.2f KB", per/1000), Number: per, Unit: "B", Target: "< 3 KB", Met: ptr(per < 3000)})
		}
	}
	var pc struct{ RssKB, HwmKB float64 }
	if get("proc_cases", &pc) {
		add(Measure{Name: "RSS after the cases (peak VmHWM)", Value: fmt.Sprintf("%s (peak %s)", mb(pc.RssKB*1024), mb(pc.HwmKB*1024)),
			Number: pc.RssKB * 1024, Unit: "B"})
	}

	var ticks struct {
		Swaps  int
		LoadMs []float64
		P50Ms  *float64 `json:"p50_ms"`
		MaxMs  *float64 `json:"max_ms"`
		Detail map[string]any
	}
	if get("ticks", &ticks) {
		lim := 1000.0
		if big {
			lim = 2000
		}
		m := Measure{Name: "tick load at @every 1s (/readyz lastLoadMs)", Target: "<= " + secs(lim), Extra: ticks.LoadMs}
		if ticks.P50Ms != nil {
			m.Value = fmt.Sprintf("%d swaps seen", ticks.Swaps)
			m.P50, m.P99 = secs(*ticks.P50Ms), "max "+secs(*ticks.MaxMs)
			m.Number = *ticks.MaxMs
			m.Unit = "ms"
			m.Met = ptr(*ticks.MaxMs <= lim)
		} else {
			m.Value, m.Met = "no swap seen", ptr(false)
		}
		add(m)
	}
	var m0, m1 map[string]float64
	if get("metrics_swap0", &m0) && get("metrics_swap1", &m1) {
		n0, ok0 := metric(m0, "flagpole_load_duration_seconds_count")
		n1, ok1 := metric(m1, "flagpole_load_duration_seconds_count")
		if ok0 && ok1 && n1 > n0 {
			n := n1 - n0
			parts := []string{fmt.Sprintf("%.0f ticks:", n)}
			if s0, ok := metric(m0, "flagpole_load_duration_seconds_sum"); ok {
				s1, _ := metric(m1, "flagpole_load_duration_seconds_sum")
				parts = append(parts, "mean "+secs((s1-s0)/n*1000)+",")
			}
			if r0, ok := metric(m0, "flagpole_load_rows_total"); ok {
				r1, _ := metric(m1, "flagpole_load_rows_total")
				parts = append(parts, fmt.Sprintf("%s rows,", thousands((r1-r0)/n)))
			}
			if b0, ok := metric(m0, "flagpole_load_bytes_total"); ok {
				b1, _ := metric(m1, "flagpole_load_bytes_total")
				parts = append(parts, mb((b1-b0)/n)+" read,")
			} else {
				parts = append(parts, "bytes read n/a,")
			}
			if a0, ok := m0["go_memstats_alloc_bytes_total"]; ok {
				parts = append(parts, mb((m1["go_memstats_alloc_bytes_total"]-a0)/n)+" allocated")
			}
			add(Measure{Name: "one tick's cost (/metrics, no HTTP load)", Value: strings.TrimSuffix(strings.Join(parts, " "), ",")})
		} else {
			add(Measure{Name: "one tick's cost (/metrics, no HTTP load)", Value: "n/a"})
		}
	}

	var sw json.RawMessage
	if get("swap_wrk", &sw) {
		c := toCase("flags-default under swaps", 1, false, sw)
		m := Measure{Name: "flags-default while loads swap in every 1 s", Number: c.P99ms, Unit: "ms"}
		if c.Failed {
			m.Value, m.Met = "wrk failed", ptr(false)
		} else {
			m.Value = thousands(c.RPS)
			m.P50, m.P99 = ms(c.P50ms), ms(c.P99ms)
			if ceil != nil {
				m.ratio = c.RPS / ceil.RPS
			}
			if idleP99 > 0 {
				m.Target = fmt.Sprintf("p99 <= 1.5x idle p99 (%s): %.2fx", ms(idleP99), c.P99ms/idleP99)
				m.Met = ptr(c.P99ms <= 1.5*idleP99 && c.Non2xx == 0 && c.SocketErrors == 0)
			}
			if c.Non2xx > 0 || c.SocketErrors > 0 {
				m.Value += fmt.Sprintf(" (%d non-2xx, %d socket errors)", c.Non2xx, c.SocketErrors)
			}
		}
		m.Extra = c
		add(m)
	}
	var ps struct{ RssKB, HwmKB float64 }
	if get("proc_swap", &ps) {
		m := Measure{Name: "RSS after swaps (peak VmHWM during swaps)", Value: fmt.Sprintf("%s (peak %s)", mb(ps.RssKB*1024), mb(ps.HwmKB*1024)),
			Number: ps.HwmKB * 1024, Unit: "B"}
		if flags <= 100_000 { // the memory targets are for 100,000 flags
			m.Target, m.Met = "peak <= 600 MB", ptr(ps.HwmKB*1024 <= 600e6)
		}
		add(m)
	}
	var wr map[string]any
	if get("writer", &wr) {
		add(Measure{Name: "background writer (contract INSERT) during swaps", Value: fmt.Sprintf("%v votes, %v errors", wr["votes"], wr["errors"]), Extra: wr})
	}
	var fr struct {
		Votes, Seen, Timeouts, WriteErrors int
		P50                                *float64 `json:"p50_ms"`
		P99                                *float64 `json:"p99_ms"`
		Max                                *float64 `json:"max_ms"`
	}
	if get("fresh", &fr) {
		m := Measure{Name: "freshness at @every 1s (vote -> /flag/{slug})", Target: "p99 <= 2 s",
			Value: fmt.Sprintf("%d/%d votes seen", fr.Seen, fr.Votes)}
		if fr.Timeouts > 0 || fr.WriteErrors > 0 {
			m.Value += fmt.Sprintf(", %d timeouts, %d write errors", fr.Timeouts, fr.WriteErrors)
		}
		if fr.P99 != nil {
			m.P50, m.P99 = secs(*fr.P50), secs(*fr.P99)
			m.Number, m.Unit = *fr.P99, "ms"
			m.Met = ptr(*fr.P99 <= 2000 && fr.Timeouts == 0)
		} else {
			m.Met = ptr(false)
		}
		add(m)
	}
	var rs struct{ Ms float64 }
	if get("ready_swap", &rs) {
		add(Measure{Name: "time to ready, second start (@every 1s)", Value: secs(rs.Ms), Number: rs.Ms, Unit: "ms"})
	}
	var plan map[string]any
	if get("plan", &plan) {
		if bad, ok := plan["badPaths"].(map[string]any); ok && len(bad) > 0 {
			add(Measure{Name: "paths that did not answer 200 before the run", Value: fmt.Sprint(bad), Met: ptr(false),
				Extra: plan["badExamples"]})
		}
	}
	return r
}

// durationMs reads slog's duration: nanoseconds (JSON) or text ("1.5s").
func durationMs(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x / 1e6
	case string:
		if d, err := time.ParseDuration(x); err == nil {
			return float64(d.Microseconds()) / 1000
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f / 1e6
		}
	}
	return -1
}

func secs(msv float64) string {
	if msv < 1000 {
		return fmt.Sprintf("%.0f ms", msv)
	}
	return fmt.Sprintf("%.2f s", msv/1000)
}

func ms(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func mb(b float64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.2f GB", b/1e9)
	}
	return fmt.Sprintf("%.0f MB", b/1e6)
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func mark(m *bool) string {
	switch {
	case m == nil:
		return ""
	case *m:
		return "ok"
	}
	return "MISS"
}

func markdown(results []*Result, run map[string]any) string {
	header := []string{"source", "case / measure", "req/s (or value)", "p50 ms", "p99 ms", "req/s vs ceiling",
		"p99 vs ceiling", "non-2xx", "target", ""}
	var rows [][]string
	for _, r := range results {
		for _, c := range r.Cases {
			name := c.Name
			if c.Name == "ceiling" {
				if pb, ok := r.Raw["plan"]; ok {
					var p map[string]any
					json.Unmarshal(pb, &p)
					name = fmt.Sprintf("ceiling (net/http, %s B body)", thousands(num(p["defaultPageBytes"])))
					if len(c.Checks) > 0 {
						name += fmt.Sprintf("; %d checks around the cases: %s-%s req/s", len(c.Checks),
							thousands(slices.Min(c.Checks)), thousands(slices.Max(c.Checks)))
					}
				}
			}
			if c.Paths > 1 {
				name += fmt.Sprintf(" (%s paths)", thousands(float64(c.Paths)))
			}
			if c.Failed {
				rows = append(rows, []string{r.Source, name, "wrk failed", "", "", "", "", "", c.Target, mark(c.Met)})
				continue
			}
			rr, pr := "", ""
			if c.RPSRatio != nil {
				rr = fmt.Sprintf("%.0f %%", *c.RPSRatio*100)
				pr = fmt.Sprintf("%.2fx", *c.P99Ratio)
			}
			errs := thousands(float64(c.Non2xx))
			if c.SocketErrors > 0 {
				errs += fmt.Sprintf(" (+%d socket)", c.SocketErrors)
			}
			if c.Non2xx > 0 || c.SocketErrors > 0 {
				errs = "**" + errs + "**"
			}
			rows = append(rows, []string{r.Source, name, thousands(c.RPS), ms(c.P50ms), ms(c.P99ms), rr, pr, errs, c.Target, mark(c.Met)})
		}
		for _, m := range r.Measures {
			rr := ""
			if m.ratio > 0 {
				rr = fmt.Sprintf("%.0f %%", m.ratio*100)
			}
			rows = append(rows, []string{r.Source, m.Name, m.Value, m.P50, m.P99, rr, "", "", m.Target, mark(m.Met)})
		}
	}
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len([]rune(h))
	}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	right := []bool{false, false, true, true, true, true, true, true, false, false}
	line := func(cells []string) string {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if right[i] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		return b.String() + "\n"
	}
	var b strings.Builder
	var srcs []string
	for _, r := range results {
		srcs = append(srcs, r.Source)
	}
	fmt.Fprintf(&b, "## flagpole benchmark: %s flags, %s (%s)\n\n", thousands(num(run["flags"])), run["date"], strings.Join(srcs, ", "))
	fmt.Fprintf(&b, "wrk -t%v -c%v -d%v --latency (warm-up %v) per case, on %v CPUs (%v), wrk and the server sharing them; %v days of trends; %v.\n",
		run["threads"], run["connections"], run["duration"], run["warmup"], run["cpus"], run["cpu_model"], run["days"], run["go"])
	if c, ok := run["ceiling_check"].(string); ok {
		fmt.Fprintf(&b, "The ceiling is measured once for %v, then again for %s before each case and after the last; each case's ratios are to the mean of the two checks around it.\n",
			run["duration"], c)
	}
	fmt.Fprintf(&b, "Load average (1 min) before the run %v, at its end %v (the run's own load included)", run["loadavg_start"], run["loadavg_end"])
	if num(run["loadavg_start"]) > num(run["cpus"])/2 {
		b.WriteString(": **other processes were using the CPUs, so every number here is low and noisy**")
	}
	b.WriteString(".\n\n")
	b.WriteString(line(header))
	sep := make([]string, len(header))
	b.WriteString("|")
	for i := range sep {
		if right[i] {
			b.WriteString(strings.Repeat("-", width[i]+1) + ":|")
		} else {
			b.WriteString(strings.Repeat("-", width[i]+2) + "|")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString(line(row))
	}
	var missed []string
	for _, r := range results {
		for _, c := range r.Cases {
			if c.Met != nil && !*c.Met {
				missed = append(missed, r.Source+" "+c.Name)
			}
		}
		for _, m := range r.Measures {
			if m.Met != nil && !*m.Met {
				missed = append(missed, r.Source+" "+m.Name)
			}
		}
	}
	slices.Sort(missed)
	b.WriteString("\n")
	if w, ok := run["wall_seconds"]; ok {
		fmt.Fprintf(&b, "Wall time of the run: %.0f s (seeding %v).\n", num(w), run["seed_note"])
	}
	fmt.Fprintf(&b, "Targets missed: %d of the rows with a target.\n", len(missed))
	return b.String()
}
