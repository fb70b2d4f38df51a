package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/httpapi"
)

// uiResult is one exchange with a browser page or asset, body as sent.
type uiResult struct {
	status int
	header http.Header
	body   []byte
}

// uiDo sends a request without a key (the pages need none); headers are
// "Name: value" pairs.
func uiDo(t *testing.T, e *env, method, path string, headers ...string) uiResult {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := rawTransport.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return uiResult{status: resp.StatusCode, header: resp.Header, body: body}
}

func newUIEnv(t *testing.T) *env {
	e := newEnv(t, "sqlite", fixtureLines())
	e.noSpec = true // the pages are not API operations of openapi.yaml
	return e
}

// uiRefs are the /ui/ files a page names, with their ?v= fingerprints.
var uiRefs = regexp.MustCompile(`(?:src|href)="(/ui/[^"]+)"`)

func TestUIPagesNeedNoKey(t *testing.T) {
	e := newUIEnv(t)
	for _, path := range []string{"/", "/api/public/docs"} {
		t.Run(path, func(t *testing.T) {
			r := uiDo(t, e, http.MethodGet, path)
			if r.status != http.StatusOK {
				t.Fatalf("GET %s without a key: %d\n%s", path, r.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if r.header.Get("ETag") == "" || r.header.Get("Cache-Control") != "no-cache" {
				t.Errorf("ETag %q, Cache-Control %q; want an ETag and no-cache",
					r.header.Get("ETag"), r.header.Get("Cache-Control"))
			}
			if r.header.Get("X-RateLimit-Limit") != "" {
				t.Error("a page counts against a rate limit")
			}
			csp := r.header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("Content-Security-Policy %q does not keep scripts to this server", csp)
			}
			if !bytes.Contains(r.body, []byte("<title>")) || len(uiRefs.FindAll(r.body, -1)) == 0 {
				t.Errorf("not the page:\n%s", r.body)
			}

			head := uiDo(t, e, http.MethodHead, path)
			if head.status != http.StatusOK || len(head.body) != 0 ||
				head.header.Get("Content-Length") != r.header.Get("Content-Length") {
				t.Errorf("HEAD %s: %d, %d body bytes, Content-Length %q (GET: %q)", path, head.status,
					len(head.body), head.header.Get("Content-Length"), r.header.Get("Content-Length"))
			}

			again := uiDo(t, e, http.MethodGet, path, "If-None-Match: "+r.header.Get("ETag"))
			if again.status != http.StatusNotModified || len(again.body) != 0 {
				t.Errorf("If-None-Match: %d with %d bytes, want 304 and none", again.status, len(again.body))
			}

			pre := uiDo(t, e, http.MethodOptions, path)
			if pre.status != http.StatusNoContent {
				t.Errorf("OPTIONS %s: %d, want 204", path, pre.status)
			}
		})
	}
}

func TestUIExplorerAndDocsAssets(t *testing.T) {
	e := newUIEnv(t)
	want := map[string]string{
		".js":  "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8",
		".svg": "image/svg+xml",
	}
	seen := map[string]bool{}
	for _, page := range []string{"/", "/api/public/docs"} {
		for _, m := range uiRefs.FindAllSubmatch(uiDo(t, e, http.MethodGet, page).body, -1) {
			ref := string(m[1])
			if seen[ref] {
				continue
			}
			seen[ref] = true
			path, v, ok := strings.Cut(ref, "?v=")
			if !ok || v == "" {
				t.Errorf("%s names %s without a fingerprint", page, ref)
				continue
			}
			r := uiDo(t, e, http.MethodGet, ref)
			if r.status != http.StatusOK {
				t.Errorf("GET %s: %d", ref, r.status)
				continue
			}
			if ct := r.header.Get("Content-Type"); ct != want[filepath.Ext(path)] {
				t.Errorf("%s: Content-Type %q, want %q", ref, ct, want[filepath.Ext(path)])
			}
			if cc := r.header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("%s (fingerprinted): Cache-Control %q", ref, cc)
			}
			if r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no X-Content-Type-Options: nosniff", ref)
			}
			plain := uiDo(t, e, http.MethodGet, path)
			if cc := plain.header.Get("Cache-Control"); cc != "no-cache" || !bytes.Equal(plain.body, r.body) {
				t.Errorf("%s (no fingerprint): Cache-Control %q, same body %v", path, cc, bytes.Equal(plain.body, r.body))
			}
		}
	}
	for _, must := range []string{"/ui/app.js", "/ui/app.css", "/ui/docs.js", "/ui/docs.css", "/ui/vendor/uplot/uPlot.iife.min.js",
		"/ui/vendor/scalar/standalone.js"} {
		found := false
		for ref := range seen {
			found = found || strings.HasPrefix(ref, must+"?v=")
		}
		if !found {
			t.Errorf("no page loads %s", must)
		}
	}
}

// The explorer's modules import each other relatively; the import map in
// the page sends each to its fingerprinted URL, and each must be there.
func TestUIExplorerImportMap(t *testing.T) {
	e := newUIEnv(t)
	body := uiDo(t, e, http.MethodGet, "/").body
	m := regexp.MustCompile(`<script type="importmap">(.*?)</script>`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no import map in the explorer:\n%s", body)
	}
	var im struct{ Imports map[string]string }
	if err := json.Unmarshal(m[1], &im); err != nil {
		t.Fatal(err)
	}
	for _, mod := range []string{"/ui/api.js", "/ui/i18n.js", "/ui/dom.js", "/ui/chart.js"} {
		to, ok := im.Imports[mod]
		if !ok {
			t.Errorf("the import map has no %s", mod)
			continue
		}
		if r := uiDo(t, e, http.MethodGet, to); r.status != http.StatusOK ||
			r.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: %d, Cache-Control %q", to, r.status, r.header.Get("Cache-Control"))
		}
	}
}

func TestUIAssetGzip(t *testing.T) {
	e := newUIEnv(t)
	const path = "/ui/vendor/scalar/standalone.js"
	plain := uiDo(t, e, http.MethodGet, path)
	gz := uiDo(t, e, http.MethodGet, path, "Accept-Encoding: gzip")
	if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("Content-Encoding %q, Vary %q", gz.header.Get("Content-Encoding"), gz.header.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(unzipped, plain.body) || len(gz.body) >= len(plain.body) {
		t.Errorf("gzip body: %d bytes, unzipped equal %v", len(gz.body), bytes.Equal(unzipped, plain.body))
	}
	if want := strings.TrimSuffix(plain.header.Get("ETag"), `"`) + `-gz"`; gz.header.Get("ETag") != want {
		t.Errorf("ETag %q gzip, want %q (identity %q)", gz.header.Get("ETag"), want, plain.header.Get("ETag"))
	}
}

func TestUIUnknownAssetIsProblem404(t *testing.T) {
	e := newUIEnv(t)
	for _, path := range []string{"/ui/nope.js", "/ui/", "/ui/index.html", "/ui/vendor.sh",
		"/ui/e2e/run.mjs", "/ui/e2e/package.json", "/ui/vendor/../app.js", "/ui/APP.JS", "/docs", "/index.html"} {
		r := e.get(path, "Authorization: ")
		mustStatus(t, r, http.StatusNotFound, "not_found")
	}
}

func TestUIDocsLeavesTheAPIKeyed(t *testing.T) {
	e := newUIEnv(t)
	r := e.get("/api/public/flags", "Authorization: ")
	mustStatus(t, r, http.StatusUnauthorized, "unauthorized")
	if r := e.get("/api/public/docs/x", "Authorization: "); r.status != http.StatusNotFound && r.status != http.StatusUnauthorized {
		t.Errorf("/api/public/docs/x: %d", r.status)
	}
}

// Nothing the pages load comes from another host: the HTML as served and
// the project's own scripts and styles name no http(s) URL (but the SVG
// namespace), the vendored styles load no remote url(), and what Scalar
// would fetch or send elsewhere by default (its fonts, telemetry, the agent
// and MCP features, a request proxy) is switched off.
func TestUIDocsAndExplorerLoadNothingRemote(t *testing.T) {
	e := newUIEnv(t)
	remote := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	for _, page := range []string{"/", "/api/public/docs"} {
		body := uiDo(t, e, http.MethodGet, page).body
		if loc := remote.FindIndex(body); loc != nil {
			t.Errorf("%s names another host: %q", page, body[loc[0]:min(len(body), loc[1]+40)])
		}
	}
	own, err := filepath.Glob("ui/*.*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range own {
		if ext := filepath.Ext(name); ext != ".js" && ext != ".css" && ext != ".svg" && ext != ".html" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte("http://www.w3.org/2000/svg"), nil)
		if loc := remote.FindIndex(b); loc != nil {
			t.Errorf("%s names another host: %q", name, b[loc[0]:min(len(b), loc[1]+40)])
		}
	}
	vendorCSS, _ := filepath.Glob("ui/vendor/*/*.css")
	if len(vendorCSS) == 0 {
		t.Fatal("no vendored styles found")
	}
	for _, name := range vendorCSS {
		b, _ := os.ReadFile(name)
		if m := regexp.MustCompile(`url\(\s*['"]?(https?:)?//`).Find(b); m != nil {
			t.Errorf("%s loads a remote url(): %q", name, m)
		}
		if bytes.Contains(b, []byte("@import")) {
			t.Errorf("%s imports another stylesheet", name)
		}
	}
	docs, _ := os.ReadFile("ui/docs.js")
	for _, must := range []string{"telemetry: false", "withDefaultFonts: false", "agent: { disabled: true }",
		"mcp: { disabled: true }", "showDeveloperTools: 'never'"} {
		if !bytes.Contains(docs, []byte(must)) {
			t.Errorf("docs.js must configure Scalar with %s", must)
		}
	}
	if bytes.Contains(docs, []byte("proxyUrl")) {
		t.Error("docs.js must not send try-it requests through a proxy")
	}
}

// The pages' landmarks as served: one skip link to the content, one main
// landmark (the reference's is Scalar's own: the page adds none), the
// navigation between the two pages, and labelled controls in the top bar.
func TestUIPagesLandmarks(t *testing.T) {
	e := newUIEnv(t)
	explorer := string(uiDo(t, e, http.MethodGet, "/").body)
	docs := string(uiDo(t, e, http.MethodGet, "/api/public/docs").body)
	for name, c := range map[string]struct {
		body, skipTo string
		mains        int
	}{"/": {explorer, "#view", 1}, "/api/public/docs": {docs, "#reference", 0}} {
		if !strings.Contains(c.body, `class="skip-link" href="`+c.skipTo+`"`) {
			t.Errorf("%s: no skip link to %s", name, c.skipTo)
		}
		if n := strings.Count(c.body, "<main"); n != c.mains {
			t.Errorf("%s: %d <main> elements, want %d", name, n, c.mains)
		}
		if !strings.Contains(c.body, `href="/"`) && !strings.Contains(c.body, `href="#/"`) ||
			!strings.Contains(c.body, `href="/api/public/docs"`) {
			t.Errorf("%s: no navigation between the explorer and the reference", name)
		}
		if !strings.Contains(c.body, `aria-label="Pages"`) {
			t.Errorf("%s: the page navigation has no label", name)
		}
	}
	if !regexp.MustCompile(`(?s)<label class="lang-pick">.*?<span class="sr-only"[^>]*>Language</span>.*?<select id="lang">`).MatchString(explorer) {
		t.Error("the explorer's language picker is not a labelled select")
	}
}

// The reference opens with what a reader needs before the first call; the
// rest of what the old introduction said lives in sections of its own
// (tags with descriptions, grouped by x-tagGroups), which the reference's
// sidebar and search list.
func TestOpenAPIIntroductionIsShort(t *testing.T) {
	var doc struct {
		Info struct{ Description string }
		Tags []struct {
			Name, Description string
		}
		TagGroups []struct {
			Name string
			Tags []string
		} `json:"x-tagGroups"`
		Paths map[string]map[string]json.RawMessage
	}
	raw, err := httpapi.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	intro := doc.Info.Description
	if n := len([]rune(intro)); n > 1500 {
		t.Errorf("info.description has %d characters; the introduction should say only what a first call needs (<= 1500)", n)
	}
	for _, must := range []string{"Authorization: Bearer", "/api/public/flags", "flagpole keys create", "/api/public/rate_limit"} {
		if !strings.Contains(intro, must) {
			t.Errorf("the introduction does not name %q", must)
		}
	}
	declared := map[string]string{}
	for _, tag := range doc.Tags {
		declared[tag.Name] = tag.Description
	}
	for name, must := range map[string]string{
		"Authentication": "WWW-Authenticate", "Rate limits": "X-RateLimit-Remaining", "Errors": "problem+json",
		"Conventions": "HEAD", "Sorting and paging": "controversial", "Caching and freshness": "If-None-Match",
		"CORS": "Access-Control-Allow-Origin", "Versioning": "Sunset",
	} {
		if !strings.Contains(declared[name], must) {
			t.Errorf("section %q is missing or does not explain %s", name, must)
		}
	}
	grouped := map[string]int{}
	for _, g := range doc.TagGroups {
		for _, name := range g.Tags {
			grouped[name]++
			if _, ok := declared[name]; !ok {
				t.Errorf("x-tagGroups %q names the undeclared tag %q", g.Name, name)
			}
		}
	}
	for name := range declared {
		if grouped[name] != 1 {
			t.Errorf("tag %q is in %d x-tagGroups, want 1", name, grouped[name])
		}
	}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct{ Tags []string }
			if method == "parameters" || json.Unmarshal(raw, &op) != nil {
				continue
			}
			for _, tag := range op.Tags {
				if _, ok := declared[tag]; !ok {
					t.Errorf("%s %s uses the undeclared tag %q", method, path, tag)
				}
			}
		}
	}
}
