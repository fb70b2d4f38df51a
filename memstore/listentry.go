package memstore

import "strings"

// ListEntry is what decides where a flag stands in the lists and whether
// a list's filters keep it: its key in each sort, its total and id, its
// category, colour and region. It is a copy, holding none of the flag's
// memory; the zero value is no flag (a hole, a flag not served).
type ListEntry struct {
	present bool
	keys    [NumSorts]int64
	total   int64
	id      string
	cat     Category
	dom     Dominant
	region  string
}

// EntryOf is f's entry; nil gives no flag's.
func EntryOf(f *Flag) ListEntry {
	if f == nil {
		return ListEntry{}
	}
	e := ListEntry{present: true, total: f.Total(), id: strings.Clone(f.ID()), cat: f.Category, dom: f.Dominant,
		region: strings.Clone(f.Region())}
	for srt := range NumSorts {
		e.keys[srt] = sortKey(f, srt)
	}
	return e
}

// in reports whether e is a flag that q's filters keep.
func (e *ListEntry) in(q *ListQuery) bool {
	return e.present && (!q.HasCategory || e.cat == q.Category) && (!q.HasDominant || e.dom == q.Dominant) &&
		(!q.HasRegion || e.region == q.Region)
}

// compare is -1 or +1 as e comes before or after o in q's order (its
// sort and direction, ties total desc, then id asc), 0 for one flag.
func (e *ListEntry) compare(o *ListEntry, q *ListQuery) int {
	return placeFor(e.keys[q.Sort], q.Desc, e.total, e.id).compare(placeFor(o.keys[q.Sort], q.Desc, o.total, o.id))
}

// PageKept reports whether the page of q a snapshot gave, whose first and
// last flags' entries are first and last (both zero for an empty page),
// is the page the next snapshot gives, to the byte, when the flags that
// differ between the two (every other one the same *Flag in both) were
// old before and are now (old[i] became now[i]). So it is when no changed
// flag is on the page before or after, as many stand before the page
// after as before, and as many are in the list (its total): the flags
// that are not changed keep their order, so the page holds the same ones.
// A page that is not full ends the list, so no flag can come after it.
func PageKept(q ListQuery, first, last ListEntry, old, now []ListEntry) bool {
	b0, m0, ok0 := placeOnPage(&q, &first, &last, old)
	b1, m1, ok1 := placeOnPage(&q, &first, &last, now)
	return ok0 && ok1 && b0 == b1 && m0 == m1
}

// placeOnPage counts the entries of es that q's list holds (members) and those
// of them before first (before), and reports false when one is on the
// page from first to last.
func placeOnPage(q *ListQuery, first, last *ListEntry, es []ListEntry) (before, members int, ok bool) {
	for i := range es {
		e := &es[i]
		if !e.in(q) {
			continue
		}
		members++
		switch {
		case !first.present: // an empty page: only the total counts
		case e.compare(first, q) < 0:
			before++
		case e.compare(last, q) <= 0:
			return 0, 0, false
		}
	}
	return before, members, true
}
