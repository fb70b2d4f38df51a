package httpapi

import (
	"bytes"
	"errors"
	"testing"
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
	if c.HitRatio() <= 0 {
		t.Errorf("hit ratio %v after a hit", c.HitRatio())
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
	if renders != 2 || none.HitRatio() != 0 {
		t.Errorf("without a cache: %d renders, hit ratio %v", renders, none.HitRatio())
	}
}
