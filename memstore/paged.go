package memstore

// A paged list's pages hold pageLen values each.
const (
	pageBits = 10
	pageLen  = 1 << pageBits
)

// paged is a list of values by position cut into pages that snapshots
// share: a build that changes a few values copies the pages they are on
// and the directory of pages, never the whole list. It holds the search
// index's word counts a flag (searchIndex.nwords). A page is never written
// once the build that made it returns. The flags themselves are in a
// flagList, paged the same way without a pointer a flag; the filter
// attributes stay flat (see attrs: the filtered walk reads them for every
// entry it passes).
type paged[T any] struct {
	pages []*[pageLen]T
	n     int
}

// pagedOf makes a paged copy of flat.
func pagedOf[T any](flat []T) paged[T] {
	p := paged[T]{pages: make([]*[pageLen]T, (len(flat)+pageLen-1)/pageLen), n: len(flat)}
	for k := range p.pages {
		pg := new([pageLen]T)
		copy(pg[:], flat[k*pageLen:])
		p.pages[k] = pg
	}
	return p
}

// len is the number of values.
func (p *paged[T]) len() int { return p.n }

// at returns the value at position i (0 <= i < len).
func (p *paged[T]) at(i int32) T { return p.pages[i>>pageBits][i&(pageLen-1)] }

// pageEditor changes some values of a paged list, copying each page it
// writes once.
type pageEditor[T any] struct {
	p   paged[T]
	own map[int32]bool // the pages copied, which it may write
}

// edit starts a copy of p that shares p's pages until set writes them.
func (p *paged[T]) edit() *pageEditor[T] {
	return &pageEditor[T]{p: paged[T]{pages: append([]*[pageLen]T(nil), p.pages...), n: p.n}, own: map[int32]bool{}}
}

// set makes v the value at position i (0 <= i < len).
func (e *pageEditor[T]) set(i int32, v T) {
	k := i >> pageBits
	if !e.own[k] {
		pg := *e.p.pages[k]
		e.p.pages[k] = &pg
		e.own[k] = true
	}
	e.p.pages[k][i&(pageLen-1)] = v
}

// push appends v at position len, the list growing by one.
func (e *pageEditor[T]) push(v T) {
	i := int32(e.p.n)
	if int(i)&(pageLen-1) == 0 && int(i>>pageBits) == len(e.p.pages) {
		e.p.pages = append(e.p.pages, new([pageLen]T))
		e.own[i>>pageBits] = true
	}
	e.p.n++
	e.set(i, v)
}

// done returns the list as edited; the editor must not be used again.
func (e *pageEditor[T]) done() paged[T] { return e.p }
