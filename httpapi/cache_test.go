package httpapi

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestCacheGet: a rendered body is kept and served again without
// rendering; an error is not kept; without a cache every get renders.
func TestCacheGet(t *testing.T) {
	renders := 0
	body := bytes.Repeat([]byte("x"), 600)
	render := func() ([]byte, error) { renders++; return body, nil }

	c, err := newCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.get("k", render)
	if err != nil || !bytes.Equal(first.body, body) {
		t.Fatalf("get: %v %q", err, first.body)
	}
	c.rc.Wait() // ristretto admits a Set asynchronously
	again, err := c.get("k", render)
	if err != nil || again != first || renders != 1 {
		t.Errorf("a second get rendered again (%d renders) or answered another response", renders)
	}
	if _, err := c.get("bad", func() ([]byte, error) { return nil, errors.New("no") }); err == nil {
		t.Error("a render's error was not returned")
	}
	c.rc.Wait()
	if _, err := c.get("bad", render); err != nil || renders != 2 {
		t.Errorf("after a failed render the next get rendered %d times in all, want 2", renders)
	}
	if found, _ := c.lookups(); found == 0 {
		t.Error("no hit counted after a hit")
	}
	// A closed cache keeps nothing: a get renders.
	c.close()
	if _, err := c.get("k", render); err != nil || renders != 3 {
		t.Errorf("a get from the closed cache: %v, %d renders in all, want 3", err, renders)
	}

	none, err := newCache(0)
	if err != nil {
		t.Fatal(err)
	}
	defer none.close()
	renders = 0
	for i := 0; i < 2; i++ {
		if r, err := none.get("k", render); err != nil || !bytes.Equal(r.body, body) {
			t.Fatalf("without a cache: %v", err)
		}
	}
	if found, all := none.lookups(); renders != 2 || found != 0 || all != 0 {
		t.Errorf("without a cache: %d renders, %d of %d lookups found", renders, found, all)
	}
}

// TestNotModifiedCompressesNothing: a 304 to a client that accepts gzip
// names the gzip form's tag without making the form; a 200 makes it once.
func TestNotModifiedCompressesNothing(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	p := newResponse(bytes.Repeat([]byte(`{"a":1},`), 100))
	send := func(inm string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(w)
		c.Request = httptest.NewRequest(http.MethodGet, "/", nil)
		c.Request.Header.Set("Accept-Encoding", "gzip")
		c.Request.Header.Set("If-None-Match", inm)
		writeResponse(c, p)
		return w
	}
	for _, inm := range []string{p.etag[0], p.gzETag[0]} {
		if w := send(inm); w.Code != http.StatusNotModified || w.Header().Get("ETag") != p.gzETag[0] || p.gz != nil {
			t.Fatalf("If-None-Match %s: %d, ETag %q, gzip form made: %v", inm, w.Code, w.Header().Get("ETag"), p.gz != nil)
		}
	}
	if w := send(`"other"`); w.Code != http.StatusOK || p.gz == nil || !bytes.Equal(w.Body.Bytes(), p.gz) {
		t.Errorf("a 200 with gzip: %d, form made %v", w.Code, p.gz != nil)
	}
	if small := newResponse([]byte(`{}`)); small.gzETag != nil {
		t.Errorf("a body under %d bytes has a gzip tag", minGzip)
	}
}

// TestLookFromStaleIsAMiss: an entry found under its key but made from
// other data answers nothing and counts as a miss, not as ristretto's hit.
func TestLookFromStaleIsAMiss(t *testing.T) {
	c := testCache(t)
	c.keepFrom("k", source{1, 2}, []byte(`{"a":1}`))
	c.rc.Wait()
	if r, ok := c.lookFrom("k", source{1, 2}); !ok || string(r.body) != `{"a":1}` {
		t.Fatal("the entry of its own source was not found")
	}
	if _, ok := c.lookFrom("k", source{1, 3}); ok {
		t.Fatal("an entry of another source answered")
	}
	if found, all := c.lookups(); found != 1 || all != 2 {
		t.Errorf("lookups: %d found of %d, want 1 of 2", found, all)
	}
}
