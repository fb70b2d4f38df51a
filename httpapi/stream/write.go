package stream

import (
	"errors"
	"net"
	"os"
	"time"
)

// Writing. Once the handler has written the response's head, the hub owns
// the stream's connection (Stream.Start) and writes to it from goroutines
// of its own. What it guarantees:
//
//   - No stream waits on another. A writer (writers.go) gives a write
//     fastWrite; one that would wait longer, the client's socket buffer
//     being full, goes with what is left of it to a goroutine of the
//     stream's own, which gives the stream back to the writers once its
//     queue is empty. A slow reader costs a writer fastWrite at most.
//   - A client reads whole events: a write stops early only between two
//     events (each event of a large write is a chunk of its own) or when
//     the connection is given up.
//   - A client that reads is told before it is closed. The write timeout
//     runs from the last byte the client took, not from the start of a
//     write, so a client that keeps reading is not cut because a queued
//     batch (up to BufferBytes) takes it longer than that to read. One
//     that falls behind by more than its queue holds is ended too_slow,
//     and told.
//   - What a stream holds is bounded: its queue by Buffer and BufferBytes,
//     its time by the rules below, and a client that acknowledges nothing
//     (gone without a FIN) by AckTimeout (TCP's, see acktimeout.go).
//
// How a stream ends, in one place:
//
//  1. revoked, too_slow: the queue is dropped; the event in progress is
//     finished and the end event follows, at the client's pace under the
//     write timeout. The client still reads (a too_slow one was reading,
//     only behind): cut in the middle of an event it would get half an
//     event and no reason, and the rest of one event is bounded.
//  2. shutdown: the process is stopping and Close waits closeWait at most,
//     so every stream, ended already or not, is done by its endBy, endWrite
//     from Close: a write in progress is cut to it, and the end event still
//     gets endReserve after a cut (a client that cannot take it by then is
//     cut without it).
//  3. gone: the client left (its connection's read failed): a write in
//     progress is cut at once, and nothing more is written.
//  4. A client that takes no byte for the write timeout is cut without an
//     end event, ended or not: nothing more would reach it (counted as its
//     end's reason, else write).
//
// A stream gives its key's slot back before it writes its end event, so a
// client that reconnects on reading it (after the retry delay, or at once)
// finds the slot free. After the end event it half-closes the connection
// and closes it when the client does, endWrite later at the most.

// fastWrite is how long a writer waits on one stream's write before
// handing it to a goroutine of the stream's own.
const fastWrite = 2 * time.Millisecond

// endWrite bounds how long a stream takes, from Close, to write the rest
// of the event in progress and the end event; endReserve is the least the
// end event gets after a write in progress was cut (see the rules above).
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

// Start hands the stream to the hub with conn, the connection the caller
// hijacked after writing the response's head; chunked says whether the
// body goes in HTTP/1.1 chunks (else the connection's close ends it, as
// for HTTP/1.0). It writes the stream's opening and what was queued
// meanwhile, in the caller's goroutine while that takes no time, and
// returns; the hub closes conn when the stream ends.
func (s *Stream) Start(conn net.Conn, chunked bool) {
	h, c := s.h, s.c
	conn.SetDeadline(time.Time{})
	setAckTimeout(conn, h.opt.AckTimeout)
	c.mu.Lock()
	c.conn, c.chunked = conn, chunked
	c.state = busy // until the opening is written: what comes meanwhile waits in the queue
	c.mu.Unlock()
	// Counted as the hub's before its first byte goes out: a Close that
	// comes after the client read the opening waits for this stream too.
	// Too late for that (the hub closed since Open), the stream was ended
	// by Close and ends here.
	h.mu.Lock()
	if !h.closed {
		c.attached = true
		h.attached++
		h.startLocked()
	}
	h.mu.Unlock()
	go c.watch()
	// The opening is the frame in progress: it goes out whole before an
	// end event, if the stream has ended.
	h.run(c, true, nil, inflight{pieces: [][]byte{c.appendFramed(nil, s.opening)}, first: 1, k: 1})
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

// scratch is a writer's own room for small writes: the bytes of one and
// the one piece that holds them, used again from write to write (a stream
// handed to a goroutine of its own takes a copy of what it holds).
type scratch struct {
	buf []byte
	one [1][]byte
}

// run writes w and what c has queued until its queue is empty (it goes
// idle), or, fast, a write would wait (it goes with what is left to a
// goroutine of its own), or it ends. sc, the writer's, is where a small
// write is put together (nil: no writer's).
func (h *Hub) run(c *client, fast bool, sc *scratch, w inflight) {
	timeout := h.opt.WriteTimeout
	if fast {
		timeout = fastWrite
	}
	if sc == nil {
		sc = new(scratch)
	}
	for {
		c.mu.Lock()
		c.state = busy
		if c.ended != "" {
			reason := c.ended
			c.mu.Unlock()
			h.finish(c, w.unfinished(), reason)
			return
		}
		if len(w.pieces) == 0 {
			if w = c.nextLocked(sc); len(w.pieces) == 0 {
				c.state, c.deadline = idle, time.Time{}
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		frames := w.frames
		err := c.send(&w, timeout, !fast)
		switch {
		case err == nil:
			h.m.sent(frames)
		case fast && errors.Is(err, os.ErrDeadlineExceeded):
			// The client's socket buffer is full: the stream gets a
			// goroutine of its own, with a copy of what is left (the
			// writer's scratch holds it, or its pieces).
			if w.fromScratch {
				w.pieces = [][]byte{append([]byte(nil), w.pieces[0]...)}
			} else {
				w.pieces = append([][]byte(nil), w.pieces...)
			}
			w.fromScratch = false
			h.m.handoffs.Inc()
			go h.run(c, false, nil, w)
			return
		default:
			// Cut by the stream's endBy (rules 2 and 3): the event in
			// progress is finished and the end told. Else given up (rule
			// 4, or a failed write): closed without an end event.
			c.mu.Lock()
			reason, cut := c.ended, c.pastEndLocked()
			if reason == "" {
				c.endLocked(reasonWrite) // before the close, which its watch would take for the client leaving
			}
			c.mu.Unlock()
			if reason != "" && cut && errors.Is(err, os.ErrDeadlineExceeded) {
				h.finish(c, w.unfinished(), reason)
			} else {
				c.conn.Close()
				h.done(c)
			}
			return
		}
	}
}

// nextLocked takes what c has queued, or the comment line of a heartbeat
// due, as the next write: none when there is nothing. A small write is
// one piece, one chunk, put together in sc when it fits, finished whole
// or dropped whole; a larger one is its frames, each a chunk of its own.
// c.mu is held.
func (c *client) nextLocked(sc *scratch) inflight {
	q := c.queue
	c.queue, c.bytes = nil, 0
	frames := len(q)
	if len(q) == 0 && c.ping {
		q = [][]byte{ping}
	}
	c.ping = false
	if len(q) == 0 {
		return inflight{}
	}
	n := size(q) + chunkOverhead
	if n > coalesce {
		return inflight{pieces: c.frame(q...), k: c.unit(), frames: frames}
	}
	buf := sc.buf[:0]
	inScratch := cap(buf) >= n
	if !inScratch {
		buf = make([]byte, 0, n)
	}
	sc.one[0] = c.appendFramed(buf, q...)
	return inflight{pieces: sc.one[:], k: 1, frames: frames, fromScratch: inScratch}
}

// send writes w, leaving in it what is left. Each try has timeout from
// its start, and never runs past the stream's endBy, when set; with
// progress, a try that timed out having written something is followed by
// another (the write timeout runs from the last byte the client took),
// until endBy.
func (c *client) send(w *inflight, timeout time.Duration, progress bool) error {
	for {
		c.mu.Lock()
		c.deadline = time.Now().Add(timeout)
		if !c.endBy.IsZero() && c.endBy.Before(c.deadline) {
			c.deadline = c.endBy
		}
		c.conn.SetWriteDeadline(c.deadline)
		c.mu.Unlock()
		left, n, err := writePieces(c.conn, w.pieces)
		moved := len(left) < len(w.pieces) || n > 0
		*w = w.after(left, n > 0)
		if err == nil || !progress || !moved || !errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		c.mu.Lock()
		past := c.pastEndLocked()
		c.mu.Unlock()
		if past {
			return err
		}
	}
}

// pastEndLocked reports whether the stream's endBy is set and has come;
// c.mu is held.
func (c *client) pastEndLocked() bool {
	return !c.endBy.IsZero() && !time.Now().Before(c.endBy)
}

// finish ends c for reason: it gives the key's slot back, writes (but for
// a client gone) rest, the end of the event in progress, and the end
// event, and closes the connection, at once or once the client has read
// the end (see the rules above). The caller owns c (busy).
func (h *Hub) finish(c *client, rest [][]byte, reason string) {
	h.mu.Lock()
	h.dropKey(c)
	h.mu.Unlock()
	if reason == reasonGone || !h.tell(c, rest, reason) {
		c.conn.Close()
	}
	h.done(c)
}

// tell writes rest and the end event, and then half-closes the
// connection, leaving its watch to close it once the client has read the
// end and closed its side (or endWrite later). It reports whether the
// connection lingers so.
func (h *Hub) tell(c *client, rest [][]byte, reason string) bool {
	w := inflight{pieces: append(append([][]byte(nil), rest...), c.frame(endFrame(reason))...), k: 1}
	if c.chunked {
		w.pieces = append(w.pieces, lastChunk)
	}
	c.mu.Lock()
	if !c.endBy.IsZero() {
		c.endBy = later(c.endBy, time.Now().Add(endReserve))
	}
	c.mu.Unlock()
	if c.send(&w, h.opt.WriteTimeout, true) != nil {
		return false
	}
	cw, ok := c.conn.(interface{ CloseWrite() error })
	return ok && cw.CloseWrite() == nil && c.conn.SetReadDeadline(time.Now().Add(endWrite)) == nil
}

// done marks c done and takes it out of the hub; its connection is
// closed, or left to its watch to close.
func (h *Hub) done(c *client) {
	c.mu.Lock()
	c.state, c.queue, c.bytes = done, nil, 0
	c.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(c)
	if c.attached {
		c.attached = false
		h.attached--
		h.checkDrained()
	}
}
