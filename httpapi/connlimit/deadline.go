package connlimit

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Deadlines. net/http sets a connection's read and write deadlines up to
// eight times a request when the server has timeouts (the whole request's,
// the write's and its clearing, the background read's clearing, the
// aborted read's past one and its clearing, the idle and the header
// timeouts), and each deadline set on the socket moves a runtime timer: a
// twentieth of a short request's CPU, which a server without timeouts does
// not pay. A conn keeps the deadline asked for instead, and puts it on the
// socket only when it is near: due within two ticks of the listener's
// sweep (DeadlineTick) when it is set, or when a sweep finds it so. A
// deadline set that far ahead is raised or cleared by the next request
// long before it comes near, and costs no timer; one that stays comes
// onto the socket a tick or more before it is due, and fires on time. A
// short deadline (the live stream's 2 ms write) goes on the socket at
// once, as does a past one (net/http's way to abort a read). A socket
// deadline that a read or write meets though the one asked for has not
// passed (a sweep racing a later deadline) is set right and the read or
// write goes on. Times are kept on the monotonic clock, from the
// listener's start, so a step of the wall clock moves no timeout.

// deadline is one direction (read or write) of a conn's deadline.
type deadline struct {
	// want is the deadline asked for, in nanoseconds since the listener's
	// base; 0: none (a deadline at or before the base is -1).
	want atomic.Int64
	// onSocket is set while the socket holds a deadline (want's, set by
	// sync); mu orders the changes of the socket's deadline.
	onSocket atomic.Bool
	mu       sync.Mutex
}

// set asks for deadline t (zero: none). Whether it is near is told by
// the clock the last sweep read (clock, at most a tick behind now) where
// that is enough, without a clock read of its own (each read is a tenth of
// a microsecond or more in a virtual machine; net/http sets three
// deadlines a request): a deadline due by clock+near is near whatever the
// time now; one beyond clock+far (far: a second past near) is not near
// unless the sweep is a second late, and the sweep puts it on the socket
// in time; only a deadline in between (a short one, the live stream's 2
// ms write) reads the monotonic clock, so that it does not wait for the
// sweep.
func (d *deadline) set(t time.Time, l *Listener, reads *atomic.Int32, apply func(time.Time) error) error {
	var want int64
	if !t.IsZero() {
		if want = int64(t.Sub(l.base)); want == 0 {
			want = -1
		}
	}
	d.want.Store(want)
	if want == 0 && !d.onSocket.Load() {
		return nil
	}
	clock := l.clock.Load()
	switch {
	case want != 0 && want <= clock && reads != nil && !d.onSocket.Load() && reads.Load() == 0:
		// Passed, and no read waits on the socket: the next read finds it
		// passed (see conn.Read). net/http aborts its background read so,
		// mostly before the read has begun, and clears the deadline again
		// at once: two changes of a runtime timer a request, not paid.
		return nil
	case want == 0, want <= clock+l.near:
		return d.sync(l.base, clock, l.near, apply)
	case want <= clock+l.near+farAhead || d.onSocket.Load():
		return d.sync(l.base, int64(time.Since(l.base)), l.near, apply)
	}
	return nil
}

// farAhead is how far beyond near a deadline set is taken as not near
// without reading the clock: the sweep would have to be that late for
// the deadline to miss it.
const farAhead = int64(time.Second)

// sync makes the socket's deadline the one asked for if it is due within
// near of now, else none.
func (d *deadline) sync(base time.Time, now, near int64, apply func(time.Time) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	want := d.want.Load()
	if want != 0 && want <= now+near {
		d.onSocket.Store(true)
		return apply(base.Add(time.Duration(want)))
	}
	if !d.onSocket.Load() {
		return nil
	}
	d.onSocket.Store(false)
	return apply(time.Time{})
}

// due reports whether the deadline asked for is due by horizon and not
// on the socket yet.
func (d *deadline) due(horizon int64) bool {
	want := d.want.Load()
	return want != 0 && want <= horizon && !d.onSocket.Load()
}

// errReadTimeout is a read's error once its deadline has passed, as the
// socket's read would return it.
var errReadTimeout error = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

// maxRetries bounds the reads or writes tried again after a timeout that
// was not one (a connection that turned every timeout into a lasting
// error would otherwise be tried for ever).
const maxRetries = 8

// spurious reports whether err is a timeout though the deadline asked for
// has not passed, after setting the socket's right: the read or write is
// then tried again.
func (d *deadline) spurious(err error, l *Listener, apply func(time.Time) error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	want := d.want.Load()
	if want != 0 && want <= l.clock.Load() {
		return false // passed by the last sweep's clock: net/http's abort of a read
	}
	now := int64(time.Since(l.base))
	if want != 0 && want <= now {
		return false // passed
	}
	d.sync(l.base, now, l.near, apply)
	return true
}

// SetReadDeadline keeps t as the read deadline (see Deadlines).
func (c *conn) SetReadDeadline(t time.Time) error {
	return c.rd.set(t, c.l, &c.reads, c.Conn.SetReadDeadline)
}

// SetWriteDeadline keeps t as the write deadline (see Deadlines).
// What is held goes out first, under the deadline it was written under
// (see Holding).
func (c *conn) SetWriteDeadline(t time.Time) error {
	if c.held.Load() != nil {
		c.sendHeld(false)
	}
	return c.wd.set(t, c.l, nil, c.Conn.SetWriteDeadline)
}

// SetDeadline keeps t as both deadlines.
func (c *conn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// Read reads from the connection until the read deadline asked for.
//
// The first one-byte read while a request is being answered is net/http's
// background read, which it starts with every request that has no body
// (and after the body of one that has), to cancel the request's context
// if the client goes away while the handler runs, and ends when the
// handler returns. Read answers it at once with nothing, a read that
// "nothing happened" (io.Reader), and net/http ends it: the system call
// that finds the socket empty (a microsecond and a half in a virtual
// machine, 4 % of a short request), the wait on the poller and the two
// deadlines that abort it are not paid. The API's handlers answer from
// memory and wait on nothing a client's going would end sooner; the
// bytes of a pipelined request stay in the socket for the next request's
// read. Any other read (a body's, through a buffer with a byte of room
// left at worst, which then reads again) reads the socket.
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 1 && c.answering.Load() && c.answering.CompareAndSwap(true, false) {
		return 0, nil
	}
	c.reads.Add(1)
	defer c.reads.Add(-1)
	if want := c.rd.want.Load(); want != 0 && want <= c.l.clock.Load() {
		return 0, errReadTimeout // passed, perhaps never put on the socket (see set)
	}
	for try := 0; ; try++ {
		n, err := c.Conn.Read(p)
		if err == nil || n > 0 || try == maxRetries || !c.rd.spurious(err, c.l, c.Conn.SetReadDeadline) {
			return n, err
		}
	}
}

// write writes to the connection until the write deadline asked for.
func (c *conn) write(p []byte) (int, error) {
	written := 0
	for try := 0; ; try++ {
		n, err := c.Conn.Write(p[written:])
		written += n
		if err == nil || written == len(p) || try == maxRetries ||
			!c.wd.spurious(err, c.l, c.Conn.SetWriteDeadline) {
			return written, err
		}
	}
}

// sweepDeadlines puts on the sockets the deadlines due within near of now.
func (l *Listener) sweepDeadlines(now time.Time) {
	ns := int64(now.Sub(l.base))
	l.clock.Store(ns)
	horizon := ns + l.near
	l.mu.Lock()
	var due []*conn
	for c := range l.conns {
		if c.rd.due(horizon) || c.wd.due(horizon) {
			due = append(due, c)
		}
	}
	l.mu.Unlock()
	for _, c := range due {
		if c.rd.due(horizon) {
			c.rd.sync(l.base, ns, l.near, c.Conn.SetReadDeadline)
		}
		if c.wd.due(horizon) {
			c.wd.sync(l.base, ns, l.near, c.Conn.SetWriteDeadline)
		}
	}
}
