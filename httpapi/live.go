package httpapi

import (
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/flagpole/flagpole/config/addrset"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
)

// Settings are the settings an API takes while it runs (serve applies
// them on SIGHUP). Apply takes them all, changed or not; each field means
// what the Options field of its name does.
type Settings struct {
	RateLimit        int
	AnonRateLimit    int
	TrustedProxies   addrset.Set
	AccessLog        *slog.Logger
	MaxStreamsPerKey int
	CacheBytes       int64
	ServerTiming     bool
}

// live holds the settings the request path reads, each swapped whole by
// Apply: a request reads each once, and sees it either before or after.
type live struct {
	rateLimit atomic.Int64
	proxies   atomic.Pointer[addrset.Set]
	anon      atomic.Pointer[ratelimit.Addrs] // nil: keyless traffic is not limited
	accessLog atomic.Pointer[slog.Logger]     // nil: no access log
	// cacheBytes is the cache budget now (Options.CacheBytes at New).
	cacheBytes atomic.Int64
	// serverTiming: answers of the key-checked routes carry Server-Timing.
	serverTiming atomic.Bool
}

// setLive stores the settings of opt at New.
func (a *API) setLive(opt Options) {
	a.live.rateLimit.Store(int64(opt.RateLimit))
	proxies := opt.TrustedProxies
	a.live.proxies.Store(&proxies)
	if opt.AnonRateLimit > 0 {
		a.live.anon.Store(ratelimit.NewAddrs(opt.AnonRateLimit, maxAnonAddrs))
	}
	a.live.accessLog.Store(opt.AccessLog)
	a.live.cacheBytes.Store(opt.CacheBytes)
	a.live.serverTiming.Store(opt.ServerTiming)
}

// Apply makes s the API's settings from the next request on. The rate
// limiters keep what they counted: a key's window and an address's bucket
// carry over to the new limits (an address limit turned off forgets its
// buckets). The response and search caches take the new size; the
// details', trends' and answers' tables keep theirs, which only a restart
// changes, as do caches that were off (CacheBytes 0) at New. It returns
// what it could not apply, for the operator's log.
func (a *API) Apply(s Settings) (notApplied []string) {
	if s.RateLimit > 0 {
		a.live.rateLimit.Store(int64(s.RateLimit))
	}
	proxies := s.TrustedProxies
	a.live.proxies.Store(&proxies)
	switch anon := a.live.anon.Load(); {
	case s.AnonRateLimit <= 0:
		a.live.anon.Store(nil)
	case anon == nil:
		a.live.anon.Store(ratelimit.NewAddrs(s.AnonRateLimit, maxAnonAddrs))
	default:
		anon.SetLimit(s.AnonRateLimit)
	}
	a.live.accessLog.Store(s.AccessLog)
	a.live.serverTiming.Store(s.ServerTiming)
	a.hub.SetMaxPerKey(s.MaxStreamsPerKey)
	if s.CacheBytes == a.live.cacheBytes.Load() {
		return nil
	}
	if a.opt.CacheBytes <= 0 || s.CacheBytes <= 0 {
		return []string{"cache_mb: turning the caches on or off takes a restart"}
	}
	a.live.cacheBytes.Store(s.CacheBytes)
	// The shares of New: an eighth for the response cache, three eighths
	// more for the searches' (searchBytes).
	a.cache.resize(s.CacheBytes - s.CacheBytes*3/8 - s.CacheBytes/4 - s.CacheBytes/4)
	a.searches.resize(searchBytes(s.CacheBytes))
	if s.CacheBytes == a.opt.CacheBytes {
		return nil
	}
	return []string{fmt.Sprintf("cache_mb: the response and search caches take the new size; the details', "+
		"trends' and answers' tables keep their %d MB until a restart", (a.opt.CacheBytes*7/8)>>20)}
}

// resize bounds the response cache to maxBytes from now on (ristretto
// evicts down to it as entries come in).
func (c *cache) resize(maxBytes int64) {
	if c.rc != nil {
		c.rc.UpdateMaxCost(maxBytes)
	}
}

// rateLimitNow is the per-minute budget of a key without its own.
func (a *API) rateLimitNow() int { return int(a.live.rateLimit.Load()) }

// trustedProxies are the peers whose X-Forwarded-For names the client.
func (a *API) trustedProxies() addrset.Set { return *a.live.proxies.Load() }

// anonLimiter limits keyless traffic by address; nil when it is off.
func (a *API) anonLimiter() *ratelimit.Addrs { return a.live.anon.Load() }

// accessLogger receives one line per request; nil when the access log is
// off.
func (a *API) accessLogger() *slog.Logger { return a.live.accessLog.Load() }

// anonDetail is the detail of the keyless 429 under limit.
func anonDetail(limit int) string {
	return fmt.Sprintf("requests without a valid API key may come %d a minute from one address; "+
		"wait Retry-After seconds, or send a key", limit)
}
