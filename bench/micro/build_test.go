package micro_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// maxBuilds caps the iterations of the two build benchmarks: one full
// build takes seconds on a 2-core machine, so -benchtime 200x would outlast
// go test's 10-minute timeout. ns/op stays exact (the testing package
// divides by the b.N the benchmark leaves); the iteration count shown is
// the capped one. BENCH_MICRO_MAX_BUILDS changes the cap.
func maxBuilds(b *testing.B) int {
	n := 10
	if v, err := strconv.Atoi(os.Getenv("BENCH_MICRO_MAX_BUILDS")); err == nil && v > 0 {
		n = v
	}
	if b.N > n {
		//lint:ignore SA3001 the cap is deliberate, and ns/op stays exact (above)
		b.N = n
	}
	return b.N
}

func BenchmarkBuild100k(b *testing.B) {
	d := data(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range maxBuilds(b) {
		if _, err := memstore.Build(nil, memstore.Change{Full: true, Flags: d.inputs, LoadedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildTick100k is one incremental tick: 100 flags got a vote.
func BenchmarkBuildTick100k(b *testing.B) {
	d := data(b)
	changed := make([]memstore.FlagInput, 100)
	for i := range changed {
		changed[i] = d.inputs[i*997%len(d.inputs)]
		changed[i].Red++
		changed[i].UpdatedAt = changed[i].UpdatedAt.Add(time.Second)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range maxBuilds(b) {
		if _, err := memstore.Build(d.snap, memstore.Change{Flags: changed, LoadedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}
