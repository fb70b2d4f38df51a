package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

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

// testInputs is testInput's first n flags.
func testInputs(n int, now time.Time) []memstore.FlagInput {
	ins := make([]memstore.FlagInput, n)
	for i := range ins {
		ins[i] = testInput(i, now)
	}
	return ins
}

// fullSnapshot is the snapshot of a full load of ins at now.
func fullSnapshot(t testing.TB, ins []memstore.FlagInput, now time.Time) *memstore.Snapshot {
	t.Helper()
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testInput is flag i of the tests' data set, as loaded at now.
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

func TestFlagObjectsMatchEncodingJSON(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 123e6, time.UTC)
	var ins []memstore.FlagInput
	for i := range 6 {
		ins = append(ins, testInput(i, now))
	}
	odd := testInput(6, now) // an id and a slug that JSON escapes
	odd.ID, odd.Slug = "flg_\"6\"\u2028", "flag-6\t<b>"
	ins = append(ins, odd)
	s := fullSnapshot(t, ins, now)
	for i := range s.Len() {
		f := s.At(i)
		got := appendDetail(nil, f)
		w := wireFlag{ID: f.ID(), Slug: f.Slug(), Category: f.Category.Enum(), Dominant: f.Dominant.String(),
			CreatedAt: f.CreatedAt().Format(TimeFormat), Contexts: f.Contexts()}
		if r := f.Region(); r != "" {
			w.Region = &r
		}
		w.Text.TR, w.Text.EN, w.Text.DE, w.Text.ES = f.Text(0), f.Text(1), f.Text(2), f.Text(3)
		descs := [memstore.NumLangs]*string{}
		for l := range memstore.NumLangs {
			if d, ok := f.Description(l); ok {
				descs[l] = &d
			}
		}
		w.Desc.TR, w.Desc.EN, w.Desc.DE, w.Desc.ES = descs[0], descs[1], descs[2], descs[3]
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
		if size := flagSize(f) + 256; len(got) > size {
			t.Errorf("flag %d: %d bytes, %d expected at most", i, len(got), size)
		}
		for _, part := range [][]byte{appendItem(nil, f), append(appendHead(nil, f), `,"rank":1}`...)} {
			if !json.Valid(part) {
				t.Errorf("flag %d: a part is no JSON object: %s", i, part)
			}
		}
		if item := appendItem(nil, f); !bytes.HasSuffix(item, []byte(`"createdAt":"`+w.CreatedAt+`"}`)) || !bytes.HasPrefix(got, item[:len(item)-1]) {
			t.Errorf("flag %d: list item %s", i, item)
		}
	}
}

// Vote ticks in which a few flags are voted again and again and one other
// flag once, each new flag rendered: what a tick supersedes must become
// garbage even though a flag built beside it lives on. Encodings carved
// from shared chunks failed this once: every chunk stayed whole while one
// flag it held was still served.
func TestTicksHoldOnlyLiveFlags(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	const n, popular, ticks = 3000, 40, 1500
	ins := testInputs(n, now)
	s := fullSnapshot(t, ins, now)
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
		next, err := memstore.Build(s, memstore.Change{Flags: changed, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		for f := range next.Fresh() {
			if !json.Valid(renderDetail(f)) {
				t.Fatalf("flag %s: no JSON", f.ID())
			}
		}
		s = next
	}
	for k := range 100 { // the first ticks' garbage settles
		tick(k)
	}
	start := heap()
	for k := 100; k < ticks; k++ {
		tick(k)
	}
	grown := int64(heap()) - int64(start)
	// 1,400 ticks build 57,400 flags, about 20 MB; 1,400 of them stay
	// live, under 1 MB.
	if grown > 4<<20 {
		t.Errorf("the heap grew %d KB over %d ticks: superseded flags are kept", grown>>10, ticks-100)
	}
	t.Logf("heap grew %d KB over %d ticks", grown>>10, ticks-100)
}

// A string goes into a flag's JSON copied exactly when escaping would
// leave it as it is, as the flag's build found.
func TestVerbatimAsAppendString(t *testing.T) {
	strs := []string{"plain", "Yaşlılara ß ñ 😀", "quote\"", "back\\slash", "ctl\x01", "tab\t", "\u2028", "x\u2029",
		"bad \xff utf8", "cut \xc3", "\x7f del", "<html>&", ""}
	for _, s := range strs {
		want := string(appendString(nil, s)) == `"`+s+`"`
		if got := memstore.JSONVerbatim(s); got != want {
			t.Errorf("JSONVerbatim(%q) = %v, want %v", s, got, want)
		}
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var ins []memstore.FlagInput
	for i, str := range strs {
		in := testInput(i, now)
		in.ID, in.Text[i%int(memstore.NumLangs)] = fmt.Sprintf("flg_%d%s", i, str), str+" text"
		ins = append(ins, in)
	}
	s := fullSnapshot(t, ins, now)
	check := func(s *memstore.Snapshot) {
		t.Helper()
		for f := range s.Flags() {
			for k, str := range f.Cuts() {
				if want := memstore.JSONVerbatim(str); f.Verbatim(k) != want {
					t.Errorf("flag %q: string %d (%q) verbatim %v, want %v", f.ID(), k, str, f.Verbatim(k), want)
				}
			}
		}
	}
	check(s)
	// A tick that rewrites each flag's texts and slug with another's: the
	// bits follow, where a flag whose strings are the same keeps its own.
	for i := range ins {
		j := (i + 1) % len(ins)
		ins[i].Text, ins[i].Slug = ins[j].Text, ins[j].Slug+"-"+strconv.Itoa(i)
		ins[i].Red++
	}
	next, err := memstore.Build(s, memstore.Change{Flags: ins[:len(ins)-1], LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	check(next)
}

// appendTime writes a time of any location and any nanoseconds as
// time.Time.AppendFormat writes it in UTC, quoted.
func TestAppendTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	zones := []*time.Location{time.UTC, time.FixedZone("x", 3*3600+1800), time.FixedZone("y", -11*3600)}
	for range 20_000 {
		tm := time.Unix(rng.Int64N(maxTimeMS/1000+1e9)-1e9, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
		want := `"` + tm.UTC().Format(TimeFormat) + `"`
		if got := string(appendTime(nil, tm)); got != want {
			t.Fatalf("appendTime(%v) = %s, want %s", tm, got, want)
		}
	}
}

// appendTimeMS writes what time.Time.AppendFormat writes, across the
// calendar: leap days, centuries, the edges of its range and past them.
func TestAppendTimeMS(t *testing.T) {
	at := func(y int, m time.Month, d, h, mi, s, ms int) int64 {
		return time.Date(y, m, d, h, mi, s, ms*1e6, time.UTC).UnixMilli()
	}
	cases := []int64{0, 1, 999, 86_399_999, 86_400_000, maxTimeMS - 1, maxTimeMS, maxTimeMS + 1, -1, -86_400_001,
		at(2000, 2, 29, 23, 59, 59, 999), at(2100, 2, 28, 12, 0, 0, 5), at(2100, 3, 1, 0, 0, 0, 0), at(1972, 12, 31, 23, 59, 59, 999),
		at(2026, 11, 22, 12, 0, 0, 123), at(2024, 12, 31, 0, 0, 0, 0), at(2025, 1, 1, 0, 0, 0, 0), at(2400, 2, 29, 1, 2, 3, 4)}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		cases = append(cases, rng.Int64N(maxTimeMS+1e12)-1e12)
	}
	for _, ms := range cases {
		want := time.UnixMilli(ms).UTC().Format(TimeFormat)
		if got := string(appendTimeMS([]byte("x"), ms)); got != "x"+want {
			t.Fatalf("appendTimeMS(%d) = %s, want x%s", ms, got, want)
		}
	}
}

// A payload's header values, backed by one array in the payload, are its
// body's ETag, length and gzip ETag, and each slice is capped at its own
// value: a handler appending to one (h.Add) gets a copy, never writes the
// next.
func TestPayloadValues(t *testing.T) {
	for _, n := range []int{0, 9, 99, minGzip - 1, minGzip, 5000} {
		body := bytes.Repeat([]byte{'x'}, n)
		p := newResponse(body)
		tag := etag(body)
		if len(p.etag) != 1 || p.etag[0] != tag || len(p.length) != 1 || p.length[0] != strconv.Itoa(n) {
			t.Fatalf("%d bytes: etag %q, length %q; want [%s] [%d]", n, p.etag, p.length, tag, n)
		}
		if n >= minGzip != (p.gzETag != nil) || (p.gzETag != nil && (len(p.gzETag) != 1 || p.gzETag[0] != gzETag(tag))) {
			t.Fatalf("%d bytes: gzip ETag %q", n, p.gzETag)
		}
		for _, v := range [][]string{p.etag, p.length, p.gzETag} {
			if cap(v) > 1 {
				t.Fatalf("%d bytes: a header value's slice has room for %d", n, cap(v))
			}
			_ = append(v, "more")
		}
		if p.etag[0] != tag || p.length[0] != strconv.Itoa(n) {
			t.Fatalf("%d bytes: an append to one value changed another", n)
		}
	}
}
