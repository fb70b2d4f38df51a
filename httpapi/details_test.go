package httpapi

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// TestDetailsTable: the details' table answers a flag with the response
// made from that very flag, keeps four flags a set and drops the oldest
// for a fifth, misses a flag a load replaced and answers its new votes,
// leaves a body too long for it to the response cache, spreads slots
// over its sets, and holds no more entries than its bytes allow.
func TestDetailsTable(t *testing.T) {
	now := time.Now().UTC()
	ins := make([]memstore.FlagInput, setWays+2)
	for i := range ins {
		ins[i] = testInput(i, now)
	}
	longFlag := len(ins) - 1
	long := strings.Repeat("long description ", 200) // a body over maxDetailBody
	ins[longFlag].Description[memstore.EN] = &long
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	c := testCache(t)
	d := newDetails(setWays * detailEntryCost) // one set: every flag competes
	if len(d.ways) != setWays {
		t.Fatalf("a table of one set's bytes has %d entries", len(d.ways))
	}
	flag := func(s *memstore.Snapshot, i int) (*memstore.Flag, int) {
		t.Helper()
		f, slot, ok := s.FlagBySlug(ins[i].Slug)
		if !ok {
			t.Fatalf("flag %d not found", i)
		}
		return f, slot
	}
	get := func(s *memstore.Snapshot, i int) *response {
		t.Helper()
		f, slot := flag(s, i)
		r := d.get(f, slot, c)
		if want := renderDetail(f); !bytes.Equal(r.body, want) {
			t.Fatalf("flag %d: body %s, want %s", i, r.body, want)
		}
		return r
	}
	hits := func() uint64 { n, _ := d.lookups(); return n }

	first := make([]*response, setWays)
	for i := range first {
		first[i] = get(s, i)
	}
	if hits() != 0 {
		t.Errorf("%d hits before any flag was asked twice", hits())
	}
	for i := range first {
		if get(s, i) != first[i] {
			t.Errorf("flag %d of a full set: a new response", i)
		}
	}
	if hits() != setWays {
		t.Errorf("%d hits, want %d", hits(), setWays)
	}
	get(s, setWays) // one more: the oldest goes
	if get(s, 0) == first[0] {
		t.Error("a flag over the set's ways left the oldest entry in place")
	}
	// Flag 0 came back in place of the oldest, 1; 2 and 3 are as they were.
	for i := range first {
		if _, ok := d.find(s, ins[i].Slug); ok != (i != 1) {
			t.Errorf("after two flags over the set's ways, flag %d in the table: %v", i, ok)
		}
	}

	// A load that changes flag 1 makes a new flag: its entry no longer
	// answers, and the votes answered are the new ones.
	ins[1].Red += 100
	next, err := memstore.Build(s, memstore.Change{Flags: []memstore.FlagInput{ins[1]}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if r := get(next, 1); r == first[1] || !bytes.Contains(r.body, []byte(`"red":`+strconv.FormatInt(ins[1].Red, 10)+`,`)) {
		t.Errorf("after a vote: %s, want a new response with red %d", r.body, ins[1].Red)
	}
	// The set holds 1 (new), 0, 4, 3. A vote on 4: its new version takes
	// the old one's way, not the oldest's, and the set's other flags, the
	// same in the new snapshot, are still answered from it.
	ins[setWays].Green += 5
	next, err = memstore.Build(next, memstore.Change{Flags: []memstore.FlagInput{ins[setWays]}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	get(next, setWays)
	before := hits()
	for _, i := range []int{0, 1, 3} {
		get(next, i)
	}
	if got := hits() - before; got != 3 {
		t.Errorf("after a flag's new version: %d of the 3 other flags of its set answered by the table", got)
	}
	// A request still on the snapshot before asks for 4's old version: it
	// takes the oldest's way, not the newer version's.
	get(s, setWays)
	before = hits()
	get(next, setWays)
	if hits() != before+1 {
		t.Error("a flag's old version, asked for on the snapshot before, pushed out its new one")
	}

	// A body over the table's bound goes to the response cache.
	before = hits()
	rl := get(s, longFlag)
	if len(rl.body) <= maxDetailBody {
		t.Fatalf("the long flag's body is %d bytes, not over %d", len(rl.body), maxDetailBody)
	}
	for i := range d.ways {
		if e := d.ways[i].Load(); e != nil && e.r == rl {
			t.Error("the table kept a body over its bound")
		}
	}
	c.rc.Wait() // ristretto admits a Set asynchronously
	if get(s, longFlag) != rl || hits() != before {
		t.Error("the long body was not answered from the response cache")
	}

	// Consecutive slots spread over the sets: none holds far more than
	// its share.
	big := newDetails(1000 * setWays * detailEntryCost)
	per := map[*atomic.Pointer[detailEntry]]int{}
	for slot := range 4000 {
		ways, _ := big.set(slot, stamp{})
		per[&ways[0]]++
	}
	for _, n := range per {
		if n > 12 {
			t.Errorf("4,000 slots over 1,000 sets: one set has %d (%d sets used)", n, len(per))
			break
		}
	}

	// The bound: as many sets as fit in the bytes, at least one.
	for _, maxBytes := range []int64{1, detailEntryCost, 5 * detailEntryCost, 64 << 20, 64<<20 + 1, 1 << 30} {
		n := int64(len(newDetails(maxBytes).ways))
		if n < setWays || n%setWays != 0 || (maxBytes >= setWays*detailEntryCost && n*detailEntryCost > maxBytes) ||
			(n+setWays)*detailEntryCost <= maxBytes {
			t.Errorf("newDetails(%d) has %d entries of %d bytes", maxBytes, n, detailEntryCost)
		}
	}
	if newDetails(0) != nil {
		t.Error("a table of no bytes was made")
	}
	var none *details // no table: the response cache answers
	f, slot := flag(s, 2)
	if r := none.get(f, slot, c); !bytes.Equal(r.body, renderDetail(f)) {
		t.Errorf("without a table: %s", r.body)
	}
}

// find reports whether the table holds the response of s's flag slug.
func (d *details) find(s *memstore.Snapshot, slug string) (*response, bool) {
	f, _, _ := s.FlagBySlug(slug)
	for i := range d.ways {
		if e := d.ways[i].Load(); e != nil && e.stamp == (stamp{f.Version()}) {
			return e.r, true
		}
	}
	return nil, false
}

// TestDetailsCutOff: a body of maxDetailBody bytes is kept in the table,
// one a byte longer is not.
func TestDetailsCutOff(t *testing.T) {
	now := time.Now().UTC()
	c := testCache(t)
	for _, want := range []int{maxDetailBody, maxDetailBody + 1} {
		in := testInput(1, now)
		desc := ""
		in.Description[memstore.EN] = &desc
		s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: []memstore.FlagInput{in}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		f, _, _ := s.FlagBySlug(in.Slug)
		desc = strings.Repeat("x", want-len(renderDetail(f))) // plain letters: as long in JSON
		if s, err = memstore.Build(nil, memstore.Change{Full: true, Flags: []memstore.FlagInput{in}, LoadedAt: now}); err != nil {
			t.Fatal(err)
		}
		f, slot, _ := s.FlagBySlug(in.Slug)
		d := newDetails(setWays * detailEntryCost)
		if r := d.get(f, slot, c); len(r.body) != want {
			t.Fatalf("a body of %d bytes, want %d", len(r.body), want)
		}
		if _, ok := d.find(s, in.Slug); ok != (want <= maxDetailBody) {
			t.Errorf("a body of %d bytes (the bound %d) in the table: %v", want, maxDetailBody, ok)
		}
	}
}

// TestDetailsConcurrent: requests for flags that loads keep replacing, all
// at once, each get the body of the very flag they asked for (run it with
// -race).
func TestDetailsConcurrent(t *testing.T) {
	now := time.Now().UTC()
	c := testCache(t)
	ins := make([]memstore.FlagInput, 24)
	for i := range ins {
		ins[i] = testInput(i, now)
	}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	var st memstore.Store
	st.SetSnapshot(s)
	d := newDetails(2 * setWays * detailEntryCost) // two sets: every insert competes
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				s := st.Snapshot()
				f, slot, _ := s.FlagBySlug(ins[(n*7+w)%len(ins)].Slug)
				if r := d.get(f, slot, c); !bytes.Equal(r.body, renderDetail(f)) {
					select {
					case errs <- string(r.body):
					default:
					}
					return
				}
			}
		})
	}
	for k := range 200 {
		x := ins[k%len(ins)]
		x.Red += int64(k)
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{x}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(next)
		time.Sleep(100 * time.Microsecond)
	}
	close(stop)
	wg.Wait()
	close(errs)
	if sum := heldBy(d); sum != d.held.Load() {
		t.Errorf("the entries hold %d bytes, the table counts %d", sum, d.held.Load())
	}
	for body := range errs {
		t.Errorf("a request got another flag's body: %s", body)
	}
}

// testCache is a response cache of 1 MB, closed when the test ends.
func testCache(t *testing.T) *cache {
	t.Helper()
	c, err := newCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

// heldBy is what d's entries hold, each counted once.
func heldBy(d *details) int64 {
	var sum int64
	seen := map[*detailEntry]bool{}
	for i := range d.ways {
		if e := d.ways[i].Load(); e != nil && !seen[e] {
			seen[e] = true
			sum += e.cost
		}
	}
	return sum
}

// TestTableBytes: a table counts what its entries hold, body by body, and
// keeps no entry past its bytes: a new entry pushes out the set's oldest
// until it fits, whatever their sizes (so entries no longer asked for
// leave), and a body that does not fit alone goes to the response cache.
func TestTableBytes(t *testing.T) {
	c := testCache(t)
	body := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	d := newTrends(1) // one set of four ways
	c4 := entryCost(4 << 10)
	d.budget = 3 * c4
	if len(d.ways) != setWays {
		t.Fatalf("%d ways, want one set", len(d.ways))
	}
	// A flag's version is unique in the process: slot s's are 100s+v.
	ask := func(slot int, version uint64, n int) *response {
		return d.answer(slot, stamp{100*uint64(slot) + version}, c, func() string { return fmt.Sprintf("t%d-%d", slot, version) },
			func() []byte { return body(n, byte('a'+slot)) })
	}
	kept := func() (slots []int) {
		for i := range d.ways {
			if e := d.ways[i].Load(); e != nil {
				slots = append(slots, e.slot)
			}
		}
		return slots
	}
	check := func(when string, want ...int) {
		t.Helper()
		if got := kept(); !slices.Equal(got, want) || heldBy(d) != d.held.Load() || d.held.Load() > d.budget {
			t.Errorf("%s: slots %v held %d counted %d (budget %d), want slots %v", when, got, heldBy(d), d.held.Load(), d.budget, want)
		}
	}
	for slot := range 3 {
		ask(slot, 1, 4<<10)
	}
	check("three 4 KB bodies", 2, 1, 0)
	if r := ask(3, 1, 4<<10); !bytes.Equal(r.body, body(4<<10, 'd')) {
		t.Fatal("the fourth body: wrong answer")
	}
	check("a fourth: the oldest goes", 3, 2, 1)
	ask(4, 1, 8<<10) // twice as long: two go
	check("an 8 KB body", 4, 3)
	ask(3, 2, 100) // a new version of slot 3, short: it takes its old one's way
	check("a new version", 3, 4)
	if want := entryCost(8<<10) + entryCost(100); d.held.Load() != want {
		t.Errorf("%d bytes counted, want %d", d.held.Load(), want)
	}
	before := d.hits.Load()
	ask(3, 2, 100)
	ask(4, 1, 8<<10)
	if d.hits.Load() != before+2 {
		t.Errorf("%d of 2 kept answers from the table", d.hits.Load()-before)
	}
	d.budget = entryCost(8<<10) + entryCost(100) + c4 - 1 // a 4 KB body fits only without the 8 KB one
	ask(5, 1, 4<<10)
	check("a 4 KB body in a full table", 5, 3)
	if r := ask(6, 1, maxTrendBody+1); len(r.body) != maxTrendBody+1 {
		t.Error("a body past maxBody: wrong answer")
	}
	d.budget = c4 - 1 // no 4 KB body fits even alone
	ask(7, 1, 4<<10)
	c.rc.Wait() // ristretto admits a Set asynchronously
	if _, ok := c.lookFrom("t7-1", source{701}); !ok {
		t.Error("a body that does not fit alone is not in the response cache")
	}
	if _, ok := c.lookFrom("t6-1", source{601}); !ok {
		t.Error("a body past maxBody is not in the response cache")
	}
	d.budget = 3 * c4
	check("after the bodies that did not fit: the set as it was", 5, 3)
}

// TestTableBytesConcurrent: inserts racing in several sets keep the count
// exact and the bytes within the bound.
func TestTableBytesConcurrent(t *testing.T) {
	c := testCache(t)
	d := newTrends(8 * entryCost(1<<10) * setWays) // eight sets
	d.budget = 6 * entryCost(4<<10)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for n := range 3000 {
				slot := (n*7 + w*13) % 40
				size := 100 + (n*w+slot)%(6<<10)
				v := uint64(slot)*1000 + uint64(n%5)
				r := d.answer(slot, stamp{v}, c, func() string { return fmt.Sprintf("c%d-%d", slot, v) },
					func() []byte { return bytes.Repeat([]byte{'x'}, size) })
				if len(r.body) < 100 {
					t.Errorf("a body of %d bytes", len(r.body))
					return
				}
				if h := d.held.Load(); h > d.budget {
					t.Errorf("%d bytes held over a bound of %d", h, d.budget)
					return
				}
			}
		})
	}
	wg.Wait()
	if heldBy(d) != d.held.Load() {
		t.Errorf("the entries hold %d bytes, the table counts %d", heldBy(d), d.held.Load())
	}
}

// TestTrendHistorySupersedes: a trend of a newer history takes the way of
// the flag's trend of the older one, not the oldest neighbour's.
func TestTrendHistorySupersedes(t *testing.T) {
	c := testCache(t)
	d := newTrends(1) // one set of four ways
	ask := func(slot int, history uint64) {
		d.answer(slot, trendStamp(uint64(100+slot), history, 7, 20000), c,
			func() string { return fmt.Sprintf("h%d-%d", slot, history) }, func() []byte { return []byte("{}") })
	}
	for _, slot := range []int{1, 0, 2, 3} { // slot 1 the oldest, slot 0 in the middle
		ask(slot, 1)
	}
	ask(0, 2)
	var got []stamp
	for i := range d.ways {
		if e := d.ways[i].Load(); e != nil {
			got = append(got, e.stamp)
		}
	}
	want := []stamp{trendStamp(100, 2, 7, 20000), trendStamp(103, 1, 7, 20000), trendStamp(102, 1, 7, 20000), trendStamp(101, 1, 7, 20000)}
	if !slices.Equal(got, want) {
		t.Errorf("after a new history: %v, want %v", got, want)
	}
	if st := trendStamp(1, 2, 90, 20000); st.days() != 90 || (stamp{5}).days() != 0 {
		t.Errorf("days: %d", st.days())
	}
}
