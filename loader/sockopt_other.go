//go:build !linux

package loader

import (
	"syscall"
	"time"
)

// setUserTimeout does nothing where TCP_USER_TIMEOUT does not exist; the
// per-operation deadlines and the keepalives still bound every call.
func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
