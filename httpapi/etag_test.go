package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestHeadETagGzip(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, path := range []string{"/api/public/flags", "/api/public/flag/tie-a", "/api/public/flag/tie-a/trend",
		"/api/public/categories", "/api/public/regions", "/api/public/stats", "/api/public/search?q=bus"} {
		get := e.get(path)
		mustStatus(t, get, 200, "")
		etag := get.header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
			t.Fatalf("%s: ETag %q is not a strong tag", path, etag)
		}
		head := e.do(http.MethodHead, path)
		if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag ||
			head.header.Get("Content-Length") != get.header.Get("Content-Length") {
			t.Errorf("HEAD %s: %d etag %q length %q body %d", path, head.status, head.header.Get("ETag"),
				head.header.Get("Content-Length"), len(head.body))
		}
		nm := e.get(path, "If-None-Match: "+etag)
		if nm.status != 304 || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d", path, nm.status)
		}
		if r := e.get(path, `If-None-Match: "other", `+etag); r.status != 304 {
			t.Errorf("a list naming the tag must match: %d", r.status)
		}
		if r := e.get(path, `If-None-Match: "other"`); r.status != 200 {
			t.Errorf("another tag must not match: %d", r.status)
		}
	}
	r := e.get("/api/public/flags?limit=100", "Accept-Encoding: gzip")
	if r.header.Get("Content-Encoding") != "gzip" || r.header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip not applied: %v", r.header)
	}
	plain := e.get("/api/public/flags?limit=100")
	if plain.header.Get("ETag") != r.header.Get("ETag") {
		t.Error("the same representation must keep one ETag whatever its encoding")
	}
	// The compressed body is whole, its own length, and the same document.
	if r.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
		t.Errorf("gzip Content-Length %q for %d bytes", r.header.Get("Content-Length"), len(r.body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, plain.body) {
		t.Errorf("gzip body does not inflate to the plain one (err %v)", err)
	}
	if r := e.get("/api/public/flags?limit=100", "Accept-Encoding: gzip;q=0"); r.header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 refuses gzip")
	}
}
