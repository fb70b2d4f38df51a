//go:build !unix

package main

import "testing"

// needFiles skips: the open-file limit is getrlimit(2)'s, which only unix
// has.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	t.Skipf("holding %d connections needs an open-file limit of unix", n)
}
