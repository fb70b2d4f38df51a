package stream

import "sync"

// Reasons an end event gives for closing a stream.
const (
	ReasonRevoked  = "revoked"
	ReasonShutdown = "shutdown"
	ReasonTooSlow  = "too_slow"
)

// client is one open stream's queue: the frames the hub gave it and its
// writer has not sent yet, bounded in count and bytes. The hub never
// waits on it: a frame that does not fit ends the stream instead.
type client struct {
	key    string
	follow *Follow

	mu    sync.Mutex
	queue [][]byte
	bytes int
	ended string // the end reason, once ended
	wake  chan struct{}
	// hurry, set by the writer, cuts a write that is stuck to a short
	// grace, so an ended stream closes soon whatever its client reads.
	hurry func()
}

func newClient(key string, f *Follow) *client {
	return &client{key: key, follow: f, wake: make(chan struct{}, 1)}
}

// push queues a frame; past the bounds it ends the stream as too slow (an
// empty queue takes any one frame). It reports whether the frame was
// queued.
func (c *client) push(frame []byte, maxEvents, maxBytes int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != "" {
		return false
	}
	if len(c.queue) >= maxEvents || len(c.queue) > 0 && c.bytes+len(frame) > maxBytes {
		c.endLocked(ReasonTooSlow)
		return false
	}
	c.queue = append(c.queue, frame)
	c.bytes += len(frame)
	c.signal()
	return true
}

// end ends the stream for reason, unless it has ended already; it reports
// whether this call ended it.
func (c *client) end(reason string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != "" {
		return false
	}
	c.endLocked(reason)
	return true
}

// endLocked drops what is queued (the writer sends only the end event)
// and wakes the writer.
func (c *client) endLocked(reason string) {
	c.ended = reason
	c.queue, c.bytes = nil, 0
	c.signal()
	if c.hurry != nil {
		c.hurry()
	}
}

// setHurry sets the function that cuts a stuck write.
func (c *client) setHurry(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hurry = fn
}

func (c *client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
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
