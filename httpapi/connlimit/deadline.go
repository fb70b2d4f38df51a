package connlimit

import (
	"errors"
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
// not pay. A conn keeps the deadline asked for instead, and the listener's
// sweep, every DeadlineTick, sets on the socket the deadlines that have
// passed. A deadline already past when it is set (net/http's way to abort
// a read) is set on the socket at once, as is the clearing of one that
// was. So a timeout fires between its deadline and one tick later, never
// before; a connection's reads and writes see the socket's deadline only
// once the one asked for has passed.

// deadline is one direction (read or write) of a conn's deadline.
type deadline struct {
	want atomic.Int64 // the deadline asked for, in Unix nanoseconds; 0: none
	// past is set while the socket holds a deadline that has passed (set
	// by force); mu orders the changes of the socket's deadline.
	past atomic.Bool
	mu   sync.Mutex
}

// set asks for deadline t (zero: none). clock is the listener's last tick.
func (d *deadline) set(t time.Time, clock int64, apply func(time.Time) error) error {
	var want int64
	if !t.IsZero() {
		want = max(t.UnixNano(), 1)
	}
	d.want.Store(want)
	if want != 0 && want <= clock {
		return d.force(clock, apply)
	}
	if d.past.Load() {
		d.lift(clock, apply)
	}
	return nil
}

// force sets the deadline asked for on the socket if it has passed by now.
func (d *deadline) force(now int64, apply func(time.Time) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	want := d.want.Load()
	if want == 0 || want > now {
		return nil // moved meanwhile
	}
	d.past.Store(true)
	return apply(time.Unix(0, want))
}

// lift clears the socket's deadline unless the one asked for has passed
// (by clock, the last tick, or else by now), and reports whether it did.
func (d *deadline) lift(clock int64, apply func(time.Time) error) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if want := d.want.Load(); want != 0 && (want <= clock || want <= time.Now().UnixNano()) {
		return false
	}
	d.past.Store(false)
	apply(time.Time{})
	return true
}

// expired reports whether the deadline asked for has passed by now while
// the socket's has not been set to it.
func (d *deadline) expired(now int64) bool {
	want := d.want.Load()
	return want != 0 && want <= now && !d.past.Load()
}

// spurious reports whether err is a timeout of a deadline the socket held
// though the one asked for was moved (a sweep racing a later deadline),
// after clearing the socket's: the read or write is then tried again.
// clock is the listener's last tick.
func (d *deadline) spurious(err error, clock int64, apply func(time.Time) error) bool {
	if want := d.want.Load(); want != 0 && want <= clock {
		return false // passed: the usual case, net/http's abort of a read
	}
	return errors.Is(err, os.ErrDeadlineExceeded) && d.lift(clock, apply)
}

// SetReadDeadline keeps t as the read deadline (see Deadlines).
func (c *conn) SetReadDeadline(t time.Time) error {
	return c.rd.set(t, c.l.clock.Load(), c.Conn.SetReadDeadline)
}

// SetWriteDeadline keeps t as the write deadline (see Deadlines).
func (c *conn) SetWriteDeadline(t time.Time) error {
	return c.wd.set(t, c.l.clock.Load(), c.Conn.SetWriteDeadline)
}

// SetDeadline keeps t as both deadlines.
func (c *conn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// Read reads from the connection until the read deadline asked for.
func (c *conn) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if err == nil || n > 0 || !c.rd.spurious(err, c.l.clock.Load(), c.Conn.SetReadDeadline) {
			return n, err
		}
	}
}

// Write writes to the connection until the write deadline asked for.
func (c *conn) Write(p []byte) (int, error) {
	written := 0
	for {
		n, err := c.Conn.Write(p[written:])
		written += n
		if err == nil || !c.wd.spurious(err, c.l.clock.Load(), c.Conn.SetWriteDeadline) {
			return written, err
		}
	}
}

// sweepDeadlines sets on the socket every deadline that has passed by now.
func (l *Listener) sweepDeadlines(now time.Time) {
	ns := now.UnixNano()
	l.clock.Store(ns)
	l.mu.Lock()
	var due []*conn
	for c := range l.conns {
		if c.rd.expired(ns) || c.wd.expired(ns) {
			due = append(due, c)
		}
	}
	l.mu.Unlock()
	for _, c := range due {
		c.rd.force(ns, c.Conn.SetReadDeadline)
		c.wd.force(ns, c.Conn.SetWriteDeadline)
	}
}
