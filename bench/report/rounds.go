package main

import (
	"cmp"
	"slices"
)

// mergeRounds folds the rounds of each case and mode (BENCH_ROUNDS: the
// case measured several times in turn) into one Case of their medians:
// each figure's median on its own, each ratio the median of the rounds'
// ratios (each round's to the checks around it), and Rounds their count.
// A failed round makes the case failed. The cases keep the order of
// their first rounds.
func mergeRounds(cases []Case) []Case {
	type key struct{ name, mode string }
	var order []key
	rounds := map[key][]Case{}
	for _, c := range cases {
		k := key{c.Name, c.Mode}
		if _, ok := rounds[k]; !ok {
			order = append(order, k)
		}
		rounds[k] = append(rounds[k], c)
	}
	out := make([]Case, 0, len(order))
	for _, k := range order {
		if rs := rounds[k]; len(rs) == 1 {
			out = append(out, rs[0])
		} else {
			out = append(out, medianCase(rs))
		}
	}
	return out
}

// medianCase is the rounds rs of one case and mode as one Case.
func medianCase(rs []Case) Case {
	m := rs[0]
	m.Rounds = len(rs)
	for _, c := range rs {
		if c.Failed {
			m.Failed = true
			return m
		}
	}
	med := func(f func(Case) float64) float64 {
		v := make([]float64, len(rs))
		for i, c := range rs {
			v[i] = f(c)
		}
		return median(v)
	}
	// medRatio is the median of a ratio every round has, else nil.
	medRatio := func(f func(Case) (float64, bool)) *float64 {
		v := make([]float64, 0, len(rs))
		for _, c := range rs {
			if x, ok := f(c); ok {
				v = append(v, x)
			}
		}
		if len(v) < len(rs) {
			return nil
		}
		return ptr(median(v))
	}
	m.Requests, m.Non2xx, m.SocketErrors = 0, 0, 0
	for _, c := range rs {
		m.Requests += c.Requests
		m.Non2xx += c.Non2xx
		m.SocketErrors += c.SocketErrors
	}
	m.RPS = med(func(c Case) float64 { return c.RPS })
	m.P50ms = med(func(c Case) float64 { return c.P50ms })
	m.P90ms = med(func(c Case) float64 { return c.P90ms })
	m.P99ms = med(func(c Case) float64 { return c.P99ms })
	m.P999ms = med(func(c Case) float64 { return c.P999ms })
	m.MaxMs = slices.MaxFunc(rs, func(a, b Case) int { return cmp.Compare(a.MaxMs, b.MaxMs) }).MaxMs
	m.MBps = med(func(c Case) float64 { return c.MBps })
	m.BytesPerResp = med(func(c Case) float64 { return c.BytesPerResp })
	m.CeilingRPS = med(func(c Case) float64 { return c.CeilingRPS })
	m.CeilingP99ms = med(func(c Case) float64 { return c.CeilingP99ms })
	m.YardRPS = med(func(c Case) float64 { return c.YardRPS })
	m.YardP99ms = med(func(c Case) float64 { return c.YardP99ms })
	m.RPSRatio = medRatio(func(c Case) (float64, bool) { return c.RPS / c.CeilingRPS, c.CeilingRPS > 0 })
	m.P99Ratio = medRatio(func(c Case) (float64, bool) { return c.P99ms / c.CeilingP99ms, c.CeilingP99ms > 0 })
	m.YardRPSRatio = medRatio(func(c Case) (float64, bool) { return deref(c.YardRPSRatio) })
	m.YardP99Ratio = medRatio(func(c Case) (float64, bool) { return deref(c.YardP99Ratio) })
	if slices.IndexFunc(rs, func(c Case) bool { return c.CPU == nil }) < 0 {
		m.CPU = &CPUUse{
			Server:  med(func(c Case) float64 { return c.CPU.Server }),
			GCShare: med(func(c Case) float64 { return c.CPU.GCShare }),
			Nginx:   med(func(c Case) float64 { return c.CPU.Nginx }),
			Redis:   med(func(c Case) float64 { return c.CPU.Redis }),
		}
	}
	return m
}

// median of v (not empty); v is sorted in place.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}
