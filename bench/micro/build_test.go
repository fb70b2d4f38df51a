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

// BenchmarkBuildTick is one load's build at 100,000 and 1,000,000 flags:
// votes, 100 flags got a vote; add, one flag approved; remove, one flag
// rejected. BENCH_MICRO_1M=0 leaves out the million (its data set takes a
// minute and 3 GB to build). Besides ns/op it reports the CPU time a build
// (cpu-ns/op: the collector's share on the other core included) and the
// pages the process touched for the first time (faults/op): until the
// heap has been collected once, each build's bytes are new pages, which
// the kernel maps one fault at a time; a run of a few builds at 1M
// measures mostly those (-benchtime 200x with BENCH_MICRO_MAX_BUILDS=200
// reaches a collection).
func BenchmarkBuildTick(b *testing.B) {
	for _, n := range benchSizes() {
		name := sizeName(n)
		for _, kind := range []string{"votes", "add", "remove"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				d := sizedData(b, n)
				changed := tickChange(d, kind)
				b.ReportAllocs()
				faults0, cpu0 := minorFaults(), cpuTime()
				b.ResetTimer()
				for range maxBuilds(b) {
					if _, err := memstore.Build(d.snap, memstore.Change{Flags: changed, LoadedAt: time.Now()}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(minorFaults()-faults0)/float64(b.N), "faults/op")
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// tickChange is what the loader reads for one tick of kind (see
// BenchmarkBuildTick) against d's snapshot.
func tickChange(d *dataset, kind string) []memstore.FlagInput {
	switch kind {
	case "add":
		in := d.inputs[len(d.inputs)/2]
		in.ID, in.Slug = in.ID+"x", in.Slug+"-new" // sorts right after its model: half the positions move
		return []memstore.FlagInput{in}
	case "remove":
		in := d.inputs[len(d.inputs)/3]
		in.Approved = false
		return []memstore.FlagInput{in}
	}
	changed := make([]memstore.FlagInput, 100)
	for i := range changed {
		changed[i] = d.inputs[i*997%len(d.inputs)]
		changed[i].Red++
		changed[i].UpdatedAt = changed[i].UpdatedAt.Add(time.Second)
	}
	return changed
}
