package stream

import (
	"strconv"
	"strings"
)

// Stream is one open stream, from Open until it ends.
type Stream struct {
	h       *Hub
	c       *client
	opening []byte
}

// Open registers a stream of the key with this id, following f (nil:
// every flag), resuming after last (the Last-Event-ID a client sent, ""
// for none). It refuses with ErrKeyBusy, ErrFull, ErrClosed, or
// ErrRevoked when the key is no longer active. The caller must Start or
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
	c := newClient(h, key, h.intern(f))
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
// resync event when they are not all known or would not fit a stream's
// queue (BufferBytes: a stream holds no more, resuming or not); then a
// ready event whose id is the position the stream goes on from.
func (h *Hub) opening(f *Follow, last string) []byte {
	b := []byte(retryFrame)
	if last != "" {
		after, ok := h.resumable(last)
		var missed [][]byte
		for i, n := 0, 0; ok && i < len(h.history); i++ {
			if e := h.history[i]; e.gen > after {
				fr := e.frameFor(f)
				missed, n = append(missed, fr), n+len(fr)
				ok = n <= h.opt.BufferBytes
			}
		}
		if ok {
			b = join(b, missed)
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
// history holds every event since.
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
	h.drop(s.c)
}

// shared is a follow set and the number of open streams holding it.
type shared struct {
	f *Follow
	n int
}

// intern returns the Follow of the open streams that follow what f
// follows, or f, now held by one more stream (h.mu held). nil stays nil.
func (h *Hub) intern(f *Follow) *Follow {
	if f == nil {
		return nil
	}
	sh := h.follows[f.key]
	if sh == nil {
		sh = &shared{f: f}
		h.follows[f.key] = sh
	}
	sh.n++
	return sh.f
}

// release lets go of a stream's hold on f (h.mu held): the last stream to
// let go removes it.
func (h *Hub) release(f *Follow) {
	if f == nil {
		return
	}
	if sh := h.follows[f.key]; sh != nil {
		if sh.n--; sh.n == 0 {
			delete(h.follows, f.key)
		}
	}
}

// drop takes c out of the hub's sets; h.mu is held.
func (h *Hub) drop(c *client) {
	if _, open := h.clients[c]; open {
		h.release(c.follow)
	}
	delete(h.clients, c)
	h.dropKey(c)
}

// dropKey gives c's place among its key's streams back; h.mu is held.
func (h *Hub) dropKey(c *client) {
	if cs := h.byKey[c.key]; cs != nil {
		delete(cs, c)
		if len(cs) == 0 {
			delete(h.byKey, c.key)
		}
	}
}
