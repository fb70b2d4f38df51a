//go:build !linux

package stream

import (
	"errors"
	"time"
)

// setUserTimeout does nothing: TCP_USER_TIMEOUT is Linux's.
func setUserTimeout(uintptr, time.Duration) error {
	return errors.ErrUnsupported
}
