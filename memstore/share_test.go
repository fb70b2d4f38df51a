package memstore

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"
)

func shareInputs(now time.Time) []FlagInput {
	var ins []FlagInput
	for i := range 30 {
		ins = append(ins, FlagInput{ID: fmt.Sprintf("f%02d", i), Slug: fmt.Sprintf("s%02d", i), Approved: true,
			Category: Categories[i%2], Region: []string{"", "TR"}[i%2], Text: [NumLangs]string{"bus", fmt.Sprintf("w%d", i), "c", "d"},
			CreatedAt: now.Add(-time.Duration(i) * time.Minute), UpdatedAt: now, Red: int64(i % 4), Green: int64(i % 3)})
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
	if v, w := next.At(4), snap.At(4); unsafe.StringData(v.strs) != unsafe.StringData(w.strs) || v.Red != w.Red+5 {
		t.Error("a vote did not keep the flag's strings, or did not count")
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
	joined := listsOf(fourth.attr[30])
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
