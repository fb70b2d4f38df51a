//go:build unix

package ratelimit_test

import "syscall"

// processCPU is this process's CPU time so far, in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
