package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A paged list reads back what it was made of, at every length about a
// page's edges, and an edit writes a copy of the pages it changes only.
func TestPagedList(t *testing.T) {
	for _, n := range []int{0, 1, pageLen - 1, pageLen, pageLen + 1, 3*pageLen + 7} {
		flat := make([]int, n)
		for i := range flat {
			flat[i] = i * 3
		}
		p := pagedOf(flat)
		if p.len() != n {
			t.Fatalf("n=%d: len %d", n, p.len())
		}
		var got []int
		for i := range int32(p.len()) {
			got = append(got, p.at(i))
		}
		if !slices.Equal(got, flat) {
			t.Fatalf("n=%d: the list reads %v, want %v", n, got, flat)
		}
		if n == 0 {
			continue
		}
		ed := p.edit()
		ed.set(int32(n-1), -1)
		ed.set(0, -2)
		ed.set(0, -3)
		q := ed.done()
		for i := range int32(p.len()) {
			if v := p.at(i); v != flat[i] {
				t.Fatalf("n=%d: the edit wrote the list it copied, at %d", n, i)
			}
		}
		for i := range int32(q.len()) {
			v, want := q.at(i), flat[i]
			switch int(i) {
			case 0:
				want = -3
			case n - 1:
				want = -1
			}
			if v != want {
				t.Fatalf("n=%d: edited list has %d at %d, want %d", n, v, i, want)
			}
		}
		shared := 0
		for k := range q.pages {
			if q.pages[k] == p.pages[k] {
				shared++
			}
		}
		if want := len(p.pages) - min(2, len(p.pages)); shared != want {
			t.Errorf("n=%d: the edit shares %d of %d pages, want %d", n, shared, len(p.pages), want)
		}
	}
}

// Over several pages of flags, ticks of every kind build what a build from
// scratch builds; a vote tick shares every page of flags and attributes
// but those of the flags it changed, and leaves the snapshot before as it
// was.
func TestTicksOverPages(t *testing.T) {
	agg := Aggregates{Users: 5}
	w := &world{rng: rand.New(rand.NewPCG(7, 7)), flags: map[string]FlagInput{},
		now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	for approved := 0; approved < 3*pageLen; {
		n := len(w.flags)
		w.insert()
		if len(w.flags) > n && w.changed[len(w.changed)-1].Approved {
			approved++
		}
	}
	// A dozen regions: the comparison lists each region's flags.
	w.regions = []string{"", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11"}
	for id, in := range w.flags {
		in.Region = w.regions[w.rng.IntN(len(w.regions))]
		w.flags[id] = in
	}
	snap, err := Build(nil, Change{Full: true, Flags: w.approved(), Aggregates: agg, LoadedAt: w.now})
	if err != nil {
		t.Fatal(err)
	}
	sharedAttr := 0
	for tick := range 12 {
		w.now = w.now.Add(time.Minute)
		w.changed, w.full = nil, false
		votes := tick%2 == 0
		if votes {
			for _, i := range []int{3, pageLen + 5, snap.Len() - 2} {
				in := w.flags[snap.At(i).ID()]
				in.Red += 2
				w.put(in)
			}
		} else {
			for range 8 {
				w.change()
			}
		}
		ch := Change{Full: w.full, Flags: w.changed, Aggregates: agg, LoadedAt: w.now}
		if w.full {
			ch.Flags = w.approved()
		}
		before := make([]*Flag, snap.Len())
		for i := range before {
			before[i] = snap.At(i)
		}
		attrBefore := attrValues(snap.attr)
		next, err := Build(snap, ch)
		if err != nil {
			t.Fatal(err)
		}
		at := fmt.Sprintf("tick %d", tick)
		scratch, err := Build(nil, Change{Full: true, Flags: w.approved(), Aggregates: agg, LoadedAt: w.now})
		if err != nil {
			t.Fatal(err)
		}
		sameSnapshots(t, at, next, scratch, w)
		for i, f := range before {
			if snap.At(i) != f {
				t.Fatalf("%s: the build changed the snapshot before at %d", at, i)
			}
		}
		if !slices.Equal(attrValues(snap.attr), attrBefore) {
			t.Fatalf("%s: the build changed the attributes of the snapshot before", at)
		}
		if votes {
			if shared, want := sharedPages(snap.flags.pages, next.flags.pages), len(next.flags.pages)-3; shared != want {
				t.Errorf("%s: a vote tick shares %d pages of flags, want %d", at, shared, want)
			}
			// Categories and regions are shared; the colours unless one
			// flipped.
			if &next.attr.base[0] != &snap.attr.base[0] {
				t.Errorf("%s: a vote tick copied the categories and regions", at)
			}
			shared := &next.attr.dom[0] == &snap.attr.dom[0]
			if flipped := !slices.Equal(attrValues(next.attr), attrBefore); flipped == shared {
				t.Errorf("%s: attributes changed %v, colours shared %v", at, flipped, shared)
			}
			sharedAttr += b2i(shared)
		}
		snap = next
	}
	if sharedAttr == 0 || sharedAttr == 6 {
		t.Errorf("%d of 6 vote ticks shared the attributes: the test wants both cases", sharedAttr)
	}
}

// attrValues is every slot's packed attributes.
func attrValues(a attrs) []uint32 {
	out := make([]uint32, a.len())
	for i := range out {
		out[i] = a.at(int32(i))
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sharedPages[P comparable](a, b []P) int {
	n := 0
	for k := range min(len(a), len(b)) {
		if a[k] == b[k] {
			n++
		}
	}
	return n
}
