package memstore

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// A flag page's one pointer is its list of owners: the collector reads
// nothing a flag.
func TestFlagPageHoldsOnlyItsOwners(t *testing.T) {
	got := pointersIn(reflect.TypeFor[flagPage](), "flagPage")
	if want := []string{"flagPage.own (slice)"}; !slices.Equal(got, want) {
		t.Errorf("pointers in a flag page: %v, want %v", got, want)
	}
	if off := reflect.TypeFor[flagPage]().Field(0).Offset; off != 0 {
		t.Errorf("own at offset %d: the collector would read the refs before it", off)
	}
}

// listFlag is a record for the flag list's tests: from a (nil, one of its
// own), its id telling which.
func listFlag(a *arena, id string) *Flag {
	in := FlagInput{ID: id, Slug: id}
	return newFlag(&in, 0, nil, newLexicon(), a)
}

// A flag list answers what a plain slice of its flags would, through
// edits of every kind, leaves the list it was edited from as it was, and
// after each edit holds per page exactly the allocations its flags are in.
func TestFlagListEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	a := newArena()
	var model []*Flag
	for i := range 3*pageLen - 40 { // the rounds' pushes cross into a new page
		var f *Flag
		switch i % 7 {
		case 0:
			f = listFlag(nil, fmt.Sprintf("own-%d", i))
		case 1:
			// a hole
		default:
			f = listFlag(a, fmt.Sprintf("arena-%d", i))
		}
		model = append(model, f)
	}
	l := flagListOf(model)
	checkFlagList(t, "built", &l, model)
	for round := range 30 {
		before, was := l, slices.Clone(model)
		e := l.edit()
		ea := newArena()
		for range 1 + rng.IntN(200) {
			var f *Flag
			switch rng.IntN(4) {
			case 0:
				f = listFlag(nil, fmt.Sprintf("r%d-own", round))
			case 1:
				f = listFlag(ea, fmt.Sprintf("r%d-arena", round))
			case 2:
				// a hole
			default:
				f = model[rng.IntN(len(model))] // a flag moved to another slot
			}
			if rng.IntN(10) == 0 {
				e.push(f)
				model = append(model, f)
				continue
			}
			i := int32(rng.IntN(len(model)))
			e.set(i, f)
			model[i] = f
		}
		l = e.done()
		checkFlagList(t, fmt.Sprintf("round %d", round), &l, model)
		checkFlagList(t, fmt.Sprintf("round %d, the list before", round), &before, was)
	}
}

// A list grown from nothing by pushes alone gains a page exactly at each
// page's edge, and every page holds its flags.
func TestFlagListPushedFromEmpty(t *testing.T) {
	l := flagListOf(nil)
	checkFlagList(t, "empty", &l, nil)
	var model []*Flag
	a := newArena()
	for i := range 2*pageLen + 1 {
		e := l.edit()
		f := listFlag(a, fmt.Sprintf("p-%d", i))
		e.push(f)
		model = append(model, f)
		l = e.done()
		if want := (len(model) + pageLen - 1) / pageLen; len(l.pages) != want {
			t.Fatalf("%d flags on %d pages, want %d", len(model), len(l.pages), want)
		}
	}
	checkFlagList(t, "pushed", &l, model)
}

// checkFlagList compares l with model, and each page's owners with the
// allocations of its flags.
func checkFlagList(t *testing.T, step string, l *flagList, model []*Flag) {
	t.Helper()
	if l.len() != len(model) {
		t.Fatalf("%s: %d flags, want %d", step, l.len(), len(model))
	}
	n := 0
	for i, f := range l.all() {
		if f != model[i] || l.at(i) != f {
			t.Fatalf("%s: slot %d holds %p (at %p), want %p", step, i, f, l.at(i), model[i])
		}
		n++
	}
	if n != len(model) {
		t.Fatalf("%s: all yields %d slots, want %d", step, n, len(model))
	}
	for k, pg := range l.pages {
		var want []unsafe.Pointer
		for _, f := range model[k*pageLen : min(len(model), (k+1)*pageLen)] {
			if f != nil && !slices.Contains(want, ownerOf(f)) {
				want = append(want, ownerOf(f))
			}
		}
		if len(pg.own) != len(want) {
			t.Fatalf("%s: page %d holds %d owners, its flags are in %d allocations", step, k, len(pg.own), len(want))
		}
		for _, o := range want {
			if !slices.Contains(pg.own, o) {
				t.Fatalf("%s: page %d lacks the owner %p of one of its flags", step, k, o)
			}
		}
	}
}

// A record knows where it starts in its allocation: its owner is the
// chunk it was carved from, or itself.
func TestOwnerOfRecords(t *testing.T) {
	a := newArena()
	for i := range 5000 {
		f := listFlag(a, fmt.Sprintf("flg_%d", i))
		if o := ownerOf(f); o != unsafe.Pointer(unsafe.SliceData(a.recs)) {
			t.Fatalf("record %d: owner %p, its chunk starts at %p", i, o, unsafe.SliceData(a.recs))
		}
	}
	if f := listFlag(nil, "alone"); ownerOf(f) != unsafe.Pointer(f) {
		t.Errorf("a record of its own: owner %p, want itself %p", ownerOf(f), f)
	}
}

// BenchmarkFlagListOfOwnRecords is a renumbering's list after every flag
// got a record of its own in a tick: as many owners a page as flags, each
// found in the page's index, not by a walk of them all.
func BenchmarkFlagListOfOwnRecords(b *testing.B) {
	flat := make([]*Flag, 64*pageLen)
	for i := range flat {
		flat[i] = listFlag(nil, fmt.Sprintf("own-%d", i))
	}
	b.ResetTimer()
	for range b.N {
		l := flagListOf(flat)
		if len(l.pages[0].own) != pageLen {
			b.Fatalf("%d owners on a page of records of their own", len(l.pages[0].own))
		}
	}
}
