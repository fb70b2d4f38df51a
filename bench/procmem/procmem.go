// Package procmem reads a process's resident memory, for the benchmarks
// that report what something costs in RSS.
package procmem

import (
	"os"
	"strconv"
	"strings"
)

// Resident is the resident memory (VmRSS) of the process pid ("self" for
// this one), in bytes; 0 where /proc is not there.
func Resident(pid string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
