package main

import "testing"

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
