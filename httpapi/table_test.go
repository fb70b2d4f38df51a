package httpapi

import "testing"

// A table's steps on their own: when an entry answers and when it is
// outdated, in a slug-keyed table and the answers', the set a new entry
// leaves as it was, and the bytes it reserves.

func TestTableStampRules(t *testing.T) {
	slugs, answers := newDetails(setWays*detailEntryCost), newTable(setWays*entryCost(64), 64, entryCost(64))
	trend := trendStamp(5, 2, 7, 20000)
	for _, c := range []struct {
		name     string
		t        *table
		e, st    stamp
		answer   bool
		outdated bool
	}{
		{"slug: the same", slugs, trend, trend, true, false},
		{"slug: an older snapshot", slugs, trendStamp(4, 2, 7, 20000), trend, true, false},
		{"slug: a newer snapshot", slugs, trendStamp(6, 2, 7, 20000), trend, false, false},
		{"slug: an older history", slugs, trendStamp(5, 1, 7, 20000), trend, false, true},
		{"slug: a newer history", slugs, trendStamp(5, 3, 7, 20000), trend, false, false},
		{"slug: an older day", slugs, trendStamp(5, 2, 7, 19999), trend, false, true},
		{"slug: other days", slugs, trendStamp(5, 2, 90, 20000), trend, false, false},
		{"answers: the same", answers, stamp{serial: 5, route: routeSearch}, stamp{serial: 5, route: routeSearch}, true, false},
		{"answers: an older snapshot", answers, stamp{serial: 4, route: routeSearch}, stamp{serial: 5, route: routeSearch}, false, true},
		{"answers: another route", answers, stamp{serial: 5, route: routeSearch + 1}, stamp{serial: 5, route: routeSearch}, false, false},
	} {
		if got := c.t.answers(c.e, c.st); got != c.answer {
			t.Errorf("%s: answers = %v, want %v", c.name, got, c.answer)
		}
		if got := c.t.outdated(c.e, c.st); got != c.outdated {
			t.Errorf("%s: outdated = %v, want %v", c.name, got, c.outdated)
		}
	}
}

// arrange puts the new entry first, then the others newest first but the
// one in the way freed, whose bytes it gives back.
func TestTableArrange(t *testing.T) {
	set := make([]way, setWays)
	for i, cost := range []int64{10, 20, 0, 40} {
		if cost > 0 {
			set[i].e.Store(&tableEntry{key: string(rune('a' + i)), cost: cost})
		}
	}
	e := &tableEntry{key: "new", cost: 100}
	next, n, delta := arrange(set, e, 1)
	if n != 3 || next[0] != e || next[1].key != "a" || next[2].key != "d" || next[3] != nil || delta != 80 {
		t.Errorf("arrange freeing way 1: %d entries %v, delta %d; want new, a, d and 80", n, next, delta)
	}
	next, n, delta = arrange(set, e, setWays-1)
	if n != 3 || next[1].key != "a" || next[2].key != "b" || delta != 60 {
		t.Errorf("arrange freeing the last way: %d entries %v, delta %d; want new, a, b and 60", n, next, delta)
	}
}

// reserve leaves out the oldest entries while the budget is short, never
// the new one, and reserves nothing when the new one alone does not fit.
func TestTableReserve(t *testing.T) {
	tb := newTable(setWays*entryCost(64), 64, entryCost(64))
	tb.budget = 1000
	tb.held.Store(700)
	next := [setWays]*tableEntry{{cost: 200}, {cost: 50}, {cost: 60}}
	if !tb.reserve(&next, 3, 310) || tb.held.Load() != 950 || next[2] != nil || next[1] == nil {
		t.Errorf("reserve: held %d, next %v; want 950, the oldest left out", tb.held.Load(), next)
	}
	next = [setWays]*tableEntry{{cost: 400}, {cost: 50}}
	if tb.reserve(&next, 2, 450) || tb.held.Load() != 950 {
		t.Errorf("reserve past the budget: held %d, want 950 and false", tb.held.Load())
	}
}

// freed is the way of the key's outdated entry of the same slot, else
// the last.
func TestTableFreed(t *testing.T) {
	tb := newTable(setWays*entryCost(64), 64, entryCost(64)) // the answers': an older snapshot is outdated
	set := make([]way, setWays)
	set[0].e.Store(&tableEntry{key: "k", slot: 1, stamp: stamp{serial: 3}})
	set[1].e.Store(&tableEntry{key: "k", slot: 2, stamp: stamp{serial: 3}})
	set[2].e.Store(&tableEntry{key: "k", slot: 2, stamp: stamp{serial: 4}})
	if got := tb.freed(set, 2, "k", stamp{serial: 4}); got != 1 {
		t.Errorf("freed = %d, want 1 (the slot's outdated entry)", got)
	}
	if got := tb.freed(set, 2, "k", stamp{serial: 3}); got != setWays-1 {
		t.Errorf("freed with none outdated = %d, want the last way", got)
	}
}

// setFor sends a new entry to the freer of its two sets, the first when
// they tie, and to the one holding the key's outdated entry whatever
// their free ways.
func TestTableSetFor(t *testing.T) {
	tb := newTable(64*setWays*entryCost(64), 64, entryCost(64)) // 64 sets, no gate
	key, first, second := twoSetKey(tb, "q=")
	slot := tb.slotOf(key)
	sets, _ := tb.choices(slot)
	if into, other, two := tb.setFor(slot, key, stamp{serial: 2}); into != sets[0] || other != sets[1] || !two {
		t.Errorf("both sets empty: into %d, other %d, %v; want the first, %d", into, other, two, sets[0])
	}
	first[0].e.Store(&tableEntry{key: "other", slot: -1})
	if into, _, _ := tb.setFor(slot, key, stamp{serial: 2}); into != sets[1] {
		t.Errorf("the first set fuller: into %d, want the second, %d", into, sets[1])
	}
	first[1].e.Store(&tableEntry{key: key, slot: slot, stamp: stamp{serial: 1}})
	if into, _, _ := tb.setFor(slot, key, stamp{serial: 2}); into != sets[0] || free(second) != setWays {
		t.Errorf("the key's outdated entry in the fuller first set: into %d, want the first, %d", into, sets[0])
	}
}
