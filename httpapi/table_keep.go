package httpapi

import "strings"

// What changes a table: keep, which puts an entry in under its set's
// lock, and the drops, which take entries out under the same locks.

// keep puts r, the response of stamp st and key for slot, in the table
// (with a copy of key, which may be part of a larger string) and returns
// the table's response of them (r, or one a request for the same answer
// put there meanwhile). It reports false, keeping nothing, when r's body
// is longer than maxBody or the table's bytes are spent: the caller may
// keep r elsewhere. In a slug-keyed table, when st's snapshot is not the
// last one its gate let through, or another is passing it, it keeps
// nothing and reports r as taken: no one else is to keep it.
func (t *table) keep(slot int, st stamp, key string, r *response) (*response, bool) {
	if len(r.body) > t.maxBody {
		return nil, false
	}
	into, other, two := t.setFor(slot, key, st)
	set, mu := t.setAt(into)
	mu.Lock()
	defer mu.Unlock()
	if t.gate != nil && !t.gate.admits(st.serial) {
		return r, true
	}
	// A lookup reads both sets: the other may hold the same answer.
	if two {
		there, _ := t.setAt(other)
		if kept := t.keptIn(there, key, st); kept != nil {
			return kept, true
		}
	}
	if kept := t.keptIn(set, key, st); kept != nil {
		return kept, true // a request for the same answer made it meanwhile
	}
	e := &tableEntry{stamp: st, slot: slot, key: strings.Clone(key), cost: entryCost(len(r.body)) + int64(len(key)), r: r}
	next, n, delta := arrange(set, e, t.freed(set, slot, key, st))
	if !t.reserve(&next, n, delta) {
		return nil, false // the table's bytes are spent
	}
	// A lookup racing with the rewrite may miss an entry moving down, and
	// renders the same body again: that only costs a render.
	for i := len(set) - 1; i >= 0; i-- {
		set[i].e.Store(next[i])
		set[i].tag.Store(tagOfEntry(next[i]))
	}
	return r, true
}

// setFor is the set a new entry of key in slot goes into, of its two
// choices: the one that holds an outdated entry of the key (it goes, not
// a neighbour), else the one with more free ways, the first when they
// tie. It also returns the other choice, and whether there are two. The
// sets are read without their locks: a choice, checked again under the
// lock.
func (t *table) setFor(slot int, key string, st stamp) (into, other uint64, two bool) {
	sets, n := t.choices(slot)
	into, other = sets[0], sets[1]
	if n == 1 {
		return into, other, false
	}
	first, _ := t.setAt(into)
	second, _ := t.setAt(other)
	if t.holdsOutdated(second, slot, key, st) || !t.holdsOutdated(first, slot, key, st) && free(second) > free(first) {
		into, other = other, into
	}
	return into, other, true
}

// holdsOutdated reports whether set holds an entry of key in slot that
// an entry of stamp st makes outdated.
func (t *table) holdsOutdated(set []way, slot int, key string, st stamp) bool {
	for i := range set {
		if e := set[i].e.Load(); e != nil && e.slot == slot && e.key == key && t.outdated(e.stamp, st) {
			return true
		}
	}
	return false
}

// free is the number of set's empty ways.
func free(set []way) int {
	n := 0
	for i := range set {
		if set[i].e.Load() == nil {
			n++
		}
	}
	return n
}

// keptIn returns the response of set's entry of key that answers what
// one of stamp st would; nil when there is none.
func (t *table) keptIn(set []way, key string, st stamp) *response {
	for i := range set {
		if e := set[i].e.Load(); e != nil && e.key == key && t.answers(e.stamp, st) {
			return e.r
		}
	}
	return nil
}

// freed is the way of set that a new entry of key in slot frees: the
// first whose entry of the key st makes outdated, else the last (the
// oldest).
func (t *table) freed(set []way, slot int, key string, st stamp) int {
	for i := range set {
		if e := set[i].e.Load(); e != nil && e.slot == slot && e.key == key && t.outdated(e.stamp, st) {
			return i
		}
	}
	return len(set) - 1
}

// arrange returns set as it is to be, its first n entries: e, then the
// others but the one in way from, newest first; and by how much that
// changes the bytes the table holds.
func arrange(set []way, e *tableEntry, from int) (next [setWays]*tableEntry, n int, delta int64) {
	next[0], n, delta = e, 1, e.cost
	for i := range set {
		x := set[i].e.Load()
		switch {
		case x == nil:
		case i == from:
			delta -= x.cost
		default:
			next[n] = x
			n++
		}
	}
	return next, n, delta
}

// reserve adds delta, the bytes the first n entries of next hold beyond
// their set's, to the table's, first leaving out the oldest of next (but
// the new entry) while the table's budget is short: entries made from
// data no longer served leave as new ones come, whatever their sizes. It
// reports false, reserving nothing, when even the new entry alone does
// not fit (the other sets hold the bytes).
func (t *table) reserve(next *[setWays]*tableEntry, n int, delta int64) bool {
	for {
		h := t.held.Load()
		for n > 1 && h+delta > t.budget {
			n--
			delta -= next[n].cost
			next[n] = nil
		}
		if h+delta > t.budget {
			return false
		}
		if t.held.CompareAndSwap(h, h+delta) {
			return true
		}
	}
}

// drop takes out the entries whose stamp dead reports, under their sets'
// locks as keep takes them, giving back their bytes.
func (t *table) drop(dead func(stamp) bool) {
	for i := range t.inserts {
		t.inserts[i].Lock()
		t.dropIn(t.ways[i*setWays:][:setWays], func(e *tableEntry) bool { return dead(e.stamp) })
		t.inserts[i].Unlock()
	}
}

// dropKey takes out key's entries, from both choices of each of its
// spread slots.
func (t *table) dropKey(key string) {
	slot := t.slotOf(key)
	for i := range t.spread {
		sets, n := t.choices(slot + i)
		for _, s := range sets[:n] {
			set, mu := t.setAt(s)
			mu.Lock()
			t.dropIn(set, func(e *tableEntry) bool { return e.key == key })
			mu.Unlock()
		}
	}
}

// dropIn takes out the entries of set (whose lock is held) that dead
// reports, giving back their bytes.
func (t *table) dropIn(set []way, dead func(*tableEntry) bool) {
	for j := range set {
		if e := set[j].e.Load(); e != nil && dead(e) {
			set[j].tag.Store(0)
			set[j].e.Store(nil)
			t.held.Add(-e.cost)
		}
	}
}
