package micro_test

import (
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// BenchmarkSnapshotMemory is what a snapshot of 100,000 and of 1,000,000
// flags costs the heap and the collector: B/flag, the live heap it holds;
// scanB/flag, the part of it the collector scans for pointers; gc-ms, the
// wall time it adds to a forced collection (the best of five with it,
// less the best of five once it is gone). The data set of the size is
// dropped before (and built again by the next benchmark that asks for
// it), so that its inputs, a pointer-rich ten times the snapshot's
// pointers, mark in neither. A build and its data set take a minute at a
// million, so each size is measured once a run (snapshotCosts): the calls
// the testing package makes for -benchtime report that one measurement.
// BENCH_MICRO_1M=0 leaves out the million.
func BenchmarkSnapshotMemory(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			c, ok := snapshotCosts[n]
			if !ok {
				c = snapshotCost(b, n)
				snapshotCosts[n] = c
			}
			b.ReportMetric(float64(c.live)/float64(n), "B/flag")
			b.ReportMetric(float64(c.scan)/float64(n), "scanB/flag")
			b.ReportMetric(float64(c.gc)/float64(time.Millisecond), "gc-ms")
			b.ReportMetric(0, "ns/op") // the build's time is BenchmarkBuild100k's
		})
	}
}

// snapCost is what a snapshot adds: its live heap, the part of it the
// collector scans, and the time of a forced collection.
type snapCost struct {
	live, scan int64
	gc         time.Duration
}

// snapshotCosts are the sizes measured in this run.
var snapshotCosts = map[int]snapCost{}

// snapshotCost builds a snapshot of the n flags of sizedData, drops the
// data set, and returns what the snapshot alone adds.
func snapshotCost(b *testing.B, n int) snapCost {
	inputs := sizedData(b, n).inputs
	dsMu.Lock()
	delete(ds, n)
	dsMu.Unlock()
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: inputs, LoadedAt: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	// Nothing reads the inputs from here on: the first collection frees them.
	live1, scan1 := heapAfterGC()
	gc1 := bestGC()
	runtime.KeepAlive(s) // the snapshot goes only here
	live0, scan0 := heapAfterGC()
	gc0 := bestGC()
	return snapCost{live: live1 - live0, scan: scan1 - scan0, gc: gc1 - gc0}
}

// heapAfterGC collects and returns the live heap and its scannable part.
func heapAfterGC() (live, scan int64) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// bestGC is the shortest of five forced collections.
func bestGC() time.Duration {
	best := time.Duration(1 << 62)
	for range 5 {
		t := time.Now()
		runtime.GC()
		best = min(best, time.Since(t))
	}
	return best
}

// benchSizes are the data set sizes of the benchmarks that run at 100,000
// and a million flags.
func benchSizes() []int {
	if os.Getenv("BENCH_MICRO_1M") == "0" {
		return []int{NumFlags}
	}
	return []int{NumFlags, 1_000_000}
}

// sizeName names a size: 100k, 1M.
func sizeName(n int) string {
	if n >= 1_000_000 {
		return strconv.Itoa(n/1_000_000) + "M"
	}
	return strconv.Itoa(n/1000) + "k"
}
