package httpapi

import (
	"errors"
	"net"
	"os"
	"testing"
)

// shortConn writes up to 10 bytes of each write, then fails with a
// timeout.
type shortConn struct {
	net.Conn
	wrote int
}

func (c *shortConn) Write(b []byte) (int, error) {
	n := min(len(b), 10)
	c.wrote += n
	return n, os.ErrDeadlineExceeded
}

// A replaced answer whose write fails partway counts as written whole, so
// a caller that retries the rest (connlimit, after a timeout that was
// not one) does not send a second answer after part of the first.
func TestWireReplacedAnswerTakenWhole(t *testing.T) {
	plain := []byte("HTTP/1.1 400 Bad Request" + plainHead + "400 Bad Request")
	inner := &shortConn{}
	n, err := wireConn{inner}.Write(plain)
	if n != len(plain) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write = %d, %v; want %d (all of it) and the error", n, err, len(plain))
	}
	if inner.wrote != 10 {
		t.Fatalf("%d bytes reached the connection, want the replacement's first 10", inner.wrote)
	}
}
