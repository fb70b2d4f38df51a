package memstore

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
	"weak"
)

func shareInputs(now time.Time) []FlagInput {
	var ins []FlagInput
	for i := range 30 {
		ins = append(ins, FlagInput{ID: fmt.Sprintf("f%02d", i), Slug: fmt.Sprintf("s%02d", i), Approved: true,
			Category: Categories[i%2], Region: []string{"", "TR"}[i%2], Text: [NumLangs]string{"bus", fmt.Sprintf("w%d", i), "c", "d"},
			CreatedAt: now.Add(-time.Duration(i) * time.Hour), UpdatedAt: now, Red: int64(i % 4), Green: int64(i % 3)})
	}
	return ins
}

func mapID(m lookup) uintptr { return uintptr(reflect.ValueOf(m.shards).UnsafePointer()) }

// A tick shares with the previous snapshot what it did not change: the
// trends when it read none, the flags, the lookups, the search index and
// the orders of the lists no changed flag was or is in; it builds anew
// what it changed.
func TestTickSharesWhatDidNotChange(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ins := shareInputs(now)
	t1, t2 := &Trends{}, &Trends{}
	snap, err := Build(nil, Change{Full: true, Flags: ins, Trends: t1, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	voted := ins[4] // category 0, world region
	voted.Red += 5
	next, err := Build(snap, Change{Flags: []FlagInput{voted, ins[6]}, LoadedAt: now}) // ins[6] as it was
	if err != nil {
		t.Fatal(err)
	}
	if next.Trends != t1 || snap.Trends != t1 {
		t.Fatal("a tick that read no trends did not keep the previous ones")
	}
	for i := range next.Len() {
		if shared := next.At(i) == snap.At(i); shared != (next.At(i).ID() != voted.ID) {
			t.Errorf("flag %s shared %v", next.At(i).ID(), shared)
		}
	}
	if next.search != snap.search || mapID(next.bySlug) != mapID(snap.bySlug) || mapID(next.byID) != mapID(snap.byID) {
		t.Error("a vote rebuilt the search index or the lookups")
	}
	if v, w := next.At(4), snap.At(4); v.strs() != w.strs() || !slices.Equal(v.words(), w.words()) || v.ends != w.ends ||
		v.wordEnd != w.wordEnd || v.stemEnd != w.stemEnd || v.Red != w.Red+5 {
		t.Error("a vote did not keep the flag's strings and words, or did not count")
	}
	for l := range next.orders {
		touched := l == listAll || l == listCat+int(next.At(4).Category) || l == listDom+int(snap.At(4).Dominant) ||
			l == listDom+int(next.At(4).Dominant) || l == listRegion+snap.regIdx[""]
		if shared := next.orders[l] == snap.orders[l]; shared == touched {
			t.Errorf("list %d: shared %v, touched %v", l, shared, touched)
		}
	}
	renamed := ins[5]
	renamed.Slug, renamed.Text[EN] = "renamed", "other words"
	third, err := Build(next, Change{Flags: []FlagInput{renamed}, Trends: t2, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if third.Trends != t2 || third.search == next.search || mapID(third.bySlug) == mapID(next.bySlug) ||
		mapID(third.byID) != mapID(next.byID) {
		t.Error("a new slug and text did not rebuild the slug map and the search index, or rebuilt the id map")
	}
	added := ins[0]
	added.ID, added.Slug = "f005", "s005" // between f00 and f01 by id, in a slot after the last
	fourth, err := Build(third, Change{Flags: []FlagInput{added}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if fourth.search == third.search || mapID(fourth.byID) == mapID(third.byID) || fourth.Len() != 31 ||
		fourth.Slots() != 31 || fourth.At(30).ID() != added.ID {
		t.Error("a new flag did not take the slot after the last, or left the id map or the search index as they were")
	}
	for i := range third.Slots() {
		if fourth.At(i) != third.At(i) {
			t.Errorf("slot %d changed", i)
		}
	}
	joined := listsOf(fourth.attr.at(30))
	for l := range fourth.orders {
		if shared := fourth.orders[l] == third.orders[l]; shared == slices.Contains(joined[:], l) {
			t.Errorf("list %d: shared %v, joined %v", l, shared, !shared)
		}
	}
	// Removed, it leaves a hole and the lists it leaves.
	gone := added
	gone.Approved = false
	fifth, err := Build(fourth, Change{Flags: []FlagInput{gone}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if fifth.Len() != 30 || fifth.Slots() != 31 || fifth.At(30) != nil {
		t.Errorf("removed, the flag left %d flags in %d slots", fifth.Len(), fifth.Slots())
	}
	for l := range fifth.orders {
		if shared := fifth.orders[l] == fourth.orders[l]; shared == slices.Contains(joined[:], l) {
			t.Errorf("list %d: shared %v, left %v", l, shared, !shared)
		}
	}
}

// TestReplacedFlagsLetGo: once no snapshot serves a flag, nothing a later
// snapshot keeps holds its record, nor the chunk of other flags it was
// carved from. A flag's strings are part of its record: a region kept as
// a key of the region numbering, or an id kept as an order's fence (when
// a fence held the place of a block's last entry, id and all), each held
// the record of the flag they were read from.
func TestReplacedFlagsLetGo(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ins := letGoInputs(1100, now) // several blocks of the longer orders
	s, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	var old []weak.Pointer[Flag]
	for f := range s.Flags() {
		old = append(old, weak.Make(f))
	}
	// Every flag's description changes in a full load: every flag a new
	// record, and every order keeps its blocks and fences (no place moves).
	for i := range ins {
		d := fmt.Sprintf("why %d", i)
		ins[i].Description[EN] = &d
	}
	if s, err = Build(s, Change{Full: true, Flags: ins, LoadedAt: now}); err != nil {
		t.Fatal(err)
	}
	if alive := aliveAfterGC(old); alive > 0 {
		t.Errorf("%d of %d replaced flags still alive", alive, len(old))
	}
	runtime.KeepAlive(s)
}

// TestTickFlagsLetGo: the same for the flags a tick made, replaced by the
// next tick, through what a tick re-places: a block's new last entry, a
// split, a block emptied and refilled.
func TestTickFlagsLetGo(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ins := letGoInputs(3000, now)
	s, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	// A tick moves every fiftieth flag to the other colour's list (and far
	// up the orders by votes): each goes into blocks of the lists by date
	// it was not in, and may end one.
	tick := func(flip bool) []FlagInput {
		var ch []FlagInput
		for i := 0; i < len(ins); i += 50 {
			if flip {
				ins[i].Red, ins[i].Green = ins[i].Green+int64(1000+37*i%500), ins[i].Red
			} else {
				ins[i].Red += 2 * ins[i].Red / max(ins[i].Red, 1) // the same colour
			}
			ch = append(ch, ins[i])
		}
		if s, err = Build(s, Change{Flags: ch, LoadedAt: now}); err != nil {
			t.Fatal(err)
		}
		return ch
	}
	var made []weak.Pointer[Flag]
	for _, in := range tick(true) {
		f, _, _ := s.FlagBySlug(in.Slug)
		made = append(made, weak.Make(f))
	}
	// 1,100 new flags, newer than any: they fill the first block of every
	// order by date past its length, which splits it; the first is of a
	// region no flag had, a list that was empty.
	var added []FlagInput
	for i := range 1100 {
		in := ins[i%len(ins)]
		in.ID, in.Slug, in.CreatedAt = fmt.Sprintf("flg_new_%05d", i), fmt.Sprintf("new-%d", i), now.Add(time.Duration(i+1)*time.Minute)
		if i == 0 {
			in.Region = "ZZ"
		}
		added = append(added, in)
	}
	if s, err = Build(s, Change{Flags: added, LoadedAt: now}); err != nil {
		t.Fatal(err)
	}
	tick(false) // the same flags again, each in the same lists: the first tick's are replaced
	tick(false)
	// Then only their descriptions: new records, each in its place in
	// every order, so no fence is set again.
	var desc []FlagInput
	for i := 0; i < len(ins); i += 50 {
		d := fmt.Sprintf("changed %d", i)
		ins[i].Description[DE] = &d
		desc = append(desc, ins[i])
	}
	for _, in := range desc {
		f, _, _ := s.FlagBySlug(in.Slug)
		made = append(made, weak.Make(f))
	}
	if s, err = Build(s, Change{Flags: desc, LoadedAt: now}); err != nil {
		t.Fatal(err)
	}
	if alive := aliveAfterGC(made); alive > 0 {
		t.Errorf("%d of %d flags a tick made, replaced by the next, still alive", alive, len(made))
	}
	runtime.KeepAlive(s)
}

// letGoInputs are n flags an hour apart, of every category, half of them
// of one region.
func letGoInputs(n int, now time.Time) []FlagInput {
	ins := make([]FlagInput, n)
	for i := range ins {
		ins[i] = FlagInput{ID: fmt.Sprintf("flg_%05d", i), Slug: fmt.Sprintf("flag-%d", i), Approved: true,
			Category: Categories[i%len(Categories)], Region: []string{"TR", ""}[i%2],
			Text:      [NumLangs]string{"bir", "two", "drei", "cuatro"},
			CreatedAt: now.Add(-time.Duration(i) * time.Hour), UpdatedAt: now, Red: int64(i % 7), Green: int64(i % 5)}
	}
	return ins
}

// aliveAfterGC is the number of ws whose flags are still alive after the
// collector has run.
func aliveAfterGC(ws []weak.Pointer[Flag]) int {
	for range 3 {
		runtime.GC()
	}
	alive := 0
	for _, w := range ws {
		if w.Value() != nil {
			alive++
		}
	}
	return alive
}
