package httpapi

import "github.com/flagpole/flagpole/memstore"

// listView says which snapshots a rendered page of /flags answers: the
// one it was made from and every later one whose swaps left the page as
// it was (memstore.PageKept: no changed flag on it, before or after, as
// many before it and in the list). A vote moves its flag in every order,
// but most pages are far from where it was and went, so most pages
// outlive most swaps; one the swap changed is rendered again, with a new
// ETag.
type listView struct {
	span
	q           memstore.ListQuery
	first, last memstore.ListEntry // the page's first and last flags; none for an empty page
}

// touched reports whether the swap r may have changed v's page.
func (v *listView) touched(r *swapRec) bool {
	return r.old == nil || !memstore.PageKept(v.q, v.first, v.last, r.old, r.now)
}

// list returns the page of q in s: the cached one while it answers s
// (its view serves s), else rendered and kept with a view from s.
func (c *cache) list(q memstore.ListQuery, s *memstore.Snapshot, log *swapLog) *response {
	key := listKey(q)
	var old *response
	if c.rc != nil {
		if r, ok := c.rc.Get(key); ok {
			if r.list != nil && r.list.serves(s.Serial(), r.list.touched) {
				return r
			}
			c.stale.Add(1) // ristretto counted a hit; it was not one
			old = r
		}
	}
	page, total := s.List(q)
	r := newResponse(renderList(q, page, total))
	v := &listView{q: q}
	if n := page.Len(); n > 0 {
		v.first, v.last = memstore.EntryOf(page.At(0)), memstore.EntryOf(page.At(n-1))
	}
	v.start(log, s.Serial())
	r.list = v
	if c.rc != nil && (old == nil || old.list == nil || v.from > old.list.from) {
		c.rc.Set(key, r, int64(len(r.body)+len(key)+320))
	}
	return r
}
