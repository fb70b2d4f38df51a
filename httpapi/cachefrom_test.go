package httpapi

import (
	"crypto/sha256"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// TestFlagCachedAcrossLoads: a flag's answers (the flag, its trend) stay
// cached across loads that leave the flag and the trend history as they
// were, and a load that changes the flag answers its new votes at once.
// Keyed by the snapshot's generation, every load under votes emptied the
// cache in effect.
func TestFlagCachedAcrossLoads(t *testing.T) {
	now := time.Now().UTC()
	st := &memstore.Store{}
	a, err := New(Options{Store: st, CacheBytes: 1 << 20, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	const secret = "grf_0123456789abcdef0123456789abcdef"
	st.SetKeys(memstore.NewKeySet([][sha256.Size]byte{sha256.Sum256([]byte(secret))}, []memstore.Key{{ID: "k1", Limit: 1000}}, now))
	ins := []memstore.FlagInput{testInput(1, now), testInput(2, now)}
	b := memstore.NewTrendBuilder(memstore.DayOf(now) - 10)
	b.Add([]byte(ins[0].ID), memstore.DayOf(now)-1, 3, 4)
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, Trends: b.Done(), LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	get := func(path string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
		}
		a.cache.rc.Wait() // ristretto admits a Set asynchronously
		return string(body)
	}
	vote := func(i int) {
		t.Helper()
		ins[i].Red++
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{ins[i]}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(next)
	}
	paths := []string{"/api/public/flag/" + ins[0].Slug, "/api/public/flag/" + ins[0].Slug + "/trend?days=7"}
	for _, p := range paths {
		get(p)
	}
	found := a.cacheFound()
	vote(1) // another flag: a new snapshot, flag 0 as it was
	for _, p := range paths {
		get(p)
	}
	if f := a.cacheFound(); f != found+2 {
		t.Errorf("after a load that left the flag as it was, %d of its 2 answers came from the cache", f-found)
	}
	red := func(body string) bool { return strings.Contains(body, `"red":`+strconv.FormatInt(ins[0].Red, 10)+`,`) }
	vote(0)
	for _, p := range paths {
		if body := get(p); !red(body) {
			t.Errorf("GET %s after a vote on the flag: %s, want red %d", p, body, ins[0].Red)
		}
	}
}

// cacheFound is the lookups the response cache and the details' table
// answered.
func (a *API) cacheFound() uint64 {
	found, _ := a.cache.lookups()
	df, _ := a.details.lookups()
	return found + df
}
