//go:build !unix

package micro_test

import (
	"errors"
	"time"
)

// cpuTime and minorFaults read getrusage(2), which only unix has: here
// they are 0, and the cpu-ns/op and faults/op the benchmarks report mean
// nothing.
func cpuTime() time.Duration { return 0 }

func minorFaults() int64 { return 0 }

// raiseNoFile fails: the open-file limit is getrlimit(2)'s.
func raiseNoFile(want uint64) error { return errors.New("no open-file limit to raise here") }
