package httpapi

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestSimpleCORSIsThePackages: a request that is not a preflight gets,
// whatever its Origin, the headers gin-contrib/cors sets on a
// cross-origin request of its method, as the contract spells them; and a
// preflight is still the package's to answer.
func TestSimpleCORSIsThePackages(t *testing.T) {
	pkg := newCORS()
	mw := corsEverywhere(newCORSPolicy(pkg))
	ctx := func(method, origin string) *gin.Context {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = &http.Request{Method: method, URL: &url.URL{Path: "/api/public/flags"}, Host: "api.test", Header: http.Header{}}
		if origin != "" {
			c.Request.Header.Set("Origin", origin)
		}
		return c
	}
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete} {
		for _, origin := range []string{"", "https://example.org", "http://api.test", "null"} {
			ours := ctx(method, origin)
			mw(ours)
			theirs := ctx(method, "https://elsewhere.example")
			pkg(theirs)
			spell(theirs.Writer.Header())
			got, want := ours.Writer.Header(), theirs.Writer.Header()
			if want.Get("Access-Control-Allow-Origin") != "*" || want.Get("Access-Control-Expose-Headers") != exposeHeaders {
				t.Fatalf("%s: the package's own answer is not the contract's: %v", method, want)
			}
			if !maps.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s with Origin %q: %v, the package sets %v", method, origin, got, want)
			}
			if ours.IsAborted() || ours.Writer.Written() {
				t.Errorf("%s with Origin %q: answered by the CORS middleware", method, origin)
			}
		}
	}
	pre := ctx(http.MethodOptions, "")
	pre.Request.Header.Set("Access-Control-Request-Method", "GET")
	mw(pre)
	if h := pre.Writer.Header(); pre.Writer.Status() != http.StatusNoContent || h.Get("Access-Control-Max-Age") != "86400" ||
		h.Get("Access-Control-Allow-Methods") != allowMethods {
		t.Errorf("preflight: %d %v", pre.Writer.Status(), h)
	}
}
