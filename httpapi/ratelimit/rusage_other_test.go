//go:build !unix

package ratelimit_test

// processCPU is 0: getrusage(2) is only unix's, and the client's CPU the
// benchmarks report means nothing here.
func processCPU() int64 { return 0 }
