package memstore

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// lookupWorld is a list of flags by slot and what a lookup of their ids
// and one of their slugs must answer.
type lookupWorld struct {
	flags flagList
	ids   map[string]int32
	slugs map[string]int32
}

func keyFlag(id, slug string) *Flag {
	return newFlag(&FlagInput{ID: id, Slug: slug}, 0, nil, newLexicon(), nil)
}

// check compares both lookups with the model, for every key it holds and
// for keys it does not.
func (w *lookupWorld) check(t *testing.T, step string, ids, slugs lookup) {
	t.Helper()
	for _, c := range []struct {
		l    lookup
		want map[string]int32
	}{{ids, w.ids}, {slugs, w.slugs}} {
		for k, want := range c.want {
			if got, ok := c.l.get(k, &w.flags); !ok || got != want {
				t.Fatalf("%s: %q at %d, %v; want %d", step, k, got, ok, want)
			}
		}
		n := 0
		for s := range c.l.shards {
			n += c.l.shards[s].n
			if tb := c.l.shards[s]; tb.n*4 > len(tb.entries)*3 {
				t.Fatalf("%s: a shard of %d entries holds %d", step, len(tb.entries), tb.n)
			}
		}
		if n != len(c.want) {
			t.Fatalf("%s: %d entries, want %d", step, n, len(c.want))
		}
		for i := range 50 {
			if got, ok := c.l.get(fmt.Sprint("absent-", i), &w.flags); ok {
				t.Fatalf("%s: an absent key found at %d", step, got)
			}
		}
	}
}

// A lookup answers as a map over random adds, renames and removals that
// grow shards from empty past several doublings (so entries move, and
// deletions shift long runs of entries back); an edit leaves the lookup
// it started from as it was.
func TestLookupAsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w := &lookupWorld{ids: map[string]int32{}, slugs: map[string]int32{}}
	var all []*Flag
	var ids, slugs lookup
	next := 0
	for round := range 40 {
		prevFlags := w.flags
		prevIDs, prevSlugs := ids, slugs
		before := &lookupWorld{flags: prevFlags, ids: clone(w.ids), slugs: clone(w.slugs)}
		ie, se := ids.edit(false), slugs.edit(true)
		ed := w.flags.edit()
		// Removals and renames first, as a build does: every key they take
		// out is read from the flags before.
		var renamed []int32
		for i, f := range all {
			if f == nil || rng.IntN(5) != 0 {
				continue
			}
			se.del(f.Slug(), &prevFlags)
			delete(w.slugs, f.Slug())
			if rng.IntN(2) == 0 {
				ie.del(f.ID(), &prevFlags)
				delete(w.ids, f.ID())
				all[i] = nil
			} else {
				all[i] = keyFlag(f.ID(), fmt.Sprintf("renamed-%d-%d", round, i))
				renamed = append(renamed, int32(i))
			}
			ed.set(int32(i), all[i])
		}
		for range rng.IntN(3000) {
			f := keyFlag(fmt.Sprintf("flg_%06d", next), fmt.Sprintf("slug-%d", next))
			next++
			all = append(all, f)
			i := int32(len(all) - 1)
			ed.push(f)
			ie.add(f.ID(), i)
			w.ids[f.ID()] = i
			renamed = append(renamed, i)
		}
		w.flags = ed.done()
		for _, i := range renamed {
			f := all[i]
			if _, dup := se.get(f.Slug(), &w.flags); dup {
				t.Fatalf("round %d: slug %q found before it was added", round, f.Slug())
			}
			se.add(f.Slug(), i)
			w.slugs[f.Slug()] = i
		}
		ids, slugs = ie.done(), se.done()
		w.check(t, fmt.Sprintf("round %d", round), ids, slugs)
		if round > 0 {
			before.check(t, fmt.Sprintf("round %d, the lookup before", round), prevIDs, prevSlugs)
		}
	}
	if len(w.ids) < 10000 {
		t.Fatalf("only %d flags: the shards did not grow far", len(w.ids))
	}
	// A full build's lookup, sized for its flags, answers the same.
	fi, fs := newLookup(len(w.ids), false), newLookup(len(w.slugs), true)
	for k, i := range w.ids {
		fi.add(k, i)
	}
	for k, i := range w.slugs {
		fs.add(k, i)
	}
	w.check(t, "full", fi.done(), fs.done())
}

func clone(m map[string]int32) map[string]int32 {
	c := make(map[string]int32, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
