package memstore

import "slices"

// attrs holds per slot a flag's packed filter attributes (see attrOf) in
// two flat arrays, so that a vote tick, which changes an attribute only
// where a dominant colour flips, copies no more than the colours: base
// holds the category and the region (the colour's bits zero), which only
// an edit changes; dom the colours, a byte a slot. At a million flags a
// flip copies 1 MB, not the 4 MB of one array of attributes. Both stay
// flat, a byte a colour: the filtered walk of List (match) reads them
// for every entry it passes, and the attributes in pages made it 1.6
// times as slow, the colours packed two bits each 1.3 times (a byte each:
// 1.1-1.2 times the single array). Neither array is written once the
// build that made it returns.
type attrs struct {
	base []uint32
	dom  []Dominant
}

// len is the number of slots.
func (a *attrs) len() int { return len(a.base) }

// at returns slot i's packed attributes, as attrOf packs them.
func (a *attrs) at(i int32) uint32 {
	return a.base[i] | uint32(a.dom[i])<<attrDomShift
}

// match returns the positions of blocks, in order, whose attributes
// masked by mask are want and whose colour masked by colourMask is
// colour, from the skip-th match on and at most limit of them (made in
// full first: the caller asks for no more than there are). A function
// of its own, small: in a large one the loop's values lived on the stack.
func (a *attrs) match(blocks [][]int32, mask, want uint32, colourMask, colour Dominant, skip, limit int) []int32 {
	// No call in the loop (the page is made first): the loop's values stay
	// in registers, and the reads of several entries overlap.
	if limit <= 0 {
		return nil
	}
	page, n := make([]int32, limit), 0
	base, colours := a.base, a.dom
	for _, b := range blocks {
		for _, i := range b {
			if base[i]&mask != want || colours[i]&colourMask != colour {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			page[n] = i
			if n++; n == limit {
				return page
			}
		}
	}
	return page[:n]
}

// newAttrs makes the attributes of n slots, zero until put.
func newAttrs(n int) attrs { return attrs{base: make([]uint32, n), dom: make([]Dominant, n)} }

// put sets slot i's attributes in arrays the caller owns (newAttrs').
func (a *attrs) put(i int32, attr uint32) {
	a.base[i], a.dom[i] = attr&^attrDomMask, Dominant(attr&attrDomMask>>attrDomShift)
}

// attrEditor changes some slots' attributes of an attrs, copying each
// array the first time it writes it: a change of colour alone copies dom
// alone.
type attrEditor struct {
	a               attrs
	ownBase, ownDom bool
}

// edit starts a copy of a that shares a's arrays until set writes them.
func (a attrs) edit() *attrEditor { return &attrEditor{a: a} }

// set makes attr the attributes of slot i, which may be past the last:
// the slots between are zero.
func (e *attrEditor) set(i int32, attr uint32) {
	if n := int(i) + 1; n > len(e.a.base) {
		// Copied once, then grown in place: the arrays are the editor's.
		e.own()
		e.a.base = append(e.a.base, make([]uint32, n-len(e.a.base))...)
		e.a.dom = append(e.a.dom, make([]Dominant, n-len(e.a.dom))...)
	}
	if base := attr &^ attrDomMask; e.a.base[i] != base {
		if !e.ownBase {
			e.a.base, e.ownBase = slices.Clone(e.a.base), true
		}
		e.a.base[i] = base
	}
	if c := Dominant(attr & attrDomMask >> attrDomShift); e.a.dom[i] != c {
		if !e.ownDom {
			e.a.dom, e.ownDom = slices.Clone(e.a.dom), true
		}
		e.a.dom[i] = c
	}
}

// own copies the arrays the editor does not own yet.
func (e *attrEditor) own() {
	if !e.ownBase {
		e.a.base, e.ownBase = slices.Clone(e.a.base), true
	}
	if !e.ownDom {
		e.a.dom, e.ownDom = slices.Clone(e.a.dom), true
	}
}

// done returns the attributes as edited.
func (e *attrEditor) done() attrs { return e.a }
