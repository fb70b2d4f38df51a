package httpapi

import (
	"strconv"
	"testing"
)

// TestSpellingsRemember: the memo answers a spelling asked again with the
// query it parsed the first time, which is what parsing it again gives
// (memstore.ParseQuery and Query.Key depend on q alone: the memo relies
// on it); it counts what each spelling holds, starts empty once past its
// bound, and keeps no query it refused.
func TestSpellingsRemember(t *testing.T) {
	sp := newSpellings()
	p1, err := sp.parse("Old  bus")
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := sp.parse("Old  bus")
	fresh, _ := parseQuery("Old  bus")
	if p1 != p2 || p1.key != fresh.key || p1.key == "" {
		t.Errorf("asked again: %p %q, then %p; parsed anew %q", p1, p1.key, p2, fresh.key)
	}
	set := sp.cur.Load()
	if got, want := set.bytes.Load(), int64(2*len("Old  bus")+2*len(p1.key)+128); got != want {
		t.Errorf("one spelling holds %d bytes, want %d", got, want)
	}
	if _, err := sp.parse("a b"); err == nil {
		t.Error("a query of single letters: no error")
	}
	if _, ok := set.m.Load("a b"); ok {
		t.Error("a refused query was kept")
	}
	for i := 0; sp.cur.Load() == set; i++ {
		if _, err := sp.parse("bus " + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		if i > spellingsMaxBytes/64 {
			t.Fatalf("%d spellings and the memo never started again", i)
		}
	}
	if set.bytes.Load() <= spellingsMaxBytes {
		t.Errorf("started again at %d bytes, within the bound %d", set.bytes.Load(), spellingsMaxBytes)
	}
	if _, ok := sp.cur.Load().m.Load("Old  bus"); ok {
		t.Error("the memo started again with the old spellings in it")
	}
}
