package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/config"
	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/memstore"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("serve", config.Serve)
	demo := fs.Bool("demo", false, "on an empty database (created if need be), seed the demo data, create a key and print it")
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	if !*demo {
		if err := requireDatabase(cfg.DB); err != nil {
			return err
		}
	}
	if cfg.DBReplica != "" {
		if err := requireDatabase(cfg.DBReplica); err != nil {
			return err
		}
	}
	cfg.LogFormat = logFormat(cfg.LogFormat, stderr)
	// ctx ends when serve is to stop: a signal while starting, the end of
	// the drain (shutdown_delay, a second signal), or the caller's ctx.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	started := make(chan *program, 1)
	go followSignals(ctx, stop, signalsOf(ctx), started, terminal(stderr))
	p, err := newProgram(ctx, cfg, *demo, stdout, stderr)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped (SIGTERM) before the database answered
		}
		return err
	}
	defer p.Close()
	p.reloadable(func() (config.Config, error) {
		next, err := config.Resolve(fs, getenv)
		next.LogFormat = logFormat(next.LogFormat, stderr)
		return next, err
	}, config.Overridden(given(fs), getenv))
	started <- p
	if p.banner != "" {
		bctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-p.ready: // closed after the first load
				fmt.Fprint(stdout, p.banner)
			case <-bctx.Done():
			}
		}()
	}
	return p.Run(ctx)
}

// logFormat resolves log_format auto: text when standard error is a
// terminal, where a person reads it, JSON otherwise.
func logFormat(format string, stderr io.Writer) string {
	if format != "auto" {
		return format
	}
	if terminal(stderr) {
		return "text"
	}
	return "json"
}

// program is a running `flagpole serve`: its database, store, loader and
// HTTP servers.
type program struct {
	cfg     config.Config
	log     *slog.Logger
	db      *loader.DB // the primary: migrations and writes
	src     *loader.DB // where the loader reads: the replica or the primary
	store   *memstore.Store
	loader  *loader.Loader
	api     *httpapi.API
	ln      *connlimit.Listener
	adminLn net.Listener
	redis   *ratelimit.Redis
	limiter *ratelimit.Fallback
	ready   chan struct{} // closed after the first load
	reg     *prometheus.Registry
	banner  string // --demo: the new key and how to use it, shown again once ready

	// draining is set from the first SIGTERM on: /readyz answers 503 and
	// each answer of the API closes its connection (see drain).
	draining atomic.Bool
	// reloading is what SIGHUP changes (reload.go): the settings now, the
	// log's level, the access log (written whatever the level).
	reloading
}

// newLogger is the log of cfg's format on w, of the least level level
// (nil: info).
func newLogger(cfg config.Config, w io.Writer, level slog.Leveler) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// newProgram opens and migrates the database, seeds it for --demo, binds
// the listeners and wires the loader and the API; Run starts serving.
func newProgram(ctx context.Context, cfg config.Config, demo bool, stdout, stderr io.Writer) (*program, error) {
	p := &program{cfg: cfg, store: &memstore.Store{}, ready: make(chan struct{})}
	p.initReloading(cfg, stderr)
	if err := p.start(ctx, demo, stdout, stderr); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *program) start(ctx context.Context, demo bool, stdout, stderr io.Writer) error {
	if err := p.openDatabases(ctx); err != nil {
		return err
	}
	if err := p.listen(); err != nil {
		return err
	}
	if demo {
		if err := p.seedDemo(ctx, stdout, stderr); err != nil {
			return err
		}
	}
	var lm *loadMetrics
	p.reg, lm = newRegistry()
	p.newLoader(lm)
	if err := p.newAPI(ctx); err != nil {
		return err
	}
	p.registerState(p.reg)
	p.registerReloads(p.reg)
	return nil
}

// openDatabases opens and migrates the primary and opens the replica, if
// any. Every call has a deadline at the socket, and a stop closes the
// sockets, so a database that does not answer holds neither the start nor
// the loads nor the shutdown.
func (p *program) openDatabases(ctx context.Context) error {
	dbOpts := []loader.Option{loader.Timeout(p.cfg.DBTimeout), loader.CloseOnDone(ctx)}
	var err error
	if p.db, err = loader.OpenMigrated(ctx, p.cfg.DB, dbOpts...); err != nil {
		return err
	}
	p.src = p.db
	if p.cfg.DBReplica != "" {
		if p.src, err = loader.Open(ctx, p.cfg.DBReplica, dbOpts...); err != nil {
			return err
		}
	}
	return nil
}

// listen binds the API's address (with its connection bounds) and the
// admin address, if any.
func (p *program) listen() error {
	ln, err := net.Listen("tcp", p.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", p.cfg.Addr, err)
	}
	o := connOptions(p.cfg)
	o.Exempt = func(a netip.Addr) bool { return p.settings().Proxies.Contains(a) } // trusted_proxies is live
	p.ln = connlimit.Wrap(httpapi.WireErrors(ln), o)
	if p.cfg.AdminAddr != "" {
		if p.adminLn, err = net.Listen("tcp", p.cfg.AdminAddr); err != nil {
			return fmt.Errorf("listen on %s: %w", p.cfg.AdminAddr, err)
		}
	}
	return nil
}

// newLoader makes the loader, which reports each load to the metrics and,
// after a load of the flags, to the collector's tuning.
func (p *program) newLoader(lm *loadMetrics) {
	gc := newGCTuner(p.cfg.GOGCSet)
	onLoad := func(job string, took time.Duration, rows int, err error) {
		lm.observe(job, took, rows, err)
		if job == "flags" && err == nil {
			gc.afterLoad()
		}
	}
	// The primary is listened to even when a replica is read: a standby
	// cannot LISTEN.
	p.loader = loader.New(p.src, p.store, loader.Options{FullEvery: p.cfg.FullReload, Log: p.log, OnLoad: onLoad,
		Listen: p.cfg.Listen, Primary: p.db, ListenTimeout: min(p.cfg.DBTimeout, 5*time.Second)})
}

// newAPI makes the API, with the shared rate limiter when Redis is set.
func (p *program) newAPI(ctx context.Context) error {
	cfg := p.cfg
	opt := httpapi.Options{Store: p.store, RateLimit: cfg.RateLimit, CacheBytes: int64(cfg.CacheMB) << 20,
		Log: p.log, Ready: p.readiness, Metrics: p.reg, AnonRateLimit: cfg.AnonRateLimit, TrustedProxies: cfg.Proxies,
		MaxStreamsPerKey: cfg.MaxStreamsPerKey, ServerTiming: cfg.ServerTiming}
	if cfg.Redis != "" {
		ratelimit.SetRedisLogger(p.log)
		var err error
		if p.redis, err = ratelimit.NewRedis(ratelimit.RedisOptions{URL: cfg.Redis, Prefix: cfg.RedisPrefix,
			Timeout: cfg.RedisTimeout}); err != nil {
			return err
		}
		p.limiter = ratelimit.NewFallback(p.redis, p.log)
		if err := p.redis.Ping(ctx); err != nil {
			p.limiter.Down(err) // logs it; /readyz and the metric say so from the start
		}
		opt.Limiter = p.limiter
	}
	if cfg.AccessLog {
		opt.AccessLog = p.accessLog
	}
	var err error
	p.api, err = httpapi.New(opt)
	return err
}

// connOptions are the bounds of the API's connections: max_conns (by
// default from the open-file limit), max_conns_per_ip, with trusted
// proxies exempt from the latter.
func connOptions(cfg config.Config) connlimit.Options {
	o := connlimit.Options{Max: cfg.MaxConns, PerAddr: cfg.MaxConnsPerIP, Busy: httpapi.Busy}
	if o.Max <= 0 {
		o.Max = connlimit.DefaultMax()
	}
	if len(cfg.Proxies) > 0 {
		o.Exempt = cfg.Proxies.Contains
	}
	return o
}
