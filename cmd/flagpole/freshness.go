package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/loader"
)

// registerFreshness adds the counters that tell what keeps the data
// fresh: the loads' wake-ups by source (the database's notifications,
// the polling while the listener is down, the schedules), and the
// barriers before notified loads (docs/architecture.md, "Freshness").
func (p *program) registerFreshness(reg *prometheus.Registry) {
	for s := loader.ByDatabase; s <= loader.BySchedule; s++ {
		for _, job := range []string{"flags", "keys"} {
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "flagpole_load_wakeups_total",
				Help:        "Wake-ups of each load by source: database (a notification, SQLite's change counter), polling (the listener is down), schedule (the backstop). Several may start one load.",
				ConstLabels: prometheus.Labels{"job": job, "source": s.String()},
			}, func() float64 {
				st := p.loader.Status()
				if job == "keys" {
					return float64(st.KeyRings[s])
				}
				return float64(st.FlagRings[s])
			}))
		}
	}
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "flagpole_load_barriers_total",
		Help: "Barriers passed on the primary before a load that a notification woke (PostgreSQL with listen).",
	}, func() float64 { return float64(p.loader.Status().Barriers) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "flagpole_load_barrier_locks_waited_out_total",
		Help: "Locks of the barrier held past its wait by another session or a slow commit; the barrier passes again every second while so.",
	}, func() float64 { return float64(p.loader.Status().BarrierWaitedOut) }))
}
