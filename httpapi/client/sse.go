package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// sseEvent is one dispatched event of a text/event-stream body.
type sseEvent struct {
	typ  string // "message" when the event named none
	id   string // the last event id after this event, as EventSource keeps it
	data []byte
}

// sseReader reads a text/event-stream body as the HTML standard's event
// stream interpretation does (lines ended by CRLF, LF or CR; comments;
// the event, data, id and retry fields; a blank line dispatches), within
// a bound on the size of one event.
type sseReader struct {
	r        *bufio.Reader
	max      int           // bytes one event may hold, its lines together
	lastID   string        // the last event id buffer
	retry    time.Duration // the latest valid retry field, 0 before one
	started  bool          // past the optional byte order mark
	onRead   func()        // called whenever a line arrives
	buf      []byte        // the line being read
	skipLF   bool          // the last line ended with a CR
	typ      []byte
	data     bytes.Buffer
	hasData  bool
	pendingN int // bytes of the event read so far, its line ends counted
}

// errEventTooLarge is returned when one event passes the reader's bound.
var errEventTooLarge = errors.New("an event of the stream is larger than the bound set for one")

func newSSEReader(r io.Reader, maxEvent int, lastID string, onRead func()) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10), max: maxEvent, lastID: lastID, onRead: onRead}
}

// next returns the next dispatched event. At the end of the body it
// returns io.EOF (an event not yet dispatched is dropped, as the standard
// says); other errors are the body's.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.line()
		if err != nil {
			return sseEvent{}, err
		}
		if s.onRead != nil {
			s.onRead()
		}
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue // a comment, such as the server's ping
		}
		if s.pendingN += len(line) + 1; s.max > 0 && s.pendingN > s.max {
			return sseEvent{}, fmt.Errorf("%w (%d bytes)", errEventTooLarge, s.max)
		}
		s.field(line)
	}
}

// line reads one line without its end. A CR ends a line at once (a LF
// right after it is skipped when it comes), so a stream that ends its lines
// with CR alone is not held back waiting for the next byte.
func (s *sseReader) line() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if s.skipLF {
			s.skipLF = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return s.count()
		case '\r':
			s.skipLF = true
			return s.count()
		}
		s.buf = append(s.buf, b)
		if s.max > 0 && s.pendingN+len(s.buf) > s.max {
			return nil, fmt.Errorf("%w (%d bytes)", errEventTooLarge, s.max)
		}
	}
}

// count returns the line read, without a byte order mark that opens the
// stream.
func (s *sseReader) count() ([]byte, error) {
	line := s.buf
	if !s.started {
		s.started = true
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	return line, nil
}

// field applies one line that is neither blank nor a comment.
func (s *sseReader) field(line []byte) {
	name, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "event":
		s.typ = append(s.typ[:0], value...)
	case "data":
		s.data.Write(value)
		s.data.WriteByte('\n')
		s.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	case "retry":
		if n, err := strconv.ParseUint(string(value), 10, 63); err == nil {
			s.retry = time.Duration(min(n, uint64(time.Hour/time.Millisecond))) * time.Millisecond
		}
	}
}

// dispatch ends the event at a blank line: it returns it when it has
// data, and resets the buffers either way.
func (s *sseReader) dispatch() (sseEvent, bool) {
	defer func() {
		s.typ, s.hasData, s.pendingN = s.typ[:0], false, 0
		s.data.Reset()
	}()
	if !s.hasData {
		return sseEvent{}, false
	}
	data := bytes.TrimSuffix(s.data.Bytes(), []byte("\n"))
	ev := sseEvent{typ: string(s.typ), id: s.lastID, data: bytes.Clone(data)}
	if ev.typ == "" {
		ev.typ = "message"
	}
	return ev, true
}
