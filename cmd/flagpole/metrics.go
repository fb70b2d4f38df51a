package main

import (
	"net/http"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// loadMetrics record every load of the loader's two cron jobs.
type loadMetrics struct {
	duration *prometheus.HistogramVec
	loads    *prometheus.CounterVec
	rows     *prometheus.CounterVec
}

// gcWork adds to the Go collector's defaults what the collector costs:
// the CPU it used (go_cpu_classes_gc_*_cpu_seconds_total, its share is
// that over process_cpu_seconds_total) and the bytes it scans for
// pointers at each collection (go_gc_scan_*_bytes), the part of the heap
// that sets a collection's marking time.
var gcWork = collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/(cpu/classes/gc|gc/scan)/`)}

// newRegistry makes the registry of /metrics: the process, the Go runtime,
// and the loader's jobs.
func newRegistry() (*prometheus.Registry, *loadMetrics) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(gcWork)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &loadMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "flagpole_load_duration_seconds", Help: "Duration of each load, by cron job (flags, keys).",
			Buckets: prometheus.ExponentialBuckets(0.001, 3, 12),
		}, []string{"job"}),
		loads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagpole_loads_total", Help: "Loads by cron job and result (ok, error).",
		}, []string{"job", "result"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagpole_load_rows_total", Help: "Rows read by the loads, by cron job.",
		}, []string{"job"}),
	}
	reg.MustRegister(m.duration, m.loads, m.rows)
	registerBuildInfo(reg)
	return reg, m
}

func (m *loadMetrics) observe(job string, took time.Duration, rows int, err error) {
	m.duration.WithLabelValues(job).Observe(took.Seconds())
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.loads.WithLabelValues(job, result).Inc()
	m.rows.WithLabelValues(job).Add(float64(rows))
}

// registerState adds the gauges read at scrape time: the snapshot, the
// keys, the rate limiter and the response cache.
func (p *program) registerState(reg *prometheus.Registry) {
	gauge := gaugeIn(reg)
	gauge("flagpole_snapshot_flags", "Approved flags in the serving snapshot.", func() float64 {
		if s := p.store.Snapshot(); s != nil {
			return float64(s.Len())
		}
		return 0
	})
	gauge("flagpole_snapshot_trend_points", "Daily trend points held in memory.", func() float64 {
		if s := p.store.Snapshot(); s != nil && s.Trends != nil {
			return float64(s.Trends.Rows())
		}
		return 0
	})
	gauge("flagpole_snapshot_generation", "Snapshots swapped in since start.", func() float64 {
		if s := p.store.Snapshot(); s != nil {
			return float64(s.Gen)
		}
		return 0
	})
	gauge("flagpole_snapshot_age_seconds", "Age of the serving snapshot (-1 before the first load).", func() float64 {
		if s := p.store.Snapshot(); s != nil {
			return time.Since(s.LoadedAt).Seconds()
		}
		return -1
	})
	gauge("flagpole_keys_age_seconds", "Age of the loaded API key set (-1 before the first key load).", func() float64 {
		if k := p.store.Keys(); k != nil {
			return time.Since(k.LoadedAt).Seconds()
		}
		return -1
	})
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "flagpole_db_timeouts_total",
		Help: "Database socket reads and writes of the loader that passed db_timeout (PostgreSQL).",
	}, func() float64 { return float64(p.src.Timeouts()) }))
	gauge("flagpole_listen_up", "1 while the database's change feed wakes the loads (LISTEN, or SQLite's change counter); 0 when it is down or listen is off.",
		func() float64 {
			if p.loader.Status().Listening {
				return 1
			}
			return 0
		})
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "flagpole_listen_reconnects_total", Help: "Times the change feed came back after it was lost.",
	}, func() float64 { return float64(p.loader.Status().ListenReconnects) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "flagpole_listen_notifications_total", Help: "Changes the feed reported (notifications, or moves of SQLite's change counter).",
	}, func() float64 { return float64(p.loader.Status().Notifications) }))
	p.registerFreshness(reg)
	gauge("flagpole_keys_active", "Active API keys loaded.", func() float64 {
		if k := p.store.Keys(); k != nil {
			return float64(k.Len())
		}
		return 0
	})
	gauge("flagpole_response_cache_hit_ratio", "Deprecated, to be removed: the share of lookups answered from the caches since start; "+
		"use rate(flagpole_cache_hits_total[5m]) / rate(flagpole_cache_lookups_total[5m]).",
		func() float64 { return p.api.CacheHitRatio() })
	gauge("flagpole_ready", "1 while /readyz answers 200; 0 before the first load, past max_snapshot_age, and from SIGTERM on.",
		func() float64 {
			if p.readiness().Ready {
				return 1
			}
			return 0
		})
	gauge("flagpole_streams_max", "The most live streams this process holds at once (503 past it): its own cap, or the streams' share of max_conns if lower.",
		func() float64 { return float64(min(p.api.MaxStreams(), p.ln.MaxStreams())) })
	p.registerConnState(reg, gauge)
	p.registerLimiterState(reg, gauge)
}

// gaugeIn returns a function registering a gauge read from f in reg.
func gaugeIn(reg *prometheus.Registry) func(name, help string, f func() float64) {
	return func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
}

// registerConnState registers the API listener's connection counts.
func (p *program) registerConnState(reg *prometheus.Registry, gauge func(name, help string, f func() float64)) {
	conns := func(name, help string, f func(s connlimit.Stats) float64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return f(p.ln.Stats()) }))
	}
	gauge("flagpole_http_open_connections", "Open connections of the API listener.",
		func() float64 { return float64(p.ln.Stats().Open) })
	gauge("flagpole_http_max_connections", "The bound on open connections of the API listener (max_conns).",
		func() float64 { return float64(p.ln.Max()) })
	conns("flagpole_http_connections_refused_total", "Connections answered 503 and closed: over max_conns, or over max_conns_per_ip, with none of those idle.",
		func(s connlimit.Stats) float64 { return float64(s.RefusedTotal + s.RefusedAddr) })
	conns("flagpole_http_idle_connections_closed_total", "Idle connections closed early: the oldest idle at max_conns or of the client's address at max_conns_per_ip, or idle too long under pressure.",
		func(s connlimit.Stats) float64 { return float64(s.Evicted + s.EvictedAddr + s.Pressured) })
	gauge("flagpole_http_stream_connections", "Connections held by live streams, at most the streams' share of max_conns.",
		func() float64 { return float64(p.ln.Stats().Streams) })
	conns("flagpole_http_streams_refused_total", "Streams refused 503 because the streams' share of max_conns was taken.",
		func(s connlimit.Stats) float64 { return float64(s.RefusedStreams) })
}

// registerLimiterState registers the shared rate limiter's state, when
// Redis is set.
func (p *program) registerLimiterState(reg *prometheus.Registry, gauge func(name, help string, f func() float64)) {
	if p.redis != nil {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "flagpole_ratelimit_local_refusals_total",
			Help: "Requests of a key over its limit refused until its reset without asking Redis.",
		}, func() float64 { return float64(p.redis.LocalRefusals()) }))
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "flagpole_ratelimit_leased_total",
			Help: "Requests allowed from slots of a key's budget leased from Redis, without a round trip.",
		}, func() float64 { return float64(p.redis.Leased()) }))
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "flagpole_ratelimit_giveback_failures_total",
			Help: "Unspent leased slots not known to be given back to Redis: a give-back or an ask carrying them failed (they count until they leave the window).",
		}, func() float64 { return float64(p.redis.GiveBackFailures()) }))
	}
	if p.limiter != nil {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "flagpole_ratelimit_fallbacks_total",
			Help: "Rate-limit decisions made in-process because Redis failed or was paused.",
		}, func() float64 { return float64(p.limiter.Fallbacks()) }))
		gauge("flagpole_ratelimit_shared", "1 while Redis decides, 0 while the instance limits in-process.", func() float64 {
			if p.limiter.Degraded() {
				return 0
			}
			return 1
		})
	}
}

func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
