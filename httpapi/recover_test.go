package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// TestRecoverer: a handler that panics answers a 500 problem with its
// request id, and the server goes on; http.ErrAbortHandler still aborts
// the response, as net/http means it to.
func TestRecoverer(t *testing.T) {
	var log loadertest.Buffer
	a, err := New(Options{Store: &memstore.Store{}, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	a.engine.GET("/panic", func(*gin.Context) { panic("boom") })
	a.engine.GET("/abort", func(*gin.Context) { panic(http.ErrAbortHandler) })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)

	for i := 0; i < 2; i++ { // the second shows the server survived the first
		res, err := srv.Client().Get(srv.URL + "/panic")
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		err = json.NewDecoder(res.Body).Decode(&p)
		res.Body.Close()
		if res.StatusCode != 500 || err != nil || p["code"] != CodeInternal || p["requestId"] != res.Header.Get("X-Request-Id") {
			t.Errorf("a panic answered %d %v (%v)", res.StatusCode, p, err)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q", ct)
		}
	}
	if got := log.String(); strings.Count(got, "panic: boom") != 2 {
		t.Errorf("the API's logger did not get both panics: %q", got)
	}
	if res, err := srv.Client().Get(srv.URL + "/abort"); err == nil {
		res.Body.Close()
		t.Errorf("ErrAbortHandler answered %d instead of aborting", res.StatusCode)
	}
}

// TestReadyzOwn: without the operator's Ready, /readyz is 503 until a
// snapshot and the keys are in, then 200 with the snapshot's generation,
// size, age and whether its trend history is loaded.
func TestReadyzOwn(t *testing.T) {
	st := &memstore.Store{}
	a, err := New(Options{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	get := func() (int, map[string]any) {
		t.Helper()
		res, err := srv.Client().Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, m
	}
	if status, m := get(); status != 503 || m["reason"] != "starting" ||
		m["detail"] != "not ready: starting, the first snapshot or the API keys are not loaded yet" {
		t.Errorf("/readyz before any load: %d %v", status, m)
	}
	now := time.Now().UTC()
	in := testInput(1, now)
	for _, trends := range []bool{false, true} {
		ch := memstore.Change{Full: true, Flags: []memstore.FlagInput{in}, LoadedAt: now}
		if trends {
			ch.Trends = memstore.NewTrendBuilder(0).Done()
		}
		snap, err := memstore.Build(nil, ch)
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(snap)
		if !trends {
			if status, _ := get(); status != 503 {
				t.Errorf("/readyz with a snapshot but no keys: %d", status)
			}
		}
		st.SetKeys(memstore.NewKeySet(nil, nil, now))
		status, m := get()
		s, _ := m["snapshot"].(map[string]any)
		if status != 200 || m["status"] != "ready" || s == nil || s["flags"] != 1.0 || s["trendsLoaded"] != trends ||
			s["generation"] != float64(snap.Gen) {
			t.Errorf("/readyz with a snapshot (trends %v): %d %v", trends, status, m)
		}
	}
}
