package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader"
)

// Addr is the API's listen address.
func (p *program) Addr() string { return p.ln.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully.
func (p *program) Run(ctx context.Context) error {
	errc := make(chan error, 4)
	servers := p.serve(errc)
	admin := ""
	if p.adminLn != nil {
		admin = p.adminLn.Addr().String()
	}
	p.log.Info("listening", "addr", p.Addr(), "admin_addr", admin, "db", loader.Redact(p.cfg.DB), "listen", p.cfg.Listen,
		"refresh", p.cfg.Refresh, "key_refresh", p.cfg.KeyRefresh,
		"max_conns", p.ln.Max(), "max_conns_per_ip", p.cfg.MaxConnsPerIP, "anon_rate_limit", p.cfg.AnonRateLimit)

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
	stopLoads()
	p.shutdown(servers, loadsDone)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// serve starts the API's server and the admin one, if any; a server that
// stops sends its error to errc.
func (p *program) serve(errc chan<- error) []*http.Server {
	srv := &http.Server{Handler: p.api.Handler(), ConnState: p.ln.ConnState, ReadHeaderTimeout: p.cfg.ReadHeaderTimeout,
		ReadTimeout: p.cfg.ReadTimeout, WriteTimeout: p.cfg.WriteTimeout, IdleTimeout: p.cfg.IdleTimeout,
		MaxHeaderBytes: httpapi.MaxHeaderBytes, DisableGeneralOptionsHandler: true, ConnContext: p.ln.ConnContext,
		ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn)}
	srv.RegisterOnShutdown(p.api.CloseStreams) // Shutdown waits for active requests: end the live streams
	servers := []*http.Server{srv}
	go func() { errc <- srv.Serve(p.ln) }()
	if p.adminLn != nil {
		admin := &http.Server{Handler: p.adminHandler(), ReadHeaderTimeout: 5 * time.Second}
		servers = append(servers, admin)
		go func() { errc <- admin.Serve(p.adminLn) }()
	}
	return servers
}

// runLoads runs the loader until ctx ends (closing p.ready after the first
// load) and closes the channel it returns when the loader has stopped; a
// loader that fails sends its error to errc.
func (p *program) runLoads(ctx context.Context, errc chan<- error) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := p.loader.Run(ctx, p.cfg.Refresh, p.cfg.KeyRefresh, func() { close(p.ready) })
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

// shutdown stops the servers and waits for the loads to stop, both within
// shutdown_timeout.
func (p *program) shutdown(servers []*http.Server, loadsDone <-chan struct{}) {
	p.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), p.cfg.ShutdownTimeout)
	defer cancel()
	for _, s := range servers {
		s.Shutdown(sctx)
	}
	select {
	case <-loadsDone:
	case <-sctx.Done():
		p.log.Warn("the loads did not stop within shutdown_timeout; exiting anyway")
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
