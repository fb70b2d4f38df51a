package memstore

import (
	"bytes"
	"fmt"
	"testing"
)

// What an arena hands out must stay as it was kept, exact in length and
// capacity, whatever is carved or encoded after it.
func TestArenaKeepsCopies(t *testing.T) {
	for _, a := range []*arena{nil, newArena()} {
		var kept [][]byte
		var strs []string
		var words [][]uint32
		for i := range 5000 {
			want := bytes.Repeat([]byte{byte(i)}, i%700+1)
			b := a.buffer(8)
			b = append(b, want...)
			k := a.keep(b)
			if cap(k) != len(k) {
				t.Fatalf("kept %d bytes with capacity %d", len(k), cap(k))
			}
			kept = append(kept, k)
			strs = append(strs, a.str(fmt.Sprintf("flg_%08d", i)))
			ids := append(a.wordBuffer(), uint32(i), uint32(i+1), uint32(i+2))
			words = append(words, a.keepWords(ids))
			f := a.flag()
			if f.ID != "" || f.Text[0] != "" || f.Contexts != nil {
				t.Fatalf("flag %d not zero", i)
			}
			f.ID = strs[i]
		}
		for i, k := range kept {
			if want := bytes.Repeat([]byte{byte(i)}, i%700+1); !bytes.Equal(k, want) {
				t.Fatalf("arena %v: bytes %d changed", a != nil, i)
			}
			if strs[i] != fmt.Sprintf("flg_%08d", i) {
				t.Fatalf("arena %v: string %d is %q", a != nil, i, strs[i])
			}
			if w := words[i]; len(w) != 3 || cap(w) != 3 || w[0] != uint32(i) || w[2] != uint32(i+2) {
				t.Fatalf("arena %v: words %d are %v (cap %d)", a != nil, i, w, cap(w))
			}
		}
	}
}
