// Package httpapi is flagpole's HTTP face: the Gin engine, its middleware
// (request id, CORS, key check, rate limit), the handlers that answer from
// the current memstore snapshot, and problem+json errors. It runs no SQL.
package httpapi

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/config/addrset"
	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/httpapi/stream"
	"github.com/flagpole/flagpole/memstore"
)

// Options configure an API. A limit that a setting can turn off takes
// the setting's value as it is, 0 meaning off as in config; the defaults
// of the settings live in config's table alone. A zero tuning field that
// no setting can turn off means its default.
type Options struct {
	Store *memstore.Store
	// Limiter counts requests per key; nil means an in-process one.
	Limiter ratelimit.Limiter
	// RateLimit is the per-minute budget of a key without its own.
	RateLimit int
	// CacheBytes bounds the cache of rendered responses (0: no cache).
	CacheBytes int64
	// Ready reports what /readyz shows; nil means ready once the store has
	// a snapshot and keys.
	Ready func() Readiness
	Log   *slog.Logger
	// AccessLog, when set, receives one line per request.
	AccessLog *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Metrics, when set, receives the request counters and histograms.
	Metrics prometheus.Registerer
	// AnonRateLimit is the per-minute budget of one client address for
	// requests without a valid key (the anon_rate_limit setting); 0: off.
	AnonRateLimit int
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (the trusted_proxies setting, parsed by config); empty: the
	// connection's peer is the client.
	TrustedProxies addrset.Set
	// SweepEvery is how often the limiters forget idle keys and addresses
	// (0: every 30 seconds).
	SweepEvery time.Duration
	// MaxStreamsPerKey is the most live streams one key holds open (0:
	// the hub's default, 5); MaxStreams, the most this process holds (0:
	// 12,288). See stream.Options. The connection bounds cap them too,
	// below max_conns (connlimit.Claim).
	MaxStreamsPerKey, MaxStreams int
	// StreamHeartbeat is the longest an idle stream goes without a
	// comment line (0: 15 s); StreamWriteTimeout bounds each write to a stream (0: 10 s);
	// StreamBuffer is the most events queued for one stream (0: 64).
	StreamHeartbeat, StreamWriteTimeout time.Duration
	StreamBuffer                        int
	// ServerTiming adds the Server-Timing header to the answers of the
	// routes that check a key (see timing).
	ServerTiming bool
}

// API serves the public API from a memstore.Store.
type API struct {
	opt     Options
	store   *memstore.Store
	limiter ratelimit.Limiter
	cache   *cache
	details *table
	// trends keeps the short trend answers, as details the details.
	trends *table
	// answers keeps the answers of the routes the query string fixes;
	// unswap stops its pruning at each swap (nil without it).
	answers *answers
	unswap  func()
	// unslugs takes the gate of the details' and trends' tables from
	// before the store's swaps (nil without them).
	unslugs func()
	// swaps notes what each swap changed, for the search and list views;
	// unlog stops it.
	swaps   *swapLog
	unlog   func()
	log     *slog.Logger
	now     func() time.Time
	engine  *gin.Engine
	openapi *response
	metrics *metrics
	// live are the settings Apply changes while the API runs.
	live live
	stop chan struct{}
	// searches runs search queries and keeps their results.
	searches *searches
	// hub feeds the live streams.
	hub *stream.Hub
}

// New builds the API and its route table.
func New(opt Options) (*API, error) {
	if opt.Limiter == nil {
		opt.Limiter = ratelimit.NewLocal()
	}
	if opt.RateLimit <= 0 {
		opt.RateLimit = 60
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	// Three eighths of the budget are the details' table, a quarter the
	// trends', a quarter the answers', the rest (an eighth) the response
	// cache.
	detailBytes, trendBytes, answerBytes := opt.CacheBytes*3/8, opt.CacheBytes/4, opt.CacheBytes/4
	if ledgerOff.details {
		detailBytes, trendBytes = 0, 0
	}
	if ledgerOff.answers {
		answerBytes = 0
	}
	c, err := newCache(opt.CacheBytes - detailBytes - trendBytes - answerBytes)
	if err != nil {
		return nil, err
	}
	spec, err := OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	if opt.SweepEvery <= 0 {
		opt.SweepEvery = 30 * time.Second
	}
	a := &API{opt: opt, store: opt.Store, limiter: opt.Limiter, cache: c, details: newDetails(detailBytes), trends: newTrends(trendBytes), answers: newAnswers(answerBytes), log: opt.Log, now: opt.Now, openapi: newResponse(spec),
		stop: make(chan struct{})}
	a.setLive(opt)
	a.metrics = newMetrics(opt.Metrics, a)
	a.swaps = &swapLog{}
	if a.searches, err = newSearches(searchBytes(opt.CacheBytes), opt.Metrics, a.swaps); err != nil {
		return nil, err
	}
	if opt.Metrics != nil {
		opt.Metrics.MustRegister(newCacheCollector(a))
	}
	a.unlog = opt.Store.OnSwap(func(s *memstore.Snapshot) { a.swaps.record(opt.Store.Snapshot(), s) })
	a.swaps.anchor(opt.Store.Snapshot())
	if a.answers != nil {
		a.unswap = opt.Store.OnSwapped(a.answers.drop)
	}
	if a.details != nil || a.trends != nil {
		g := &slugGate{}
		g.add(a.details)
		g.add(a.trends)
		a.unslugs = opt.Store.OnSwap(g.swap)
		g.start(opt.Store.Snapshot())
	}
	a.hub = newHub(opt)
	a.engine = a.routes()
	go a.sweepLoop()
	return a, nil
}

// searchBytes is the search caches' share of cacheBytes: three eighths,
// half for what searches matched, half for their pages (a quarter until
// the matches were kept across swaps).
func searchBytes(cacheBytes int64) int64 { return cacheBytes * 3 / 8 }

// Handler is the http.Handler of the API.
func (a *API) Handler() http.Handler { return http.HandlerFunc(a.serveHTTP) }

// CacheHitRatio is the share of lookups the caches answered since start:
// rendered responses, and searches whose entry was kept (a spelling of
// the query not asked before is then rendered, without running the
// search). Deprecated: the metrics' flagpole_cache_hits_total and
// flagpole_cache_lookups_total give it per cache and over any window.
func (a *API) CacheHitRatio() float64 {
	found, all := a.cache.lookups()
	df, da := a.details.lookups()
	tf, ta := a.trends.lookups()
	sf, sa := a.searches.lookups()
	af, aa := a.answers.lookups()
	if all+da+ta+sa+aa == 0 {
		return 0
	}
	return float64(found+df+tf+sf+af) / float64(all+da+ta+sa+aa)
}

// Close ends the live streams, stops the limiters' sweep and releases the
// response cache.
func (a *API) Close() {
	if a.unslugs != nil {
		a.unslugs()
	}
	if a.unswap != nil {
		a.unswap()
	}
	a.unlog()
	a.hub.Close()
	select {
	case <-a.stop:
	default:
		close(a.stop)
		a.flushUnlogged()
	}
	a.cache.close()
	a.searches.close()
}

// notFoundDetail is the detail of a 404 for an unknown path: what the
// path misses, so that a client sees its mistake.
func notFoundDetail(path string) string {
	if !strings.HasPrefix(path, "/api/public/") {
		return "no such path; the API lives under /api/public/ (its reference: /api/public/docs; the probes are /healthz and /readyz)"
	}
	return "no such path under /api/public/ (a path takes no trailing slash); the routes are listed in /api/public/openapi.json"
}

// routes registers every route and the middleware, in order.
func (a *API) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	// Route on the path as sent, so that an encoded slash stays inside a
	// slug (/flag/a%2Ftrend is the flag "a/trend", not a trend).
	e.UseRawPath = true
	e.UnescapePathValues = true

	e.Use(a.recoverer, a.observe, a.requestID, a.accessLog)
	e.Use(corsEverywhere(newCORSPolicy(newCORS())))
	e.NoRoute(func(c *gin.Context) {
		if a.chargeRequest(c) {
			a.writeProblem(c, &Problem{Code: CodeNotFound, Detail: notFoundDetail(c.Request.URL.Path)})
		}
	})
	e.NoMethod(func(c *gin.Context) {
		c.Header("Allow", "GET, HEAD, OPTIONS")
		if a.chargeRequest(c) {
			a.writeProblem(c, &Problem{Code: CodeMethodNotAllowed, Detail: "only GET, HEAD and OPTIONS are allowed"})
		}
	})

	open := func(path string, h gin.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
		preflightRoute(e, path)
	}
	open("/healthz", a.healthz)
	open("/readyz", a.readyz)
	open("/api/public/openapi.json", a.openapiDoc)
	a.uiRoutes(e)

	api := e.Group("/api/public", a.auth)
	data := func(path string, h gin.HandlerFunc) {
		api.GET(path, h)
		api.HEAD(path, h)
		preflightRoute(e, "/api/public"+path)
	}
	data("/flags", a.serve(a.flags))
	data("/flag/:slug", a.serve(a.flag))
	data("/flag/:slug/trend", a.serve(a.trend)) // the day's date fixes it too
	data("/categories", a.serve(a.categories))
	data("/regions", a.serve(a.regions))
	data("/stats", a.serve(a.stats))
	data("/search", a.serveQuery(routeSearch, a.search))
	// The live stream: spends one request when it opens.
	api.GET("/stream", a.liveStream)
	api.HEAD("/stream", a.liveStream)
	preflightRoute(e, "/api/public/stream")
	// The budget: a key is required, nothing is spent.
	e.GET("/api/public/rate_limit", a.rateLimit)
	e.HEAD("/api/public/rate_limit", a.rateLimit)
	preflightRoute(e, "/api/public/rate_limit")
	return e
}

// preflightRoute registers the OPTIONS route of path, so that the metrics
// and the access log name the route of a preflight. The route has no
// handler of its own: corsEverywhere, one of the middleware every route
// runs, answers every OPTIONS request (204 with the policy and Allow), on
// a path of the API or not. It relies on that middleware being installed
// (e.Use) before the routes: gin refuses a route with no handler at all.
func preflightRoute(e *gin.Engine, path string) { e.OPTIONS(path) }
