package loader

import (
	"context"
	"testing"
	"time"
)

// TestGateRung: once the settler has rung for a load, the gate stays
// shut until the loop has started that load and it has ended, so the
// settler, rung again meanwhile, passes no second barrier for it (under
// load, TestLoadsSpaced saw two barriers for one load without this).
func TestGateRung(t *testing.T) {
	g := newGate(0)
	if d := g.untilOpen(); d != 0 {
		t.Fatalf("a new gate: untilOpen %v, want 0", d)
	}
	g.ring()
	if d := g.untilOpen(); d != -1 {
		t.Errorf("rung, the load not started: untilOpen %v, want -1", d)
	}
	opened := make(chan struct{})
	go func() {
		g.wait(context.Background())
		close(opened)
	}()
	select {
	case <-opened:
		t.Fatal("the gate opened before the load it was rung for started")
	case <-time.After(50 * time.Millisecond):
	}
	g.start()
	if d := g.untilOpen(); d != -1 {
		t.Errorf("the load running: untilOpen %v, want -1", d)
	}
	g.end()
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("the gate did not open once the load rung for had run")
	}
	if d := g.untilOpen(); d != 0 {
		t.Errorf("after the load: untilOpen %v, want 0", d)
	}
}
