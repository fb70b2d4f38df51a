package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"

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
	p, err := newProgram(ctx, cfg, *demo, stdout, stderr)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped (SIGTERM) before the database answered
		}
		return err
	}
	defer p.Close()
	if p.banner != "" {
		bctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-p.Ready():
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
	ready   chan struct{}
	reg     *prometheus.Registry
	banner  string // --demo: the new key and how to use it, shown again once ready
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, nil))
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

// newProgram opens and migrates the database, seeds it for --demo, and
// binds the listeners; Run starts serving.
func newProgram(ctx context.Context, cfg config.Config, demo bool, stdout, stderr io.Writer) (*program, error) {
	p := &program{cfg: cfg, log: newLogger(cfg, stderr), store: &memstore.Store{}, ready: make(chan struct{})}
	var err error
	// Every call has a deadline at the socket, and a stop closes the
	// sockets, so a database that does not answer holds neither the start
	// nor the loads nor the shutdown.
	dbOpts := []loader.Option{loader.Timeout(cfg.DBTimeout), loader.CloseOnDone(ctx)}
	if p.db, err = loader.OpenMigrated(ctx, cfg.DB, dbOpts...); err != nil {
		return nil, err
	}
	p.src = p.db
	if cfg.DBReplica != "" {
		if p.src, err = loader.Open(ctx, cfg.DBReplica, dbOpts...); err != nil {
			p.Close()
			return nil, err
		}
	}
	proxies, err := httpapi.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		p.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	p.ln = connlimit.Wrap(ln, connOptions(cfg, proxies))
	if cfg.AdminAddr != "" {
		if p.adminLn, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			p.Close()
			return nil, fmt.Errorf("listen on %s: %w", cfg.AdminAddr, err)
		}
	}
	if demo {
		if err := p.seedDemo(ctx, stdout, stderr); err != nil {
			p.Close()
			return nil, err
		}
	}
	var lm *loadMetrics
	p.reg, lm = newRegistry()
	gc := newGCTuner(os.Getenv) // the runtime reads GOGC from the process environment too
	onLoad := func(job string, took time.Duration, rows int, err error) {
		lm.observe(job, took, rows, err)
		if job == "flags" && err == nil {
			gc.afterLoad()
		}
	}
	p.loader = loader.New(p.src, p.store, loader.Options{FullEvery: cfg.FullReload, Log: p.log, OnLoad: onLoad})
	opt := httpapi.Options{Store: p.store, RateLimit: cfg.RateLimit, CacheBytes: int64(cfg.CacheMB) << 20,
		Log: p.log, Ready: p.readiness, Metrics: p.reg, AnonRateLimit: cfg.AnonRateLimit, TrustedProxies: proxies}
	if cfg.AnonRateLimit == 0 {
		opt.AnonRateLimit = -1 // off
	}
	if cfg.Redis != "" {
		ratelimit.SetRedisLogger(p.log)
		if p.redis, err = ratelimit.NewRedis(ratelimit.RedisOptions{URL: cfg.Redis, Prefix: cfg.RedisPrefix,
			Timeout: cfg.RedisTimeout}); err != nil {
			p.Close()
			return nil, err
		}
		if err := p.redis.Ping(ctx); err != nil {
			p.log.Warn("redis does not answer; limiting in-process until it does", "err", err)
		}
		p.limiter = ratelimit.NewFallback(p.redis, p.log)
		opt.Limiter = p.limiter
	}
	if cfg.AccessLog {
		opt.AccessLog = p.log
	}
	if p.api, err = httpapi.New(opt); err != nil {
		p.Close()
		return nil, err
	}
	p.registerState(p.reg)
	return p, nil
}

// connOptions are the bounds of the API's connections: max_conns (by
// default from the open-file limit), max_conns_per_ip, with trusted
// proxies exempt from the latter.
func connOptions(cfg config.Config, proxies []netip.Prefix) connlimit.Options {
	o := connlimit.Options{Max: cfg.MaxConns, PerAddr: cfg.MaxConnsPerIP}
	if o.Max <= 0 {
		o.Max = connlimit.DefaultMax()
	}
	if len(proxies) > 0 {
		o.Exempt = func(a netip.Addr) bool {
			for _, p := range proxies {
				if p.Contains(a) {
					return true
				}
			}
			return false
		}
	}
	return o
}

// seedDemo fills an empty database with the demo set and prints a new key
// with a curl line to try.
func (p *program) seedDemo(ctx context.Context, stdout, stderr io.Writer) error {
	var n int
	if err := p.db.GetContext(ctx, &n, "SELECT count(*) FROM flags"); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "demo: the database already has %d flags; serving them (create a key with: "+
			"go run ./cmd/flagpole keys create --db %s --name NAME, or flagpole keys create ... with a built binary)\n", n, loader.Redact(p.cfg.DB))
		return nil
	}
	fmt.Fprintln(stderr, "demo: seeding the demo data set...")
	prog := newProgress(stderr, "seed", "flags")
	err := p.db.Seed(ctx, loader.SeedOptions{Flags: loader.DemoSize(), Users: 500, Days: 90, Seed: 1,
		Progress: prog.count})
	prog.done()
	if err != nil {
		return err
	}
	secret, _, err := p.db.CreateKey(ctx, "demo", "", 0)
	if err != nil {
		return err
	}
	addr := p.ln.Addr().String()
	curl := fmt.Sprintf("curl -H 'Authorization: Bearer %s' 'http://%s/api/public/flags?limit=2'", secret, addr)
	fmt.Fprintf(stdout, "\nflagpole demo: %d flags seeded. Your API key (only its hash is stored: copy it now):\n\n  %s\n\nTry:\n\n  %s\n\n"+
		"Explorer: http://%s/ (paste the key)   Reference: http://%s/api/public/docs\n\n", loader.DemoSize(), secret, curl, addr, addr)
	p.banner = box("flagpole demo is ready. Your API key (only its hash is stored: copy it now):", "", "  "+secret, "", "Try:", "  "+curl, "",
		fmt.Sprintf("Explorer: http://%s/   Reference: http://%s/api/public/docs", addr, addr))
	return nil
}

// box frames lines between two rules, without side borders, so that a
// line copied from it is exactly the command.
func box(lines ...string) string {
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	rule := strings.Repeat("=", width)
	return "\n" + rule + "\n" + strings.Join(lines, "\n") + "\n" + rule + "\n\n"
}

// Addr is the API's listen address.
func (p *program) Addr() string { return p.ln.Addr().String() }

// Ready is closed after the first load.
func (p *program) Ready() <-chan struct{} { return p.ready }

func (p *program) readiness() (bool, map[string]any) {
	st := p.loader.Status()
	s, k := p.store.Snapshot(), p.store.Keys()
	detail := map[string]any{"loads": st.Loads, "loadFailures": st.Failures, "keyLoadFailures": st.KeyFailures}
	if !st.LastSuccess.IsZero() {
		detail["lastLoadAt"] = st.LastSuccess.UTC().Format(memstore.TimeFormat)
	}
	if st.KeyLastError != "" {
		detail["lastKeyError"] = st.KeyLastError
		detail["lastKeyErrorAt"] = st.KeyLastErrorAt.UTC().Format(memstore.TimeFormat)
	}
	detail["dbTimeouts"] = p.src.Timeouts()
	if st.LastError != "" {
		detail["lastError"] = st.LastError
		detail["lastErrorAt"] = st.LastErrorAt.UTC().Format(memstore.TimeFormat)
	}
	ready := s != nil && k != nil
	if s != nil {
		age := time.Since(s.LoadedAt)
		snap := httpapi.SnapshotDetail(s, time.Now())
		snap["lastLoadMs"] = st.LastDuration.Milliseconds()
		detail["snapshot"] = snap
		if p.cfg.MaxSnapshotAge > 0 && age > p.cfg.MaxSnapshotAge {
			ready = false
			detail["stale"] = fmt.Sprintf("the snapshot is older than max_snapshot_age (%s)", p.cfg.MaxSnapshotAge)
		}
	}
	if p.limiter != nil {
		detail["rateLimit"] = map[string]any{"shared": !p.limiter.Degraded(), "fallbacks": p.limiter.Fallbacks()}
	}
	if k != nil {
		detail["keys"] = map[string]any{"count": k.Len(), "loadedAt": k.LoadedAt.UTC().Format(memstore.TimeFormat)}
	}
	return ready, detail
}

// Run serves until ctx ends, then shuts down gracefully.
func (p *program) Run(ctx context.Context) error {
	srv := &http.Server{Handler: p.api.Handler(), ConnState: p.ln.ConnState, ReadHeaderTimeout: p.cfg.ReadHeaderTimeout,
		ReadTimeout: p.cfg.ReadTimeout, WriteTimeout: p.cfg.WriteTimeout, IdleTimeout: p.cfg.IdleTimeout,
		MaxHeaderBytes: 32 << 10, ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn)}
	servers := []*http.Server{srv}
	errc := make(chan error, 4)
	go func() { errc <- srv.Serve(p.ln) }()
	if p.adminLn != nil {
		admin := &http.Server{Handler: p.adminHandler(), ReadHeaderTimeout: 5 * time.Second}
		servers = append(servers, admin)
		go func() { errc <- admin.Serve(p.adminLn) }()
	}
	admin := ""
	if p.adminLn != nil {
		admin = p.adminLn.Addr().String()
	}
	p.log.Info("listening", "addr", p.Addr(), "admin_addr", admin, "db", loader.Redact(p.cfg.DB), "refresh", p.cfg.Refresh,
		"max_conns", p.ln.Max(), "max_conns_per_ip", p.cfg.MaxConnsPerIP, "anon_rate_limit", p.cfg.AnonRateLimit)

	loadCtx, stopLoads := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := p.loader.Run(loadCtx, p.cfg.Refresh, p.cfg.KeyRefresh, func() { close(p.ready) })
		if err != nil && !errors.Is(err, context.Canceled) {
			errc <- err
		}
	}()
	if p.cfg.SnapshotDaily {
		c := cron.New(cron.WithLocation(time.UTC))
		c.AddFunc("0 0 * * *", func() {
			n, skipped, err := p.db.SnapshotDayExclusive(loadCtx, time.Now())
			switch {
			case err != nil:
				p.db.DropIdle()
				p.log.Warn("daily snapshot failed", "err", p.db.Explain(err))
			case skipped:
				p.log.Info("daily snapshot written by another instance")
			default:
				p.log.Info("daily snapshot", "rows", n)
			}
		})
		c.Start()
		defer c.Stop()
	}

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	stopLoads()
	p.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), p.cfg.ShutdownTimeout)
	defer cancel()
	for _, s := range servers {
		s.Shutdown(sctx)
	}
	loadsDone := make(chan struct{})
	go func() { wg.Wait(); close(loadsDone) }()
	select {
	case <-loadsDone:
	case <-sctx.Done():
		p.log.Warn("the loads did not stop within shutdown_timeout; exiting anyway")
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (p *program) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/healthz", p.api.Handler())
	mux.HandleFunc("/readyz", p.adminReadyz)
	mux.Handle("/metrics", metricsHandler(p.reg))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// adminReadyz is /readyz with the operator's whole detail: load counts,
// the last error, the keys, the rate limiter.
func (p *program) adminReadyz(w http.ResponseWriter, r *http.Request) {
	ready, detail := p.readiness()
	detail["status"] = "ready"
	status := http.StatusOK
	if !ready {
		detail["status"], status = "not_ready", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(detail)
}

// Close releases the databases, listeners and cache.
func (p *program) Close() {
	if p.api != nil {
		p.api.Close()
	}
	if p.redis != nil {
		p.redis.Close()
	}
	if p.ln != nil {
		p.ln.Close()
	}
	if p.adminLn != nil {
		p.adminLn.Close()
	}
	if p.src != nil && p.src != p.db {
		p.src.Close()
	}
	if p.db != nil {
		p.db.Close()
	}
}
