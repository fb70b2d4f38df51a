package httpapi

import (
	"sync"
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// swapLog remembers what the last swaps changed (memstore.Snapshot
// ChangedSlots), so that a search answered from one snapshot can be found
// to answer a later one the same way: when no swap between them changed
// the texts or a flag the search matched, other than by votes that cannot
// change its page (see searchView.serves), and the same for a list page
// (listView). A vote changes one flag, and a search matches a few hundred
// of 100,000, so most searches outlive most swaps under a steady stream
// of votes. It is written by the store's OnSwap hook, before readers see
// the snapshot, and read without a lock.
type swapLog struct {
	mu   sync.Mutex // the writers': the hook, and anchor
	recs [swapLogLen]atomic.Pointer[swapRec]
	n    atomic.Uint64 // records written; the last is recs[(n-1)%swapLogLen]
	// epoch moves when a snapshot is swapped in that was not built from
	// the last one noted (an older one, or a sibling built from the same
	// base; never by the loader, which builds each from the one it swapped
	// in last): a view's range of serials then no longer says which
	// snapshots it answers, so every view made before is done.
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
	// old and now are the list entries of the flags of slots before and
	// after the swap (for memstore.PageKept and PageGuard.Kept), when
	// there are at most maxLoggedEntries of them and the snapshot before
	// is the base; nil otherwise.
	old, now []memstore.ListEntry
}

// maxLoggedEntries is the most changed flags a record keeps the list
// entries of: a swap that changed more counts, for the list pages, as
// having changed every flag, and, for the search pages, as touching each
// page whose matches it changed. Under 1,000 votes a second the loads swap
// about 4 snapshots a second at 100,000 flags, about 250 flags each. The
// log holds at most swapLogLen times twice that many entries, of about
// 100 bytes each: 6.5 MB.
const maxLoggedEntries = 256

// record notes s, about to be swapped in over prev (nil for none).
func (l *swapLog) record(prev, s *memstore.Snapshot) {
	r := &swapRec{serial: s.Serial(), base: s.Base(), text: s.SearchVersion()}
	r.slots, r.all = s.ChangedSlots()
	if len(r.slots) > maxLoggedSlots {
		r.slots, r.all = nil, true
	}
	if !r.all && len(r.slots) <= maxLoggedEntries && prev != nil && prev.Serial() == s.Base() {
		r.old, r.now = make([]memstore.ListEntry, len(r.slots)), make([]memstore.ListEntry, len(r.slots))
		for k, i := range r.slots {
			if int(i) < prev.Slots() {
				r.old[k] = memstore.EntryOf(prev.At(int(i)))
			}
			r.now[k] = memstore.EntryOf(s.At(int(i)))
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(r)
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
	if r.seq > 0 {
		if last := l.at(r.seq - 1); r.serial <= last.serial || r.base != last.serial {
			l.epoch.Add(1)
		}
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

// untouched reports up to which snapshot an answer made from the snapshot
// of serial from answers the same: the last snapshot noted, when no swap
// after from touched it (touched reports whether one did). ok is false
// when one did, or when the log cannot tell (it has forgotten from, or
// from is not an ancestor of the last).
func (l *swapLog) untouched(from uint64, touched func(*swapRec) bool) (upTo uint64, ok bool) {
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
		if touched(cur) {
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

// span is the snapshots an answer is known to hold for: from the one it
// was made from (from) to through, which serves moves forward while the
// swaps in between do not touch it. Once one does, it is dead.
type span struct {
	log   *swapLog
	epoch uint64 // the log's when the answer was made (see swapLog.epoch)
	from  uint64
	// through is the last serial it is known to answer; dead is set once
	// a swap after through touched it (or the log cannot say).
	through atomic.Uint64
	dead    atomic.Bool
}

// start sets sp to begin at the snapshot of serial from, noted in log.
func (sp *span) start(log *swapLog, from uint64) {
	sp.log, sp.epoch, sp.from = log, log.epoch.Load(), from
	sp.through.Store(from)
}

// serves reports whether the answer holds for the snapshot of serial n:
// n is from or after from, and no swap up to it touched the answer.
func (sp *span) serves(n uint64, touched func(*swapRec) bool) bool {
	if n < sp.from || sp.epoch != sp.log.epoch.Load() {
		return false
	}
	t := sp.through.Load()
	if n <= t {
		return true
	}
	if sp.dead.Load() {
		return false
	}
	last, ok := sp.log.untouched(t, touched)
	if !ok {
		sp.dead.Store(true)
		return false
	}
	for t < last && !sp.through.CompareAndSwap(t, last) {
		t = sp.through.Load()
	}
	return n <= last
}
