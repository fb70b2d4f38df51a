package memstore

import "hash/maphash"

// lookupShards is the number of maps a lookup is cut into.
const lookupShards = 256

// lookup maps a flag's id or slug to its slot, in shards that snapshots
// share: a build that adds, removes or renames a few flags copies the
// shards they are in, a few thousand entries each at a million flags,
// where a whole map's copy took tens of milliseconds.
type lookup struct {
	shards *[lookupShards]map[string]int32 // never written once built
}

var lookupSeed = maphash.MakeSeed()

func shardOf(k string) int { return int(maphash.String(lookupSeed, k) & (lookupShards - 1)) }

// newLookup makes an empty lookup sized for n keys.
func newLookup(n int) lookup {
	l := lookup{shards: new([lookupShards]map[string]int32)}
	for k := range l.shards {
		l.shards[k] = make(map[string]int32, n/lookupShards)
	}
	return l
}

// get returns the slot of k.
func (l lookup) get(k string) (int32, bool) {
	if l.shards == nil {
		return 0, false
	}
	i, ok := l.shards[shardOf(k)][k]
	return i, ok
}

// lookupEditor changes a lookup, copying each shard it writes once.
type lookupEditor struct {
	l   lookup
	own [lookupShards]bool
}

// edit starts a copy of l that shares l's shards until a write.
func (l lookup) edit() *lookupEditor {
	e := &lookupEditor{l: lookup{shards: new([lookupShards]map[string]int32)}}
	if l.shards != nil {
		*e.l.shards = *l.shards
	}
	return e
}

// shard returns k's shard, this editor's own.
func (e *lookupEditor) shard(k string) map[string]int32 {
	n := shardOf(k)
	if !e.own[n] {
		m := make(map[string]int32, len(e.l.shards[n])+1)
		for k, v := range e.l.shards[n] {
			m[k] = v
		}
		e.l.shards[n], e.own[n] = m, true
	}
	return e.l.shards[n]
}

func (e *lookupEditor) get(k string) (int32, bool) { return e.l.get(k) }

func (e *lookupEditor) set(k string, i int32) { e.shard(k)[k] = i }

func (e *lookupEditor) del(k string) { delete(e.shard(k), k) }

// done returns the lookup as edited; the editor must not be used again.
func (e *lookupEditor) done() lookup { return e.l }
