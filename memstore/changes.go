package memstore

import (
	"slices"
	"strings"
)

// Changes is what a snapshot changed against the one before it (the
// snapshot of generation Gen-1), read from the build's delta: a listener
// needs no diff of every flag. Each slice is ordered by flag id and is
// never written; the flags are the snapshots' own.
type Changes struct {
	// Votes are the flags served by both snapshots whose Red or Green
	// changed, as this snapshot serves them.
	Votes []*Flag
	// Added are the flags this snapshot serves and the one before did not
	// (newly approved or imported), or that it serves under another slug.
	Added []*Flag
	// Removed are the flags the snapshot before served and this one does
	// not (rejected, deleted, or now under another slug), as they were.
	Removed []*Flag
}

// Empty reports whether nothing a listener follows changed.
func (c Changes) Empty() bool { return len(c.Votes) == 0 && len(c.Added) == 0 && len(c.Removed) == 0 }

// Changes is what this snapshot changed against the one before it. The
// first snapshot of a process records none: nothing followed the empty
// one before it.
func (s *Snapshot) Changes() Changes { return s.changes }

// recordChanges fills s.changes from the delta of a build from prev, which
// served flags before; it walks only the flags the delta names. Both
// snapshots' lookups by id must be built.
func (s *Snapshot) recordChanges(prev *Snapshot, d delta) {
	if prev.Gen == 0 {
		return // the first build: every flag is new, and no one listened
	}
	var c Changes
	for _, i := range d.fresh {
		f := s.flags.at(i)
		j, ok := prev.byID.get(f.ID(), &prev.flags)
		switch {
		case !ok:
			c.Added = append(c.Added, f)
		case prev.flags.at(j).Slug() != f.Slug():
			c.Added = append(c.Added, f) // the old slug is in Removed, from stale
		case prev.flags.at(j).Red != f.Red || prev.flags.at(j).Green != f.Green:
			c.Votes = append(c.Votes, f)
		}
	}
	for _, j := range d.stale {
		pf := prev.flags.at(j)
		if i, ok := s.byID.get(pf.ID(), &s.flags); !ok || s.flags.at(i).Slug() != pf.Slug() {
			c.Removed = append(c.Removed, pf)
		}
	}
	byID := func(a, b *Flag) int { return strings.Compare(a.ID(), b.ID()) }
	slices.SortFunc(c.Votes, byID) // the delta is in slot order
	slices.SortFunc(c.Added, byID)
	slices.SortFunc(c.Removed, byID)
	s.changes = c
}
