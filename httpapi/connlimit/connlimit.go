// Package connlimit bounds the connections of an HTTP server: in total and
// per client address group (an IPv4 address, an IPv6 /64: see addrgroup).
// Past either bound the oldest idle connection it counts (of all, or of
// the client's group) is closed to make room (a connection that has not
// sent its first request yet counts as idle), so a client that holds its
// share in idle connections still gets /healthz answered; when none is
// idle, the new connection is answered 503 and closed at once, so the
// accept queue keeps moving and descriptors never run out. Under pressure (three
// quarters of the bound) idle connections are closed after a short idle
// time instead of the server's idle timeout. Connections that handlers
// claim for live streams (Claim), which are never idle, take at most a
// share of the bound (three quarters unless set), so health probes and
// ordinary requests always keep the rest.
package connlimit

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagpole/flagpole/httpapi/addrgroup"
)

// Options configure a Listener.
type Options struct {
	// Max is the most connections open at once (at least 1).
	Max int
	// PerAddr is the most connections of one client address group (0: no
	// cap): an IPv4 address or an IPv6 /64, as addrgroup.Of says.
	PerAddr int
	// Exempt reports the addresses PerAddr does not apply to (trusted
	// proxies, which carry many clients); nil: none. An exempt address is
	// counted by itself, not in its group, so it takes no neighbour's share.
	Exempt func(netip.Addr) bool
	// PressureIdle is how long a connection may stay idle while more than
	// three quarters of Max are open (0: 5 seconds).
	PressureIdle time.Duration
	// Busy makes the answer written to a connection refused over a bound
	// before it is closed (required: the API's, httpapi.Busy, a 503
	// problem with the headers every answer carries).
	Busy func() []byte
	// DeadlineTick is how often the deadlines due within two ticks are
	// put on the sockets (0: 100 ms; see Deadlines in deadline.go).
	DeadlineTick time.Duration
	// Streams is the most connections claimed for live streams at once
	// (0: StreamShare(Max), three quarters; at most Max): see Streams in
	// streams.go.
	Streams int
}

// Listener wraps a net.Listener with the bounds. Give its ConnState to the
// http.Server that serves it, and Close it (or the server) when done. A
// connection a handler hijacks counts until the handler closes it.
type Listener struct {
	net.Listener
	opt Options

	mu     sync.Mutex
	byAddr map[netip.Addr]*addrConns // by address group (see Options.PerAddr)
	idle   idleList                  // longest idle first
	conns  map[*conn]struct{}        // every connection counted (their number is the open count)
	// base is the listener's start, on the monotonic clock; clock the
	// time of the last sweep after it, in nanoseconds; near twice the
	// sweep's tick (see Deadlines).
	base  time.Time
	clock atomic.Int64
	near  int64
	// swept is set (under mu) when the sweep has ended, after Close with
	// no connection left: a connection accepted after that is refused.
	swept bool
	// streams is the number of claimed connections counted (see Claim).
	streams        int
	refusedStreams atomic.Int64

	refusedTotal, refusedAddr, evicted, evictedAddr, pressuredN atomic.Int64
	stop                                                        chan struct{}
	stopOnce                                                    sync.Once
}

// addrConns are the connections of one address group (key, in
// Listener.byAddr): their number and those idle, the longest idle first.
type addrConns struct {
	key  netip.Addr
	n    int
	idle idleList
}

// conn is one accepted connection.
type conn struct {
	net.Conn
	l     *Listener
	group *addrConns // its address group's, in l.byAddr while c is counted
	// links link it, while idle (inIdle), in l.idle (allIdle) and in its
	// group's idle list (groupIdle); the lists are the conns' own fields,
	// so a request's turn to idle allocates nothing.
	links     [2]links
	inIdle    bool
	idleSince time.Time
	released  bool
	claimed   bool // counted in l.streams while not released
	rd, wd    deadline
	// answering is set while a request is being answered (StateActive)
	// until net/http's background read, which Read answers at once (see
	// Read).
	answering atomic.Bool
	// reads counts the reads in progress (see deadline.set).
	reads atomic.Int32
	// active is set while a request is answered (StateActive); held is
	// the write held meanwhile (see Holding in hold.go).
	active atomic.Bool
	held   atomic.Pointer[[]byte]
	// vec is the wrapped connection's vectored write, nil when it has
	// none; vecs the buffers of its call.
	vec  VecWriter
	vecs [2][]byte
}

// Wrap bounds the connections accepted from inner.
func Wrap(inner net.Listener, opt Options) *Listener {
	if opt.Busy == nil {
		panic("connlimit: Options.Busy is required")
	}
	opt.Max = max(opt.Max, 1)
	if opt.PressureIdle <= 0 {
		opt.PressureIdle = 5 * time.Second
	}
	if opt.DeadlineTick <= 0 {
		opt.DeadlineTick = 100 * time.Millisecond
	}
	if opt.Streams <= 0 {
		opt.Streams = StreamShare(opt.Max)
	}
	opt.Streams = min(opt.Streams, opt.Max)
	l := &Listener{Listener: inner, opt: opt, byAddr: map[netip.Addr]*addrConns{}, conns: map[*conn]struct{}{},
		stop: make(chan struct{}), base: time.Now(), near: 2 * int64(opt.DeadlineTick)}
	go l.relieve()
	return l
}

// Accept returns the next connection within the bounds, answering and
// closing the ones over them.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := peer(nc)
		c, victim, ok := l.admit(nc, addr)
		if victim != nil {
			victim.Conn.Close()
		}
		if ok {
			return c, nil
		}
		nc.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		nc.Write(l.opt.Busy())
		nc.Close()
	}
}

// admit counts a new connection in, closing the oldest idle one of its
// group when the group holds PerAddr, else the oldest idle one of all when
// the total is reached; it returns false when the connection must be
// refused, none being idle where one must go.
func (l *Listener) admit(nc net.Conn, addr netip.Addr) (*conn, *conn, bool) {
	group := addrgroup.Of(addr)
	exempt := l.opt.PerAddr > 0 && l.opt.Exempt != nil && l.opt.Exempt(addr)
	if exempt {
		group = addr
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.swept {
		return nil, nil, false // closed: nothing would keep its deadlines
	}
	// At most one of the two evicts: past the group's, the total is
	// below Max again.
	var victim *conn
	if g := l.byAddr[group]; l.opt.PerAddr > 0 && !exempt && g != nil && g.n >= l.opt.PerAddr {
		if victim = l.evict(&g.idle, &l.refusedAddr, &l.evictedAddr); victim == nil {
			return nil, nil, false
		}
	}
	if len(l.conns) >= l.opt.Max {
		if victim = l.evict(&l.idle, &l.refusedTotal, &l.evicted); victim == nil {
			return nil, nil, false
		}
	}
	g := l.byAddr[group] // nil, too, when the eviction took its last
	if g == nil {
		g = &addrConns{key: group, idle: idleList{k: groupIdle}}
		l.byAddr[group] = g
	}
	c := &conn{Conn: nc, l: l, group: g, idleSince: time.Now()}
	c.vec, _ = nc.(VecWriter)
	g.n++
	l.conns[c] = struct{}{}
	l.idleIn(c)
	return c, victim, true
}

// release counts c out; l.mu is held.
func (l *Listener) release(c *conn) {
	if c.released {
		return
	}
	c.released = true
	l.idleOut(c)
	delete(l.conns, c)
	if c.claimed {
		l.streams--
	}
	if c.group.n--; c.group.n == 0 {
		delete(l.byAddr, c.group.key)
	}
}

// Close counts the connection out and closes it.
func (c *conn) Close() error {
	c.active.Store(false)
	c.dropHeld()
	c.l.mu.Lock()
	c.l.release(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// NetConn is the connection c wraps (the live stream sets its socket's
// TCP options through it).
func (c *conn) NetConn() net.Conn { return c.Conn }

// CloseWrite half-closes the connection when the one it wraps can
// (net/http does so after refusing an oversized request).
func (c *conn) CloseWrite() error {
	c.active.Store(false)
	c.sendHeld(true)
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ConnState is the http.Server hook that tells the listener which
// connections are idle.
func (l *Listener) ConnState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	c.answering.Store(state == http.StateActive)
	c.active.Store(state == http.StateActive)
	if state != http.StateActive {
		c.sendHeld(true)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return
	}
	switch state {
	case http.StateActive:
		l.idleOut(c)
	case http.StateIdle:
		if !c.inIdle {
			c.idleSince = l.base.Add(time.Duration(l.clock.Load())) // to a tick: PressureIdle is seconds
			l.idleIn(c)
		}
	case http.StateHijacked:
		// Taken over by a handler (the live stream, which claimed it
		// first): it stays counted, never idle, until the handler closes
		// it.
		l.idleOut(c)
	case http.StateClosed:
		l.release(c)
	}
}

// Close stops accepting and stops the pressure sweep; the deadlines' sweep
// stops once the last connection is closed.
func (l *Listener) Close() error {
	l.stopOnce.Do(func() { close(l.stop) })
	return l.Listener.Close()
}

// Max is the bound on open connections.
func (l *Listener) Max() int { return l.opt.Max }

// MaxStreams is the share of Max that live streams may claim.
func (l *Listener) MaxStreams() int { return l.opt.Streams }

// Stats are the listener's counts.
type Stats struct {
	Open, Idle int
	// Streams is the number of connections claimed for streams (Claim).
	Streams int
	// RefusedTotal and RefusedAddr count the connections answered 503 and
	// closed: over Max, or over PerAddr, with none of those idle;
	// RefusedStreams, the claims refused, the share of streams taken.
	RefusedTotal, RefusedAddr, RefusedStreams int64
	// Evicted and EvictedAddr count idle connections closed to make room
	// for a new one, at Max and at PerAddr; Pressured, those closed for
	// idling too long under pressure.
	Evicted, EvictedAddr, Pressured int64
}

// Stats reports the counts now.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	open, idle, streams := len(l.conns), l.idle.n, l.streams
	l.mu.Unlock()
	return Stats{Open: open, Idle: idle, Streams: streams, RefusedTotal: l.refusedTotal.Load(),
		RefusedAddr: l.refusedAddr.Load(), RefusedStreams: l.refusedStreams.Load(),
		Evicted: l.evicted.Load(), EvictedAddr: l.evictedAddr.Load(), Pressured: l.pressuredN.Load()}
}

// peer is a connection's remote address, IPv4 unmapped.
func peer(nc net.Conn) netip.Addr {
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(ta.IP); ok {
			return a.Unmap()
		}
	}
	return netip.Addr{}
}
