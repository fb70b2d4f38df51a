// Package stream is the live stream's hub: one per API process, it learns
// of every snapshot swap and key swap from the memstore.Store, encodes
// each votes event once, and hands it to the bounded queue of every open
// stream that follows a flag it names. A stream whose queue is full is
// ended, never waited for; a stream whose key is revoked is ended at the
// key swap. The hub keeps the latest events, so a client that reconnects
// with the id of the last event it read gets what it missed.
//
// The hub owns the streams' connections (the handler hijacks them): a few
// writer goroutines write what the streams have queued, one ticker sends
// every stream's heartbeat, and each stream keeps one small goroutine
// that notices its client leaving. A client that reads too slowly for a
// write to finish at once gets a goroutine of its own until it catches up.
package stream

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/memstore"
)

// Options configure a Hub. Item and String are required.
type Options struct {
	// Item appends a changed flag's entry of a votes event, a JSON
	// object; String appends a JSON string.
	Item   func([]byte, *memstore.Flag) []byte
	String func([]byte, string) []byte
	// MaxPerKey is the most streams one key holds open (0: 5).
	MaxPerKey int
	// MaxStreams is the most streams open at once (0: 12288, the share of
	// streams of connlimit's CeilingMax: the connection bounds never let
	// more be served, see httpapi/connlimit/streams.go).
	MaxStreams int
	// Buffer is the most events queued for one stream (0: 64), and
	// BufferBytes the most bytes (0: 4 MiB; an empty queue takes any one
	// event).
	Buffer, BufferBytes int
	// History is the number of recent events kept for resuming (0: 256),
	// and HistoryBytes the memory they hold at most (0: 16 MiB; an event
	// holds its frame, its flags' slugs and 16 to 20 bytes a flag).
	History, HistoryBytes int
	// Heartbeat is the longest an idle stream goes without a comment
	// line (0: 15 s): the hub asks for one every two thirds of it, which
	// leaves the writers a third to deliver it.
	Heartbeat time.Duration
	// WriteTimeout bounds each write to a stream (0: 10 s): a client that
	// takes nothing for that long is cut (see the end rules in write.go).
	WriteTimeout time.Duration
	// AckTimeout bounds how long what is sent to a stream may go
	// unacknowledged by its client's TCP before the connection is dropped
	// (0: 45 s), so that a client gone without a FIN gives its slot back
	// within about a minute (see acktimeout.go; Linux only).
	AckTimeout time.Duration
	// Metrics, when set, receives the stream gauges and counters.
	Metrics prometheus.Registerer
}

// The refusals of Open.
var (
	ErrKeyBusy = errors.New("stream: the key holds its most streams")
	ErrFull    = errors.New("stream: the process holds its most streams")
	ErrClosed  = errors.New("stream: the hub is closed")
	ErrRevoked = errors.New("stream: the key is not active")
)

// Hub fans each snapshot's votes event out to the open streams.
type Hub struct {
	opt   Options
	store *memstore.Store
	epoch string // random, so that ids of another process are unknown here
	m     *hubMetrics

	mu       sync.Mutex
	clients  map[*client]struct{}
	byKey    map[string]map[*client]struct{}
	follows  map[string]*shared // the follow sets of the open streams, by key
	gen      uint64             // the generation of the last snapshot seen
	floor    uint64             // the oldest generation from which history holds every event
	serial   uint64             // the Serial of the last snapshot seen: the next's changes are against it
	history  []*event           // the latest events, oldest first
	historyB int                // what history holds, in bytes (event.size)
	closed   bool
	cancel   []func()
	// attached counts the streams whose connection the hub owns; drained
	// is closed once the hub is closed and the last of them is done.
	attached int
	started  bool // the writers and the heartbeat run
	drained  chan struct{}
	stop     chan struct{} // ends the heartbeat

	// The run queue: the streams with something to write.
	qmu   sync.Mutex
	qcond sync.Cond
	runq  []*client
	qstop bool // the writers return
}

// New makes the hub of st's swaps.
func New(st *memstore.Store, opt Options) *Hub {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&opt.MaxPerKey, 5)
	def(&opt.MaxStreams, 12288)
	def(&opt.Buffer, 64)
	def(&opt.BufferBytes, 4<<20)
	def(&opt.History, 256)
	def(&opt.HistoryBytes, 16<<20)
	if opt.Heartbeat <= 0 {
		opt.Heartbeat = 15 * time.Second
	}
	if opt.WriteTimeout <= 0 {
		opt.WriteTimeout = 10 * time.Second
	}
	if opt.AckTimeout <= 0 {
		opt.AckTimeout = 45 * time.Second
	}
	var b [8]byte
	rand.Read(b[:])
	h := &Hub{opt: opt, store: st, epoch: hex.EncodeToString(b[:]), clients: map[*client]struct{}{},
		byKey: map[string]map[*client]struct{}{}, follows: map[string]*shared{}, drained: make(chan struct{}), stop: make(chan struct{})}
	h.qcond.L = &h.qmu
	h.m = newHubMetrics(opt.Metrics, h)
	// The store calls the hooks under its locks, which the hooks follow
	// with h.mu: register them without holding it.
	h.cancel = []func(){st.OnSwapped(h.swapped), st.OnKeys(h.keys)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := st.Snapshot(); s != nil && h.gen == 0 {
		h.gen, h.floor, h.serial = s.Gen, s.Gen, s.Serial()
	}
	return h
}

// swapped makes the event of s and queues it for every stream it
// concerns.
func (h *Hub) swapped(s *memstore.Snapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if h.gen == 0 {
		h.floor = s.Gen - 1 // the first snapshot seen: its event is the first kept
	} else if s.Gen != h.gen+1 || s.Base() != h.serial {
		// A snapshot was skipped, or s was built from another than the
		// last seen (its generation may still be the next: another
		// lineage): what changed since is unknown. Every stream re-reads,
		// and no earlier position can be resumed.
		h.gen, h.floor, h.serial, h.history, h.historyB = s.Gen, s.Gen, s.Serial(), nil, 0
		frame := []byte("id: " + positionID(h.epoch, s.Gen) + "\nevent: resync\ndata: {}\n\n")
		var wake []*client
		for c := range h.clients {
			wake = h.push(wake, c, frame)
		}
		h.scheduleAll(wake)
		return
	}
	h.gen, h.serial = s.Gen, s.Serial()
	ch := s.Changes()
	if ch.Empty() {
		return
	}
	e := newEvent(h.epoch, s, ch, h.opt.Item, h.opt.String)
	h.remember(e)
	frames := make(map[*Follow][]byte, len(h.follows)) // streams following the same share a frame
	wake := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		if c.follow == nil {
			wake = h.push(wake, c, e.all)
			continue
		}
		f, ok := frames[c.follow]
		if !ok {
			f = e.frameFor(c.follow)
			frames[c.follow] = f
		}
		if f != nil {
			wake = h.push(wake, c, f)
		}
	}
	h.scheduleAll(wake) // one hand-over to the writers for every stream
}

// push queues frame for c, adding c to wake when a writer must see to it.
func (h *Hub) push(wake []*client, c *client, frame []byte) []*client {
	if c.push(frame, h.opt.Buffer, h.opt.BufferBytes) {
		wake = append(wake, c)
	}
	return wake
}

// remember keeps e in the history, dropping the oldest events past its
// bounds (never e itself).
func (h *Hub) remember(e *event) {
	h.history = append(h.history, e)
	h.historyB += e.size()
	for len(h.history) > 1 && (len(h.history) > h.opt.History || h.historyB > h.opt.HistoryBytes) {
		old := h.history[0]
		h.history[0] = nil
		h.history = h.history[1:]
		h.historyB -= old.size()
		h.floor = old.gen
	}
}

// keys ends the streams of the keys ks no longer holds.
func (h *Hub) keys(ks *memstore.KeySet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for key, cs := range h.byKey {
		if !ks.HasID(key) {
			for c := range cs {
				c.end(ReasonRevoked)
			}
		}
	}
}

// closeWait bounds how long Close waits for the streams' end events.
const closeWait = 2 * endWrite

// Close ends every stream with the shutdown reason and refuses new ones,
// then waits (a couple of seconds at most) until the end events are
// written and the connections closed: http.Server.Shutdown does not wait
// for hijacked connections.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.wait()
		return
	}
	h.closed = true
	by := time.Now().Add(endWrite)
	for c := range h.clients {
		c.shutdown(by)
	}
	h.checkDrained()
	cancel := h.cancel
	h.mu.Unlock()
	for _, c := range cancel {
		c() // takes the store's locks, under which the hooks take h.mu
	}
	h.wait()
}

func (h *Hub) wait() {
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-h.drained:
	case <-t.C:
	}
}

// checkDrained, once the hub is closed and owns no connection any more,
// stops the writers and the heartbeat; h.mu is held.
func (h *Hub) checkDrained() {
	if !h.closed || h.attached > 0 {
		return
	}
	select {
	case <-h.drained:
		return
	default:
	}
	close(h.drained)
	close(h.stop)
	h.qmu.Lock()
	h.qstop = true
	h.qmu.Unlock()
	h.qcond.Broadcast()
}

// Stats are the hub's counts now.
type Stats struct {
	Open         int // streams open
	PendingBytes int // bytes queued for all streams, not sent yet
	History      int // events kept for resuming
	HistoryBytes int
}

// Stats reports the counts now.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := Stats{Open: len(h.clients), History: len(h.history), HistoryBytes: h.historyB}
	for c := range h.clients {
		st.PendingBytes += c.pending()
	}
	return st
}
