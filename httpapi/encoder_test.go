package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/flagpole/flagpole/memstore"
)

func TestAppendString(t *testing.T) {
	for _, s := range []string{"plain", "quote\" back\\ slash", "ctl\x00\x01\x1f\n\r\t\b\f", "<html>&", "\u2028\u2029",
		"bad \xff utf8", "Yaşlılara ß ñ 😀", "\x80 lone continuation", "cut \xc3", "\x7f del"} {
		enc := appendString(nil, s)
		// The bytes encoding/json writes with HTML escaping off.
		var std bytes.Buffer
		je := json.NewEncoder(&std)
		je.SetEscapeHTML(false)
		if err := je.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimSuffix(std.Bytes(), []byte("\n")); !bytes.Equal(enc, want) {
			t.Errorf("%q encodes as %s, encoding/json as %s", s, enc, want)
		}
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = string([]rune(s)) // invalid bytes become U+FFFD, as encoding/json does
		}
		if got != want {
			t.Errorf("round trip %q -> %q", s, got)
		}
	}
}

func testInput(i int, now time.Time) memstore.FlagInput {
	desc := fmt.Sprintf("why <%d> \"quoted\"\n", i)
	in := memstore.FlagInput{ID: fmt.Sprintf("flg_%03d", i), Slug: fmt.Sprintf("flag-%d", i), Approved: true,
		Category: memstore.Categories[i%memstore.NumCategories], Text: [memstore.NumLangs]string{"Yaşlı", "late & <b>", "größe", "niño"},
		Contexts: []string{"WORK", "FRIEND"}[:i%3%2+1], CreatedAt: now.Add(-time.Duration(i) * time.Hour), UpdatedAt: now,
		Red: int64(i * 3 % 7), Green: int64(i % 5)}
	if i%3 == 0 { // texts that JSON escapes: the encoding holds them escaped
		in.Text[memstore.TR] += " \u2028"
		in.Text[memstore.ES] = "\"" + in.Text[memstore.ES] + "\"\n"
	}
	if i%2 == 0 {
		in.Region = "TR"
		in.Description[memstore.DE] = &desc
	}
	return in
}

// wireFlag is the contract's Flag, its keys in the contract's order, for
// encoding/json to encode.
type wireFlag struct {
	ID        string  `json:"id"`
	Slug      string  `json:"slug"`
	Category  string  `json:"category"`
	Region    *string `json:"region"`
	Text      struct{ TR, EN, DE, ES string }
	Votes     struct{ Red, Green, Total, Net int64 }
	Dominant  string   `json:"dominant"`
	CreatedAt string   `json:"createdAt"`
	Contexts  []string `json:"contexts"`
	Desc      struct{ TR, EN, DE, ES *string }
}

// The hand-written encoder writes what encoding/json writes (without HTML
// escaping), keys in the contract's order.
func TestEncodeFlagMatchesEncodingJSON(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 123e6, time.UTC)
	var ins []memstore.FlagInput
	for i := range 6 {
		ins = append(ins, testInput(i, now))
	}
	odd := testInput(6, now) // an id and a slug that JSON escapes
	odd.ID, odd.Slug = "flg_\"6\"\u2028", "flag-6\t<b>"
	ins = append(ins, odd)
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Len() {
		f := s.At(i)
		_, e := encodeFlag(nil, f)
		got := appendDetail(nil, f, &e)
		w := wireFlag{ID: f.ID, Slug: f.Slug, Category: f.Category.Enum(), Dominant: f.Dominant.String(),
			CreatedAt: f.CreatedAt().Format(TimeFormat), Contexts: f.Contexts}
		if f.Region != "" {
			w.Region = &f.Region
		}
		w.Text.TR, w.Text.EN, w.Text.DE, w.Text.ES = f.Text[0], f.Text[1], f.Text[2], f.Text[3]
		w.Desc.TR, w.Desc.EN, w.Desc.DE, w.Desc.ES = f.Description[0], f.Description[1], f.Description[2], f.Description[3]
		w.Votes.Red, w.Votes.Green, w.Votes.Total, w.Votes.Net = f.Red, f.Green, f.Total(), f.Net()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(w); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		for _, k := range [][2]string{{"Text", "text"}, {"Votes", "votes"}, {"Desc", "description"}, {"TR", "tr"}, {"EN", "en"},
			{"DE", "de"}, {"ES", "es"}, {"Red", "red"}, {"Green", "green"}, {"Total", "total"}, {"Net", "net"}} {
			want = bytes.ReplaceAll(want, []byte(`"`+k[0]+`":`), []byte(`"`+k[1]+`":`))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("flag %d:\n got %s\nwant %s", i, got, want)
		}
		for _, part := range [][]byte{appendItem(nil, f, &e), append(appendSpliced(nil, f, &e, e.SearchCut), `,"rank":1}`...)} {
			if !json.Valid(part) {
				t.Errorf("flag %d: a cut is no JSON object: %s", i, part)
			}
		}
		if item := appendItem(nil, f, &e); !bytes.HasSuffix(item, []byte(`"createdAt":"`+w.CreatedAt+`"}`)) {
			t.Errorf("flag %d: list item %s", i, item)
		}
	}
}

// A swap encodes the flags its snapshot brings, before any request reads
// them, and shares the encodings of the flags it shares with the snapshot
// before; the snapshot before keeps its own.
func TestSwapEncodesOnlyFreshFlags(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ins, st, s1 := watchedStore(t, 40, now)
	before := map[*memstore.Flag]*memstore.Encoding{}
	for i := range s1.Len() {
		before[s1.At(i)] = s1.At(i).Encoding()
	}

	voted, removed, added := ins[7], ins[20], testInput(99, now)
	voted.Red += 10
	removed.Approved = false
	s2, err := memstore.Build(s1, memstore.Change{Flags: []memstore.FlagInput{voted, removed, added}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s2) // encodes s2's fresh flags before the swap
	shared := 0
	for f := range s2.Flags() {
		got := f.Encoding()
		if got == nil {
			t.Fatalf("flag %s was swapped in without its encoding", f.ID)
		}
		if want := detailOf(f); !bytes.Equal(appendDetail(nil, f, got), want) {
			t.Fatalf("flag %s: encoded %s, want %s", f.ID, appendDetail(nil, f, got), want)
		}
		old, inS1 := before[f]
		if inS1 != (got == old) {
			t.Errorf("flag %s: encoding shared %v, flag shared %v", f.ID, got == old, inS1)
		}
		if inS1 {
			shared++
		}
	}
	if shared != 38 || s2.Len() != 40 {
		t.Errorf("%d of %d encodings shared, want 38 of 40", shared, s2.Len())
	}
	for f, e := range before {
		if f.Encoding() != e {
			t.Fatalf("flag %s of the snapshot before lost its encoding", f.ID)
		}
	}
	// A snapshot no swap prepared gets its flags encoded on first use.
	s3, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins[:3], LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	f := s3.At(0)
	if f.Encoding() != nil {
		t.Fatal("a snapshot the store never held was encoded")
	}
	if want := detailOf(f); !bytes.Equal(appendDetail(nil, f, encodingOf(f)), want) || f.Encoding() != encodingOf(f) {
		t.Fatal("a flag encoded on first use is not its encoding, or is encoded again")
	}
}

// TestEncodingsHeldByLiveFlagsOnly runs many vote ticks in which a few
// flags are voted again and again and one other flag once: the encodings
// a tick supersedes must become garbage even though a flag encoded beside
// them lives on. Encodings carved from shared chunks failed this: every
// chunk stayed whole while one flag it held was still served.
func TestEncodingsHeldByLiveFlagsOnly(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	const n, popular, ticks = 3000, 40, 1500
	ins, st, _ := watchedStore(t, n, now)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	tick := func(k int) {
		changed := make([]memstore.FlagInput, 0, popular+1)
		for p := range popular {
			ins[p].Green++
			changed = append(changed, ins[p])
		}
		once := &ins[popular+k%(n-popular)]
		once.Red++
		changed = append(changed, *once)
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: changed, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(next)
	}
	for k := range 100 { // the first ticks' garbage settles
		tick(k)
	}
	start := heap()
	for k := 100; k < ticks; k++ {
		tick(k)
	}
	grown := int64(heap()) - int64(start)
	// 1,400 ticks encode 57,400 flags, about 20 MB; 1,400 of them stay
	// live, under 1 MB.
	if grown > 4<<20 {
		t.Errorf("the heap grew %d KB over %d ticks: superseded encodings are kept", grown>>10, ticks-100)
	}
	t.Logf("heap grew %d KB over %d ticks", grown>>10, ticks-100)
}

// detailOf is f's detail object, encoded afresh.
func detailOf(f *memstore.Flag) []byte {
	_, e := encodeFlag(nil, f)
	return appendDetail(nil, f, &e)
}

// An encoding holds no copy of the id, slug and texts that JSON leaves as
// they are: the flag's own strings are put back where they go. Of a flag
// with texts that escaping changes, it holds only those, escaped.
func TestEncodingHoldsTextsOnce(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ins := []memstore.FlagInput{testInput(1, now), testInput(3, now)}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	clean, escaped := s.At(0), s.At(1)
	if clean.ID != "flg_001" {
		t.Fatalf("flags out of order: %s", clean.ID)
	}
	for _, f := range []*memstore.Flag{clean, escaped} {
		_, e := encodeFlag(nil, f)
		for k, str := range f.Cuts() {
			if bytes.Contains(e.JSON, []byte(strings.TrimSpace(str))) {
				t.Errorf("flag %s: the encoding holds string %d: %s", f.ID, k, e.JSON)
			}
		}
		if f == clean {
			if e.Escaped != nil {
				t.Errorf("flag %s: texts no escaping changes were copied: %q", f.ID, *e.Escaped)
			}
			continue
		}
		if e.Escaped == nil {
			t.Fatalf("flag %s: texts that escaping changes were not kept escaped", f.ID)
		}
		for k, str := range f.Cuts() {
			shared := unsafe.StringData(e.Escaped[k]) == unsafe.StringData(str)
			if want := k != 2+int(memstore.TR) && k != 2+int(memstore.ES); shared != want {
				t.Errorf("flag %s: string %d shared %v, want %v (%q)", f.ID, k, shared, want, e.Escaped[k])
			}
		}
		if got := string(appendDetail(nil, f, &e)); !strings.Contains(got, `"es":"\"niño\"\n"`) {
			t.Errorf("flag %s: detail %s", f.ID, got)
		}
	}
}

// watchedStore makes n test flags, a store holding a snapshot of them and
// an encoder watching it, closed when the test ends.
func watchedStore(t *testing.T, n int, now time.Time) ([]memstore.FlagInput, *memstore.Store, *memstore.Snapshot) {
	t.Helper()
	ins := make([]memstore.FlagInput, n)
	for i := range ins {
		ins[i] = testInput(i, now)
	}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st := &memstore.Store{}
	st.SetSnapshot(s)
	enc := watch(st)
	t.Cleanup(enc.close)
	return ins, st, s
}
