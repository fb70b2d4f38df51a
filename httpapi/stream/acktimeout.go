package stream

import (
	"net"
	"syscall"
	"time"
)

// A client that vanishes without a FIN (its network gone, its machine
// off) is noticed by nothing the hub does: its watch's read waits on, and
// the hub's writes, heartbeats of a few bytes, go into the socket buffer,
// never filling it. TCP itself gives up only after its retransmissions
// run out, some fifteen minutes, meanwhile holding the key's slot and the
// connection. So every stream's socket gets Options.AckTimeout as its TCP
// user timeout (Linux's TCP_USER_TIMEOUT, RFC 5482): once data sent has
// gone unacknowledged that long, the kernel drops the connection, the
// watch's read fails and the stream ends (gone). The heartbeat keeps data
// in flight, so a vanished client gives its slot back within Heartbeat's
// two thirds plus AckTimeout. Elsewhere than on Linux TCP's own limit
// stands.

// socketOf is the socket under conn: conn itself, or the one a wrapper
// (a connection bound by httpapi/connlimit, say) says it wraps through
// NetConn; nil when there is none.
func socketOf(conn net.Conn) syscall.Conn {
	for {
		if sc, ok := conn.(syscall.Conn); ok {
			return sc
		}
		w, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		conn = w.NetConn()
	}
}

// setAckTimeout sets d as the TCP user timeout of the socket under conn;
// it reports whether it could (a TCP socket on Linux).
func setAckTimeout(conn net.Conn, d time.Duration) bool {
	sc := socketOf(conn)
	if sc == nil {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = setUserTimeout(fd, d) }); err != nil {
		return false
	}
	return serr == nil
}
