//go:build unix

package micro_test

import (
	"fmt"
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on
// shared cores it tells the cost of an operation better than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// minorFaults is the number of pages the process has touched first (or
// again after the runtime returned them).
func minorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}

// raiseNoFile raises the open-file limit to at least want, if the hard
// limit allows.
func raiseNoFile(want uint64) error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return err
	}
	if rl.Cur >= want {
		return nil
	}
	if rl.Max < want {
		return fmt.Errorf("the hard limit is %d", rl.Max)
	}
	rl.Cur = want
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
}
