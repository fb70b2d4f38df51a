package procmem

import (
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestResident: this process's resident memory is read, grows with memory
// it touches, and is the same by pid as by "self".
func TestResident(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/status is Linux's")
	}
	before := Resident("self")
	if before <= 0 {
		t.Fatalf("Resident(self) = %d", before)
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	after := Resident(strconv.Itoa(os.Getpid()))
	if after < before+32<<20 {
		t.Errorf("resident %d after touching 64 MB, %d before", after, before)
	}
	runtime.KeepAlive(b)
	if Resident("no-such-process") != 0 {
		t.Error("a process that is not there has resident memory")
	}
}
