package main

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/config"
	"github.com/flagpole/flagpole/httpapi"
)

// reloading is what a running serve changes when SIGHUP makes it read its
// configuration again: the settings it runs with, the log's level, and
// how to read the configuration as the start did.
type reloading struct {
	current   atomic.Pointer[config.Config]
	level     slog.LevelVar
	accessLog *slog.Logger // the access log: its lines are written whatever log_level says
	// resolve reads the configuration as the start did: defaults, the
	// file, the environment, the flags given (set by runServe; nil: no
	// reload).
	resolve func() (config.Config, error)
	// overridden are the settings a flag or a variable sets: they win
	// over the file, at a reload too.
	overridden []string

	reloads        *prometheus.CounterVec
	lastReloadOK   prometheus.Gauge
	restartPending prometheus.Gauge
}

// initReloading sets the program's first settings, and its logs on w:
// the log and the access log, two loggers whose lines w takes whole, one
// at a time.
func (p *program) initReloading(cfg config.Config, w io.Writer) {
	p.current.Store(&cfg)
	level, _ := config.ParseLevel(cfg.LogLevel) // Validate checked it
	p.level.Set(level)
	w = &lineWriter{w: w}
	p.log = newLogger(cfg, w, &p.level)
	p.accessLog = newLogger(cfg, w, nil)
}

// lineWriter passes each line a logger writes to w under one lock, so
// that the lines of two loggers never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// settings are the settings the program runs with now: those it started
// with, but for the live ones of the last good reload.
func (p *program) settings() *config.Config { return p.current.Load() }

// registerReloads registers the reload metrics.
func (p *program) registerReloads(reg prometheus.Registerer) {
	p.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "flagpole_config_reloads_total",
		Help: "Reloads of the configuration on SIGHUP, by result: ok (applied), error (refused whole: the running settings stay).",
	}, []string{"result"})
	p.lastReloadOK = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "flagpole_config_last_reload_successful",
		Help: "1 unless the last reload of the configuration was refused (1 before any).",
	})
	p.restartPending = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "flagpole_config_restart_pending",
		Help: "Settings the configuration changed at the last reload that only a restart applies (addresses, the database, Redis, ...).",
	})
	p.lastReloadOK.Set(1)
	p.reloads.WithLabelValues("ok")
	p.reloads.WithLabelValues("error")
	reg.MustRegister(p.reloads, p.lastReloadOK, p.restartPending)
}

// reload reads the configuration again, as the start did, and applies
// what can change while serving: the schedules, the rate limits, the
// trusted proxies, the streams a key may hold, the caches' size where
// they can take it, max_snapshot_age, the shutdown's delay and timeout,
// the access log and the log's level. A setting that needs a restart
// (the addresses, the database, Redis, ...) is logged as such and keeps
// its running value. A file that does not read or validate is refused
// whole: nothing changes. The snapshot, its generation and the rate
// limiters' windows are untouched.
func (p *program) reload() {
	if p.resolve == nil {
		return
	}
	next, err := p.resolve()
	if err != nil {
		p.reloads.WithLabelValues("error").Inc()
		p.lastReloadOK.Set(0)
		p.log.Error("configuration reload refused; the running settings stay", "err", err)
		return
	}
	running := p.settings()
	live, restart := config.Changed(*running, next)
	for _, key := range restart {
		p.log.Warn("configuration reload: this setting changed, and only a restart applies it; it keeps its running value",
			"setting", key, "running", shown(running, key), "new", shown(&next, key))
	}
	merged := config.Merge(*running, next)
	p.current.Store(&merged)
	notes := p.apply(&merged, live)
	for _, n := range append(notes, merged.Cautions(time.Now())...) {
		p.log.Warn("configuration reload: " + n)
	}
	p.reloads.WithLabelValues("ok").Inc()
	p.lastReloadOK.Set(1)
	p.restartPending.Set(float64(len(restart)))
	p.log.Info("configuration reloaded", "file", next.Config, "applied", strings.Join(live, ","),
		"needs_restart", strings.Join(restart, ","), "set_by_flag_or_env", strings.Join(p.overridden, ","))
}

// apply makes the program's parts run with cfg, whose settings named in
// changed are new; it returns what could not be applied whole.
func (p *program) apply(cfg *config.Config, changed []string) []string {
	has := func(key string) bool {
		for _, k := range changed {
			if k == key {
				return true
			}
		}
		return false
	}
	if has("refresh") || has("key_refresh") {
		p.loader.Reschedule(cfg.Refresh, cfg.KeyRefresh)
	}
	if has("log_level") {
		level, _ := config.ParseLevel(cfg.LogLevel)
		p.level.Set(level)
	}
	s := httpapi.Settings{RateLimit: cfg.RateLimit, AnonRateLimit: cfg.AnonRateLimit, TrustedProxies: cfg.Proxies,
		MaxStreamsPerKey: cfg.MaxStreamsPerKey, CacheBytes: int64(cfg.CacheMB) << 20, ServerTiming: cfg.ServerTiming}
	if cfg.AccessLog {
		s.AccessLog = p.accessLog
	}
	// max_snapshot_age, shutdown_delay and shutdown_timeout are read
	// from settings() when they are needed.
	return p.api.Apply(s)
}

// shown is the value of key in cfg as a log may show it: not at all for
// a database or Redis URL, which may hold a password in a form Redact
// does not know (a key=value connection string).
func shown(cfg *config.Config, key string) string {
	switch key {
	case "db", "db_replica", "redis":
		return "(not shown)"
	}
	return cfg.Text(key)
}

// reloadable makes the program read its configuration with fs (parsed)
// and getenv at a reload, as the start did with them.
func (p *program) reloadable(resolve func() (config.Config, error), overridden []string) {
	p.resolve, p.overridden = resolve, overridden
}

// given is the set of the flags fs was given on the command line.
func given(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}
