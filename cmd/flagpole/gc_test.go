package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{1 << 20, 100},  // a tiny heap: the default
		{32 << 20, 100}, // 48 MB of headroom is more than doubling
		{48 << 20, 100}, // doubling is the most
		{64 << 20, 75},  // 48 MB
		{160 << 20, 30}, // 100k flags when ready: 48 MB
		{175 << 20, 27}, // 100k flags under load: 48 MB
		{192 << 20, 25}, // 48 MB, a quarter from here on
		{512 << 20, 25},
		{1536 << 20, 25}, // a million flags
		{64 << 30, 25},
	} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("gcPercent(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
	if newGCTuner(true).enabled {
		t.Error("the tuner runs although GOGC is set")
	}
}

// TestGCTunerReadsTheRuntime: what the tuner relies on in the runtime. It
// reads the live heap as /gc/heap/live:bytes, a uint64 that is above 0
// once a collection has run, and sets the target with
// debug.SetGCPercent, which takes effect at once (it returns the value
// set before), as afterLoad's does. A Go release that renamed the metric or changed its kind
// would leave the tuner silently off.
func TestGCTunerReadsTheRuntime(t *testing.T) {
	found := false
	for _, d := range metrics.All() {
		if d.Name == "/gc/heap/live:bytes" {
			found = d.Kind == metrics.KindUint64
		}
	}
	if !found {
		t.Fatal("/gc/heap/live:bytes is not a uint64 metric of this runtime")
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[0].Value.Uint64() == 0 {
		t.Fatalf("the live heap after a collection reads %v", s[0].Value)
	}
	old := debug.SetGCPercent(37)
	defer debug.SetGCPercent(old)
	if got := debug.SetGCPercent(38); got != 37 {
		t.Errorf("SetGCPercent returned %d after setting 37", got)
	}
	tuner := &gcTuner{enabled: true, last: -1} // no target set yet
	tuner.afterLoad()
	if got := debug.SetGCPercent(old); tuner.last < 1 || got != tuner.last {
		t.Errorf("after afterLoad the runtime's GOGC is %d, the tuner's %d", got, tuner.last)
	}
}
