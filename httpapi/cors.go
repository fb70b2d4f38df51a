package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	gincors "github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
)

// The contract's CORS lists, spelled as it writes them.
const (
	allowMethods = "GET, HEAD, OPTIONS"
	allowHeaders = "Authorization, Content-Type, If-None-Match"
	// exposeHeaders are the response headers a browser script may read.
	exposeHeaders = "ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, " +
		"RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, WWW-Authenticate"
)

// newCORS is the contract's CORS policy in gin-contrib/cors: any origin,
// no credentials, GET, HEAD and OPTIONS, the headers a client sends and
// the ones it may read, and preflights answered 204 and cached for a day.
func newCORS() gin.HandlerFunc {
	return gincors.New(gincors.Config{
		AllowAllOrigins:           true,
		AllowMethods:              strings.Split(allowMethods, ", "),
		AllowHeaders:              strings.Split(allowHeaders, ", "),
		ExposeHeaders:             strings.Split(exposeHeaders, ", "),
		MaxAge:                    86400 * time.Second,
		OptionsResponseStatusCode: http.StatusNoContent,
	})
}

// The lists' header values, shared by every response (never modified).
var (
	allowMethodsValue  = []string{allowMethods}
	allowHeadersValue  = []string{allowHeaders}
	exposeHeadersValue = []string{exposeHeaders}
)

// spell writes the lists gin-contrib/cors set in h as the contract spells
// them. The package lowercases what it is given, then writes methods in
// upper case and names in Go's canonical case, comma-separated without
// spaces ("Etag,X-Ratelimit-Limit,..."): the same lists to HTTP, but a
// client that compares the strings, or looks for "ETag" in the list,
// should read the contract's "ETag, X-RateLimit-Limit, ...". The package
// leaves Access-Control-Expose-Headers off a preflight; the contract puts
// it on every response, so a preflight gets it here too.
func spell(h http.Header) {
	if _, ok := h["Access-Control-Expose-Headers"]; ok {
		h["Access-Control-Expose-Headers"] = exposeHeadersValue
	}
	if _, ok := h["Access-Control-Allow-Methods"]; ok {
		h["Access-Control-Allow-Methods"] = allowMethodsValue
		h["Access-Control-Allow-Headers"] = allowHeadersValue
		h["Access-Control-Expose-Headers"] = exposeHeadersValue
	}
}

// preflightWriter spells the preflight's headers when gin-contrib/cors
// writes them: the package answers a preflight itself, aborting with 204.
type preflightWriter struct{ gin.ResponseWriter }

func (w preflightWriter) WriteHeaderNow() {
	spell(w.Header())
	w.ResponseWriter.WriteHeaderNow()
}

// anyOrigin is the Origin corsEverywhere shows gin-contrib/cors when the
// request has none of its own.
var anyOrigin = []string{"null"}

// corsPolicy is the contract's CORS policy as gin-contrib/cors applies it:
// the package's handler, which answers preflights, and the headers it
// sets on every other request, asked of it once at start.
type corsPolicy struct {
	handler gin.HandlerFunc
	// simple are the headers the package sets on a request that is not a
	// preflight, as spell spells them: with any origin allowed and no
	// credentials they depend on nothing in the request.
	simple []headerValue
}

// headerValue is one header of a response, its value shared by every
// response (never modified).
type headerValue struct {
	name  string
	value []string
}

// newCORSPolicy asks handler, gin-contrib/cors, for its answer to a
// cross-origin GET once, the answer of every request but a preflight.
func newCORSPolicy(handler gin.HandlerFunc) corsPolicy {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/"}, Host: "flagpole.invalid",
		Header: http.Header{"Origin": anyOrigin}}
	handler(c)
	h := c.Writer.Header()
	spell(h)
	p := corsPolicy{handler: handler}
	for name, value := range h {
		p.simple = append(p.simple, headerValue{name, value})
	}
	return p
}

// corsEverywhere applies the policy to every request as to a cross-origin
// one. The package leaves out a request without an Origin header (or from
// the page's own origin), but the contract puts the CORS headers on every
// response: with an open origin the answer does not depend on who asks,
// and a response cached from a request without Origin must still serve a
// browser's. So a preflight without an Origin of its own is shown to the
// package with the opaque origin "null" (which nothing else reads), and
// any other request gets the headers the package answered a cross-origin
// GET with at start: the same for every request, set without asking it
// again (its lookups, the Origin's and the headers' copies were 2 % of a
// request's CPU). Every OPTIONS request is a preflight: 204 with the
// policy, no key, nothing spent, whatever the path (the request that
// follows gets its 404).
func corsEverywhere(p corsPolicy) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Method != http.MethodOptions {
			h := c.Writer.Header()
			for _, v := range p.simple {
				h[v.name] = v.value
			}
			return
		}
		h := c.Request.Header
		if o := h["Origin"]; len(o) == 0 || o[0] == "" || sameOrigin(o[0], c.Request.Host) {
			h["Origin"] = anyOrigin
		}
		c.Header("Allow", allowMethods)
		c.Writer = preflightWriter{c.Writer}
		p.handler(c)
	}
}

// sameOrigin mirrors the package's test for a request from the page's own
// origin, which it leaves alone.
func sameOrigin(origin, host string) bool {
	return origin == "http://"+host || origin == "https://"+host
}
