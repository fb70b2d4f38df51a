package stream

import (
	"runtime"
	"time"
)

// The writers and the heartbeat. A snapshot's event puts every stream it
// concerns in one run queue in one go, and a few writer goroutines
// (writerCount) write it stream after stream: one write each, no
// goroutine woken per stream. One ticker asks every idle stream for its
// comment line.

// writerCount is the number of writer goroutines.
func writerCount() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// writerBatch is the most streams a writer takes from the run queue at
// once.
const writerBatch = 16

// schedule puts c in the run queue.
func (h *Hub) schedule(c *client) {
	h.qmu.Lock()
	h.runq = append(h.runq, c)
	h.qmu.Unlock()
	h.qcond.Signal()
}

// scheduleAll puts cs in the run queue, in one go.
func (h *Hub) scheduleAll(cs []*client) {
	if len(cs) == 0 {
		return
	}
	h.qmu.Lock()
	h.runq = append(h.runq, cs...)
	h.qmu.Unlock()
	h.qcond.Broadcast()
}

// startLocked starts the writers and the heartbeat, once; h.mu is held.
func (h *Hub) startLocked() {
	if h.started {
		return
	}
	h.started = true
	for range writerCount() {
		go h.writer()
	}
	go h.beat()
}

// writer writes for the streams of the run queue until the hub is closed
// and owns no connection any more.
func (h *Hub) writer() {
	sc := &scratch{buf: make([]byte, 0, coalesce)}
	var batch []*client
	for {
		h.qmu.Lock()
		for len(h.runq) == 0 && !h.qstop {
			h.qcond.Wait()
		}
		if len(h.runq) == 0 {
			h.qmu.Unlock()
			return
		}
		n := min(len(h.runq), writerBatch)
		batch = append(batch[:0], h.runq[:n]...)
		clear(h.runq[:n])
		h.runq = h.runq[n:]
		if len(h.runq) == 0 {
			h.runq = nil // its array goes: a burst of 10,000 streams leaves nothing behind
		}
		h.qmu.Unlock()
		for i, c := range batch {
			h.run(c, true, sc, inflight{})
			batch[i] = nil
		}
	}
}

// beatEvery is how often the hub asks for heartbeats: two thirds of
// Heartbeat, which leaves the writers a third to deliver the comment
// line within Heartbeat.
func (h *Hub) beatEvery() time.Duration { return max(h.opt.Heartbeat*2/3, time.Millisecond) }

// beat asks every stream for a heartbeat every beatEvery, until the hub
// has stopped.
func (h *Hub) beat() {
	t := time.NewTicker(h.beatEvery())
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.heartbeats()
	}
}

// heartbeats asks every stream with nothing queued for its comment line.
func (h *Hub) heartbeats() {
	h.mu.Lock()
	var wake []*client
	for c := range h.clients {
		if c.heartbeat() {
			wake = append(wake, c)
		}
	}
	h.mu.Unlock()
	h.scheduleAll(wake)
}
