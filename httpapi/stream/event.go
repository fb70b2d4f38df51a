package stream

import (
	"slices"
	"strconv"
	"strings"

	"github.com/flagpole/flagpole/memstore"
)

// timeFormat is the API's timestamp: UTC, milliseconds, Z.
const timeFormat = "2006-01-02T15:04:05.000Z"

// event is one votes event: what one snapshot changed, each flag's part
// encoded once, and the whole frame for the streams that follow every
// flag. It is never modified once made.
type event struct {
	gen     uint64
	head    []byte   // "id: ...\nevent: votes\ndata: {"at":"...","flags":["
	slugs   []string // of items, in order (the flags' ids')
	items   [][]byte // {"slug":..,"votes":{..},"dominant":..}
	removed []string
	gone    [][]byte // removed slugs as JSON strings
	all     []byte   // the frame of every change
	// index finds an item by slug, in an event of more than indexMin.
	index map[string]int32
}

// indexMin is the number of changed flags from which an event indexes them
// by slug, so that a stream following few flags finds its own at once.
const indexMin = 32

// newEvent encodes the event of snapshot s, which changed ch; item appends
// a flag's entry and str a JSON string.
func newEvent(epoch string, s *memstore.Snapshot, ch memstore.Changes, item func([]byte, *memstore.Flag) []byte,
	str func([]byte, string) []byte) *event {
	e := &event{gen: s.Gen}
	b := append([]byte("id: "), positionID(epoch, s.Gen)...)
	b = append(b, "\nevent: votes\ndata: {\"at\":\""...)
	b = s.LoadedAt.UTC().AppendFormat(b, timeFormat)
	e.head = append(b, "\",\"flags\":["...)
	flags := make([]*memstore.Flag, 0, len(ch.Votes)+len(ch.Added))
	flags = append(append(flags, ch.Votes...), ch.Added...)
	slices.SortFunc(flags, func(a, b *memstore.Flag) int { return strings.Compare(a.ID(), b.ID()) })
	// The slugs, copied into one string: a flag's own is part of its
	// record, which the ring would keep alive, with the chunk of other
	// flags it was carved from, for as long as it holds the event.
	n := 0
	for _, f := range flags {
		n += len(f.Slug())
	}
	for _, f := range ch.Removed {
		n += len(f.Slug())
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, f := range flags {
		sb.WriteString(f.Slug())
	}
	for _, f := range ch.Removed {
		sb.WriteString(f.Slug())
	}
	text, at := sb.String(), 0
	slug := func(f *memstore.Flag) string {
		at += len(f.Slug())
		return text[at-len(f.Slug()) : at]
	}
	size := len(e.head) + 32
	for _, f := range flags {
		it := item(nil, f)
		e.items = append(e.items, it)
		e.slugs = append(e.slugs, slug(f))
		size += len(it) + 1
	}
	if len(flags) > indexMin {
		e.index = make(map[string]int32, len(flags))
		for i, s := range e.slugs {
			e.index[s] = int32(i)
		}
	}
	for _, f := range ch.Removed {
		e.removed = append(e.removed, slug(f))
		g := str(nil, f.Slug())
		e.gone = append(e.gone, g)
		size += len(g) + 1
	}
	e.all = e.frame(make([]byte, 0, size), e.items, e.gone)
	return e
}

// frame appends the event's frame with these items and removed slugs.
func (e *event) frame(b []byte, items, gone [][]byte) []byte {
	b = append(b, e.head...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, ']')
	if len(gone) > 0 {
		b = append(b, `,"removed":[`...)
		for i, g := range gone {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, g...)
		}
		b = append(b, ']')
	}
	return append(b, "}\n\n"...)
}

// frameFor is the event's frame for a stream following f: only the flags
// it follows, nil when none of them changed.
func (e *event) frameFor(f *Follow) []byte {
	if f == nil {
		return e.all
	}
	var items, gone [][]byte
	if e.index != nil && len(f.slugs) < len(e.slugs) {
		// Few slugs followed, many changed: look each up, then restore
		// the event's order.
		idx := make([]int, 0, len(f.slugs))
		for _, s := range f.slugs {
			if i, ok := e.index[s]; ok {
				idx = append(idx, int(i))
			}
		}
		slices.Sort(idx)
		for _, i := range idx {
			items = append(items, e.items[i])
		}
	} else {
		for i, s := range e.slugs {
			if f.has(s) {
				items = append(items, e.items[i])
			}
		}
	}
	for i, s := range e.removed {
		if f.has(s) {
			gone = append(gone, e.gone[i])
		}
	}
	if len(items) == 0 && len(gone) == 0 {
		return nil
	}
	return e.frame(nil, items, gone)
}

// positionID is the id of the position after snapshot gen of the hub of
// this epoch.
func positionID(epoch string, gen uint64) string {
	return epoch + "-" + strconv.FormatUint(gen, 10)
}
