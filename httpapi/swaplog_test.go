package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// TestSwapLog: a view's matches are untouched across swaps that vote on
// other flags, touched by a vote on one of them or an edit of any text,
// and the log cannot tell (so the view is made again) once it forgot
// the swap the view started from, or across a swap that changed more
// flags than a record keeps. The log holds swapLogLen records of at most
// maxLoggedSlots slots each, whatever the swaps.
func TestSwapLog(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ins := testInputs(maxLoggedSlots+8, now)
	for i := range ins {
		if i > 0 {
			ins[i].Text[memstore.EN] = fmt.Sprintf("word%d", i)
		}
	}
	s := fullSnapshot(t, ins, now)
	l := &swapLog{}
	l.anchor(s)
	q, err := memstore.ParseQuery("late")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Match(q, memstore.FindOptions{})
	if err != nil || m.Len() != 1 {
		t.Fatalf("late matches %d flags (%v), want flag 0's", m.Len(), err)
	}
	from, ms := s.Serial(), s // ms: the snapshot m was found in
	swap := func(changed ...int) {
		t.Helper()
		var ch []memstore.FlagInput
		for _, i := range changed {
			ins[i].Red++
			ch = append(ch, ins[i])
		}
		next, err := memstore.Build(s, memstore.Change{Flags: ch, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		l.record(s, next)
		s = next
	}
	swap(1)
	swap(2, 3)
	if upTo, ok := l.untouched(from, touches(ms, m)); !ok || upTo != s.Serial() {
		t.Errorf("votes on other flags: untouched up to %d (%v), want %d", upTo, ok, s.Serial())
	}
	swap(0)
	if _, ok := l.untouched(from, touches(ms, m)); ok {
		t.Error("a vote on the matched flag left it untouched")
	}
	from, text := s.Serial(), s.SearchVersion()
	ins[5].Text[memstore.DE] = "neu"
	swap(5)
	if s.SearchVersion() == text {
		t.Fatal("an edit kept the search version")
	}
	if _, ok := l.untouched(from, touches(ms, m)); ok {
		t.Error("an edit left the texts untouched")
	}
	m, _ = s.Match(q, memstore.FindOptions{})
	from, ms = s.Serial(), s
	for range swapLogLen + 1 {
		swap(1)
	}
	if _, ok := l.untouched(from, touches(ms, m)); ok {
		t.Error("a view older than the log was found untouched")
	}
	from = s.Serial()
	many := make([]int, maxLoggedSlots+1)
	for i := range many {
		many[i] = i + 1
	}
	swap(many...)
	if r := l.at(l.n.Load() - 1); !r.all || r.slots != nil {
		t.Errorf("a swap of %d flags kept %d slots (all %v)", len(many), len(r.slots), r.all)
	}
	if _, ok := l.untouched(from, touches(ms, m)); ok {
		t.Error("a swap of more flags than a record keeps was found untouched")
	}
	held := 0
	for i := range l.recs {
		if r := l.recs[i].Load(); r != nil {
			held++
		}
	}
	if held != swapLogLen {
		t.Errorf("the log holds %d records, want %d", held, swapLogLen)
	}
}

// touches is the test of a swap of a search view of the first page of m,
// matches found in s.
func touches(s *memstore.Snapshot, m *memstore.Matched) func(*swapRec) bool {
	o := memstore.FindOptions{Limit: memstore.MaxSearchLimit}
	res := m.Page(s, o)
	v := &searchView{m: m, guard: m.Guard(&res, o)}
	return v.touched
}

// TestSwapLogSiblings: two snapshots built from the same base A, B then
// C, each swapped in. A view made from A holds for C (untouched against
// A), but not for B, which changed its flag: a snapshot not built from
// the last one noted starts a new epoch, and the views made before are
// done (before: the view, carried to C's serial, claimed every serial up
// to it, B's too).
func TestSwapLogSiblings(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ins := testInputs(50, now)
	for i := range ins {
		if i > 0 {
			ins[i].Text[memstore.EN] = fmt.Sprintf("word%d", i)
		}
	}
	st := &memstore.Store{}
	l := &swapLog{}
	st.OnSwap(func(s *memstore.Snapshot) { l.record(st.Snapshot(), s) })
	a := fullSnapshot(t, ins, now)
	st.SetSnapshot(a)
	q, err := memstore.ParseQuery("late")
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Match(q, memstore.FindOptions{})
	if err != nil || m.Len() == 0 {
		t.Fatalf("the query matches nothing (%v): the test tests nothing", err)
	}
	o := memstore.FindOptions{Limit: memstore.MaxSearchLimit}
	res := m.Page(a, o)
	v := &searchView{m: m, guard: m.Guard(&res, o)}
	v.start(l, a.Serial())
	build := func(i int) *memstore.Snapshot {
		in := ins[i]
		in.Red += 10
		s, err := memstore.Build(a, memstore.Change{Flags: []memstore.FlagInput{in}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	b := build(0) // a vote on the flag the view matched
	c := build(1) // a vote on another
	st.SetSnapshot(b)
	st.SetSnapshot(c)
	if v.serves(b.Serial()) {
		t.Errorf("a view made from A serves B (serial %d), which changed its flag", b.Serial())
	}
	if v.serves(c.Serial()) {
		t.Errorf("a view made from A serves C, swapped in over its sibling B: the log cannot say it holds")
	}
}
