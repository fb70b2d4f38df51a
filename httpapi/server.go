// Package httpapi is flagpole's HTTP face: the Gin engine, its middleware
// (request id, CORS, key check, rate limit), the handlers that answer from
// the current memstore snapshot, and problem+json errors. It runs no SQL.
package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	gincors "github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/memstore"
)

// Options configure an API.
type Options struct {
	Store *memstore.Store
	// Limiter counts requests per key; nil means an in-process one.
	Limiter ratelimit.Limiter
	// RateLimit is the per-minute budget of a key without its own.
	RateLimit int
	// CacheBytes bounds the cache of rendered responses (0: no cache).
	CacheBytes int64
	// Ready reports readiness and its detail for /readyz; nil means ready
	// once the store has a snapshot and keys.
	Ready func() (bool, map[string]any)
	Log   *slog.Logger
	// AccessLog, when set, receives one line per request.
	AccessLog *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Metrics, when set, receives the request counters and histograms.
	Metrics prometheus.Registerer
}

// API serves the public API from a memstore.Store.
type API struct {
	opt     Options
	store   *memstore.Store
	limiter ratelimit.Limiter
	cache   *cache
	log     *slog.Logger
	now     func() time.Time
	engine  *gin.Engine
	openapi *response
	metrics *metrics
	views   *views
	// searches runs search queries and keeps their results.
	searches *searches
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
	c, err := newCache(opt.CacheBytes)
	if err != nil {
		return nil, err
	}
	spec, err := OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	a := &API{opt: opt, store: opt.Store, limiter: opt.Limiter, cache: c, log: opt.Log, now: opt.Now, openapi: newResponse(spec),
		metrics: newMetrics(opt.Metrics)}
	a.views = watch(opt.Store)
	if a.searches, err = newSearches(opt.CacheBytes/4, opt.Metrics); err != nil {
		return nil, err
	}
	a.engine = a.routes()
	return a, nil
}

// Handler is the http.Handler of the API.
func (a *API) Handler() http.Handler { return a.engine }

// CacheHitRatio is the share of rendered responses served from the cache.
func (a *API) CacheHitRatio() float64 { return a.cache.HitRatio() }

// Close releases the response cache.
func (a *API) Close() { a.cache.close(); a.views.close(); a.searches.close() }

// exposed are the response headers a browser script may read.
var exposed = []string{"ETag", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	"RateLimit", "RateLimit-Policy", "Retry-After", "X-Request-Id", "WWW-Authenticate"}

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

	cors := gincors.New(gincors.Config{
		AllowAllOrigins:           true,
		AllowMethods:              []string{"GET", "HEAD", "OPTIONS"},
		AllowHeaders:              []string{"Authorization", "Content-Type", "If-None-Match"},
		ExposeHeaders:             exposed,
		MaxAge:                    86400 * time.Second,
		OptionsResponseStatusCode: http.StatusNoContent,
	})
	// Preflights go to the routes' OPTIONS handlers (exact header values,
	// 404 for unknown paths); gin-contrib/cors answers the rest.
	withCORS := func(c *gin.Context) {
		if c.Request.Method == http.MethodOptions {
			c.Next()
			return
		}
		cors(c)
	}
	e.Use(a.recoverer, a.observe, a.requestID, a.accessLog, withCORS, corsHeaders)
	e.NoRoute(func(c *gin.Context) {
		if a.spendIfAuthenticated(c) {
			a.writeProblem(c, &Problem{Code: CodeNotFound, Detail: "no such path; the API lives under /api/public"})
		}
	})
	e.NoMethod(func(c *gin.Context) {
		c.Header("Allow", "GET, HEAD, OPTIONS")
		if a.spendIfAuthenticated(c) {
			a.writeProblem(c, &Problem{Code: CodeMethodNotAllowed, Detail: "only GET, HEAD and OPTIONS are allowed"})
		}
	})

	open := func(path string, h gin.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
		e.OPTIONS(path, preflight)
	}
	open("/healthz", a.healthz)
	open("/readyz", a.readyz)
	open("/api/public/openapi.json", a.openapiDoc)
	a.uiRoutes(e)

	api := e.Group("/api/public", a.auth)
	data := func(path string, h handler) {
		api.GET(path, a.serve(h))
		api.HEAD(path, a.serve(h))
		e.OPTIONS("/api/public"+path, preflight)
	}
	data("/flags", a.flags)
	data("/flag/:slug", a.flag)
	data("/flag/:slug/trend", a.trend)
	data("/categories", a.categories)
	data("/regions", a.regions)
	data("/stats", a.stats)
	data("/search", a.search)
	return e
}

// preflight answers an OPTIONS request that gin-contrib/cors did not (one
// without an Origin header) the same way: 204, no key needed.
func preflight(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Allow", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match")
	h.Set("Access-Control-Max-Age", "86400")
	c.AbortWithStatus(http.StatusNoContent)
}
