package httpapi

import (
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
)

// maxAnonAddrs bounds the addresses the keyless limiter remembers.
const maxAnonAddrs = 1 << 20

// admitAnon counts a request without a valid key against its client
// address. Over the limit it writes the 429 and returns false. It runs
// only on requests that carry no valid key, and never leaves the process.
func (a *API) admitAnon(c *gin.Context) bool {
	anon := a.anonLimiter()
	if anon == nil {
		return true
	}
	addr := a.clientAddr(c.Request)
	if !addr.IsValid() {
		return true
	}
	r := anon.Allow(limitAddr(addr), a.now())
	if r.Unlogged > 0 {
		a.logUnlogged(limitAddr(addr), r.Unlogged)
	}
	if !r.Refused {
		return true
	}
	a.metrics.anonLimited.Inc()
	wait := max(int64(math.Ceil(r.RetryAfter.Seconds())), 1)
	c.Header("Retry-After", strconv.FormatInt(wait, 10))
	a.writeProblem(c, &Problem{Code: CodeRateLimited, Detail: anonDetail(anon.Limit())})
	if log := a.accessLogger(); r.Log && log != nil {
		// The access log leaves out keyless 429s (see accessLog): the
		// sampled ones are written here.
		log.Info("request", "request_id", requestIDOf(c), "key_id", "", "client", addr.String(),
			"method", c.Request.Method, "route", c.FullPath(), "path", c.Request.URL.Path,
			"status", c.Writer.Status(), "bytes", c.Writer.Size(), "retry_after", wait)
	}
	return false
}

// logUnlogged writes the one access-log line that stands for the refusals
// of an address that were counted but not logged one by one.
func (a *API) logUnlogged(addr netip.Addr, n uint32) {
	if log := a.accessLogger(); log != nil {
		log.Info("requests without a valid key refused (not logged one by one)",
			"client", addr.String(), "refused", n)
	}
}

// flushUnlogged logs every count of refusals not yet reported, the
// current minute's too (at Close).
func (a *API) flushUnlogged() {
	if anon := a.anonLimiter(); anon != nil {
		anon.Flush(a.logUnlogged)
	}
}

// Sweep drops the rate limiters' memory of idle keys and addresses, and
// logs the refusals not yet reported. The API runs it every
// Options.SweepEvery.
func (a *API) Sweep(now time.Time) {
	if s, ok := a.limiter.(ratelimit.Sweeper); ok {
		s.Sweep(now)
	}
	if anon := a.anonLimiter(); anon != nil {
		anon.Sweep(now, a.logUnlogged)
	}
}

func (a *API) sweepLoop() {
	t := time.NewTicker(a.opt.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
			a.Sweep(a.now())
		}
	}
}
