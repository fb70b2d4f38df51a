package stream

import (
	"net"
	"strconv"
)

// How a stream's frames (each a whole event, or a comment line) go on the
// wire: as they are, when the response is not chunked (HTTP/1.0: the
// connection's close ends it), else in HTTP/1.1 chunks. A small write is
// one chunk of all its frames, copied together; a large one is each frame
// a chunk of its own, uncopied, so that it can stop after any frame.

var (
	ping      = []byte(": ping\n\n")
	crlf      = []byte("\r\n")
	lastChunk = []byte("0\r\n\r\n")
)

func endFrame(reason string) []byte {
	return []byte("event: end\ndata: {\"reason\":\"" + reason + "\"}\n\n")
}

// coalesce is the most bytes a writer copies into one write; a bigger
// write goes out in pieces, its frames uncopied.
const coalesce = 32 << 10

// chunkOverhead bounds what a chunk adds to its frames.
const chunkOverhead = 16

// inflight is what is left of a write: its pieces, of which the first
// `first` finish the frame in progress (a frame begun, or the stream's
// opening), then whole frames of k pieces each; frames is the events it
// carries. A stream ended meanwhile sends the frame in progress to its
// end, so that its end event follows whole frames (and whole chunks), and
// drops the others.
type inflight struct {
	pieces      [][]byte
	first, k    int
	frames      int
	fromScratch bool // pieces[0] is in the writer's scratch
}

// after is what is left of w once a write of w.pieces has left left, its
// first piece begun when mid.
func (w inflight) after(left [][]byte, mid bool) inflight {
	if len(left) == 0 {
		return inflight{}
	}
	d := len(w.pieces) - len(left) // pieces written whole
	first := 0
	if d < w.first {
		first = w.first - d
	} else if r := (d - w.first) % w.k; r != 0 || mid {
		first = w.k - r
	}
	return inflight{pieces: left, first: first, k: w.k, frames: w.frames, fromScratch: w.fromScratch}
}

// unfinished is the pieces that finish the frame in progress: none when
// the write stopped between two frames.
func (w inflight) unfinished() [][]byte { return w.pieces[:w.first] }

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
// is left unwritten, its first piece cut in place to its unwritten part,
// of which n bytes were written.
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
