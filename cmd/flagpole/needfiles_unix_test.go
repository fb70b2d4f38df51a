//go:build unix

package main

import (
	"syscall"
	"testing"
)

// needFiles raises this process's soft limit of open files to n, or skips.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Skip(err)
	}
	if r.Cur >= n {
		return
	}
	if r.Max < n {
		t.Skipf("the open-file limit %d is below the %d this test holds", r.Max, n)
	}
	r.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Skip(err)
	}
}
