package main

import (
	"runtime/debug"
	"runtime/metrics"
)

// gcTuner bounds how far the heap grows between two collections. Go's
// default (GOGC=100) lets it double: fine for a small heap, but a server
// holding a million flags (1.5 GB live) would then sit at 3 GB. After each
// flag load the tuner lets the heap grow by a quarter of its live size,
// at least minHeadroom (64 MB): a small heap keeps the default and collects as
// rarely as ever; a large one collects a little more often (marking it is
// cheap: the snapshot is a few large arenas) and stays near its live
// size. An operator's GOGC turns the tuner off.
//
// The floor is what the process's resident memory pays for fewer
// collections. At 100,000 flags under the bench's load, a floor of 128 MB
// held 451 MB resident with the collector at 3.1 % of the CPU, 64 MB 373
// MB at 5.6 % (the same heap, one run); with the heap made smaller and
// its pointers fewer since, about 300 MB at 2.1 % (bench/README.md).
type gcTuner struct {
	enabled bool
	last    int
}

// minHeadroom is the least growth allowed between two collections.
const minHeadroom = 64 << 20

// newGCTuner makes the tuner, off when the operator set GOGC (gogcSet).
func newGCTuner(gogcSet bool) *gcTuner {
	return &gcTuner{enabled: !gogcSet, last: 100}
}

// afterLoad sets the collector's target from the live heap that the last
// collection found.
func (t *gcTuner) afterLoad() {
	if !t.enabled {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[0].Value.Uint64() == 0 {
		return
	}
	if pct := gcPercent(s[0].Value.Uint64()); pct != t.last {
		debug.SetGCPercent(pct)
		t.last = pct
	}
}

// gcPercent is the GOGC that lets a heap of live bytes grow by a quarter,
// at least minHeadroom, and never more than the default doubling.
func gcPercent(live uint64) int {
	headroom := max(live/4, minHeadroom)
	return int(min(100, max(1, headroom*100/live)))
}
