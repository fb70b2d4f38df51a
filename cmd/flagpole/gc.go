package main

import (
	"runtime/debug"
	"runtime/metrics"
)

// gcTuner bounds how far the heap grows between two collections. Go's
// default (GOGC=100) lets it double: fine for a small heap, but a server
// holding a million flags (1.1 GB live) would then sit at 2.2 GB. After
// each flag load the tuner lets the heap grow by a quarter of its live
// size, at least minHeadroom (48 MB): a small heap keeps the default and
// collects as rarely as ever; a large one collects a little more often
// (marking it is cheap: the snapshot is a few large arenas) and stays near
// its live size. An operator's GOGC turns the tuner off.
//
// The floor is what the process's resident memory pays for fewer
// collections. At 100,000 flags under the bench's 27 cases (live heap 174
// MB after them), one run each: a floor of 64 MB held 294 MB resident
// with the collector at 1.9 % of the CPU (217 collections), 48 MB 275 MB
// at 2.4 % (276), 32 MB 251 MB at 3.6 % (412) (bench/README.md). 48 MB
// keeps a margin under the 300 MB the bench asks at that size for half a
// point of CPU.
type gcTuner struct {
	enabled bool
	last    int
}

// minHeadroom is the least growth allowed between two collections.
const minHeadroom = 48 << 20

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
