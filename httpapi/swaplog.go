package httpapi

import (
	"sync"
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// swapLog remembers what the last swaps changed (memstore.Snapshot
// ChangedSlots), so that a search answered from one snapshot can be found
// to answer a later one the same way: when no swap between them changed
// a flag the search matched, nor the texts (see searchView.serves). A vote
// changes one flag, and a search matches a few hundred of 100,000, so
// most searches outlive most swaps under a steady stream of votes. It is
// written by the store's OnSwap hook, before readers see the snapshot,
// and read without a lock.
type swapLog struct {
	mu   sync.Mutex // the writers': the hook, and anchor
	recs [swapLogLen]atomic.Pointer[swapRec]
	n    atomic.Uint64 // records written; the last is recs[(n-1)%swapLogLen]
	// epoch moves when a snapshot older than the last one noted is
	// swapped in (never by the loader, which builds each from the one it
	// swapped in last): a view's range of serials then no longer says
	// which snapshots it answers, so every view made before is done.
	epoch atomic.Uint64
}

// swapLogLen is the swaps the log remembers: a few seconds of swaps under
// votes (about 30 a second at 200 votes a second). A search asked again
// after more swaps than that is paged again from its kept matches.
const swapLogLen = 128

// maxLoggedSlots is the most changed slots a record keeps; a swap that
// changed more counts as having changed every flag.
const maxLoggedSlots = 1024

// swapRec is what one swap changed: the serial of the snapshot swapped
// in, of the one it was built from, its search index's version, and the
// slots whose flags differ from that one's (all: any may).
type swapRec struct {
	seq          uint64
	serial, base uint64
	text         uint64
	slots        []int32
	all          bool
}

// record notes s, about to be swapped in.
func (l *swapLog) record(s *memstore.Snapshot) {
	slots, all := s.ChangedSlots()
	if len(slots) > maxLoggedSlots {
		slots, all = nil, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(&swapRec{serial: s.Serial(), base: s.Base(), text: s.SearchVersion(), slots: slots, all: all})
}

// anchor notes s, the snapshot served when the log starts, unless a swap
// was noted already: a view made from it can then be carried to the next.
func (l *swapLog) anchor(s *memstore.Snapshot) {
	if s == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n.Load() == 0 {
		l.add(&swapRec{serial: s.Serial(), base: s.Base(), text: s.SearchVersion(), all: true})
	}
}

// add appends r; l.mu is held.
func (l *swapLog) add(r *swapRec) {
	r.seq = l.n.Load()
	if r.seq > 0 && r.serial <= l.at(r.seq-1).serial {
		l.epoch.Add(1)
	}
	l.recs[r.seq%swapLogLen].Store(r)
	l.n.Store(r.seq + 1)
}

// at is the record of sequence number seq, nil when it is gone.
func (l *swapLog) at(seq uint64) *swapRec {
	r := l.recs[seq%swapLogLen].Load()
	if r == nil || r.seq != seq {
		return nil
	}
	return r
}

// untouched reports up to which snapshot a search of matches m, answered
// from the snapshot of serial from whose search version is text, answers
// the same: the last snapshot noted, when no swap after from changed the
// texts or a flag of m. ok is false when one did, or when the log cannot
// tell (it has forgotten from, or from is not an ancestor of the last).
func (l *swapLog) untouched(m *memstore.Matched, text, from uint64) (upTo uint64, ok bool) {
	n := l.n.Load()
	if n == 0 {
		return 0, false
	}
	cur := l.at(n - 1)
	if cur == nil {
		return 0, false
	}
	last := cur.serial
	for steps := 0; steps < swapLogLen; steps++ {
		if cur.serial == from {
			return last, true
		}
		if cur.all || cur.text != text || m.Touches(cur.slots) {
			return 0, false
		}
		if cur.base == from {
			return last, true
		}
		if cur.seq == 0 {
			return 0, false
		}
		prev := l.at(cur.seq - 1)
		if prev == nil || prev.serial != cur.base {
			return 0, false
		}
		cur = prev
	}
	return 0, false
}
