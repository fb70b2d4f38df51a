package main

import "fmt"

// openLoopRun is what bench/openloop -json writes: the medians of its
// rounds at one fixed rate, A the case's yardstick and B flagpole.
type openLoopRun struct {
	Rate   float64      `json:"rate"`
	Rounds int          `json:"rounds"`
	A      openLoopSide `json:"a"`
	B      openLoopSide `json:"b"`
	Short  bool         `json:"short"`
}

type openLoopSide struct {
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	RPS float64 `json:"rps"`
}

// openLoop is a row for each case bench/run also measured at one fixed
// rate (the "openloop:<case>" records): flagpole's p50, p90 and p99 and
// its yardstick's at the same throughput, and issue 22's p99 bound on
// them. A run that fell short of the rate is held to the bound only when
// flagpole carried at least 0.97 of its yardstick's req/s: else the two
// were not loaded alike, and there is no verdict.
func (m *measurer) openLoop() {
	for _, c := range m.r.Cases {
		if c.Mode != "inproc" {
			continue
		}
		var o openLoopRun
		if !m.get("openloop:"+c.Name, &o) || o.A.P99 <= 0 {
			continue
		}
		ratio := o.B.P99 / o.A.P99
		x := Measure{
			Name: fmt.Sprintf("%s at %s req/s, open loop (median of %d rounds): flagpole p50, p90, p99 over its yardstick's",
				c.Name, thousands(o.Rate), o.Rounds),
			Value: fmt.Sprintf("%.2fx, %.2fx, %.2fx (%s, %s, %s against %s, %s, %s ms)",
				o.B.P50/o.A.P50, o.B.P90/o.A.P90, ratio, ms(o.B.P50), ms(o.B.P90), ms(o.B.P99), ms(o.A.P50), ms(o.A.P90), ms(o.A.P99)),
			P50: ms(o.B.P50), P99: ms(o.B.P99), Number: ratio, Unit: "x", Extra: o,
			Target: fmt.Sprintf("p99 <= %.1fx its yardstick's", openLoopP99Target),
		}
		switch {
		case !o.Short:
			x.Met = ptr(ratio <= openLoopP99Target)
		case o.B.RPS >= 0.97*o.A.RPS:
			// Both saturated the client (or flagpole carried more): the
			// two were still loaded alike.
			x.Value += fmt.Sprintf("; short of the rate, at %s and %s req/s", thousands(o.A.RPS), thousands(o.B.RPS))
			x.Met = ptr(ratio <= openLoopP99Target)
		default:
			x.Value += fmt.Sprintf("; short of the rate, flagpole at %s req/s to its yardstick's %s: no verdict",
				thousands(o.B.RPS), thousands(o.A.RPS))
		}
		m.add(x)
	}
}
