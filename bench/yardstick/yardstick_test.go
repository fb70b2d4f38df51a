package yardstick_test

import (
	"crypto/sha256"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
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

// get answers one GET of path from h over real HTTP.
func get(t *testing.T, h http.Handler, path, key string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	// Without this Go's transport asks for gzip and, given it, drops
	// Content-Length and Content-Encoding from what the test sees.
	req.Header.Set("Accept-Encoding", "identity")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, res.Status)
	}
	return res
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
	got := names(get(t, yardstick.Mux(body), "/headers", "").Header)
	if !slices.Equal(got, want) {
		t.Errorf("yardstick headers\n%v\nflagpole's\n%v", got, want)
	}
	if len(got) != yardstick.HeaderCount {
		t.Errorf("HeaderCount = %d, the yardstick sends %d", yardstick.HeaderCount, len(got))
	}
	plain := names(get(t, yardstick.Mux(body), "/", "").Header)
	if !slices.Equal(plain, []string{"Content-Length", "Content-Type"}) {
		t.Errorf("the plain yardstick sends %v", plain)
	}
}
