package stream

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Stream is one open stream, from Open until its Serve returns.
type Stream struct {
	h       *Hub
	c       *client
	opening []byte
}

// Open registers a stream of the key with this id, following f (nil:
// every flag), resuming after last (the Last-Event-ID a client sent, ""
// for none). It refuses with ErrKeyBusy, ErrFull, ErrClosed, or
// ErrRevoked when the key is no longer active. The caller must Serve or
// Close the stream.
func (h *Hub) Open(key string, f *Follow, last string) (*Stream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch ks := h.store.Keys(); {
	case h.closed:
		return nil, ErrClosed
	case len(h.clients) >= h.opt.MaxStreams:
		return nil, ErrFull
	case len(h.byKey[key]) >= h.opt.MaxPerKey:
		return nil, ErrKeyBusy
	case ks == nil || !ks.HasID(key):
		// Checked under h.mu: a key swap after this one ends the stream.
		return nil, ErrRevoked
	}
	c := newClient(key, f)
	h.clients[c] = struct{}{}
	if h.byKey[key] == nil {
		h.byKey[key] = map[*client]struct{}{}
	}
	h.byKey[key][c] = struct{}{}
	return &Stream{h: h, c: c, opening: h.opening(f, last)}, nil
}

// retryFrame tells an EventSource to wait 2 s before reconnecting.
const retryFrame = "retry: 2000\n\n"

// opening is what a new stream sends first (h.mu held): the retry delay;
// after a Last-Event-ID, the events missed since (those f follows), or a
// resync event when they are not all known; then a ready event whose id
// is the position the stream goes on from.
func (h *Hub) opening(f *Follow, last string) []byte {
	b := []byte(retryFrame)
	if last != "" {
		if after, ok := h.resumable(last); ok {
			for _, e := range h.ring {
				if e.gen > after {
					b = append(b, e.frameFor(f)...)
				}
			}
		} else {
			b = append(b, "event: resync\ndata: {}\n\n"...)
		}
	}
	b = append(b, "id: "...)
	b = append(b, positionID(h.epoch, h.gen)...)
	b = append(b, "\nevent: ready\ndata: {}\n\n"...)
	return b
}

// resumable reads an event id: the generation it follows, and whether the
// ring holds every event since.
func (h *Hub) resumable(id string) (uint64, bool) {
	epoch, gen, ok := strings.Cut(id, "-")
	if !ok || epoch != h.epoch {
		return 0, false
	}
	g, err := strconv.ParseUint(gen, 10, 64)
	if err != nil || g < h.floor || g > h.gen {
		return 0, false
	}
	return g, true
}

// Close takes the stream out of the hub without serving it (HEAD).
func (s *Stream) Close() {
	h := s.h
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, s.c)
	if cs := h.byKey[s.c.key]; cs != nil {
		delete(cs, s.c)
		if len(cs) == 0 {
			delete(h.byKey, s.c.key)
		}
	}
}

// endWrite bounds the write of the end event and what net/http writes
// after the handler, best effort; and a write in progress when the stream
// is ended.
const endWrite = time.Second

// Serve writes the stream to w, whose headers the caller has written,
// until the client goes, the stream is ended (then with an end event), or
// a write fails; then it closes the stream. It returns why the stream
// ended: an end reason, or "gone" when the client went, "write" when a
// write failed or timed out.
func (s *Stream) Serve(ctx context.Context, w http.ResponseWriter) string {
	defer s.Close()
	h := s.h
	rc := http.NewResponseController(w)
	send := func(timeout time.Duration, frames ...[]byte) bool {
		rc.SetWriteDeadline(time.Now().Add(timeout))
		for _, f := range frames {
			if _, err := w.Write(f); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	reason := "write"
	defer func() {
		if _, ended := s.c.take(); reason == "write" && ended != "" {
			reason = ended // ended while a write was stuck, which then failed
		}
		h.m.ended(reason)
	}()
	s.c.setHurry(func() { rc.SetWriteDeadline(time.Now().Add(endWrite)) })
	if !send(h.opt.WriteTimeout, s.opening) {
		return reason
	}
	tick := time.NewTicker(h.opt.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			reason = "gone"
			return reason
		case <-tick.C:
			if !send(h.opt.WriteTimeout, ping) {
				return reason
			}
		case <-s.c.wake:
			frames, ended := s.c.take()
			if ended != "" {
				reason = ended
				send(endWrite, endFrame(ended))
				return reason
			}
			if !send(h.opt.WriteTimeout, frames...) {
				return reason
			}
			h.m.sent(len(frames))
		}
	}
}

var ping = []byte(": ping\n\n")

func endFrame(reason string) []byte {
	return []byte("event: end\ndata: {\"reason\":\"" + reason + "\"}\n\n")
}
