package connlimit

import (
	"net"
	"sync"
	"time"
)

// Holding. net/http writes an answer through a 4 KB buffer: an answer
// larger than that (a page of flags, a search, a trend: 5-10 KB) goes
// out as the buffer's first 4 KB, flushed full, then the rest, two system
// calls (a microsecond and a half each in a virtual machine). While a
// request is answered (StateActive), a conn holds a write of exactly the
// buffer's size and sends it with the next write, in one system call.
// net/http clears the write deadline right after each answer: a part
// still held then (an answer of exactly 4 KB ends so) goes out first,
// under the answer's own deadline, before net/http takes the connection
// for idle. It goes out too when the connection turns idle or hijacked
// (ConnState) and at CloseWrite, under a deadline of its own,
// heldTimeout; Close drops it (see dropHeld). A held part that fails to
// go out closes the connection, so that no other answer follows a cut
// one. A handler that flushed exactly a full buffer and then waited
// would see that part wait for its next write: none of the API's
// flushes (the live stream hijacks its connection first).
//
// The two go out in one writev when the connection a conn wraps has
// WriteBuffers (httpapi's wire connection: a TCP socket's net.Buffers),
// whatever the rest's size and without copying it; otherwise one after
// the other, as net/http writes them.

const (
	// holdSize is net/http's connection buffer (newBufioWriterSize(...,
	// 4<<10) in net/http's server.go): a flush of a full one is the first
	// part of a larger answer.
	holdSize = 4 << 10
	// heldTimeout bounds the write of a held part sent when the
	// connection turns idle or hijacked, or at CloseWrite.
	heldTimeout = 10 * time.Second
)

// joinBufs are the buffers of held writes, holdSize each.
var joinBufs = sync.Pool{New: func() any { b := make([]byte, 0, holdSize); return &b }}

// Write writes p, holding a full buffer's flush while a request is
// answered (see Holding).
func (c *conn) Write(p []byte) (int, error) {
	if c.held.Load() != nil { // a load first: most writes find nothing held
		if h := c.held.Swap(nil); h != nil {
			defer joinBufs.Put(h)
			return c.writeBoth(*h, p)
		}
	}
	if len(p) == holdSize && c.active.Load() {
		h := joinBufs.Get().(*[]byte)
		*h = append((*h)[:0], p...)
		c.held.Store(h)
		return len(p), nil
	}
	return c.write(p)
}

// sendHeld writes the held part, if any: under the write deadline set
// (the answer's), or, with own, under one of heldTimeout of its own. When
// that fails it closes the connection: net/http counted the part written
// and must not answer another request on it.
func (c *conn) sendHeld(own bool) {
	h := c.held.Swap(nil)
	if h == nil {
		return
	}
	defer joinBufs.Put(h)
	if own {
		c.wd.set(time.Now().Add(heldTimeout), c.l, nil, c.Conn.SetWriteDeadline)
	}
	if _, err := c.write(*h); err != nil {
		c.Conn.Close()
	}
	if own {
		c.wd.set(time.Time{}, c.l, nil, c.Conn.SetWriteDeadline)
	}
}

// dropHeld forgets the held part, if any. Close does: every answer that
// ends sends its held part when net/http clears its write deadline, so a
// part still held at Close belongs to an answer being cut (a handler's
// panic, Server.Close from another goroutine, which must neither wait on
// a client that does not read nor write out of turn).
func (c *conn) dropHeld() {
	if h := c.held.Swap(nil); h != nil {
		joinBufs.Put(h)
	}
}

// VecWriter is a connection that writes buffers in one call (a socket's
// writev): see Holding.
type VecWriter interface {
	WriteBuffers(*net.Buffers) (int64, error)
}

// writeBoth writes h and then p, in one call where the connection has
// WriteBuffers, else one after the other, and returns what it wrote of
// p. A socket deadline met before the one asked for (see spurious) goes
// on with the rest.
func (c *conn) writeBoth(h, p []byte) (int, error) {
	n := 0
	if c.vec != nil {
		c.vecs = [2][]byte{h, p}
		bufs := net.Buffers(c.vecs[:])
		n64, err := c.vec.WriteBuffers(&bufs)
		c.vecs = [2][]byte{}
		n = int(n64)
		if err == nil || n == len(h)+len(p) || !c.wd.spurious(err, c.l, c.Conn.SetWriteDeadline) {
			return max(n-len(h), 0), err
		}
	}
	if n < len(h) {
		if m, err := c.write(h[n:]); err != nil || m < len(h)-n {
			return 0, err
		}
		n = len(h)
	}
	m, err := c.write(p[n-len(h):])
	return n - len(h) + m, err
}
