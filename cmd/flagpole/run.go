package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/loader"
)

// Addr is the API's listen address.
func (p *program) Addr() string { return p.ln.Addr().String() }

// Ready is closed after the first load.
func (p *program) Ready() <-chan struct{} { return p.ready }

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
