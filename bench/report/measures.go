package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// measurer makes a result's measures, the rows that are not wrk cases,
// from its named records, in the order the table shows them.
type measurer struct {
	r     *Result
	flags int
	big   bool // 1,000,000 flags or more: the looser time targets
	ceil  *Case
	idle  *Case          // flags-default in process: its p99 is what the swaps are held to
	fl    map[string]any // the "first load done" log line
}

func (m *measurer) all() {
	m.seed()
	m.ready()
	m.firstLoad()
	m.trendLoad()
	m.loadCost()
	m.memory()
	m.shared()
	m.redisCommands()
	m.ticks()
	m.tickCost()
	m.swaps()
	m.writer()
	m.fresh()
	m.openLoop()
	m.plan()
}

// get decodes the record called name into v, and tells whether it could.
func (m *measurer) get(name string, v any) bool {
	raw, ok := m.r.Raw[name]
	return ok && json.Unmarshal(raw, v) == nil
}

func (m *measurer) add(x Measure) { m.r.Measures = append(m.r.Measures, x) }

func (m *measurer) seed() {
	var seed struct {
		Seconds       float64 `json:"seconds"`
		Cached        bool    `json:"cached"`
		SeededSeconds float64 `json:"seeded_seconds"`
	}
	if m.get("seed", &seed) {
		v := fmt.Sprintf("%.0f s", seed.Seconds)
		if seed.Cached {
			v = fmt.Sprintf("cached (took %.0f s to seed)", seed.SeededSeconds)
		}
		m.add(Measure{Name: "seed (not in the run's budget when cached)", Value: v, Number: seed.Seconds, Unit: "s"})
	}
}

func (m *measurer) ready() {
	var ready struct {
		Ms     float64  `json:"ms"`
		FullMs *float64 `json:"full_ms"`
	}
	if m.get("ready", &ready) {
		m.add(Measure{Name: "time from start to /readyz 200", Value: secs(ready.Ms), Number: ready.Ms, Unit: "ms"})
		if ready.FullMs != nil && *ready.FullMs > ready.Ms+1 {
			m.add(Measure{Name: "time from start to trends loaded (/readyz trendsLoaded)", Value: secs(*ready.FullMs),
				Number: *ready.FullMs, Unit: "ms"})
		}
	}
}

func (m *measurer) firstLoad() {
	lim := 5000.0
	if m.big {
		lim = 60000
	}
	if !m.get("first_load_line", &m.fl) || m.fl == nil {
		m.add(Measure{Name: "first load (log: first load done)", Value: "n/a (no log line)"})
		return
	}
	msv := durationMs(m.fl["duration"])
	x := Measure{Name: "first load (log: first load done)", Value: secs(msv), Number: msv, Unit: "ms",
		Target: "<= " + secs(lim), Met: ptr(msv <= lim), Extra: m.fl}
	if msv < 0 {
		x.Value, x.Met = "n/a", nil
	}
	m.add(x)
}

func (m *measurer) trendLoad() {
	var tl map[string]any
	if !m.get("trend_load_line", &tl) || tl == nil {
		return
	}
	msv := durationMs(tl["duration"])
	v := secs(msv)
	if p, ok := tl["trend_points"]; ok {
		v += fmt.Sprintf(", %s points", thousands(num(p)))
	}
	if b, ok := tl["trend_bytes"]; ok {
		v += ", " + mb(num(b))
	}
	m.add(Measure{Name: "trend history load, after ready (log)", Value: v, Number: msv, Unit: "ms", Extra: tl})
}

// loadCost is the first load's rows, bytes and allocations from /metrics.
func (m *measurer) loadCost() {
	const name = "first load: rows, bytes, allocations"
	var mr map[string]float64
	if !m.get("metrics_ready", &mr) {
		m.add(Measure{Name: name, Value: "n/a (no /metrics)"})
		return
	}
	parts := []string{}
	if n, ok := m.fl["flags"]; ok {
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
	m.add(Measure{Name: name, Value: strings.Join(parts, ", "), Extra: mr})
}

// proc is a /proc/PID/status sample: the resident set and its peak.
type proc struct{ RssKB, HwmKB float64 }

func (p proc) String() string { return fmt.Sprintf("%s (peak %s)", mb(p.RssKB*1024), mb(p.HwmKB*1024)) }

// memory is the resident set after the load (and per flag) and after the
// cases.
func (m *measurer) memory() {
	var pl proc
	if m.get("proc_load", &pl) {
		x := Measure{Name: "RSS after load (peak VmHWM)", Value: pl.String(), Number: pl.RssKB * 1024, Unit: "B"}
		if !m.big && m.flags <= 100_000 {
			x.Target, x.Met = "<= 400 MB", ptr(pl.RssKB*1024 <= 400e6)
		}
		m.add(x)
		if m.flags >= 100_000 { // below, the runtime's own few tens of MB dominate
			served := float64(m.flags)
			if n := num(m.fl["flags"]); n > 0 {
				served = n // the approved flags the snapshot holds
			}
			per := pl.RssKB * 1024 / served
			m.add(Measure{Name: fmt.Sprintf("memory per flag (RSS / %s served flags)", thousands(served)),
				Value: fmt.Sprintf("%.2f KB", per/1000), Number: per, Unit: "B", Target: "< 3 KB", Met: ptr(per < 3000)})
		}
	}
	var pc proc
	if m.get("proc_cases", &pc) {
		m.add(Measure{Name: "RSS after the cases (peak VmHWM)", Value: pc.String(), Number: pc.RssKB * 1024, Unit: "B"})
	}
}

func (m *measurer) ticks() {
	var ticks struct {
		Swaps  int
		LoadMs []float64
		P50Ms  *float64 `json:"p50_ms"`
		MaxMs  *float64 `json:"max_ms"`
		Detail map[string]any
	}
	if !m.get("ticks", &ticks) {
		return
	}
	lim := 1000.0
	if m.big {
		lim = 2000
	}
	x := Measure{Name: "tick load at @every 1s (/readyz lastLoadMs)", Target: "<= " + secs(lim), Extra: ticks.LoadMs}
	if ticks.P50Ms != nil {
		x.Value = fmt.Sprintf("%d swaps seen", ticks.Swaps)
		x.P50, x.P99 = secs(*ticks.P50Ms), "max "+secs(*ticks.MaxMs)
		x.Number = *ticks.MaxMs
		x.Unit = "ms"
		x.Met = ptr(*ticks.MaxMs <= lim)
	} else {
		x.Value, x.Met = "no swap seen", ptr(false)
	}
	m.add(x)
}

// tickCost is one tick's mean duration, rows, bytes and allocations: the
// difference of two /metrics samples over the ticks between them.
func (m *measurer) tickCost() {
	const name = "one tick's cost (/metrics, no HTTP load)"
	var m0, m1 map[string]float64
	if !m.get("metrics_swap0", &m0) || !m.get("metrics_swap1", &m1) {
		return
	}
	n0, ok0 := metric(m0, "flagpole_load_duration_seconds_count")
	n1, ok1 := metric(m1, "flagpole_load_duration_seconds_count")
	if !ok0 || !ok1 || n1 <= n0 {
		m.add(Measure{Name: name, Value: "n/a"})
		return
	}
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
	m.add(Measure{Name: name, Value: strings.TrimSuffix(strings.Join(parts, " "), ",")})
}

// swaps is flags-default under wrk while loads swap in, against its idle
// p99, then the resident set's peak during the swaps.
func (m *measurer) swaps() {
	var sw json.RawMessage
	if m.get("swap_wrk", &sw) {
		c := toCase("flags-default under swaps", 1, false, sw)
		x := Measure{Name: "flags-default while loads swap in every 1 s", Number: c.P99ms, Unit: "ms"}
		if c.Failed {
			x.Value, x.Met = "wrk failed", ptr(false)
		} else {
			x.Value = thousands(c.RPS)
			x.P50, x.P99 = ms(c.P50ms), ms(c.P99ms)
			if m.ceil != nil {
				x.ratio = c.RPS / m.ceil.RPS
			}
			if m.idle != nil && m.idle.P99ms > 0 {
				// Each p99 over the ceiling's around it when the run
				// measured the ceiling after the swaps (the machine drifts
				// over a run); else the p99s themselves.
				ratio := c.P99ms / m.idle.P99ms
				x.Target = fmt.Sprintf("p99 <= 1.5x idle p99 (%s): %.2fx", ms(m.idle.P99ms), ratio)
				if after := m.swapCeilingP99(); after > 0 && m.idle.CeilingP99ms > 0 {
					ratio = (c.P99ms / after) / (m.idle.P99ms / m.idle.CeilingP99ms)
					x.Target = fmt.Sprintf("p99 <= 1.5x idle p99, each over the ceiling's (%s over %s, idle %s over %s): %.2fx",
						ms(c.P99ms), ms(after), ms(m.idle.P99ms), ms(m.idle.CeilingP99ms), ratio)
				}
				x.Met = ptr(ratio <= 1.5 && c.Non2xx == 0 && c.SocketErrors == 0)
			}
			if c.Non2xx > 0 || c.SocketErrors > 0 {
				x.Value += fmt.Sprintf(" (%d non-2xx, %d socket errors)", c.Non2xx, c.SocketErrors)
			}
		}
		x.Extra = c
		m.add(x)
	}
	var ps proc
	if m.get("proc_swap", &ps) {
		x := Measure{Name: "RSS after swaps (peak VmHWM during swaps)", Value: ps.String(), Number: ps.HwmKB * 1024, Unit: "B"}
		if m.flags <= 100_000 { // the memory targets are for 100,000 flags
			x.Target, x.Met = "peak <= 600 MB", ptr(ps.HwmKB*1024 <= 600e6)
		}
		m.add(x)
	}
}

// swapCeilingP99 is the mean p99 of the ceiling's runs after the swaps
// (swap_ceiling_0, _1), 0 without them.
func (m *measurer) swapCeilingP99() float64 {
	var sum, n float64
	for _, name := range []string{"swap_ceiling_0", "swap_ceiling_1"} {
		var raw json.RawMessage
		if !m.get(name, &raw) {
			continue
		}
		if c := toCase("ceiling", 1, false, raw); !c.Failed && c.P99ms > 0 {
			sum, n = sum+c.P99ms, n+1
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

func (m *measurer) writer() {
	var wr map[string]any
	if m.get("writer", &wr) {
		m.add(Measure{Name: "background writer (contract INSERT) during swaps",
			Value: fmt.Sprintf("%v votes, %v errors", wr["votes"], wr["errors"]), Extra: wr})
	}
}

// fresh is the delay from a vote to the API showing it, then the time to
// ready of the second start.
func (m *measurer) fresh() {
	var fr struct {
		Votes, Seen, Timeouts, WriteErrors int
		P50                                *float64 `json:"p50_ms"`
		P99                                *float64 `json:"p99_ms"`
		Max                                *float64 `json:"max_ms"`
	}
	if m.get("fresh", &fr) {
		x := Measure{Name: "freshness at @every 1s (vote -> /flag/{slug})", Target: "p99 <= 2 s",
			Value: fmt.Sprintf("%d/%d votes seen", fr.Seen, fr.Votes)}
		if fr.Timeouts > 0 || fr.WriteErrors > 0 {
			x.Value += fmt.Sprintf(", %d timeouts, %d write errors", fr.Timeouts, fr.WriteErrors)
		}
		if fr.P99 != nil {
			x.P50, x.P99 = secs(*fr.P50), secs(*fr.P99)
			x.Number, x.Unit = *fr.P99, "ms"
			x.Met = ptr(*fr.P99 <= 2000 && fr.Timeouts == 0)
		} else {
			x.Met = ptr(false)
		}
		m.add(x)
	}
	var rs struct{ Ms float64 }
	if m.get("ready_swap", &rs) {
		m.add(Measure{Name: "time to ready, second start (@every 1s)", Value: secs(rs.Ms), Number: rs.Ms, Unit: "ms"})
	}
}

// plan reports the paths that did not answer 200 before the run.
func (m *measurer) plan() {
	var plan map[string]any
	if !m.get("plan", &plan) {
		return
	}
	if bad, ok := plan["badPaths"].(map[string]any); ok && len(bad) > 0 {
		m.add(Measure{Name: "paths that did not answer 200 before the run", Value: fmt.Sprint(bad), Met: ptr(false),
			Extra: plan["badExamples"]})
	}
}
