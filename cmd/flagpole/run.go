package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader"
)

// Addr is the API's listen address.
func (p *program) Addr() string { return p.ln.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully: the API stops
// accepting and finishes what is in flight, the loads stop, and the admin
// address answers until the end. The drain before (shutdown_delay) is
// followSignals's, which ends ctx.
func (p *program) Run(ctx context.Context) error {
	errc := make(chan error, 4)
	api, admin := p.serve(errc)
	adminAddr := ""
	if p.adminLn != nil {
		adminAddr = p.adminLn.Addr().String()
	}
	procs := runtime.GOMAXPROCS(0)
	p.log.Info("listening", "addr", p.Addr(), "admin_addr", adminAddr, "db", loader.Redact(p.cfg.DB), "listen", p.cfg.Listen,
		"refresh", p.cfg.Refresh, "key_refresh", p.cfg.KeyRefresh,
		"max_conns", p.ln.Max(), "max_conns_per_ip", p.cfg.MaxConnsPerIP, "anon_rate_limit", p.cfg.AnonRateLimit,
		"shutdown_delay", p.cfg.Text("shutdown_delay"), "gomaxprocs", procs)
	if procs < 2 {
		// Measured (docs/deploy.md, Capacity): under 200 votes a second at
		// 100,000 flags, one thread of Go code nearly tripled the p99.
		p.log.Warn("one CPU runs Go code: each load's build holds it while requests wait; give flagpole two CPUs (docs/deploy.md, Capacity)",
			"gomaxprocs", procs)
	}
	for _, c := range p.cfg.Cautions(time.Now()) {
		p.log.Warn(c)
	}

	loadCtx, stopLoads := context.WithCancel(ctx)
	loadsDone := p.runLoads(loadCtx, errc)
	if p.cfg.SnapshotDaily {
		c := p.scheduleSnapshots(loadCtx)
		defer c.Stop()
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	p.draining.Store(true) // also when stopped without a drain: /readyz says so until the end
	stopLoads()
	p.shutdown(api, admin, loadsDone)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// serve starts the API's server and the admin one, if any (nil without);
// a server that stops sends its error to errc.
func (p *program) serve(errc chan<- error) (api, admin *http.Server) {
	api = &http.Server{Handler: closeWhile(&p.draining, p.api.Handler()), ConnState: p.ln.ConnState,
		ReadHeaderTimeout: p.cfg.ReadHeaderTimeout,
		ReadTimeout:       p.cfg.ReadTimeout, WriteTimeout: p.cfg.WriteTimeout, IdleTimeout: p.cfg.IdleTimeout,
		MaxHeaderBytes: httpapi.MaxHeaderBytes, DisableGeneralOptionsHandler: true, ConnContext: p.ln.ConnContext,
		ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn)}
	api.RegisterOnShutdown(p.api.CloseStreams) // Shutdown waits for active requests: end the live streams
	go func() { errc <- api.Serve(p.ln) }()
	if p.adminLn != nil {
		admin = &http.Server{Handler: p.adminHandler(), ReadHeaderTimeout: 5 * time.Second}
		go func() { errc <- admin.Serve(p.adminLn) }()
	}
	return api, admin
}

// runLoads runs the loader until ctx ends (closing p.ready after the first
// load) and closes the channel it returns when the loader has stopped; a
// loader that fails sends its error to errc.
func (p *program) runLoads(ctx context.Context, errc chan<- error) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		cfg := p.settings() // as a SIGHUP before left it; one after reschedules the loads
		err := p.loader.Run(ctx, cfg.Refresh, cfg.KeyRefresh, func() { close(p.ready) })
		if err != nil && !errors.Is(err, context.Canceled) {
			errc <- err
		}
	}()
	return done
}

// scheduleSnapshots writes the daily vote snapshot at midnight UTC (one
// instance of many does it); the caller stops the cron.
func (p *program) scheduleSnapshots(ctx context.Context) *cron.Cron {
	c := cron.New(cron.WithLocation(time.UTC))
	c.AddFunc("0 0 * * *", func() {
		n, skipped, err := p.db.SnapshotDayExclusive(ctx, time.Now())
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
	return c
}

// shutdown stops the API's server (it stops accepting, ends the live
// streams and lets requests in flight finish) and waits for the loads to
// stop, both within shutdown_timeout; the admin server goes last, so that
// /readyz and /metrics answer throughout.
func (p *program) shutdown(api, admin *http.Server, loadsDone <-chan struct{}) {
	cfg := p.settings()
	p.log.Info("shutting down: the API stops accepting", "shutdown_timeout", cfg.Text("shutdown_timeout"))
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := api.Shutdown(sctx); err != nil {
		p.log.Warn("requests still in flight at shutdown_timeout were cut", "err", err)
	}
	select {
	case <-loadsDone:
	case <-sctx.Done():
		p.log.Warn("the loads did not stop within shutdown_timeout; exiting anyway")
	}
	if admin != nil {
		admin.Close()
	}
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
