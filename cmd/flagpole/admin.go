package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/flagpole/flagpole/httpapi"
)

// readiness is what the public /readyz shows: ready once the snapshot and
// the keys are loaded and, where max_snapshot_age is set, the snapshot is
// younger than that, until the process begins to stop.
func (p *program) readiness() httpapi.Readiness {
	s, k := p.store.Snapshot(), p.store.Keys()
	r := httpapi.Readiness{Ready: s != nil && k != nil}
	if !r.Ready {
		r.Reason = httpapi.ReasonStarting
	}
	if s != nil {
		r.Snapshot = httpapi.SnapshotDetail(s, time.Now())
		ms := p.loader.Status().LastDuration.Milliseconds()
		r.Snapshot.LastLoadMs = &ms
		if maxAge := p.settings().MaxSnapshotAge; maxAge > 0 && time.Since(s.LoadedAt) > maxAge {
			r.Ready, r.Reason = false, httpapi.ReasonStale
			r.Stale = fmt.Sprintf("the snapshot is older than max_snapshot_age (%s)", maxAge)
		}
	}
	if p.draining.Load() {
		r.Ready, r.Reason = false, httpapi.ReasonShuttingDown
	}
	if p.limiter != nil {
		r.RateLimit = &httpapi.RateLimitState{Shared: !p.limiter.Degraded(), Fallbacks: p.limiter.Fallbacks()}
	}
	return r
}

// adminReadiness is the admin address's /readyz: the public readiness and
// the operator's detail, the load counts, the last errors and the keys.
// The fields are in the order of their JSON keys, sorted (the embedded
// Readiness's come last), as the body has always listed them.
type adminReadiness struct {
	DBTimeouts      int64      `json:"dbTimeouts"`
	KeyLoadFailures int64      `json:"keyLoadFailures"`
	Keys            *keysState `json:"keys,omitempty"`
	LastError       string     `json:"lastError,omitempty"`
	LastErrorAt     string     `json:"lastErrorAt,omitempty"`
	LastKeyError    string     `json:"lastKeyError,omitempty"`
	LastKeyErrorAt  string     `json:"lastKeyErrorAt,omitempty"`
	LastLoadAt      string     `json:"lastLoadAt,omitempty"`
	LoadFailures    int64      `json:"loadFailures"`
	Loads           int64      `json:"loads"`
	httpapi.Readiness
}

// keysState is how many keys are loaded and when they were read.
type keysState struct {
	Count    int    `json:"count"`
	LoadedAt string `json:"loadedAt"`
}

func (p *program) adminReadiness() adminReadiness {
	st := p.loader.Status()
	r := adminReadiness{Readiness: p.readiness(), Loads: st.Loads, LoadFailures: st.Failures,
		KeyLoadFailures: st.KeyFailures, DBTimeouts: p.src.Timeouts()}
	if !st.LastSuccess.IsZero() {
		r.LastLoadAt = st.LastSuccess.UTC().Format(httpapi.TimeFormat)
	}
	if st.KeyLastError != "" {
		r.LastKeyError = st.KeyLastError
		r.LastKeyErrorAt = st.KeyLastErrorAt.UTC().Format(httpapi.TimeFormat)
	}
	if st.LastError != "" {
		r.LastError = st.LastError
		r.LastErrorAt = st.LastErrorAt.UTC().Format(httpapi.TimeFormat)
	}
	if k := p.store.Keys(); k != nil {
		r.Keys = &keysState{Count: k.Len(), LoadedAt: k.LoadedAt.UTC().Format(httpapi.TimeFormat)}
	}
	return r
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
	return httpapi.RequestID(mux)
}

// adminReadyz is /readyz with the operator's whole detail: load counts,
// the last error, the keys, the rate limiter.
func (p *program) adminReadyz(w http.ResponseWriter, r *http.Request) {
	detail := p.adminReadiness()
	detail.Status = "ready"
	status := http.StatusOK
	if !detail.Ready {
		detail.Status, status = "not_ready", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(detail)
}
