//go:build unix

package connlimit_test

import (
	"syscall"
	"testing"

	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// TestFileLimit: the limit DefaultMax starts from is the process's soft
// limit of open files.
func TestFileLimit(t *testing.T) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		t.Skip("no open-file limit to compare with")
	}
	if got := connlimit.FileLimit(); got != int(r.Cur) {
		t.Errorf("fileLimit %d, want the soft limit %d", got, r.Cur)
	}
}
