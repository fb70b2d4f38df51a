package memstore

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomAttr is a packed attribute of some category, colour and region.
func randomAttr(rng *rand.Rand) uint32 {
	return uint32(rng.IntN(NumCategories)) | uint32(rng.IntN(int(NumDominants)))<<attrDomShift |
		uint32(rng.IntN(5))<<attrRegShift
}

// randomAttrs is n slots of random attributes, as a model and as attrs.
func randomAttrs(rng *rand.Rand, n int) ([]uint32, attrs) {
	model, a := make([]uint32, n), newAttrs(n)
	for i := range model {
		model[i] = randomAttr(rng)
		a.put(int32(i), model[i])
	}
	return model, a
}

// Edits of attributes against a model: each edit leaves the attributes
// before as they were, and shares an array exactly when it wrote nothing
// in it.
func TestAttrsEdit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	model, a := randomAttrs(rng, 70)
	kinds := map[string]int{}
	for round := range 300 {
		before := slices.Clone(model)
		e := a.edit()
		baseChanged, colourChanged := false, false
		for range rng.IntN(4) {
			i := int32(rng.IntN(len(model)))
			v := model[i]
			switch k := rng.IntN(5); {
			case k == 0: // the same value
			case k == 1: // another colour
				v = v&^attrDomMask | (v&attrDomMask>>attrDomShift+1)%uint32(NumDominants)<<attrDomShift
			case k == 2: // another category
				v = v&^attrCatMask | (v&attrCatMask+1)%NumCategories
			case k == 3 && round%7 == 0: // past the end: the slots between are zero
				i = int32(len(model) + rng.IntN(40))
				v = randomAttr(rng)
			}
			for len(model) <= int(i) {
				model = append(model, 0)
				baseChanged, colourChanged = true, true
			}
			baseChanged = baseChanged || model[i]&^attrDomMask != v&^attrDomMask
			colourChanged = colourChanged || model[i]&attrDomMask != v&attrDomMask
			model[i] = v
			e.set(i, v)
		}
		next := e.done()
		if got := attrValues(a); !slices.Equal(got, before) {
			t.Fatalf("round %d: the edit changed the attributes it was made from", round)
		}
		if got := attrValues(next); !slices.Equal(got, model) {
			t.Fatalf("round %d: attributes\n%v, want\n%v", round, got, model)
		}
		if len(next.dom) != next.len() {
			t.Fatalf("round %d: %d colours for %d slots", round, len(next.dom), next.len())
		}
		if shared := &next.base[0] == &a.base[0]; shared == baseChanged {
			t.Fatalf("round %d: categories and regions changed %v, shared %v", round, baseChanged, shared)
		}
		if shared := &next.dom[0] == &a.dom[0]; shared == colourChanged {
			t.Fatalf("round %d: colours changed %v, shared %v", round, colourChanged, shared)
		}
		kinds[map[bool]string{true: "base"}[baseChanged]+map[bool]string{true: "+colour"}[colourChanged]]++
		a = next
	}
	for _, k := range []string{"", "base", "+colour", "base+colour"} {
		if kinds[k] == 0 {
			t.Errorf("no edit changed %q: the test wants every case (%v)", k, kinds)
		}
	}
}

// match finds what a filter over the model finds, from any skip and for
// any limit.
func TestAttrsMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	model, a := randomAttrs(rng, 600)
	order := make([]int32, len(model))
	for i := range order {
		order[i] = int32(i)
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	var blocks [][]int32
	for lo := 0; lo < len(order); {
		hi := min(len(order), lo+1+rng.IntN(90))
		blocks = append(blocks, order[lo:hi])
		lo = hi
	}
	for range 400 {
		var mask, want uint32
		var colourMask, colour Dominant
		probe := model[rng.IntN(len(model))]
		if rng.IntN(2) == 0 {
			mask |= attrCatMask
		}
		if rng.IntN(2) == 0 {
			mask |= attrRegMask
		}
		want = probe & mask
		if rng.IntN(2) == 0 {
			colourMask, colour = 3, Dominant(probe&attrDomMask>>attrDomShift)
		}
		var all []int32
		for _, i := range order {
			if model[i]&mask == want && Dominant(model[i]&attrDomMask>>attrDomShift)&colourMask == colour {
				all = append(all, i)
			}
		}
		skip, limit := rng.IntN(len(all)+5), rng.IntN(30)
		want2 := all[min(skip, len(all)):min(skip+limit, len(all))]
		if got := a.match(blocks, mask, want, colourMask, colour, skip, limit); !slices.Equal(got, want2) {
			t.Fatalf("mask %x want %x colour %d/%d skip %d limit %d: %v, want %v",
				mask, want, colourMask, colour, skip, limit, got, want2)
		}
	}
}
