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
	// The gzip form is another representation with its own strong tag
	// (RFC 9110, 8.8.3.3); either tag revalidates either form.
	pt, gt := plain.header.Get("ETag"), r.header.Get("ETag")
	if want := strings.TrimSuffix(pt, `"`) + `-gz"`; gt != want {
		t.Errorf("gzip form's ETag %q, want %q (the body's %q)", gt, want, pt)
	}
	for _, c := range []struct{ inm, enc, want string }{
		{pt, "gzip", gt}, {gt, "gzip", gt}, {gt, "identity", pt}, {pt, "identity", pt},
		{`W/` + gt, "gzip", gt}, {`"x", ` + gt, "identity", pt},
	} {
		nm := e.get("/api/public/flags?limit=100", "If-None-Match: "+c.inm, "Accept-Encoding: "+c.enc)
		if nm.status != 304 || nm.header.Get("ETag") != c.want || nm.header.Get("Content-Encoding") != "" {
			t.Errorf("If-None-Match %s, Accept-Encoding %s: %d, ETag %q, want 304 with %q", c.inm, c.enc, nm.status,
				nm.header.Get("ETag"), c.want)
		}
	}
	for _, inm := range []string{`"-gz"`, strings.TrimSuffix(pt, `"`) + `-br"`, strings.TrimSuffix(pt, `"`) + `x-gz"`,
		strings.TrimSuffix(pt, `"`), `"` + strings.TrimSuffix(gt, `"`)} {
		if nm := e.get("/api/public/flags?limit=100", "If-None-Match: "+inm, "Accept-Encoding: gzip"); nm.status != 200 {
			t.Errorf("If-None-Match %s: %d, want 200", inm, nm.status)
		}
	}
	if h := e.do(http.MethodHead, "/api/public/flags?limit=100", "Accept-Encoding: gzip"); h.header.Get("ETag") != gt ||
		h.header.Get("Content-Length") != r.header.Get("Content-Length") {
		t.Errorf("HEAD with gzip: ETag %q length %q, want the GET's %q %q", h.header.Get("ETag"),
			h.header.Get("Content-Length"), gt, r.header.Get("Content-Length"))
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
	// RFC 9110 8.4.1.3: x-gzip is gzip; the answer names it gzip.
	for _, enc := range []string{"x-gzip", "deflate, X-GZIP;q=0.5", "br, *"} {
		if r := e.get("/api/public/flags?limit=100", "Accept-Encoding: "+enc); r.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q, want gzip", enc, r.header.Get("Content-Encoding"))
		}
	}
	for _, enc := range []string{"x-gzip;q=0", "deflate, br", "identity", "gzipx",
		// RFC 9110 12.5.3: a named gzip outranks *, whatever the order.
		"*, gzip;q=0", "gzip;q=0, *", "*;q=0", "*;q=0, br", "gzip ; Q = 0.000", "*, x-gzip;q=0"} {
		if r := e.get("/api/public/flags?limit=100", "Accept-Encoding: "+enc); r.header.Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q, want none", enc, r.header.Get("Content-Encoding"))
		}
	}
	for _, enc := range []string{"*;q=0.1", "*;q=0, gzip", "gzip;q=0.001, *;q=0", "gzip ; q = 1"} {
		if r := e.get("/api/public/flags?limit=100", "Accept-Encoding: "+enc); r.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q, want gzip", enc, r.header.Get("Content-Encoding"))
		}
	}

	// A list header sent as several field lines is one list (RFC 9110
	// 5.3): the tag or the coding on the second line counts.
	lines := func(name string, values ...string) *http.Response {
		t.Helper()
		resp := e.send(http.MethodGet, "/api/public/flags?limit=100", func(h http.Header) {
			for _, v := range values {
				h.Add(name, v)
			}
		})
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := lines("If-None-Match", `"nope"`, pt); resp.StatusCode != 304 {
		t.Errorf(`If-None-Match: "nope" and If-None-Match: %s on two lines: %d, want 304`, pt, resp.StatusCode)
	}
	if resp := lines("If-None-Match", `"nope"`, `"other"`); resp.StatusCode != 200 {
		t.Errorf("two lines naming other tags: %d, want 200", resp.StatusCode)
	}
	if resp := lines("Accept-Encoding", "br", "gzip"); resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("Accept-Encoding: br and Accept-Encoding: gzip on two lines: Content-Encoding %q, want gzip",
			resp.Header.Get("Content-Encoding"))
	}
	if resp := lines("Accept-Encoding", "*", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("Accept-Encoding: * and Accept-Encoding: gzip;q=0 on two lines: Content-Encoding %q, want none",
			resp.Header.Get("Content-Encoding"))
	}
}
