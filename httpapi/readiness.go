package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// TimeFormat is the contract's timestamp layout: UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Readiness is what /readyz tells anyone: whether the instance is ready
// and how fresh its data is. The fields are in the order of their JSON
// keys, sorted, as the body has always listed them.
type Readiness struct {
	Ready     bool            `json:"-"`
	RateLimit *RateLimitState `json:"rateLimit,omitempty"`
	// Reason says why the instance is not ready: ReasonStarting,
	// ReasonStale or ReasonShuttingDown; empty when it is.
	Reason   string         `json:"reason,omitempty"`
	Snapshot *SnapshotState `json:"snapshot,omitempty"`
	// Stale says why a loaded snapshot no longer makes the instance ready.
	Stale  string `json:"stale,omitempty"`
	Status string `json:"status,omitempty"` // "ready" or "not_ready", set by the handler
}

// The reasons of a Readiness that is not ready.
const (
	// ReasonStarting: the first snapshot or the keys are not loaded yet.
	ReasonStarting = "starting"
	// ReasonStale: the snapshot is older than the operator allows.
	ReasonStale = "stale"
	// ReasonShuttingDown: the process is stopping (SIGTERM); it serves on
	// for a moment so that load balancers take it out first.
	ReasonShuttingDown = "shutting down"
)

// SnapshotState is the snapshot part of /readyz: which one, how big, how
// old, whether its trend history is in and, where the loader reports it,
// how long its load took.
type SnapshotState struct {
	AgeSeconds   float64 `json:"ageSeconds"`
	Flags        int     `json:"flags"`
	Generation   uint64  `json:"generation"`
	LastLoadMs   *int64  `json:"lastLoadMs,omitempty"`
	LoadedAt     string  `json:"loadedAt"`
	TrendsLoaded bool    `json:"trendsLoaded"`
}

// RateLimitState is whether the rate limiter is shared (Redis answers)
// and how many times it fell back to counting in-process.
type RateLimitState struct {
	Fallbacks int64 `json:"fallbacks"`
	Shared    bool  `json:"shared"`
}

// SnapshotDetail is the state of snapshot s at now.
func SnapshotDetail(s *memstore.Snapshot, now time.Time) *SnapshotState {
	return &SnapshotState{Generation: s.Gen, Flags: s.Len(), TrendsLoaded: s.Trends != nil,
		LoadedAt:   s.LoadedAt.UTC().Format(TimeFormat),
		AgeSeconds: now.Sub(s.LoadedAt).Round(time.Millisecond).Seconds()}
}

// readyz is 200 once a snapshot and the keys are loaded (and, where the
// operator set a maximum age, the snapshot is fresh enough), 503 before.
func (a *API) readyz(c *gin.Context) {
	r := a.readiness()
	if !r.Ready {
		// The problem carries the readiness's members too (snapshot,
		// stale, rateLimit: none is a problem member), so a monitor
		// reads .stale as on a 200.
		c.Header("Retry-After", "1")
		r.Status = "" // the problem's status is the HTTP one
		body, err := json.Marshal(r)
		if err != nil {
			a.writeProblem(c, err)
			return
		}
		a.writeProblem(c, &Problem{Code: CodeUnavailable, Detail: notReadyDetail(r),
			Members: body[1 : len(body)-1]})
		return
	}
	r.Status = "ready"
	body, err := json.Marshal(r)
	if err != nil {
		a.writeProblem(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, "application/json; charset=utf-8", body)
}

// notReadyDetail says in words why r is not ready; its members say it
// for a monitor.
func notReadyDetail(r Readiness) string {
	switch {
	case r.Reason == ReasonStarting:
		return "not ready: starting, the first snapshot or the API keys are not loaded yet"
	case r.Reason == ReasonStale && r.Stale != "":
		return "not ready: stale, " + r.Stale
	case r.Reason != "":
		return "not ready: " + r.Reason
	}
	return "not ready"
}

// readiness is Options.Ready's answer or, without one, ready once the
// store has a snapshot and keys.
func (a *API) readiness() Readiness {
	if a.opt.Ready != nil {
		return a.opt.Ready()
	}
	s, k := a.store.Snapshot(), a.store.Keys()
	r := Readiness{Ready: s != nil && k != nil}
	if !r.Ready {
		r.Reason = ReasonStarting
	}
	if s != nil {
		r.Snapshot = SnapshotDetail(s, a.now())
	}
	return r
}
