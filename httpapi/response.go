package httpapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// response is a rendered success body with its strong ETag. Its gzip form
// is made once, on first demand, and kept with it, so no request
// compresses a body another already compressed.
type response struct {
	body []byte
	etag string

	gzOnce sync.Once
	gz     []byte
}

func newResponse(body []byte) *response {
	return &response{body: body, etag: memstore.ETag(body)}
}

// minGzip is the smallest body worth compressing.
const minGzip = 512

func (r *response) gzipped() []byte {
	r.gzOnce.Do(func() { r.gz = compress(r.body, gzip.BestSpeed) })
	return r.gz
}

// compress gzips body at level, or returns nil when that saves nothing.
func compress(body []byte, level int) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body) / 3)
	zw, _ := gzip.NewWriterLevel(&buf, level)
	zw.Write(body)
	zw.Close()
	if buf.Len() >= len(body) {
		return nil
	}
	return buf.Bytes()
}

// cache keeps rendered responses, keyed by snapshot generation and the
// canonical request, so a snapshot swap invalidates everything at once.
type cache struct {
	rc *ristretto.Cache[string, *response]
}

func newCache(maxBytes int64) (*cache, error) {
	if maxBytes <= 0 {
		return &cache{}, nil
	}
	rc, err := ristretto.NewCache(&ristretto.Config[string, *response]{
		NumCounters: max(maxBytes/1000, 10_000),
		MaxCost:     maxBytes,
		BufferItems: 64,
		Metrics:     true,
	})
	if err != nil {
		return nil, err
	}
	return &cache{rc: rc}, nil
}

// get returns the cached response for key or renders and stores it.
func (c *cache) get(key string, render func() ([]byte, error)) (*response, error) {
	if c.rc != nil {
		if r, ok := c.rc.Get(key); ok {
			return r, nil
		}
	}
	body, err := render()
	if err != nil {
		return nil, err
	}
	r := newResponse(body)
	if c.rc != nil {
		c.rc.Set(key, r, int64(len(body)+len(key)+64))
	}
	return r, nil
}

// HitRatio is the share of lookups the cache answered.
func (c *cache) HitRatio() float64 {
	if c.rc == nil || c.rc.Metrics == nil {
		return 0
	}
	return c.rc.Metrics.Ratio()
}

func (c *cache) close() {
	if c.rc != nil {
		c.rc.Close()
	}
}

// writeResponse sends r with its caching headers: 304 when If-None-Match
// names its ETag, gzip when the client accepts it.
func writeResponse(c *gin.Context, r *response) {
	writeBody(c, r.etag, "private, no-cache", "application/json; charset=utf-8", r.body, r.gzipped)
}

// Header values shared by every response (never modified once set).
var (
	varyValue = []string{"Accept-Encoding"}
	gzipValue = []string{"gzip"}
	hdrValues sync.Map // string -> []string, for the few fixed values of writeBody
)

func fixed(v string) []string {
	if x, ok := hdrValues.Load(v); ok {
		return x.([]string)
	}
	x, _ := hdrValues.LoadOrStore(v, []string{v})
	return x.([]string)
}

// writeBody sends a body whose ETag and gzip form are known: 304 when
// If-None-Match names the ETag, the gzip form when the client accepts it.
func writeBody(c *gin.Context, etag, cacheControl, ctype string, body []byte, gzipped func() []byte) {
	h := c.Writer.Header()
	h["Etag"] = []string{etag}
	h["Cache-Control"] = fixed(cacheControl)
	h["Vary"] = varyValue
	if etagMatch(c.Request.Header.Get("If-None-Match"), etag) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		c.Abort()
		return
	}
	if len(body) >= minGzip && acceptsGzip(c.Request.Header.Get("Accept-Encoding")) {
		if gz := gzipped(); gz != nil {
			body = gz
			h["Content-Encoding"] = gzipValue
		}
	}
	h["Content-Type"] = fixed(ctype)
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	c.Status(http.StatusOK)
	c.Writer.WriteHeaderNow()
	if c.Request.Method != http.MethodHead {
		c.Writer.Write(body)
	}
}

// etagMatch applies If-None-Match's weak comparison to a list of tags.
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// acceptsGzip reads Accept-Encoding: gzip (or *) with a non-zero q.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if v, ok := strings.CutPrefix(strings.ToLower(q), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}
