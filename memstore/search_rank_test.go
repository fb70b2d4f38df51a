package memstore

import (
	"fmt"
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
		ids = append(ids, h.Flag.ID)
		ranks = append(ranks, h.Rank)
	}
	return ids, ranks
}

// The rank, not the votes, orders the hits: a whole word ranks above a
// longer word it starts, and the less of a word is left over, the higher.
// The votes run the other way, so a rank that tells nothing apart fails.
func TestSearchRanksWholeWordsAbovePrefixes(t *testing.T) {
	s := searchSnapshot(t,
		[]string{"busdriver waves", "buses late", "the bus"},
		[]int64{300, 200, 100})
	ids, ranks := searchRanks(s, "bus")
	want := []string{"flg_02", "flg_01", "flg_00"} // bus, buses, busdriver
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("bus: hits %v (ranks %v), want %v", ids, ranks, want)
	}
	for i := 1; i < len(ranks); i++ {
		if ranks[i] >= ranks[i-1] {
			t.Errorf("bus: ranks %v, want strictly decreasing", ranks)
		}
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
	if byID["flg_01"] <= byID["flg_00"] {
		t.Errorf("late call: whole words %v, not above a prefix %v", byID["flg_01"], byID["flg_00"])
	}
	if byID["flg_02"] != byID["flg_01"] {
		t.Errorf("late call: %q ranks %v, want %v as %q (the best match of each word)",
			"call calls late", byID["flg_02"], byID["flg_01"], "late call")
	}
	if _, one := searchRanks(s, "late"); len(one) != 3 || one[0] >= byID["flg_01"] {
		t.Errorf("late: ranks %v, want below the two-word rank %v", one, byID["flg_01"])
	}
}
