package main

import (
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// drain begins a graceful stop on the first stop signal s: /readyz
// answers 503 on both addresses (reason "shutting down") and every answer
// of the API closes its connection, while the API goes on serving, so
// that load balancers take the instance out and clients with keep-alive
// connections reconnect elsewhere before it stops accepting. The channel
// it returns is closed after shutdown_delay.
func (p *program) drain(s os.Signal) <-chan struct{} {
	p.draining.Store(true)
	cfg := p.settings()
	d := cfg.ShutdownDelay
	p.log.Info("shutting down: /readyz answers 503; the API serves on for shutdown_delay, then stops accepting",
		"signal", s.String(), "shutdown_delay", cfg.Text("shutdown_delay"))
	done := make(chan struct{})
	time.AfterFunc(d, func() { close(done) })
	return done
}

// closeWhile is h, whose answers close their connection (Connection:
// close) while *draining is set: a client holding a keep-alive connection
// to this instance, directly or through a balancer that forwards
// connections (a Kubernetes Service), makes its next request on a new
// connection, which the balancer sends to an instance that is ready.
func closeWhile(draining *atomic.Bool, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if draining.Load() {
			w.Header()["Connection"] = closeValue
		}
		h.ServeHTTP(w, r)
	})
}

// closeValue is the header value of Connection: close.
var closeValue = []string{"close"}
