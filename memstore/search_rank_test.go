package memstore

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// searchSnapshot builds a snapshot of flags whose English text is the
// given text and whose votes are the given totals; the other languages
// hold words no query here matches.
func searchSnapshot(t *testing.T, texts []string, totals []int64) *Snapshot {
	t.Helper()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	flags := make([]FlagInput, len(texts))
	for i, text := range texts {
		in := FlagInput{ID: fmt.Sprintf("flg_%02d", i), Slug: fmt.Sprintf("flag-%d", i), Approved: true,
			Category: Categories[0], CreatedAt: now, UpdatedAt: now, Green: totals[i]}
		for l := range in.Text {
			in.Text[l] = fmt.Sprintf("zz%d", i)
		}
		in.Text[1] = text
		flags[i] = in
	}
	snap, err := Build(nil, Change{Full: true, Flags: flags, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// searchRanks is the ids and ranks Search answers for q, in its order.
func searchRanks(s *Snapshot, q string) (ids []string, ranks []float64) {
	hits, _ := s.Search(q, 50)
	for _, h := range hits {
		ids = append(ids, h.Flag.ID())
		ranks = append(ranks, h.Rank)
	}
	return ids, ranks
}

// The rank, not the votes, orders the hits: a whole word ranks above a
// word it starts, and of two prefix matches, the flag with the larger
// share of its words matched ranks higher. The votes run the other way,
// so a rank that tells nothing apart fails.
func TestSearchRanksWholeWordsAbovePrefixes(t *testing.T) {
	s := searchSnapshot(t,
		[]string{"busdriver waves at us", "buses late", "the bus"},
		[]int64{300, 200, 100})
	ids, ranks := searchRanks(s, "bus")
	want := []string{"flg_02", "flg_01", "flg_00"} // bus, buses (1 of 2 words), busdriver (1 of 4)
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("bus: hits %v (ranks %v), want %v", ids, ranks, want)
	}
	if want := []float64{1331.25, 121.25, 121.125}; fmt.Sprint(ranks) != fmt.Sprint(want) {
		t.Errorf("bus: ranks %v, want %v", ranks, want)
	}
}

// Each query word adds its best match: a flag that matches every word
// whole ranks above one that matches a word only as a prefix, whatever
// their votes; a word matched in two ways counts once, as the better; two
// matched words rank above one.
func TestSearchRankSumsEveryWord(t *testing.T) {
	s := searchSnapshot(t,
		[]string{"late calls", "late call", "call calls late"},
		[]int64{500, 1, 1000})
	ids, ranks := searchRanks(s, "late call")
	if len(ids) != 3 {
		t.Fatalf("late call: hits %v, want all three", ids)
	}
	byID := map[string]float64{}
	for i, id := range ids {
		byID[id] = ranks[i]
	}
	want := map[string]float64{
		"flg_00": 1331 + 121 + 0.5, // late exact, call a prefix of calls
		"flg_01": 2*1331 + 0.5,
		"flg_02": 2*1331 + 2.0/3/2, // both exact, two of its three words
	}
	for id, r := range want {
		if math.Abs(byID[id]-r) > 0.0006 {
			t.Errorf("late call: %s ranks %v, want %v", id, byID[id], r)
		}
	}
	if fmt.Sprint(ids) != "[flg_01 flg_02 flg_00]" {
		t.Errorf("late call: hits %v, want [flg_01 flg_02 flg_00]", ids)
	}
	if _, one := searchRanks(s, "late"); len(one) != 3 || one[0] >= byID["flg_01"] {
		t.Errorf("late: ranks %v, want below the two-word rank %v", one, byID["flg_01"])
	}
}

// Exact before prefix before stem before typo, whatever the votes, and
// the rank is the formula of Rank: one word, the flag's only word, so a
// share of 1.
func TestSearchRankOrdersKinds(t *testing.T) {
	s := searchSnapshot(t,
		[]string{"textimg", "texts", "textings", "texting", "texture"},
		[]int64{500, 400, 300, 200, 100})
	ids, ranks := searchRanks(s, "texting")
	if want := "[flg_03 flg_02 flg_01 flg_00]"; fmt.Sprint(ids) != want {
		t.Fatalf("texting: hits %v (ranks %v), want %v", ids, ranks, want)
	}
	if want := []float64{1331.5, 121.5, 11.5, 1.5}; fmt.Sprint(ranks) != fmt.Sprint(want) {
		t.Errorf("texting: ranks %v, want %v", ranks, want)
	}
}

// Ranks compare the counts of kinds in order: one more exact word beats
// any number of prefix, stem and typo matches, one more prefix beats any
// number of stems and typos, one more stem any number of typos.
func TestSearchRankIsLexicographic(t *testing.T) {
	s := searchSnapshot(t,
		[]string{"latex textimg", "late texts", "late textimg", "latex texting", "late texting", "latex texts"},
		[]int64{600, 500, 400, 300, 200, 100})
	ids, ranks := searchRanks(s, "late texting")
	// (exact, prefix, stem, typo): 04 (2,0,0,0), 03 (1,1,0,0), 01 (1,0,1,0),
	// 02 (1,0,0,1), 05 (0,1,1,0), 00 (0,1,0,1).
	if want := "[flg_04 flg_03 flg_01 flg_02 flg_05 flg_00]"; fmt.Sprint(ids) != want {
		t.Fatalf("late texting: hits %v (ranks %v), want %v", ids, ranks, want)
	}
	for i := 1; i < len(ranks); i++ {
		if ranks[i] >= ranks[i-1] {
			t.Errorf("late texting: ranks %v, want strictly decreasing", ranks)
		}
	}
}
