package connlimit

import (
	"sync/atomic"
	"time"
)

// Idle connections: the lists that find the one idle the longest (of
// all, and of each address group), the eviction that closes it to make
// room, and the sweep that closes those idle too long under pressure.

// evict counts out the connection idle the longest of list and counts it
// in evicted; with none idle it counts a refusal in refused and returns
// nil. l.mu is held.
func (l *Listener) evict(list *idleList, refused, evicted *atomic.Int64) *conn {
	victim := list.front()
	if victim == nil {
		refused.Add(1)
		return nil
	}
	l.release(victim)
	evicted.Add(1)
	return victim
}

// idleIn puts c, not idle, at the end of the idle lists (of all and of
// its group); l.mu is held.
func (l *Listener) idleIn(c *conn) {
	l.idle.pushBack(c)
	c.group.idle.pushBack(c)
	c.inIdle = true
}

// idleOut takes c out of the idle lists, if it is in them; l.mu is held.
func (l *Listener) idleOut(c *conn) {
	if !c.inIdle {
		return
	}
	l.idle.remove(c)
	c.group.idle.remove(c)
	c.inIdle = false
}

// relieve closes, while more than three quarters of Max are open, the
// connections idle for longer than PressureIdle, longest idle first; and
// sweeps the deadlines every DeadlineTick, after Close too while
// connections are open (a server shutting down still times out the
// clients that hold it).
func (l *Listener) relieve() {
	t := time.NewTicker(max(l.opt.PressureIdle/4, 50*time.Millisecond))
	defer t.Stop()
	dt := time.NewTicker(l.opt.DeadlineTick)
	defer dt.Stop()
	stop, pressure := l.stop, t.C
	for {
		select {
		case <-stop:
			stop, pressure = nil, nil // nil channels: no more pressure relief
			if l.endSweep() {
				return
			}
		case now := <-dt.C:
			l.sweepDeadlines(now)
			if stop == nil && l.endSweep() {
				return
			}
		case now := <-pressure:
			for _, c := range l.pressured(now) {
				c.Conn.Close()
			}
		}
	}
}

func (l *Listener) pressured(now time.Time) []*conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*conn
	for len(l.conns)*4 > l.opt.Max*3 {
		c := l.idle.front()
		if c == nil {
			break
		}
		if now.Sub(c.idleSince) < l.opt.PressureIdle {
			break
		}
		l.release(c)
		out = append(out, c)
	}
	l.pressuredN.Add(int64(len(out)))
	return out
}

// endSweep reports whether the sweep may end, the listener being closed:
// no connection left; it is then marked ended, under the lock admit takes.
func (l *Listener) endSweep() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.swept = len(l.conns) == 0
	return l.swept
}

// links are a conn's neighbours in one idle list.
type links struct{ prev, next *conn }

// The idle lists a conn is in while idle, by their index in conn.links.
const (
	allIdle   = 0 // Listener.idle
	groupIdle = 1 // addrConns.idle
)

// idleList is a doubly linked list of idle conns, threaded through their
// links[k] (allIdle or groupIdle). The listener's mutex guards it; the
// caller knows whether c is in it (conn.inIdle).
type idleList struct {
	head, tail *conn
	n          int
	k          int
}

// pushBack appends c, which is not in the list.
func (l *idleList) pushBack(c *conn) {
	c.links[l.k] = links{prev: l.tail}
	if l.tail != nil {
		l.tail.links[l.k].next = c
	} else {
		l.head = c
	}
	l.tail = c
	l.n++
}

// remove takes c, which is in the list, out of it.
func (l *idleList) remove(c *conn) {
	ln := c.links[l.k]
	if ln.prev != nil {
		ln.prev.links[l.k].next = ln.next
	} else {
		l.head = ln.next
	}
	if ln.next != nil {
		ln.next.links[l.k].prev = ln.prev
	} else {
		l.tail = ln.prev
	}
	c.links[l.k] = links{}
	l.n--
}

// front is the conn idle the longest, or nil.
func (l *idleList) front() *conn { return l.head }
