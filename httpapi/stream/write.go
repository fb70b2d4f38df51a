package stream

import (
	"cmp"
	"errors"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"
)

// How the hub writes to the streams' connections, which it owns once the
// handler has written the response's head (Stream.Start):
//
//   - A few writer goroutines (writerCount) take the streams with
//     something to write from one run queue. A snapshot's event puts every
//     stream it concerns in the queue at once, and the writers write it
//     stream after stream: one write each, no goroutine woken per stream.
//   - A writer gives a write fastWrite to finish. One that would wait
//     longer, because the client's socket buffer is full, is handed with
//     what is left of it to a goroutine of the stream's own, which writes
//     with the write timeout and returns the stream to the writers once
//     its queue is empty. So a slow reader costs a writer at most
//     fastWrite, and never blocks the other streams.
//   - One ticker asks every stream for a heartbeat.
//   - Each stream has one goroutine reading its connection, which notices
//     the client leaving (net/http's own would have done so before the
//     hijack). It is the only goroutine an idle stream keeps.

// fastWrite is how long a writer waits on one stream's write before
// handing it to a goroutine of the stream's own.
const fastWrite = 2 * time.Millisecond

// endWrite bounds how long an ended stream takes to write the rest of
// the event in progress and the end event, from its end, plus
// endReserve, the least the end event gets after a write in progress was
// cut.
const (
	endWrite   = time.Second
	endReserve = 250 * time.Millisecond
)

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// coalesce is the most bytes a writer copies into one write; a bigger
// write goes out in pieces, its frames uncopied.
const coalesce = 32 << 10

// writerCount is the number of writer goroutines.
func writerCount() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

var (
	ping      = []byte(": ping\n\n")
	crlf      = []byte("\r\n")
	lastChunk = []byte("0\r\n\r\n")
)

func endFrame(reason string) []byte {
	return []byte("event: end\ndata: {\"reason\":\"" + reason + "\"}\n\n")
}

// Start writes the stream's opening to conn, the connection the caller
// hijacked after writing the response's head, within the write timeout,
// and hands the stream to the hub's writers, which close conn when the
// stream ends. chunked says whether the body goes in HTTP/1.1 chunks
// (else the connection's close ends it, as for HTTP/1.0). It returns at
// once.
func (s *Stream) Start(conn net.Conn, chunked bool) {
	h, c := s.h, s.c
	c.mu.Lock()
	c.conn, c.chunked = conn, chunked
	c.mu.Unlock()
	conn.SetDeadline(time.Time{})
	// Counted as the hub's before its first byte goes out: a Close that
	// comes after the client read the opening waits for this stream too.
	h.mu.Lock()
	late := h.closed
	if !late {
		c.attached = true
		h.attached++
		if !h.started {
			h.started = true
			for range writerCount() {
				go h.writer()
			}
			go h.beat()
		}
	}
	h.mu.Unlock()
	conn.SetWriteDeadline(time.Now().Add(h.opt.WriteTimeout))
	if _, err := conn.Write(c.appendFramed(nil, s.opening)); err != nil {
		conn.Close()
		h.remove(c, "write")
		return
	}
	if late {
		// Too late for the writers: it ends here. Its watch closes the
		// connection once the client has read the end (finish only
		// half-closes it).
		c.mu.Lock()
		c.state = busy
		reason := c.ended
		c.mu.Unlock()
		go c.watch()
		h.finish(c, nil, cmp.Or(reason, ReasonShutdown), true)
		return
	}
	c.mu.Lock()
	c.state = idle
	schedule := c.ended != "" || len(c.queue) > 0
	if schedule {
		c.state = queued
	}
	c.mu.Unlock()
	if schedule {
		h.schedule(c)
	}
	go c.watch()
}

// watch reads the connection until it fails: the client left, or the
// stream was closed. A client sends nothing on a stream; what it sends is
// dropped.
func (c *client) watch() {
	buf := make([]byte, 64)
	for {
		if _, err := c.conn.Read(buf); err != nil {
			break
		}
	}
	c.end(reasonGone)
	c.conn.Close()
}

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

// writerBatch is the most streams a writer takes from the run queue at
// once.
const writerBatch = 16

// writer writes for the streams of the run queue until the hub is closed
// and owns no connection any more.
func (h *Hub) writer() {
	scratch := make([]byte, 0, coalesce)
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
			h.run(c, true, scratch, inflight{})
			batch[i] = nil
		}
	}
}

// inflight is what is left of a write: its pieces, of which the first
// `first` finish the frame in progress, then whole frames of k pieces
// each; frames is the events it carries. A stream ended meanwhile sends
// the frame in progress to its end, so that its end event follows whole
// frames (and whole chunks), and drops the others.
type inflight struct {
	pieces      [][]byte
	first, k    int
	frames      int
	fromScratch bool // pieces[0] is in the writer's scratch
}

// unfinished is, of left (what a write of w.pieces left, its first piece
// written n bytes into), the pieces that finish the frame in progress:
// none when the write stopped between two frames.
func (w inflight) unfinished(left [][]byte, n int) [][]byte {
	if len(left) == 0 {
		return nil
	}
	i := len(w.pieces) - len(left)
	if i < w.first {
		return left[:w.first-i]
	}
	r := (i - w.first) % w.k
	if r == 0 && n == 0 {
		return nil
	}
	return left[:w.k-r]
}

// run writes what c has queued until its queue is empty (it goes idle),
// or, fast, a write would wait (it is handed to a goroutine of its own
// with what is left of that write, w), or it ends. scratch, the
// writer's, is where a write is put together when it is small.
func (h *Hub) run(c *client, fast bool, scratch []byte, w inflight) {
	timeout := h.opt.WriteTimeout
	if fast {
		timeout = fastWrite
	}
	var one [1][]byte
	for {
		c.mu.Lock()
		c.state = busy
		if c.ended != "" {
			reason := c.ended
			c.mu.Unlock()
			h.finish(c, w.unfinished(w.pieces, 0), reason, true)
			return
		}
		if len(w.pieces) == 0 {
			q := c.queue
			c.queue, c.bytes = nil, 0
			frames := 0
			if len(q) == 0 && c.ping {
				q = [][]byte{ping}
			} else {
				frames = len(q)
			}
			c.ping = false
			if len(q) == 0 {
				c.state, c.deadline = idle, time.Time{}
				c.mu.Unlock()
				return
			}
			if n := size(q) + chunkOverhead; n <= coalesce {
				// One piece, one chunk: finished whole or dropped whole.
				buf := scratch[:0]
				inScratch := cap(buf) >= n
				if !inScratch {
					buf = make([]byte, 0, n)
				}
				one[0] = c.appendFramed(buf, q...)
				w = inflight{pieces: one[:], k: 1, frames: frames, fromScratch: inScratch}
			} else {
				w = inflight{pieces: c.frame(q...), k: c.unit(), frames: frames}
			}
		}
		c.deadline = time.Now().Add(timeout)
		c.conn.SetWriteDeadline(c.deadline)
		c.mu.Unlock()
		left, n, err := writePieces(c.conn, w.pieces)
		switch {
		case err == nil:
			h.m.sent(w.frames)
			w = inflight{}
		case fast && errors.Is(err, os.ErrDeadlineExceeded):
			// The client's socket buffer is full: the stream gets a
			// goroutine of its own, with what the write left (a copy,
			// when in the writer's scratch).
			first := len(w.unfinished(left, n))
			if w.fromScratch {
				left = [][]byte{append([]byte(nil), left[0]...)}
			} else {
				left = append([][]byte(nil), left...)
			}
			h.handoffs.Add(1)
			go h.run(c, false, nil, inflight{pieces: left, first: first, k: w.k, frames: w.frames})
			return
		default:
			// A write that failed leaves the stream unusable: it is
			// closed without an end event. One cut short because the
			// stream ended (its deadline hurried, or the client read
			// nothing for the write timeout) finishes its frame in
			// progress and tells the end, within endWrite.
			c.mu.Lock()
			ended := c.ended
			c.mu.Unlock()
			if ended != "" && errors.Is(err, os.ErrDeadlineExceeded) {
				h.finish(c, w.unfinished(left, n), ended, true)
			} else {
				h.finish(c, nil, cmp.Or(ended, "write"), false)
			}
			return
		}
	}
}

// finish writes, when tell and the stream ends for a reason its client is
// told, what is left of a write and the end event (endWrite at most),
// closes the connection and takes the stream out of the hub. The caller
// owns c (busy).
func (h *Hub) finish(c *client, rest [][]byte, reason string, tell bool) {
	lingers := false
	if tell && reason != reasonGone {
		pieces := append(append([][]byte(nil), rest...), c.frame(endFrame(reason))...)
		if c.chunked {
			pieces = append(pieces, lastChunk)
		}
		// By the stream's endBy (see endLocked: every told stream was
		// ended, the late ones by Close), but never less than endReserve
		// from now: a write in progress cut at endBy leaves the end that
		// much.
		c.mu.Lock()
		c.deadline = later(c.endBy, time.Now().Add(endReserve))
		c.conn.SetWriteDeadline(c.deadline)
		c.mu.Unlock()
		if _, _, err := writePieces(c.conn, pieces); err == nil {
			// The client reads the end and closes the connection; then
			// its watch closes it here too, or the read deadline does.
			if cw, ok := c.conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
				lingers = c.conn.SetReadDeadline(time.Now().Add(endWrite)) == nil
			}
		}
	}
	if !lingers {
		c.conn.Close()
	}
	c.mu.Lock()
	c.state, c.queue, c.bytes = done, nil, 0
	c.mu.Unlock()
	h.remove(c, reason)
}

// remove takes c out of the hub and counts it ended for reason (before
// Close can see the hub drained).
func (h *Hub) remove(c *client, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(c)
	h.m.ended(reason)
	if c.attached {
		c.attached = false
		h.attached--
		h.checkDrained()
	}
}

// chunkOverhead bounds what a chunk adds to its frames.
const chunkOverhead = 16

// appendFramed appends frames as the body carries them: one chunk of them
// all, when chunked.
func (c *client) appendFramed(b []byte, frames ...[]byte) []byte {
	if c.chunked {
		b = strconv.AppendInt(b, int64(size(frames)), 16)
		b = append(b, crlf...)
	}
	b = join(b, frames)
	if c.chunked {
		b = append(b, crlf...)
	}
	return b
}

// frame is the frames as the body carries them, in pieces, the frames
// uncopied: when chunked, each frame a chunk of its own (its head, the
// frame, CRLF: unit pieces), so that a write can stop after any frame.
func (c *client) frame(frames ...[]byte) [][]byte {
	if !c.chunked {
		return frames
	}
	out := make([][]byte, 0, 3*len(frames))
	for _, f := range frames {
		out = append(out, append(strconv.AppendInt(make([]byte, 0, 10), int64(len(f)), 16), crlf...), f, crlf)
	}
	return out
}

// unit is the pieces a frame takes in frame's output.
func (c *client) unit() int {
	if c.chunked {
		return 3
	}
	return 1
}

func size(pieces [][]byte) int {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	return n
}

func join(b []byte, pieces [][]byte) []byte {
	for _, p := range pieces {
		b = append(b, p...)
	}
	return b
}

// writePieces writes the pieces in turn; after an error it returns what
// is left unwritten, the first of it written n bytes into.
func writePieces(conn net.Conn, pieces [][]byte) (left [][]byte, n int, err error) {
	for i, p := range pieces {
		n, err := conn.Write(p)
		if err != nil {
			left := pieces[i:]
			left[0] = p[n:]
			return left, n, err
		}
	}
	return nil, 0, nil
}

// beat asks every stream for a heartbeat every two thirds of Heartbeat,
// until the hub has stopped: the comment line reaches each stream after
// the tick and the writers' turn to it, within Heartbeat.
func (h *Hub) beat() {
	t := time.NewTicker(max(h.opt.Heartbeat*2/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
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
}
