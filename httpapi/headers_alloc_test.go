package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestNewRequestIDs: new ids are this process's prefix and a counter in
// hex, one more each time, each made in one allocation.
func TestNewRequestIDs(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 9: "9", 10: "a", 255: "ff", 4096: "1000",
		math.MaxUint64: "ffffffffffffffff"} {
		if got := string(appendHex([]byte("x"), n)); got != "x"+want {
			t.Errorf("appendHex(%d) = %q, want %q", n, got, "x"+want)
		}
	}
	var last uint64
	seen := map[string]bool{}
	for i := range 1000 {
		v := newRequestIDValue()
		id := v[0]
		hex, ok := strings.CutPrefix(id, idPrefix)
		n, err := strconv.ParseUint(hex, 16, 64)
		if len(v) != 1 || !ok || err != nil || !saneRequestID(id) || seen[id] || i > 0 && n != last+1 {
			t.Fatalf("id %d: %q (%v), after counter %d", i, id, v, last)
		}
		seen[id], last = true, n
	}
	if n := testing.AllocsPerRun(100, func() { newRequestIDValue() }); n != 1 {
		t.Errorf("a new id takes %v allocations, want 1", n)
	}
}

// TestSetRateHeaders: the five headers' values, made in one allocation,
// each standing alone (a value's slice cannot grow into the next).
func TestSetRateHeaders(t *testing.T) {
	h := http.Header{}
	setRateHeaders(h, 60, 59, 1790000000, 42)
	want := map[string]string{"X-Ratelimit-Limit": "60", "X-Ratelimit-Remaining": "59",
		"X-Ratelimit-Reset": "1790000000", "Ratelimit-Policy": `"per-key";q=60;w=60`,
		"Ratelimit": `"per-key";r=59;t=42`}
	for name, v := range want {
		if got := h[name]; len(got) != 1 || got[0] != v || cap(got) != 1 {
			t.Errorf("%s: %q (cap %d), want [%q]", name, got, cap(got), v)
		}
	}
	setRateHeaders(h, math.MaxInt, math.MaxInt, math.MaxInt64, math.MaxInt64)
	if got := h["Ratelimit"][0]; got != `"per-key";r=9223372036854775807;t=9223372036854775807` {
		t.Errorf("Ratelimit at the largest values: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { setRateHeaders(h, 60, 59, 1790000000, 42) }); n != 1 {
		t.Errorf("the headers take %v allocations, want 1", n)
	}
}
