package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

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
