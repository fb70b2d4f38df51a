package httpapi

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// ctxTiming is where a request's timing waits in its gin context (only
// while the Server-Timing header is on: the map costs an allocation).
const ctxTiming = "flagpole.timing"

// bootTime is what responses' birth times count from.
var bootTime = time.Now()

// timing is what the Server-Timing header (W3C Server Timing) tells a
// client of its request, when the operator turned it on (server_timing):
// the time to find its key, to decide its rate limit, to find or render
// its answer, whether a cache held the answer, and all of it from the key
// check to the answer's head. A load test reads it to tell the server's
// time from the network's. A nil *timing (the header off) does nothing.
type timing struct {
	start, auth, limiter time.Time
	render               time.Duration
	cache                string // "hit" or "miss" once the answer is found
}

// startTiming begins the request's timing, when the header is on.
func (a *API) startTiming(c *gin.Context) *timing {
	if !a.live.serverTiming.Load() {
		return nil
	}
	t := &timing{start: time.Now()}
	c.Set(ctxTiming, t)
	return t
}

// timing is the request's timing, nil when the header is off (or the
// route checks no key).
func (a *API) timing(c *gin.Context) *timing {
	if !a.live.serverTiming.Load() {
		return nil
	}
	v, _ := c.Get(ctxTiming)
	t, _ := v.(*timing)
	return t
}

// authDone marks the key found, or refused.
func (t *timing) authDone() {
	if t != nil {
		t.auth = time.Now()
	}
}

// limiterDone marks the rate limit decided.
func (t *timing) limiterDone() {
	if t != nil {
		t.limiter = time.Now()
	}
}

// renderBegins is when the answer's lookup begins (zero without timing).
func (t *timing) renderBegins() time.Time {
	if t == nil {
		return time.Time{}
	}
	return time.Now()
}

// rendered records the lookup, begun at begun, that found r: a hit when
// r was made before it began (a cache held it), a miss when it was made
// since.
func (t *timing) rendered(begun time.Time, r *response) {
	if t == nil {
		return
	}
	t.render = time.Since(begun)
	t.cache = "miss"
	if r.born < begun.Sub(bootTime) {
		t.cache = "hit"
	}
}

// setHeader sets Server-Timing on the answer about to be written: the
// phases done, and the one in progress up to now.
func (t *timing) setHeader(c *gin.Context) {
	if t == nil {
		return
	}
	now := time.Now()
	b := make([]byte, 0, 112)
	auth := t.auth
	if auth.IsZero() {
		auth = now
	}
	b = appendTiming(b, "auth", auth.Sub(t.start))
	if !t.auth.IsZero() {
		limiter := t.limiter
		if limiter.IsZero() {
			limiter = now
		}
		b = appendTiming(append(b, ", "...), "limiter", limiter.Sub(t.auth))
	}
	if t.cache != "" {
		b = append(append(append(b, ", cache;desc="...), t.cache...), ", "...)
		b = appendTiming(b, "render", t.render)
	}
	b = appendTiming(append(b, ", "...), "total", now.Sub(t.start))
	c.Writer.Header()["Server-Timing"] = []string{string(b)}
}

// appendTiming appends a metric of Server-Timing: name;dur= d in
// milliseconds, to the microsecond.
func appendTiming(b []byte, name string, d time.Duration) []byte {
	b = append(append(b, name...), ";dur="...)
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', -1, 64)
}
