package httpapi

import (
	"net/http"
	"time"

	gincors "github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
)

// exposed are the response headers a browser script may read.
var exposed = []string{"ETag", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	"RateLimit", "RateLimit-Policy", "Retry-After", "X-Request-Id", "WWW-Authenticate"}

// newCORS is the contract's CORS policy in gin-contrib/cors: any origin,
// no credentials, GET, HEAD and OPTIONS, the headers a client sends and
// the ones it may read, and preflights answered 204 and cached for a day.
// The package writes each list comma-separated without spaces and names
// in canonical case ("GET,HEAD,OPTIONS", "Etag,X-Ratelimit-Limit,...");
// HTTP compares lists and header names that way too.
func newCORS() gin.HandlerFunc {
	return gincors.New(gincors.Config{
		AllowAllOrigins:           true,
		AllowMethods:              []string{"GET", "HEAD", "OPTIONS"},
		AllowHeaders:              []string{"Authorization", "Content-Type", "If-None-Match"},
		ExposeHeaders:             exposed,
		MaxAge:                    86400 * time.Second,
		OptionsResponseStatusCode: http.StatusNoContent,
	})
}

// anyOrigin is the Origin corsEverywhere shows gin-contrib/cors when the
// request has none of its own.
var anyOrigin = []string{"null"}

// corsEverywhere runs gin-contrib/cors on every request as on a
// cross-origin one. The package leaves out a request without an Origin
// header (or from the page's own origin), but the contract puts the CORS
// headers on every response: with an open origin the answer does not
// depend on who asks, and a response cached from a request without Origin
// must still serve a browser's. So such a request is shown to the package
// with the opaque origin "null" (which nothing else reads). Every OPTIONS
// request is a preflight: 204 with the policy, no key, nothing spent,
// whatever the path (the request that follows gets its 404).
func corsEverywhere(cors gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		h := c.Request.Header
		if o := h["Origin"]; len(o) == 0 || o[0] == "" || sameOrigin(o[0], c.Request.Host) {
			h["Origin"] = anyOrigin
		}
		if c.Request.Method == http.MethodOptions {
			c.Header("Allow", "GET, HEAD, OPTIONS")
		}
		cors(c)
	}
}

// sameOrigin mirrors the package's test for a request from the page's own
// origin, which it leaves alone.
func sameOrigin(origin, host string) bool {
	return origin == "http://"+host || origin == "https://"+host
}
