package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The table's columns, and which are right-aligned.
var (
	header = []string{"source", "case / measure", "req/s (or value)", "p50 ms", "p99 ms", "req/s vs ceiling",
		"p99 vs ceiling", "vs ceiling-headers: req/s, p99", "vs its yardstick: req/s, p99", "non-2xx", "target", ""}
	right = []bool{false, false, true, true, true, true, true, true, true, true, false, false}
)

// markdown is the run's table with the paragraph that says how it was
// measured and the count of missed targets.
func markdown(results []*Result, run map[string]any) string {
	var rows [][]string
	for _, r := range results {
		rows = append(rows, caseRows(r)...)
		rows = append(rows, measureRows(r)...)
	}
	var b strings.Builder
	intro(&b, results, run)
	writeTable(&b, header, right, rows)
	b.WriteString(prodMarkdown(results))
	missed := missedTargets(results)
	b.WriteString("\n")
	if w, ok := run["wall_seconds"]; ok {
		fmt.Fprintf(&b, "Wall time of the run: %.0f s (seeding %v).\n", num(w), run["seed_note"])
	}
	fmt.Fprintf(&b, "Targets missed: %d of the rows with a target.\n", len(missed))
	return b.String()
}

// caseRows is a row for each wrk case of r in process (the other modes
// are in the production table).
func caseRows(r *Result) [][]string {
	var rows [][]string
	for _, c := range r.Cases {
		if c.Mode != "" && c.Mode != "inproc" {
			continue
		}
		name := caseName(r, c)
		if c.Failed {
			rows = append(rows, []string{r.Source, name, "wrk failed", "", "", "", "", "", "", "", c.Target, mark(c.Met)})
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
		rows = append(rows, []string{r.Source, name, thousands(c.RPS), ms(c.P50ms), ms(c.P99ms), rr, pr,
			ratios(c.HeadersRPSRatio, c.HeadersP99Ratio), ratios(c.YardRPSRatio, c.YardP99Ratio), errs, c.Target, mark(c.Met)})
	}
	return rows
}

// ratios is "86 %, 1.49x", or empty without them.
func ratios(rps, p99 *float64) string {
	if rps == nil || p99 == nil {
		return ""
	}
	return fmt.Sprintf("%.0f %%, %.2fx", *rps*100, *p99)
}

// caseName is a case's name in the table: the ceiling's says its body
// size and the range of its checks; a case of several paths says how many.
func caseName(r *Result, c Case) string {
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
	if c.Name == "ceiling-headers" {
		name = "ceiling-headers (the same, with the contract's 13 headers)"
	}
	if c.Paths > 1 {
		name += fmt.Sprintf(" (%s paths)", thousands(float64(c.Paths)))
	}
	return name
}

// measureRows is a row for each measure of r.
func measureRows(r *Result) [][]string {
	var rows [][]string
	for _, m := range r.Measures {
		rr := ""
		if m.ratio > 0 {
			rr = fmt.Sprintf("%.0f %%", m.ratio*100)
		}
		rows = append(rows, []string{r.Source, m.Name, m.Value, m.P50, m.P99, rr, "", "", "", "", m.Target, mark(m.Met)})
	}
	return rows
}

// intro is the title and the paragraph on how the run measured.
func intro(b *strings.Builder, results []*Result, run map[string]any) {
	var srcs []string
	for _, r := range results {
		srcs = append(srcs, r.Source)
	}
	fmt.Fprintf(b, "## flagpole benchmark: %s flags, %s (%s)\n\n", thousands(num(run["flags"])), run["date"], strings.Join(srcs, ", "))
	sharing := "wrk and the server sharing them"
	if run["pinned"] == true {
		sharing = "the servers on CPU 0 and wrk on CPU 1 (BENCH_PIN)"
	}
	fmt.Fprintf(b, "wrk -t%v -c%v -d%v --latency (warm-up %v) per case, on %v CPUs (%v), %s; %v days of trends; %v.\n",
		run["threads"], run["connections"], run["duration"], run["warmup"], run["cpus"], run["cpu_model"], sharing, run["days"], run["go"])
	if c, ok := run["ceiling_check"].(string); ok {
		fmt.Fprintf(b, "The ceiling is measured once for %v, then again for %s before each case and after the last; each case's ratios are to the mean of the two checks around it.\n",
			run["duration"], c)
	}
	if slices.ContainsFunc(results, func(r *Result) bool {
		return slices.ContainsFunc(r.Cases, func(c Case) bool { return c.YardRPSRatio != nil })
	}) {
		fmt.Fprintf(b, "Each case is also measured between two %v checks of its own yardstick (plain net/http answering the case's paths with the bodies flagpole sent for them and the contract's 13 headers); \"vs its yardstick\" is to their mean.\n", run["ceiling_check"])
	}
	if n := num(run["rounds"]); n > 1 {
		fmt.Fprintf(b, "Each case was measured %.0f times in turn (all its modes each time, each between its checks); every figure and ratio is the median of the rounds, each round's ratios to the checks around it.\n", n)
	}
	if r := num(run["openloop_rate"]); r > 0 {
		fmt.Fprintf(b, "The hot cases were then also loaded at a fixed %s req/s (bench/openloop: vegeta, an open loop, 64 connections, Accept-Encoding identity), their yardstick and flagpole in turn for %.0f rounds: p99 at the same throughput, the form of issue 22's p99 bound that wrk's closed loop cannot give.\n",
			thousands(r), num(run["openloop_rounds"]))
	}
	fmt.Fprintf(b, "Load average (1 min) before the run %v, at its end %v (the run's own load included)", run["loadavg_start"], run["loadavg_end"])
	if num(run["loadavg_start"]) > num(run["cpus"])/2 {
		b.WriteString(": **other processes were using the CPUs, so every number here is low and noisy**")
	}
	b.WriteString(".\n\n")
}

// writeTable writes the header and rows as a Markdown table, padded to
// align, the columns where right is true right-aligned.
func writeTable(b *strings.Builder, header []string, right []bool, rows [][]string) {
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len([]rune(h))
	}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if right[i] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|")
	for i := range header {
		if right[i] {
			b.WriteString(strings.Repeat("-", width[i]+1) + ":|")
		} else {
			b.WriteString(strings.Repeat("-", width[i]+2) + "|")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		line(row)
	}
}

// missedTargets names the cases and measures that missed their target.
func missedTargets(results []*Result) []string {
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
	return missed
}
