package loader

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultTimeout bounds every database call when the caller sets no
// db_timeout: the longest a socket operation may wait for the server.
const DefaultTimeout = 20 * time.Second

// errAborted is what a connection of a database closed by CloseOnDone
// returns: the program is stopping.
var errAborted = errors.New("the database connection was closed: shutting down")

// pgDialer opens PostgreSQL connections for lib/pq whose every Read and
// Write carries a deadline, so that a server that stops answering without
// closing the connection (a partition, a frozen host) fails the call
// instead of holding it for good; a cancelled context alone does not,
// because lib/pq then only sends a cancel request, which a stalled server
// never answers either. The deadline is a quiet-time bound per socket
// operation: a long result that keeps arriving is never cut.
type pgDialer struct {
	timeout time.Duration
	net     net.Dialer
	// quietReads lifts the deadline of reads: for the listener's
	// connection, silent by nature, whose pings find a stall instead.
	quietReads bool

	mu      sync.Mutex
	conns   map[*deadlineConn]struct{}
	aborted bool

	timeouts atomic.Int64 // socket operations that passed their deadline
}

func newPGDialer(timeout time.Duration) *pgDialer {
	d := &pgDialer{timeout: timeout, conns: map[*deadlineConn]struct{}{}}
	d.net = net.Dialer{
		Timeout: timeout,
		// Keepalives notice a dead peer while a connection sits idle in
		// the pool; TCP_USER_TIMEOUT (Linux) drops a connection whose
		// sent data stays unacknowledged, both within about timeout.
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: min(timeout, 15*time.Second),
			Interval: max(timeout/4, time.Second), Count: 3},
		Control: func(network, address string, c syscall.RawConn) error { return setUserTimeout(c, timeout) },
	}
	return d
}

// Dial is lib/pq's Dialer interface.
func (d *pgDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialTimeout is lib/pq's Dialer interface.
func (d *pgDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

// DialContext is lib/pq's DialerContext interface.
func (d *pgDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	aborted := d.aborted
	d.mu.Unlock()
	if aborted {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errAborted}
	}
	c, err := d.net.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	dc := &deadlineConn{Conn: c, d: d}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.aborted {
		c.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: errAborted}
	}
	d.conns[dc] = struct{}{}
	return dc, nil
}

// abort closes every open connection, so that calls blocked on them
// return at once, and refuses new ones.
func (d *pgDialer) abort() { d.closeAll(true) }

// drop closes every open connection, so that calls blocked on them fail
// and their owners dial again.
func (d *pgDialer) drop() { d.closeAll(false) }

// closeAll closes every open connection and, with refuse, every later
// dial.
func (d *pgDialer) closeAll(refuse bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.aborted = d.aborted || refuse
	for c := range d.conns {
		c.Conn.Close()
	}
}

// deadlineConn sets a fresh deadline before each Read and Write. Its
// errors stay *net.OpError, which lib/pq takes as a broken connection: it
// marks it bad and database/sql discards it instead of pooling it.
type deadlineConn struct {
	net.Conn
	d      *pgDialer
	closed sync.Once
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	if !c.d.quietReads {
		if err := c.Conn.SetReadDeadline(time.Now().Add(c.d.timeout)); err != nil {
			return 0, err
		}
	}
	n, err := c.Conn.Read(b)
	c.count(err)
	return n, err
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.d.timeout)); err != nil {
		return 0, err
	}
	n, err := c.Conn.Write(b)
	c.count(err)
	return n, err
}

func (c *deadlineConn) count(err error) {
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.d.timeouts.Add(1)
	}
}

// SetDeadline, SetReadDeadline and SetWriteDeadline are ignored: lib/pq
// calls them for connect_timeout, and each Read and Write sets its own.
func (c *deadlineConn) SetDeadline(t time.Time) error      { return nil }
func (c *deadlineConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *deadlineConn) SetWriteDeadline(t time.Time) error { return nil }

func (c *deadlineConn) Close() error {
	c.closed.Do(func() {
		c.d.mu.Lock()
		delete(c.d.conns, c)
		c.d.mu.Unlock()
	})
	return c.Conn.Close()
}

// explainTimeout adds to an error caused by a socket deadline what it
// means, in the words of the setting that bounds it.
func explainTimeout(err error, timeout time.Duration) error {
	if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%w (the database did not answer within db_timeout %s)", err, timeout)
}
