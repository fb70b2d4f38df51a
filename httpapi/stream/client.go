package stream

import (
	"net"
	"sync"
	"time"
)

// Reasons an end event gives for closing a stream.
const (
	ReasonRevoked  = "revoked"
	ReasonShutdown = "shutdown"
	ReasonTooSlow  = "too_slow"
)

// Reasons a stream ends without an end event: its client went (gone), or
// a write failed or took nothing for the write timeout (write).
const (
	reasonGone  = "gone"
	reasonWrite = "write"
)

// The states of a client's writing.
const (
	detached = iota // opened, its connection not handed over yet
	idle            // nothing to write, no writer
	queued          // in the hub's run queue
	busy            // a writer owns it
	done            // its connection is closed
)

// client is one open stream: its queue, the frames the hub gave it and no
// writer has sent yet, bounded in count and bytes, and its connection
// once the handler hands it over. The hub never waits on it: a frame that
// does not fit ends the stream instead. It has no goroutine of its own
// but the one that watches for its client leaving; the hub's writers
// write what it has queued.
type client struct {
	h      *Hub
	key    string
	follow *Follow

	conn     net.Conn // nil while detached
	chunked  bool     // the body is sent in HTTP/1.1 chunks
	attached bool     // counted in h.attached (h.mu)

	mu       sync.Mutex
	queue    [][]byte // nil when empty: an idle stream holds no queue
	bytes    int
	ping     bool      // a heartbeat is due
	ended    string    // the end reason, once ended
	endBy    time.Time // when set, the stream is done by then (see the end rules in write.go)
	state    uint8
	deadline time.Time // of the write in progress, while busy
}

func newClient(h *Hub, key string, f *Follow) *client {
	return &client{h: h, key: key, follow: f}
}

// push queues a frame; past the bounds it ends the stream as too slow (an
// empty queue takes any one frame). It reports whether the client must be
// put in the run queue, which the caller does.
func (c *client) push(frame []byte, maxEvents, maxBytes int) (schedule bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != "" {
		return false
	}
	if len(c.queue) >= maxEvents || len(c.queue) > 0 && c.bytes+len(frame) > maxBytes {
		return c.endLocked(ReasonTooSlow)
	}
	c.queue = append(c.queue, frame)
	c.bytes += len(frame)
	c.ping = false
	return c.wakeLocked()
}

// heartbeat asks for a comment line, unless events are queued (they keep
// the connection busy already); it reports whether the client must be
// put in the run queue.
func (c *client) heartbeat() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != "" || len(c.queue) > 0 {
		return false
	}
	c.ping = true
	return c.wakeLocked()
}

// wakeLocked moves an idle client to queued, reporting whether it did.
func (c *client) wakeLocked() bool {
	if c.state != idle {
		return false // detached: handed over with its queue; queued or busy: its writer sees it
	}
	c.state = queued
	return true
}

// end ends the stream for reason, unless it has ended already, and has a
// writer send the end event and close the connection.
func (c *client) end(reason string) {
	c.mu.Lock()
	schedule := c.ended == "" && c.endLocked(reason)
	c.mu.Unlock()
	if schedule {
		c.h.schedule(c)
	}
}

// endLocked counts the stream ended, drops what is queued (the writer
// sends only the rest of the event in progress and the end event), sets
// by when a stream ended so must be done (endBy: see the end rules in
// write.go), cuts a write in progress to that, and reports whether the
// client must be put in the run queue.
func (c *client) endLocked(reason string) bool {
	c.ended = reason
	c.h.m.ended(reason)
	c.queue, c.bytes, c.ping = nil, 0, false
	switch reason {
	case ReasonShutdown:
		c.byLocked(time.Now().Add(endWrite))
	case reasonGone:
		c.byLocked(time.Now())
	}
	return c.wakeLocked()
}

// shutdown ends the stream for the shutdown by d at the latest, whether
// or not it has ended already: Close waits no longer.
func (c *client) shutdown(d time.Time) {
	c.mu.Lock()
	schedule := false
	if c.ended == "" {
		schedule = c.endLocked(ReasonShutdown)
	} else {
		c.byLocked(d)
	}
	c.mu.Unlock()
	if schedule {
		c.h.schedule(c)
	}
}

// byLocked brings the stream's endBy to d at the latest, and cuts a write
// in progress to it.
func (c *client) byLocked(d time.Time) {
	if c.endBy.IsZero() || d.Before(c.endBy) {
		c.endBy = d
	}
	if c.state == busy {
		c.hurryLocked(c.endBy)
	}
}

// hurryLocked brings the deadline of the write in progress to d at the
// latest.
func (c *client) hurryLocked(d time.Time) {
	if c.deadline.IsZero() || d.Before(c.deadline) {
		c.deadline = d
		c.conn.SetWriteDeadline(d)
	}
}

// take returns the queued frames, emptying the queue, and the end reason
// if the stream has ended.
func (c *client) take() ([][]byte, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.queue
	c.queue, c.bytes = nil, 0
	return q, c.ended
}

// pending is the bytes queued.
func (c *client) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
