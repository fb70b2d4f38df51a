package ratelimit_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
)

// TestAddrsSetLimit: a new limit applies to the next request, and an
// address's bucket carries over: one that spent its burst of 6 under the
// old limit is still refused under a limit of 12 until the new rate has
// refilled it, while an address not seen before gets the new burst.
func TestAddrsSetLimit(t *testing.T) {
	a := ratelimit.NewAddrs(6, 1000) // one every 10 s
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	x, y := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for i := range 6 {
		if r := a.Allow(x, t0); r.Refused {
			t.Fatalf("burst %d refused", i)
		}
	}
	a.SetLimit(12) // one every 5 s, a burst of 12
	if a.Limit() != 12 {
		t.Errorf("Limit %d after SetLimit(12)", a.Limit())
	}
	// x's bucket runs 60 s ahead (6 x 10 s); the new burst lets it run 55 s
	// ahead, so it fits again 5 s on, not at once as a new bucket would.
	if r := a.Allow(x, t0); !r.Refused || r.RetryAfter != 5*time.Second {
		t.Errorf("x at once after the change: %+v, want refused for 5 s", r)
	}
	if r := a.Allow(x, t0.Add(5*time.Second)); r.Refused {
		t.Errorf("x 5 s on: %+v, want allowed", r)
	}
	for i := range 12 {
		if r := a.Allow(y, t0); r.Refused {
			t.Fatalf("a new address's burst of 12: request %d refused", i)
		}
	}
	if r := a.Allow(y, t0); !r.Refused {
		t.Error("a new address's 13th request allowed")
	}
	a.SetLimit(0) // at least one a minute
	if a.Limit() != 1 {
		t.Errorf("Limit %d after SetLimit(0), want 1", a.Limit())
	}
}
