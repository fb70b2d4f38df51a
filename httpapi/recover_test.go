package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// TestRecoverer: a handler that panics answers a 500 problem with its
// request id, and the server goes on; http.ErrAbortHandler still aborts
// the response, as net/http means it to.
func TestRecoverer(t *testing.T) {
	a, err := New(Options{Store: &memstore.Store{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
	if res, err := srv.Client().Get(srv.URL + "/abort"); err == nil {
		res.Body.Close()
		t.Errorf("ErrAbortHandler answered %d instead of aborting", res.StatusCode)
	}
}
