package yardstick_test

import (
	"bytes"
	"crypto/sha256"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/flagpole/flagpole/bench/yardstick"
	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

// names are the header names of a response, sorted, Date left out.
func names(h http.Header) []string {
	var out []string
	for k := range h {
		if k != "Date" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// get answers one GET of path from h over real HTTP, asking for gzip
// when gz; it fails the test unless the answer is 200.
func get(t *testing.T, h http.Handler, path, key string) *http.Response {
	t.Helper()
	res, _ := fetch(t, h, path, key, false)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, res.Status)
	}
	return res
}

// fetch answers one GET of path from h over real HTTP, with its body,
// asking for gzip when gz.
func fetch(t *testing.T, h http.Handler, path, key string, gz bool) (*http.Response, []byte) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	// Without this Go's transport asks for gzip and, given it, drops
	// Content-Length and Content-Encoding from what the test sees.
	req.Header.Set("Accept-Encoding", "identity")
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// The yardstick's headers are the names flagpole sends on an
// authenticated success, so that it measures what the contract costs.
func TestHeadersAreTheContracts(t *testing.T) {
	now := time.Now().UTC()
	in := memstore.FlagInput{ID: "flg_1", Slug: "one", Approved: true, Category: memstore.Categories[0],
		Contexts: []string{memstore.Contexts[0]}, Red: 1, Green: 2, CreatedAt: now, UpdatedAt: now}
	for l := range in.Text {
		in.Text[l] = "A flag"
	}
	snap, err := memstore.Build(nil, memstore.Change{Full: true, Flags: []memstore.FlagInput{in}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st := &memstore.Store{}
	st.SetSnapshot(snap)
	const secret = "grf_yardstick0000000000000000"
	st.SetKeys(memstore.NewKeySet([][32]byte{sha256.Sum256([]byte(secret))}, []memstore.Key{{ID: "k1", Limit: 60}}, now))
	a, err := httpapi.New(httpapi.Options{Store: st, CacheBytes: 1 << 20,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)

	want := names(get(t, a.Handler(), "/api/public/flags", secret).Header)
	body := []byte(`{"data":[]}`)
	got := names(get(t, yardstick.Mux(body, nil), "/headers", "").Header)
	if !slices.Equal(got, want) {
		t.Errorf("yardstick headers\n%v\nflagpole's\n%v", got, want)
	}
	// The per-case yardstick sends the same names as flagpole on another route.
	const detail = "/api/public/flag/one"
	want = names(get(t, a.Handler(), detail, secret).Header)
	paths := &yardstick.Bodies{Plain: map[string][]byte{detail: body}}
	if got := names(get(t, yardstick.Mux(body, paths), detail, "").Header); !slices.Equal(got, want) {
		t.Errorf("per-path yardstick headers on %s\n%v\nflagpole's\n%v", detail, got, want)
	}
	if len(got) != yardstick.HeaderCount {
		t.Errorf("HeaderCount = %d, the yardstick sends %d", yardstick.HeaderCount, len(got))
	}
	plain := names(get(t, yardstick.Mux(body, nil), "/", "").Header)
	if !slices.Equal(plain, []string{"Content-Length", "Content-Type"}) {
		t.Errorf("the plain yardstick sends %v", plain)
	}
}

// Paths answers each request URI with its own body, Content-Length and
// the contract's headers (the gzip form to a request that accepts it),
// and every other URI with 404.
func TestPaths(t *testing.T) {
	b := yardstick.Bodies{
		Plain: map[string][]byte{
			"/api/public/flag/one":       []byte(`{"slug":"one"}`),
			"/api/public/search?q=a%20b": []byte(`{"data":[{"slug":"two"}],"total":1}`),
			"/api/public/flags":          []byte(`{"data":[]}`),
		},
		Gzip: map[string][]byte{"/api/public/flags": {0x1f, 0x8b, 8, 0, 0, 0}},
	}
	h := yardstick.Paths(b)
	want := names(get(t, yardstick.Headers(nil), "/", "").Header)
	check := func(uri string, gz bool, body []byte, enc string) {
		t.Helper()
		res, got := fetch(t, h, uri, "", gz)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", uri, res.Status)
		}
		if !bytes.Equal(got, body) {
			t.Errorf("GET %s: body %q, want %q", uri, got, body)
		}
		if cl := res.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
			t.Errorf("GET %s: Content-Length %s, want %d", uri, cl, len(body))
		}
		if ce := res.Header.Get("Content-Encoding"); ce != enc {
			t.Errorf("GET %s: Content-Encoding %q, want %q", uri, ce, enc)
		}
		hn := names(res.Header)
		if enc != "" {
			hn = slices.DeleteFunc(hn, func(k string) bool { return k == "Content-Encoding" })
		}
		if !slices.Equal(hn, want) {
			t.Errorf("GET %s: headers\n%v\nwant\n%v", uri, hn, want)
		}
	}
	for uri, body := range b.Plain {
		check(uri, false, body, "")
	}
	check("/api/public/flags", true, b.Gzip["/api/public/flags"], "gzip")
	check("/api/public/flag/one", true, b.Plain["/api/public/flag/one"], "") // no gzip form: the plain one
	for _, uri := range []string{"/api/public/flag/two", "/api/public/search?q=a+b", "/api/public/flags?sort=net", "/"} {
		if res, _ := fetch(t, h, uri, "", false); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", uri, res.Status)
		}
	}
}
