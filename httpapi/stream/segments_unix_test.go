//go:build unix

package stream

import "syscall"

// ethernetSegments sets a socket's TCP segments to an Ethernet path's
// size before it connects or listens. Over loopback they would be 64 KB,
// larger than the small socket buffers the tests give a slow client, and
// TCP then sends only when a whole segment's room opens or its persist
// timer fires (200 ms and up): a slow client would stall for that long
// though it keeps reading, as it never does across a network.
func ethernetSegments(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, 1460)
	}); cerr != nil {
		return cerr
	}
	return err
}
