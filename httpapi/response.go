package httpapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/gin-gonic/gin"
)

// payload is a body as it is sent: its strong ETag and, for a body of
// minGzip bytes or more, its gzip form, made once on first demand and
// kept with it, so no request compresses a body another already
// compressed. The header values that go with each form are built once
// too: a response shares them and allocates none. The gzip form is
// another representation, so it has its own strong ETag (RFC 9110,
// 8.8.3.3): the body's tag with "-gz" inside the quotes, known before the
// form is made, so a 304 compresses nothing.
type payload struct {
	// What every request that sends the payload reads comes first: the
	// body, and the header values, whose slices are backed by vals, in
	// the payload itself, and whose strings share one allocation. Six objects of their own, spread over as many
	// spans, were as many cache misses a request (see bench/README.md).
	body   []byte
	etag   []string // the ETag header's value
	length []string // Content-Length of body
	gzETag []string // the ETag of the gzip form; nil below minGzip
	vals   [3]string

	gzLevel  int
	gzOnce   sync.Once
	gz       []byte
	gzLength []string // Content-Length of gz

	// src is what a response of cache.getFrom was made from (see source).
	src source
	// list says which snapshots a page of /flags answers (nil for the
	// other responses).
	list *listView
	// born is when the response was rendered (since bootTime): a
	// request that finds one older than itself found it in a cache.
	born time.Duration
}

func newPayload(body []byte, etag string, gzLevel int) *payload {
	p := &payload{body: body, gzLevel: gzLevel}
	length := strconv.Itoa(len(body))
	gzTag := ""
	if len(body) >= minGzip {
		gzTag = gzETag(etag)
	}
	all := etag + length + gzTag
	p.vals = [3]string{all[:len(etag)], all[len(etag) : len(etag)+len(length)], all[len(etag)+len(length):]}
	p.etag, p.length = p.vals[0:1:1], p.vals[1:2:2]
	if gzTag != "" {
		p.gzETag = p.vals[2:3:3]
	}
	return p
}

// response is a rendered success body of the API.
type response = payload

func newResponse(body []byte) *response {
	p := newPayload(body, etag(body), gzip.BestSpeed)
	p.born = time.Since(bootTime)
	return p
}

// gzipped returns the gzip form and its Content-Length.
func (p *payload) gzipped() ([]byte, []string) {
	p.gzOnce.Do(func() {
		p.gz = compress(p.body, p.gzLevel)
		p.gzLength = []string{strconv.Itoa(len(p.gz))}
	})
	return p.gz, p.gzLength
}

// gzSuffix ends the ETag of a body's gzip form: the body's tag with "-gz"
// inside the closing quote.
const gzSuffix = `-gz"`

// gzETag is the ETag of the gzip form of the body tagged etag.
func gzETag(etag string) string {
	return etag[:len(etag)-1] + gzSuffix
}

// minGzip is the smallest body sent compressed. Every body served is text
// (JSON, HTML, CSS, JavaScript, SVG): from this size on, gzip makes it
// smaller.
const minGzip = 512

// compress gzips body at level.
func compress(body []byte, level int) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body) / 3)
	zw, _ := gzip.NewWriterLevel(&buf, level)
	zw.Write(body)
	zw.Close()
	return buf.Bytes()
}

// cache keeps rendered responses, keyed by snapshot generation and the
// canonical request, so a snapshot swap invalidates everything at once.
type cache struct {
	rc *ristretto.Cache[string, *response]
	// stale counts the lookups that found an entry made from other data
	// (lookFrom): ristretto counts them as hits, they were misses.
	stale atomic.Uint64
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

// source names what a response of getFrom was made from by versions (a
// flag's, the trend history's), which start at 1; zero where unused. A
// number, not a pointer: an entry holding a flag or a history a later load
// replaced would keep it alive, with all the memory it shares. Of a fixed
// type, not an interface, which would allocate to box it on every lookup.
type source [2]uint64

// getFrom is get for a response made from src alone (a flag's version; a
// flag's and the trend history's), which its key does not name: an entry
// answers only while src is the one it was made from. The key names no
// snapshot, so a load that leaves src as it was keeps the entry: under a
// steady stream of votes, loads swap snapshots many times a second, and a
// key of the snapshot's generation would find nothing twice.
func (c *cache) getFrom(key string, src source, render func() ([]byte, error)) (*response, error) {
	if r, ok := c.lookFrom(key, src); ok {
		return r, nil
	}
	body, err := render()
	if err != nil {
		return nil, err
	}
	return c.keepFrom(key, src, body), nil
}

// lookFrom is getFrom's lookup: the entry of key, if it was made from src.
func (c *cache) lookFrom(key string, src source) (*response, bool) {
	if c.rc == nil {
		return nil, false
	}
	r, ok := c.rc.Get(key)
	if ok && r.src != src {
		c.stale.Add(1) // ristretto counted a hit; it was not one
		return nil, false
	}
	return r, ok
}

// keepFrom is getFrom's store: body, made from src, as the entry of key.
func (c *cache) keepFrom(key string, src source, body []byte) *response {
	return c.keepResponse(key, src, newResponse(body))
}

// keepResponse is keepFrom of a response made already.
func (c *cache) keepResponse(key string, src source, r *response) *response {
	r.src = src
	if c.rc != nil {
		c.rc.Set(key, r, int64(len(r.body)+len(key)+64))
	}
	return r
}

// lookups are the responses the cache found, and all it was asked for.
func (c *cache) lookups() (found, all uint64) {
	if c.rc == nil {
		return 0, 0
	}
	found, all = lookupsOf(c.rc.Metrics)
	return found - min(c.stale.Load(), found), all
}

// lookupsOf reads a ristretto cache's hits and lookups (none without
// metrics).
func lookupsOf(m *ristretto.Metrics) (found, all uint64) {
	found = m.Hits()
	return found, found + m.Misses()
}

func (c *cache) close() {
	if c.rc != nil {
		c.rc.Close()
	}
}

// writeResponse sends r with the API's caching headers.
func writeResponse(c *gin.Context, r *response) {
	writePayload(c, r, noCacheValue, jsonValue)
}

// Header values shared by every response (never modified once set).
var (
	varyValue    = []string{"Accept-Encoding"}
	gzipValue    = []string{"gzip"}
	noCacheValue = []string{"private, no-cache"}
	jsonValue    = []string{"application/json; charset=utf-8"}
)

// writePayload sends p, gzip when the client accepts it and it is worth
// it, with the ETag of the form it sends; 304 when If-None-Match names
// the tag of either form: both hold the same data, so a client holding
// one of them holds a fresh answer, whichever it asked for this time.
func writePayload(c *gin.Context, p *payload, cacheControl, ctype []string) {
	h := c.Writer.Header()
	tag := p.etag
	coded := p.gzETag != nil && acceptsGzip(listValue(c.Request.Header, "Accept-Encoding"))
	if coded {
		tag = p.gzETag
	}
	h["Etag"] = tag
	h["Cache-Control"] = cacheControl
	h["Vary"] = varyValue
	if etagMatch(listValue(c.Request.Header, "If-None-Match"), p.etag[0]) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		c.Abort()
		return
	}
	body, length := p.body, p.length
	if coded {
		body, length = p.gzipped()
		h["Content-Encoding"] = gzipValue
	}
	h["Content-Type"] = ctype
	h["Content-Length"] = length
	c.Status(http.StatusOK)
	c.Writer.WriteHeaderNow()
	if c.Request.Method != http.MethodHead {
		c.Writer.Write(body)
	}
}

// listValue is the list header name, a name already in canonical form,
// as one value: its field lines joined by commas, as RFC 9110 (5.3) reads
// them. Without Get's canonicalization of the name (two of them were
// 1.5 % of a request's instructions), and without an allocation for the
// usual single line.
func listValue(h http.Header, name string) string {
	switch v := h[name]; len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	default:
		return strings.Join(v, ",")
	}
}

// etagMatch applies If-None-Match's weak comparison to a list of tags:
// true when one of them is etag (a strong tag) or its gzip form's.
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	stem := etag[:len(etag)-1] // without the closing quote
	for rest, more := header, true; more; {
		var t string
		t, rest, more = strings.Cut(rest, ",")
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag || len(t) == len(stem)+len(gzSuffix) && strings.HasPrefix(t, stem) && strings.HasSuffix(t, gzSuffix) {
			return true
		}
	}
	return false
}

// acceptsGzip reads Accept-Encoding as RFC 9110 (12.5.3) has it: gzip is
// acceptable when the header names gzip (or x-gzip, its old name: 8.4.1.3)
// with a q above 0, or names neither and has * with a q above 0. A named
// gzip outranks *: "*, gzip;q=0" refuses gzip.
func acceptsGzip(header string) bool {
	named, namedOK, star, starOK := false, false, false, false
	for rest, more := header, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		switch {
		case strings.EqualFold(name, "gzip") || strings.EqualFold(name, "x-gzip"):
			named = true
			namedOK = namedOK || qAboveZero(params)
		case name == "*":
			star = true
			starOK = starOK || qAboveZero(params)
		}
	}
	if named {
		return namedOK
	}
	return star && starOK
}

// qAboveZero reads the weight among an Accept-Encoding member's
// parameters ("q=0.5", " Q = 0"): true unless it is 0 (a q that does
// not parse counts as 1, the default).
func qAboveZero(params string) bool {
	for rest, more := params, params != ""; more; {
		var p string
		p, rest, more = strings.Cut(rest, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err != nil || f > 0
		}
	}
	return true
}
