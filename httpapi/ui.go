package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// The browser pages: the explorer at / and the interactive reference at
// /api/public/docs, with their scripts, styles and the vendored libraries
// (ui/vendor, fetched by ui/vendor.sh). Everything is embedded, so the
// binary alone serves them, offline; nothing is loaded from another host.
//
//go:embed ui/*.html ui/*.css ui/*.js ui/*.svg ui/vendor
var uiFiles embed.FS

// uiPrefix is the URL path under which the files of ui/ are served.
const uiPrefix = "/ui/"

// uiImmutable is the Cache-Control of an asset asked for by its
// fingerprinted URL (?v= its content hash): it can never change.
const uiImmutable = "public, max-age=31536000, immutable"

// The Cache-Control values of the pages and assets, as header values.
var (
	uiImmutableValue = []string{uiImmutable}
	uiNoCache        = []string{"no-cache"}
)

// uiAsset is one file as served: its body, a strong ETag and the
// fingerprint the pages put in its URL. An asset's body is read from the
// binary when it is first asked for: most processes never serve the
// reference's 3.5 MB of scripts, and kept from the start they were 4 MB of
// every heap.
type uiAsset struct {
	version string
	ctype   []string
	csp     string // pages only

	once sync.Once
	load func() []byte // the body, read again; nil when p is set from the start
	p    *payload
}

func newUIAsset(name string, body []byte) *uiAsset {
	sum := sha256.Sum256(body)
	v := hex.EncodeToString(sum[:8])
	return &uiAsset{p: newPayload(body, `"`+v+`"`, gzip.BestCompression), version: v,
		ctype: []string{uiContentType(name)}}
}

// lazyUIAsset is the asset of the file name of fsys, whose body was read
// to fingerprint it and is read again on first use.
func lazyUIAsset(fsys fs.FS, name string, body []byte) *uiAsset {
	a := newUIAsset(name, body)
	a.p = nil
	a.load = func() []byte {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic("httpapi: embedded UI file " + name + " unreadable: " + err.Error()) // read once already
		}
		return b
	}
	return a
}

// payload is the asset's body as sent, read on first use.
func (u *uiAsset) payload() *payload {
	u.once.Do(func() {
		if u.p == nil {
			body := u.load()
			u.p = newPayload(body, `"`+u.version+`"`, gzip.BestCompression)
		}
	})
	return u.p
}

// uiSite is every servable file, by URL path, and the two pages.
type uiSite struct {
	assets   map[string]*uiAsset // "/ui/app.js", "/ui/vendor/uplot/uPlot.min.css", ...
	explorer *uiAsset
	docs     *uiAsset
}

// loadUI reads the embedded files once per process.
var loadUI = sync.OnceValues(func() (*uiSite, error) { return buildUI(uiFiles) })

// uiRef is an attribute in a page naming a file of ui/ by its absolute path.
var uiRef = regexp.MustCompile(`(src|href)="(/ui/[^"?#]+)"`)

// The Content-Security-Policy of the pages: every script, style, image and
// font from this server only. The docs page may send "try it" requests to
// the other servers the document lists.
const (
	cspCommon = "default-src 'self'; img-src 'self' data:; font-src 'self'; style-src 'self' 'unsafe-inline'; " +
		"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
	cspExplorer = cspCommon + "; connect-src 'self'"
	cspDocs     = cspCommon + "; connect-src 'self' http: https:"
)

func buildUI(fsys fs.FS) (*uiSite, error) {
	s := &uiSite{assets: map[string]*uiAsset{}}
	err := fs.WalkDir(fsys, "ui", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(name, ".html") {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		s.assets["/"+name] = lazyUIAsset(fsys, name, body)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The import map sends the explorer's relative module imports
	// (./i18n.js) to their fingerprinted URLs too.
	imports := map[string]string{}
	for p, a := range s.assets {
		if path.Dir(p) == "/ui" && strings.HasSuffix(p, ".js") {
			imports[p] = p + "?v=" + a.version
		}
	}
	importMap, err := json.Marshal(map[string]any{"imports": imports})
	if err != nil {
		return nil, err
	}
	if s.explorer, err = s.page(fsys, "ui/index.html", importMap, cspExplorer); err != nil {
		return nil, err
	}
	if s.docs, err = s.page(fsys, "ui/docs.html", importMap, cspDocs); err != nil {
		return nil, err
	}
	return s, nil
}

// page reads an HTML page, fingerprints its references to ui/ files,
// puts the import map in place of <!--importmap--> and allows exactly that
// inline script in its Content-Security-Policy.
func (s *uiSite) page(fsys fs.FS, name string, importMap []byte, csp string) (*uiAsset, error) {
	body, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var missing []string
	body = uiRef.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := uiRef.FindSubmatch(m)
		a, ok := s.assets[string(sub[2])]
		if !ok {
			missing = append(missing, string(sub[2]))
			return m
		}
		return fmt.Appendf(nil, `%s="%s?v=%s"`, sub[1], sub[2], a.version)
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("%s names files that are not embedded: %s", name, strings.Join(missing, ", "))
	}
	script := "script-src 'self'"
	if bytes.Contains(body, []byte("<!--importmap-->")) {
		body = bytes.Replace(body, []byte("<!--importmap-->"),
			[]byte(`<script type="importmap">`+string(importMap)+`</script>`), 1)
		sum := sha256.Sum256(importMap)
		script += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	a := newUIAsset(name, body)
	a.csp = script + "; " + csp
	return a, nil
}

// uiContentType is the Content-Type of a file of ui/ by its name.
func uiContentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".json":
		return "application/json; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".md":
		return "text/markdown; charset=utf-8"
	default: // LICENSE, NOTICE, VERSION, *.txt
		return "text/plain; charset=utf-8"
	}
}

// uiRoutes registers the explorer (/), the reference (/api/public/docs)
// and their assets (/ui/...): GET and HEAD, no key, no rate limit.
func (a *API) uiRoutes(e *gin.Engine) {
	site, err := loadUI()
	if err != nil {
		panic("httpapi: embedded UI: " + err.Error()) // a build defect the tests catch
	}
	route := func(path string, h gin.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
		preflightRoute(e, path)
	}
	route("/", func(c *gin.Context) { writeUIAsset(c, site.explorer, uiNoCache) })
	route("/api/public/docs", func(c *gin.Context) { writeUIAsset(c, site.docs, uiNoCache) })
	route(uiPrefix+"*file", func(c *gin.Context) {
		asset, ok := site.assets[c.Request.URL.Path]
		if !ok {
			a.writeProblem(c, &Problem{Code: CodeNotFound, Detail: "no such file; the explorer is at / and the API reference at /api/public/docs"})
			return
		}
		cc := uiNoCache
		if c.Query("v") == asset.version {
			cc = uiImmutableValue
		}
		writeUIAsset(c, asset, cc)
	})
}

// writeUIAsset sends a page or an asset: 304 when If-None-Match names its
// ETag, gzip when the client accepts it.
func writeUIAsset(c *gin.Context, u *uiAsset, cacheControl []string) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if u.csp != "" {
		h.Set("Content-Security-Policy", u.csp)
		h.Set("Referrer-Policy", "same-origin")
	}
	writePayload(c, u.payload(), cacheControl, u.ctype)
}
