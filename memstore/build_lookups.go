package memstore

import "fmt"

// lookups makes the maps by id and by slug: from every flag where the
// build renumbered the slots, else prev's with the entries the delta
// names taken out and put in, sharing every shard it does not write.
func (s *Snapshot) lookups(prev *Snapshot, d delta) error {
	if d.remap != nil {
		return s.newLookups()
	}
	e := lookupEdits{prev: prev}
	for _, j := range d.stale { // every slug left before any is taken: two flags may swap theirs
		e.leave(prev.flags.at(j), s.flags.at(j))
	}
	for _, i := range d.fresh {
		var pf *Flag
		if int(i) < prev.flags.len() {
			pf = prev.flags.at(i)
		}
		if err := e.join(s, i, pf); err != nil {
			return err
		}
	}
	s.byID, s.bySlug = e.done()
	return nil
}

// newLookups makes the maps by id and by slug from every flag, the slots
// renumbered (no holes).
func (s *Snapshot) newLookups() error {
	ids, slugs := newLookup(s.live, false), newLookup(s.live, true)
	for i, f := range s.flags.all() {
		if j, dup := slugs.get(f.Slug(), &s.flags); dup {
			return errSharedSlug(s.flags.at(j), f)
		}
		ids.add(f.ID(), i)
		slugs.add(f.Slug(), i)
	}
	s.byID, s.bySlug = ids.done(), slugs.done()
	return nil
}

// lookupEdits are the changes a build where every flag kept its slot
// makes to prev's maps by id and by slug, each started at its first
// write (nil until then: the map is prev's).
type lookupEdits struct {
	prev       *Snapshot
	ids, slugs *lookupEditor
}

func (e *lookupEdits) idsEdit() *lookupEditor {
	if e.ids == nil {
		e.ids = e.prev.byID.edit(false)
	}
	return e.ids
}

func (e *lookupEdits) slugsEdit() *lookupEditor {
	if e.slugs == nil {
		e.slugs = e.prev.bySlug.edit(true)
	}
	return e.slugs
}

// leave takes out the entries of prev's flag pf that its slot's flag f
// (nil for none) does not keep: its id where f is none, its slug where
// f has another or is none.
func (e *lookupEdits) leave(pf, f *Flag) {
	if f == nil {
		e.idsEdit().del(pf.ID(), &e.prev.flags)
	}
	if f == nil || f.Slug() != pf.Slug() {
		e.slugsEdit().del(pf.Slug(), &e.prev.flags)
	}
}

// join puts in the entries of s's flag at slot i that prev's flag there,
// pf (nil for none), did not have: its id where pf is none, its slug
// where pf has another or is none. A slug another flag of s holds is an
// error.
func (e *lookupEdits) join(s *Snapshot, i int32, pf *Flag) error {
	f := s.flags.at(i)
	if pf == nil {
		e.idsEdit().add(f.ID(), i)
	}
	if pf != nil && f.Slug() == pf.Slug() {
		return nil
	}
	slugs := e.slugsEdit()
	if j, dup := slugs.get(f.Slug(), &s.flags); dup {
		return errSharedSlug(s.flags.at(j), f)
	}
	slugs.add(f.Slug(), i)
	return nil
}

// done returns the maps by id and by slug, as edited or prev's.
func (e *lookupEdits) done() (ids, slugs lookup) {
	ids, slugs = e.prev.byID, e.prev.bySlug
	if e.ids != nil {
		ids = e.ids.done()
	}
	if e.slugs != nil {
		slugs = e.slugs.done()
	}
	return ids, slugs
}

// errSharedSlug is the error of a build that would serve two flags under
// one slug, a and b named in id order.
func errSharedSlug(a, b *Flag) error {
	if a.ID() > b.ID() {
		a, b = b, a
	}
	return fmt.Errorf("flags %s and %s share the slug %q", a.ID(), b.ID(), a.Slug())
}
