package memstore

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// sameChanges compares next.Changes with a diff of every flag of prev and
// next, the answer the delta must give without one.
func sameChanges(t *testing.T, at string, prev, next *Snapshot) {
	t.Helper()
	var want Changes
	for _, f := range byIDOrder(next) {
		j, ok := prev.byID.get(f.ID(), &prev.flags)
		switch {
		case !ok || prev.flags.at(j).Slug() != f.Slug():
			want.Added = append(want.Added, f)
		case prev.flags.at(j).Red != f.Red || prev.flags.at(j).Green != f.Green:
			want.Votes = append(want.Votes, f)
		}
	}
	for _, pf := range byIDOrder(prev) {
		if i, ok := next.byID.get(pf.ID(), &next.flags); !ok || next.flags.at(i).Slug() != pf.Slug() {
			want.Removed = append(want.Removed, pf)
		}
	}
	got := next.Changes()
	for _, c := range []struct {
		what      string
		got, want []*Flag
	}{{"votes", got.Votes, want.Votes}, {"added", got.Added, want.Added}, {"removed", got.Removed, want.Removed}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %s changes %v, want %v", at, c.what, slugsOf(c.got), slugsOf(c.want))
		}
	}
}

func slugsOf(fs []*Flag) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Slug()
	}
	return out
}

// changeFixture is a flag of the changes tests: slug id, 1 red vote.
func changeFixture(id string) FlagInput {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	return FlagInput{ID: id, Slug: id, Approved: true, Category: "SOCIAL", Text: [NumLangs]string{"a", "b", "c", "d"},
		CreatedAt: at, UpdatedAt: at, Red: 1}
}

func TestChanges(t *testing.T) {
	first, err := Build(nil, Change{Full: true, Flags: []FlagInput{changeFixture("a"), changeFixture("b"),
		changeFixture("c"), changeFixture("d")}})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Changes().Empty() {
		t.Fatalf("the first snapshot records changes: %+v", first.Changes())
	}
	votes := changeFixture("a")
	votes.Green = 7
	text := changeFixture("b")
	text.Text[1] = "other words"
	gone := changeFixture("c")
	gone.Approved = false
	renamed := changeFixture("d")
	renamed.Slug = "d2"
	for _, c := range []struct {
		name                 string
		ch                   Change
		votes, added, remove string
	}{
		{"votes", Change{Flags: []FlagInput{votes}}, "a", "", ""},
		{"text only", Change{Flags: []FlagInput{text}}, "", "", ""},
		{"added", Change{Flags: []FlagInput{changeFixture("e")}}, "", "e", ""},
		{"removed", Change{Flags: []FlagInput{gone}}, "", "", "c"},
		{"renamed", Change{Flags: []FlagInput{renamed}}, "", "d2", "d"},
		{"read again", Change{Flags: []FlagInput{changeFixture("a"), changeFixture("b")}}, "", "", ""},
		{"full, unchanged", Change{Full: true, Flags: []FlagInput{changeFixture("a"), changeFixture("b"),
			changeFixture("c"), changeFixture("d")}}, "", "", ""},
		{"full, one left out", Change{Full: true, Flags: []FlagInput{changeFixture("a"), changeFixture("b"),
			changeFixture("d")}}, "", "", "c"},
		{"full, all kinds", Change{Full: true, Flags: []FlagInput{votes, text, renamed, changeFixture("e")}},
			"a", "d2,e", "c,d"},
	} {
		t.Run(c.name, func(t *testing.T) {
			next, err := Build(first, c.ch)
			if err != nil {
				t.Fatal(err)
			}
			got := next.Changes()
			for _, x := range []struct {
				what string
				got  []*Flag
				want string
			}{{"votes", got.Votes, c.votes}, {"added", got.Added, c.added}, {"removed", got.Removed, c.remove}} {
				if s := strings.Join(slugsOf(x.got), ","); s != x.want {
					t.Errorf("%s: %q, want %q", x.what, s, x.want)
				}
			}
			if got.Empty() != (c.votes+c.added+c.remove == "") {
				t.Errorf("Empty() = %v", got.Empty())
			}
			sameChanges(t, c.name, first, next)
		})
	}
}

// A vote change carries the flag as the new snapshot serves it; a removal,
// as the one before served it.
func TestChangesCarryFlags(t *testing.T) {
	first, err := Build(nil, Change{Full: true, Flags: []FlagInput{changeFixture("a"), changeFixture("b")}})
	if err != nil {
		t.Fatal(err)
	}
	votes := changeFixture("a")
	votes.Red, votes.Green = 4, 5
	gone := changeFixture("b")
	gone.Approved = false
	next, err := Build(first, Change{Flags: []FlagInput{votes, gone}})
	if err != nil {
		t.Fatal(err)
	}
	ch := next.Changes()
	if len(ch.Votes) != 1 || ch.Votes[0].Red != 4 || ch.Votes[0].Green != 5 || ch.Votes[0].Dominant != Yellow {
		t.Errorf("votes %+v", ch.Votes)
	}
	if f, _, _ := first.FlagBySlug("b"); len(ch.Removed) != 1 || ch.Removed[0] != f {
		t.Errorf("removed %+v, want the previous snapshot's flag b", ch.Removed)
	}
}

// FlagByID finds an approved flag by its id, with what was read of it,
// and no flag that is not approved or not there.
func TestFlagByID(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	in := FlagInput{ID: "f1", Slug: "s1", Approved: true, Category: Categories[0], CreatedAt: now, UpdatedAt: now, Red: 3}
	pending := in
	pending.ID, pending.Slug, pending.Approved = "f2", "s2", false
	s, err := Build(nil, Change{Full: true, Flags: []FlagInput{in, pending}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := s.FlagByID("f1"); !ok || f.ID() != "f1" || f.Red != 3 {
		t.Errorf("FlagByID(f1) = %v, %v; want the flag with red 3", f, ok)
	}
	for _, id := range []string{"f2", "f3", "s1"} {
		if f, ok := s.FlagByID(id); ok {
			t.Errorf("FlagByID(%s) = %s, want none", id, f.ID())
		}
	}
	rejected := in
	rejected.Approved = false
	next, err := Build(s, Change{Flags: []FlagInput{rejected}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := next.FlagByID("f1"); ok {
		t.Error("FlagByID finds a flag rejected since")
	}
}
