package stream

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/flagpole/flagpole/memstore"
)

// timeFormat is the API's timestamp: UTC, milliseconds, Z.
const timeFormat = "2006-01-02T15:04:05.000Z"

// event is one votes event: what one snapshot changed, encoded once as
// the frame of every change, which holds each changed flag's part (its
// JSON object) for the frames of streams that follow some flags. It is
// never modified once made, and holds, beside that frame, the flags'
// slugs in one string and 16 bytes a flag where each part and slug lies
// (and 4 more for an index of them by slug): size says how much, which
// the history's bound counts.
type event struct {
	gen  uint64
	all  []byte // the frame of every change
	head uint32 // all[:head] is "id: ...\nevent: votes\ndata: {"at":"...","flags":["
	text string // the slugs, one after the other
	// flags are the changed flags, in the event's order: each one's
	// object in all and its slug in text; removed, the flags removed: each
	// one's slug as a JSON string in all, and in text.
	flags, removed []part
	// bySlug, in an event of more than indexMin flags, is the indexes of
	// flags in the order of their slugs, so that a stream following few
	// flags finds its own at once.
	bySlug []int32
}

// span is where a part lies in a byte string; part is where a flag's
// encoded part lies in event.all and its slug in event.text.
type (
	span struct{ from, to uint32 }
	part struct{ enc, slug span }
)

// indexMin is the number of changed flags from which an event indexes them
// by slug.
const indexMin = 32

// newEvent encodes the event of snapshot s, which changed ch; item appends
// a flag's entry and str a JSON string.
func newEvent(epoch string, s *memstore.Snapshot, ch memstore.Changes, item func([]byte, *memstore.Flag) []byte,
	str func([]byte, string) []byte) *event {
	e := &event{gen: s.Gen}
	flags := make([]*memstore.Flag, 0, len(ch.Votes)+len(ch.Added))
	flags = append(append(flags, ch.Votes...), ch.Added...)
	slices.SortFunc(flags, func(a, b *memstore.Flag) int { return strings.Compare(a.ID(), b.ID()) })
	// The slugs, copied into one string: a flag's own is part of its
	// record, which the history would keep alive, with the chunk of other
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
	b := append([]byte("id: "), positionID(epoch, s.Gen)...)
	b = append(b, "\nevent: votes\ndata: {\"at\":\""...)
	b = s.LoadedAt.UTC().AppendFormat(b, timeFormat)
	b = append(b, "\",\"flags\":["...)
	e.head = uint32(len(b))
	// Each part as it is written: where it lies in b, and its slug in sb.
	mark := func(from int, slug string) part {
		at := sb.Len()
		sb.WriteString(slug)
		return part{span{uint32(from), uint32(len(b))}, span{uint32(at), uint32(sb.Len())}}
	}
	e.flags = make([]part, 0, len(flags))
	for i, f := range flags {
		if i > 0 {
			b = append(b, ',')
		}
		from := len(b)
		b = item(b, f)
		e.flags = append(e.flags, mark(from, f.Slug()))
	}
	b = append(b, ']')
	if len(ch.Removed) > 0 {
		b = append(b, `,"removed":[`...)
		e.removed = make([]part, 0, len(ch.Removed))
		for i, f := range ch.Removed {
			if i > 0 {
				b = append(b, ',')
			}
			from := len(b)
			b = str(b, f.Slug())
			e.removed = append(e.removed, mark(from, f.Slug()))
		}
		b = append(b, ']')
	}
	b = append(b, "}\n\n"...)
	e.all = append(make([]byte, 0, len(b)), b...) // no room past the frame held for as long as the event
	e.text = sb.String()
	if len(e.flags) > indexMin {
		e.bySlug = make([]int32, len(e.flags))
		for i := range e.bySlug {
			e.bySlug[i] = int32(i)
		}
		slices.SortFunc(e.bySlug, func(i, j int32) int { return strings.Compare(e.slug(e.flags[i]), e.slug(e.flags[j])) })
	}
	return e
}

// slug is the slug of the flag of p.
func (e *event) slug(p part) string { return e.text[p.slug.from:p.slug.to] }

// enc is the encoded part of p.
func (e *event) enc(p part) []byte { return e.all[p.enc.from:p.enc.to] }

// size is the bytes the event holds.
func (e *event) size() int {
	return int(unsafe.Sizeof(*e)) + cap(e.all) + len(e.text) + (cap(e.flags)+cap(e.removed))*int(unsafe.Sizeof(part{})) +
		cap(e.bySlug)*4
}

// find is the index in e.flags of the flag with this slug (e.bySlug set).
func (e *event) find(slug string) (int, bool) {
	i, ok := slices.BinarySearchFunc(e.bySlug, slug, func(j int32, s string) int { return strings.Compare(e.slug(e.flags[j]), s) })
	if !ok {
		return 0, false
	}
	return int(e.bySlug[i]), true
}

// frameFor is the event's frame for a stream following f: only the flags
// it follows, nil when none of them changed.
func (e *event) frameFor(f *Follow) []byte {
	if f == nil {
		return e.all
	}
	var items, gone []int
	if e.bySlug != nil && len(f.slugs) < len(e.flags) {
		// Few slugs followed, many changed: look each up, then restore
		// the event's order.
		for _, s := range f.slugs {
			if i, ok := e.find(s); ok {
				items = append(items, i)
			}
		}
		slices.Sort(items)
	} else {
		for i, p := range e.flags {
			if f.has(e.slug(p)) {
				items = append(items, i)
			}
		}
	}
	for i, p := range e.removed {
		if f.has(e.slug(p)) {
			gone = append(gone, i)
		}
	}
	if len(items) == 0 && len(gone) == 0 {
		return nil
	}
	return e.frame(items, gone)
}

// frame is the event's frame with the flags of e.flags at items and of
// e.removed at gone.
func (e *event) frame(items, gone []int) []byte {
	n := int(e.head) + 32
	for _, i := range items {
		n += len(e.enc(e.flags[i])) + 1
	}
	for _, i := range gone {
		n += len(e.enc(e.removed[i])) + 1
	}
	b := append(make([]byte, 0, n), e.all[:e.head]...)
	for k, i := range items {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, e.enc(e.flags[i])...)
	}
	b = append(b, ']')
	if len(gone) > 0 {
		b = append(b, `,"removed":[`...)
		for k, i := range gone {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, e.enc(e.removed[i])...)
		}
		b = append(b, ']')
	}
	return append(b, "}\n\n"...)
}

// positionID is the id of the position after snapshot gen of the hub of
// this epoch.
func positionID(epoch string, gen uint64) string {
	return epoch + "-" + strconv.FormatUint(gen, 10)
}
