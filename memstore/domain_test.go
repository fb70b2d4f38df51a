package memstore

import (
	"slices"
	"testing"
)

func TestDominantOf(t *testing.T) {
	tests := []struct {
		red, green int64
		want       Dominant
	}{
		{0, 0, Yellow}, {1, 0, Red}, {0, 1, Green}, {3, 2, Red}, {2, 3, Green}, {599, 401, Yellow},
		{600, 400, Red}, {400, 600, Green}, {401, 599, Yellow}, {1, 1, Yellow}, {6, 4, Red}, {5, 5, Yellow},
	}
	for _, tc := range tests {
		if got := DominantOf(tc.red, tc.green); got != tc.want {
			t.Errorf("DominantOf(%d, %d) = %s, want %s", tc.red, tc.green, got, tc.want)
		}
	}
	// Exhaustively against the rational definition.
	for red := int64(0); red < 60; red++ {
		for green := int64(0); green < 60; green++ {
			total := red + green
			want := Yellow
			if total > 0 && float64(red)/float64(total) >= 0.6-1e-12 {
				want = Red
			} else if total > 0 && float64(green)/float64(total) >= 0.6-1e-12 {
				want = Green
			}
			if got := DominantOf(red, green); got != want {
				t.Fatalf("DominantOf(%d, %d) = %s, want %s", red, green, got, want)
			}
		}
	}
}

func TestControversy(t *testing.T) {
	if Controversy(10, 0) != 1 || Controversy(0, 0) != 1 {
		t.Error("one-sided flags score 1")
	}
	if Controversy(50, 50) != 100 {
		t.Errorf("balanced: %v, want total", Controversy(50, 50))
	}
	if !(Controversy(40, 60) < Controversy(50, 50)) || !(Controversy(400, 600) > Controversy(40, 60)) {
		t.Error("controversy must grow with balance and with total")
	}
}

func TestFold(t *testing.T) {
	tests := map[string]string{
		"Yaşlılara": "yaslilara", "İSTANBUL": "istanbul", "ıIiİ": "iiii", "ŞĞÇÖÜ": "sgcou",
		"Straße": "strasse", "ÄÖÜäöü": "aouaou", "Niño": "nino", "ÁÉÍÓÚáéíóú": "aeiouaeiou",
		"i\u0307stanbul": "istanbul", "ẞ": "ss", "Œuvre": "oeuvre",
	}
	for in, want := range tests {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Words("Ali'nin  kedisi, 3 yaşında!"); !slices.Equal(got, []string{"ali", "nin", "kedisi", "3", "yasinda"}) {
		t.Errorf("Words: %q", got)
	}
}

func TestTriePrefix(t *testing.T) {
	words := [][]string{{"bus", "busy"}, {"bu"}, {"butter", "bus"}, {"ca"}}
	lx := newLexicon()
	ids := make([][]uint32, len(words))
	for i, ws := range words {
		for _, w := range ws {
			ids[i] = append(ids[i], lx.id([]byte(w)))
		}
	}
	tr := buildTrie(len(words), lx.words, func(i int32) []uint32 { return ids[i] })
	tests := map[string][]string{"b": {"bu", "bus", "busy", "butter"}, "bus": {"bus", "busy"}, "bux": nil, "": {"bu", "bus", "busy", "butter", "ca"}}
	for p, want := range tests {
		lo, hi := tr.prefixRange(p)
		if got := vocabWords(tr, lo, hi); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("prefix %q: %v, want %v", p, got, want)
		}
	}
}

// vocabWords returns the words of t's vocabulary in [lo, hi).
func vocabWords(t *trie, lo, hi int32) []string {
	var out []string
	for v := lo; v < hi; v++ {
		out = append(out, t.word(v))
	}
	return out
}
