package memstore

import "hash/maphash"

// lookupShards is the number of tables a lookup is cut into.
const lookupShards = 256

// lookup finds a flag's slot by its id or its slug, in shards that
// snapshots share: a build that adds, removes or renames a few flags
// copies the shards they are in, a few thousand entries each at a million
// flags, where a whole table's copy took tens of milliseconds.
//
// A shard is an open-addressed table of 8-byte entries, a tag of the
// key's hash and the slot, with no pointer: the key is read from the
// flag in the slot, in the snapshot the lookup belongs to. A map of
// strings held two pointers' worth of scanning per flag for the collector
// at every cycle, and about twice the bytes.
type lookup struct {
	shards *[lookupShards]table // never written once built
	slug   bool                 // the keys are slugs, else ids
}

// table is one shard: linear probing, at most three quarters full.
type table struct {
	entries []uint64 // tag<<32 | slot+1, 0 where empty; the length a power of two, or 0
	n       int
}

var lookupSeed = maphash.MakeSeed()

// The low bits of a key's hash choose its shard, the high 32 are its tag,
// and the tag's low bits its first place in the shard.
func hashOf(k string) (shard int, tag uint32) {
	h := maphash.String(lookupSeed, k)
	return int(h & (lookupShards - 1)), uint32(h >> 32)
}

// key is the id or the slug of the flag in slot i of flags.
func (l lookup) key(flags *flagList, i int32) (string, bool) {
	if i < 0 || int(i) >= flags.len() {
		return "", false
	}
	f := flags.at(i)
	if f == nil {
		return "", false
	}
	if l.slug {
		return f.Slug(), true
	}
	return f.ID(), true
}

// get returns the slot of k, reading keys from flags, the flags of the
// snapshot l belongs to.
func (l lookup) get(k string, flags *flagList) (int32, bool) {
	if l.shards == nil {
		return 0, false
	}
	n, tag := hashOf(k)
	if p, ok := l.find(&l.shards[n], k, tag, flags); ok {
		return int32(uint32(l.shards[n].entries[p])) - 1, true
	}
	return 0, false
}

// find returns the place of k's entry in t.
func (l lookup) find(t *table, k string, tag uint32, flags *flagList) (uint32, bool) {
	if len(t.entries) == 0 {
		return 0, false
	}
	mask := uint32(len(t.entries) - 1)
	for p := tag & mask; ; p = (p + 1) & mask {
		e := t.entries[p]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == tag {
			if key, ok := l.key(flags, int32(uint32(e))-1); ok && key == k {
				return p, true
			}
		}
	}
}

// put places an entry in t, which has room for it.
func (t *table) put(e uint64) {
	mask := uint32(len(t.entries) - 1)
	p := uint32(e>>32) & mask
	for t.entries[p] != 0 {
		p = (p + 1) & mask
	}
	t.entries[p] = e
	t.n++
}

// tableLen is the length of a table for n entries: a power of two at
// least 4/3 n.
func tableLen(n int) int {
	size := 8
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

// lookupEditor changes a lookup, copying each shard it writes once.
type lookupEditor struct {
	l   lookup
	own [lookupShards]bool
}

// newLookup starts an empty lookup sized for n keys.
func newLookup(n int, slug bool) *lookupEditor {
	e := &lookupEditor{l: lookup{shards: new([lookupShards]table), slug: slug}}
	for k := range e.l.shards {
		e.l.shards[k].entries = make([]uint64, tableLen(n/lookupShards))
		e.own[k] = true
	}
	return e
}

// edit starts a copy of l that shares l's shards until a write; its keys
// are slugs, else ids (l may be the zero lookup).
func (l lookup) edit(slug bool) *lookupEditor {
	e := &lookupEditor{l: lookup{shards: new([lookupShards]table), slug: slug}}
	if l.shards != nil {
		*e.l.shards = *l.shards
	}
	return e
}

// table returns shard n, this editor's own, with room for more
// entries.
func (e *lookupEditor) table(n, more int) *table {
	t := &e.l.shards[n]
	size := len(t.entries)
	if (t.n+more)*4 > size*3 {
		size = tableLen(t.n + more)
	}
	if !e.own[n] || size != len(t.entries) {
		old := *t
		*t = table{entries: make([]uint64, size)}
		if size == len(old.entries) {
			copy(t.entries, old.entries)
			t.n = old.n
		} else {
			for _, x := range old.entries {
				if x != 0 {
					t.put(x)
				}
			}
		}
		e.own[n] = true
	}
	return t
}

func (e *lookupEditor) get(k string, flags *flagList) (int32, bool) { return e.l.get(k, flags) }

// add enters k, which must not be in the lookup, for slot i.
func (e *lookupEditor) add(k string, i int32) {
	n, tag := hashOf(k)
	e.table(n, 1).put(uint64(tag)<<32 | uint64(uint32(i+1)))
}

// del takes k out, reading keys from flags (where k's slot still holds
// k).
func (e *lookupEditor) del(k string, flags *flagList) {
	n, tag := hashOf(k)
	p, ok := e.l.find(&e.l.shards[n], k, tag, flags)
	if !ok {
		return
	}
	t := e.table(n, 0) // a copy keeps the places
	// Backward shift: each entry after p up to the next hole moves into
	// the hole unless its first place lies cyclically in (hole, its place].
	mask := uint32(len(t.entries) - 1)
	hole := p
	for q := (p + 1) & mask; t.entries[q] != 0; q = (q + 1) & mask {
		home := uint32(t.entries[q]>>32) & mask
		if (q > hole && (home <= hole || home > q)) || (q < hole && home <= hole && home > q) {
			t.entries[hole] = t.entries[q]
			hole = q
		}
	}
	t.entries[hole] = 0
	t.n--
}

// done returns the lookup as edited; the editor must not be used again.
func (e *lookupEditor) done() lookup { return e.l }
