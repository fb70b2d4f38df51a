package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// TestDetailsTable: the details' table answers a flag with the response
// made from that very flag, keeps four flags a set and drops the oldest
// for a fifth; a swap takes out the entries of the flags it changes and
// only those (a vote, a new slug, a removal), so the new votes are
// answered and an old slug or a removed flag is not found; a request
// still on the snapshot before gets that snapshot's answer without
// displacing the new one; a body too long for the table goes to the
// response cache; slots spread over the sets, and the table holds no more
// entries than its bytes allow.
func TestDetailsTable(t *testing.T) {
	now := time.Now().UTC()
	ins := testInputs(setWays+2, now)
	longFlag := len(ins) - 1
	long := strings.Repeat("long description ", 200) // a body over maxDetailBody
	ins[longFlag].Description[memstore.EN] = &long
	s := fullSnapshot(t, ins, now)
	c := testCache(t)
	d := newDetails(setWays * detailEntryCost) // one set: every flag competes
	if len(d.ways) != setWays {
		t.Fatalf("a table of one set's bytes has %d entries", len(d.ways))
	}
	d.gate.swap(s)
	getSlug := func(s *memstore.Snapshot, slug string) *response {
		t.Helper()
		f, _, ok := s.FlagBySlug(slug)
		if !ok {
			t.Fatalf("%s not found", slug)
		}
		r, ok := d.detail(s, slug, c)
		if !ok {
			t.Fatalf("%s: the table says not found", slug)
		}
		if want := renderDetail(f); !bytes.Equal(r.body, want) {
			t.Fatalf("%s: body %s, want %s", slug, r.body, want)
		}
		return r
	}
	get := func(s *memstore.Snapshot, i int) *response { t.Helper(); return getSlug(s, ins[i].Slug) }
	hits := func() uint64 { n, _ := d.lookups(); return n }
	swap := func(prev *memstore.Snapshot, changed ...memstore.FlagInput) *memstore.Snapshot {
		t.Helper()
		next, err := memstore.Build(prev, memstore.Change{Flags: changed, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		d.gate.swap(next)
		return next
	}
	holding := func(want ...int) {
		t.Helper()
		for i := range ins {
			if got := d.holds(ins[i].Slug); got != slices.Contains(want, i) {
				t.Errorf("flag %d in the table: %v, want the flags %v", i, got, want)
			}
		}
	}

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
	holding(0, 2, 3, setWays)

	// A load that changes flag 2: its entry goes at the swap, the others
	// stay and still answer, and the votes answered are the new ones.
	ins[2].Red += 100
	next := swap(s, ins[2])
	holding(0, 3, setWays)
	before := hits()
	for _, i := range []int{0, 3, setWays} {
		get(next, i)
	}
	if got := hits() - before; got != 3 {
		t.Errorf("after a swap that changed another flag: %d of 3 flags answered by the table", got)
	}
	if r := get(next, 2); !bytes.Contains(r.body, []byte(`"red":`+strconv.FormatInt(ins[2].Red, 10)+`,`)) {
		t.Errorf("after a vote: %s, want red %d", r.body, ins[2].Red)
	}
	// A request still on the snapshot before asks for flag 2: it gets the
	// old votes, and the table keeps the new ones (an answer of the
	// snapshot before is not kept once the next has passed the gate).
	if r := get(s, 2); bytes.Contains(r.body, []byte(`"red":`+strconv.FormatInt(ins[2].Red, 10)+`,`)) {
		t.Error("a request on the snapshot before got the new votes")
	}
	before = hits()
	if r := get(next, 2); hits() != before+1 || !bytes.Contains(r.body, []byte(`"red":`+strconv.FormatInt(ins[2].Red, 10)+`,`)) {
		t.Errorf("after a request on the snapshot before: %d hits of 1, %s", hits()-before, r.body)
	}
	// An entry made from a newer snapshot does not answer a request on an
	// older one: flag 2's is next's.
	if r := d.find(d.slotOf(ins[2].Slug), ins[2].Slug, stamp{serial: s.Serial()}); r != nil {
		t.Error("an entry of a newer snapshot answered a request on an older one")
	}

	// A new slug: the old one is not found (not answered from the table),
	// the new one is.
	oldSlug := ins[0].Slug
	ins[0].Slug = "renamed-0"
	next = swap(next, ins[0])
	if r, ok := d.detail(next, oldSlug, c); ok {
		t.Errorf("the old slug after a new one: %s", r.body)
	}
	getSlug(next, "renamed-0")
	// A flag no longer approved is not found.
	ins[3].Approved = false
	next = swap(next, ins[3])
	if r, ok := d.detail(next, ins[3].Slug, c); ok {
		t.Errorf("a removed flag: %s", r.body)
	}

	// A body over the table's bound goes to the response cache.
	before = hits()
	rl := get(next, longFlag)
	if len(rl.body) <= maxDetailBody {
		t.Fatalf("the long flag's body is %d bytes, not over %d", len(rl.body), maxDetailBody)
	}
	if d.holds(ins[longFlag].Slug) {
		t.Error("the table kept a body over its bound")
	}
	c.rc.Wait() // ristretto admits a Set asynchronously
	if get(next, longFlag) != rl || hits() != before {
		t.Error("the long body was not answered from the response cache")
	}

	// Consecutive slots spread over the sets: none holds far more than
	// its share.
	big := newDetails(1000 * setWays * detailEntryCost)
	per := map[*way]int{}
	for slot := range 4000 {
		ways, _ := big.set(slot)
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
	var none *table // no table: the response cache answers
	f, _, _ := next.FlagBySlug(ins[4].Slug)
	if r, ok := none.detail(next, ins[4].Slug, c); !ok || !bytes.Equal(r.body, renderDetail(f)) {
		t.Errorf("without a table: %v %s", ok, r.body)
	}
	if _, ok := none.detail(next, oldSlug, c); ok {
		t.Error("without a table: an old slug found")
	}
}

// holds reports whether the table holds an entry of key.
func (d *table) holds(key string) bool {
	for i := range d.ways {
		if e := d.ways[i].e.Load(); e != nil && e.key == key {
			return true
		}
	}
	return false
}

// TestSlugGate: what a slug-keyed table keeps and answers around a swap.
// Nothing is kept from a snapshot older than the last one passed, nor
// while a swap is dropping entries; a snapshot newer than the last passed
// is not answered from the table; a swap that skips a generation, or that
// changes more flags than maxSlugDrops, empties the table, and one that
// changes a few keeps the others' entries.
func TestSlugGate(t *testing.T) {
	now := time.Now().UTC()
	ins := testInputs(maxSlugDrops+10, now)
	s1 := fullSnapshot(t, ins, now)
	build := func(prev *memstore.Snapshot, changed []memstore.FlagInput) *memstore.Snapshot {
		t.Helper()
		next, err := memstore.Build(prev, memstore.Change{Flags: changed, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	vote := func(from, to int) []memstore.FlagInput {
		out := make([]memstore.FlagInput, 0, to-from)
		for i := from; i < to; i++ {
			ins[i].Green++
			out = append(out, ins[i])
		}
		return out
	}
	c := testCache(t)
	d := newDetails(64 * setWays * detailEntryCost)
	g := d.gate
	slug := ins[0].Slug
	g.swap(s1)
	s2 := build(s1, vote(1, 2))
	g.swap(s2)
	d.detail(s1, slug, c)
	if d.holds(slug) {
		t.Error("an answer of a snapshot older than the gate's was kept")
	}
	g.pending.Store(s2.Serial() + 1) // a swap dropping entries
	d.detail(s2, slug, c)
	if d.holds(slug) {
		t.Error("an answer was kept while a swap was dropping entries")
	}
	g.pending.Store(s2.Serial())
	d.detail(s2, slug, c)
	if !d.holds(slug) {
		t.Fatal("an answer of the gate's snapshot was not kept")
	}
	s3 := build(s2, vote(1, 2))
	before := d.hits.Load()
	d.detail(s3, slug, c) // s3 has not passed the gate
	if d.hits.Load() != before {
		t.Error("a snapshot the gate has not passed was answered from the table")
	}
	g.swap(s3)
	if d.detail(s3, slug, c); d.hits.Load() != before+1 {
		t.Error("after a swap that changed another flag, the flag's entry did not answer")
	}
	// More changes than maxSlugDrops: the table is emptied.
	s4 := build(s3, vote(1, maxSlugDrops+5))
	g.swap(s4)
	if d.holds(slug) {
		t.Errorf("a swap of %d changes left an unchanged flag's entry", maxSlugDrops+4)
	}
	d.detail(s4, slug, c)
	// A generation skipped: the table is emptied.
	s6 := build(build(s4, vote(1, 2)), vote(1, 2))
	g.swap(s6)
	if d.holds(slug) {
		t.Error("a swap that skipped a generation left an entry")
	}
	// Another lineage: snapshots built from another first build, with
	// generations that repeat this one's. A request still on the old
	// lineage keeps nothing once the new one is passed, and the new
	// lineage's answer is its own.
	other := make([]memstore.FlagInput, len(ins))
	copy(other, ins)
	other[0].Red += 1000
	b1, err := memstore.Build(nil, memstore.Change{Full: true, Flags: other, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	g.swap(b1)
	if d.holds(slug) {
		t.Error("a snapshot of another lineage left an entry")
	}
	b2 := build(b1, vote(1, 2))
	g.swap(b2)
	d.detail(s2, slug, c) // a request still on the old lineage, of b2's generation
	if d.holds(slug) {
		t.Error("an answer of the old lineage was kept after the new one passed")
	}
	f, _, _ := b2.FlagBySlug(slug)
	if r, _ := d.detail(b2, slug, c); !bytes.Equal(r.body, renderDetail(f)) {
		t.Errorf("the new lineage's answer: %s, want %s", r.body, renderDetail(f))
	}
	// A snapshot of the next generation built from another one than the
	// last passed: the table is emptied.
	if !d.holds(slug) {
		t.Fatal("the new lineage's answer was not kept")
	}
	g.swap(build(s1, vote(1, 2))) // generation 2 after b2's 2: from s1, not b2
	if d.holds(slug) {
		t.Error("a snapshot built from another than the last passed left an entry")
	}
	d.detail(b2, slug, c)
	if d.holds(slug) {
		t.Error("an answer of a snapshot passed before was kept")
	}

	// start does not go back to an older snapshot than the gate passed.
	s7 := build(b2, vote(1, 2))
	g.swap(s7)
	d.detail(s7, slug, c)
	g.start(s6)
	if g.valid.Load() != s7.Serial() || !d.holds(slug) {
		t.Errorf("start with an older snapshot: valid %d (want %d), entry kept %v", g.valid.Load(), s7.Serial(), d.holds(slug))
	}
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
		d := newDetails(setWays * detailEntryCost)
		d.gate.swap(s)
		if r, _ := d.detail(s, in.Slug, c); len(r.body) != want {
			t.Fatalf("a body of %d bytes, want %d", len(r.body), want)
		}
		if ok := d.holds(in.Slug); ok != (want <= maxDetailBody) {
			t.Errorf("a body of %d bytes (the bound %d) in the table: %v", want, maxDetailBody, ok)
		}
	}
}

// TestDetailsConcurrent: requests for flags that loads keep changing (new
// votes, new slugs, removals and approvals again), all at once, on the
// snapshot they hold, each get what that snapshot serves: the body of its
// flag of that slug, or not found, also from the table (run it with
// -race).
func TestDetailsConcurrent(t *testing.T) {
	now := time.Now().UTC()
	c := testCache(t)
	ins := testInputs(24, now)
	// Every slug a flag may have: its own and a second one.
	var slugs []string
	for i := range ins {
		slugs = append(slugs, ins[i].Slug, ins[i].Slug+"-b")
	}
	s := fullSnapshot(t, ins, now)
	var st memstore.Store
	d := newDetails(2 * setWays * detailEntryCost) // two sets: every insert competes
	defer st.OnSwap(d.gate.swap)()
	st.SetSnapshot(s)
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
				slug := slugs[(n*7+w)%len(slugs)]
				f, _, served := s.FlagBySlug(slug)
				r, ok := d.detail(s, slug, c)
				var bad string
				switch {
				case ok != served:
					bad = fmt.Sprintf("%s: found %v, served %v", slug, ok, served)
				case ok && !bytes.Equal(r.body, renderDetail(f)):
					bad = fmt.Sprintf("%s: %s, want %s", slug, r.body, renderDetail(f))
				}
				if bad != "" {
					select {
					case errs <- bad:
					default:
					}
					return
				}
			}
		})
	}
	for k := range 300 {
		i := k % len(ins)
		x := &ins[i]
		switch k % 5 {
		case 1: // a new slug, or the first one back
			if strings.HasSuffix(x.Slug, "-b") {
				x.Slug = strings.TrimSuffix(x.Slug, "-b")
			} else {
				x.Slug += "-b"
			}
		case 3: // removed, or approved again
			x.Approved = !x.Approved
		default:
			x.Red += int64(k)
		}
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{*x}, LoadedAt: now})
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
	if d.hits.Load() == 0 {
		t.Error("no request was answered from the table")
	}
	for body := range errs {
		t.Errorf("a request got what its snapshot does not serve: %s", body)
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
func heldBy(d *table) int64 {
	var sum int64
	seen := map[*tableEntry]bool{}
	for i := range d.ways {
		if e := d.ways[i].e.Load(); e != nil && !seen[e] {
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
	d := newTrends(1)          // one set of four ways
	c4 := entryCost(4<<10) + 1 // a key of one byte
	d.budget = 3 * c4
	if len(d.ways) != setWays {
		t.Fatalf("%d ways, want one set", len(d.ways))
	}
	sn := passFirst(t, d)
	// Key k's entry of history v; a response cache's key and version of
	// its own.
	ask := func(k int, version uint64, n int) *response {
		key := strconv.Itoa(k)
		return d.fill(d.slotOf(key), key, stamp{serial: sn, history: version}, source{100*uint64(k) + version}, c,
			func() string { return fmt.Sprintf("t%d-%d", k, version) }, func() []byte { return body(n, byte('a'+k)) })
	}
	kept := func() (keys []int) {
		for i := range d.ways {
			if e := d.ways[i].e.Load(); e != nil {
				k, _ := strconv.Atoi(e.key)
				keys = append(keys, k)
			}
		}
		return keys
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
	ask(3, 2, 100) // a new history of key 3, short: it takes its old one's way
	check("a new version", 3, 4)
	if want := entryCost(8<<10) + entryCost(100) + 2; d.held.Load() != want {
		t.Errorf("%d bytes counted, want %d", d.held.Load(), want)
	}
	before := d.hits.Load()
	for k, v := range map[int]uint64{3: 2, 4: 1} {
		d.find(d.slotOf(strconv.Itoa(k)), strconv.Itoa(k), stamp{serial: sn, history: v})
	}
	if d.hits.Load() != before+2 {
		t.Errorf("%d of 2 kept answers from the table", d.hits.Load()-before)
	}
	d.budget = entryCost(8<<10) + entryCost(100) + 2 + c4 - 1 // a 4 KB body fits only without the 8 KB one
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
	sn := passFirst(t, d)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for n := range 3000 {
				k := (n*7 + w*13) % 40
				size := 100 + (n*w+k)%(6<<10)
				v := uint64(n % 5)
				key := strconv.Itoa(k)
				slot := d.slotOf(key)
				r := d.find(slot, key, stamp{serial: sn, history: v})
				if r == nil {
					r = d.fill(slot, key, stamp{serial: sn, history: v}, source{uint64(k)*1000 + v}, c, func() string { return fmt.Sprintf("c%d-%d", k, v) },
						func() []byte { return bytes.Repeat([]byte{'x'}, size) })
				}
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

// TestTrendHistorySupersedes: a trend of a newer history or day takes
// the way of the flag's trend of the older one, not the oldest
// neighbour's; the flag's trends of other days stay.
func TestTrendHistorySupersedes(t *testing.T) {
	c := testCache(t)
	d := newTrends(1) // one set of four ways
	sn := passFirst(t, d)
	ask := func(slug string, history uint64, days int, today int32) {
		d.fill(d.slotOf(slug), slug, trendStamp(sn, history, days, today), source{history}, c,
			func() string { return fmt.Sprintf("%s-%d-%d-%d", slug, history, days, today) }, func() []byte { return []byte("{}") })
	}
	type entry struct {
		slug string
		st   stamp
	}
	check := func(when string, want ...entry) {
		t.Helper()
		var got []entry
		for i := range d.ways {
			if e := d.ways[i].e.Load(); e != nil {
				got = append(got, entry{e.key, e.stamp})
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", when, got, want)
		}
	}
	for _, slug := range []string{"b", "a", "c", "d"} { // b the oldest, a in the middle
		ask(slug, 1, 7, 20000)
	}
	ask("a", 2, 7, 20000)
	check("after a new history", entry{"a", trendStamp(sn, 2, 7, 20000)}, entry{"d", trendStamp(sn, 1, 7, 20000)},
		entry{"c", trendStamp(sn, 1, 7, 20000)}, entry{"b", trendStamp(sn, 1, 7, 20000)})
	ask("c", 1, 7, 20001)
	check("after a new day", entry{"c", trendStamp(sn, 1, 7, 20001)}, entry{"a", trendStamp(sn, 2, 7, 20000)},
		entry{"d", trendStamp(sn, 1, 7, 20000)}, entry{"b", trendStamp(sn, 1, 7, 20000)})
	ask("c", 1, 90, 20001)
	check("another day count", entry{"c", trendStamp(sn, 1, 90, 20001)}, entry{"c", trendStamp(sn, 1, 7, 20001)},
		entry{"a", trendStamp(sn, 2, 7, 20000)}, entry{"d", trendStamp(sn, 1, 7, 20000)})
}

// passFirst passes a first snapshot through d's gate and returns its
// serial.
func passFirst(t *testing.T, d *table) uint64 {
	t.Helper()
	s, err := memstore.Build(nil, memstore.Change{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	d.gate.swap(s)
	return s.Serial()
}

// TestTrendsDroppedAtSwap: a swap that changes a flag takes out its
// trends of every number of days, from each set they spread over, and
// leaves another flag's.
func TestTrendsDroppedAtSwap(t *testing.T) {
	now := time.Now().UTC()
	ins := []memstore.FlagInput{testInput(0, now), testInput(1, now)}
	s := fullSnapshot(t, ins, now)
	c := testCache(t)
	d := newTrends(64 * setWays * entryCost(1<<10))
	d.gate.swap(s)
	count := func(slug string) (n int) {
		for i := range d.ways {
			if e := d.ways[i].e.Load(); e != nil && e.key == slug {
				n++
			}
		}
		return n
	}
	for _, in := range ins {
		for days := 1; days <= 8; days++ {
			st := trendStamp(s.Serial(), 1, days, 20000)
			d.fill(d.slotFor(in.Slug, days), in.Slug, st, source{uint64(days)}, c,
				func() string { return in.Slug + strconv.Itoa(days) }, func() []byte { return []byte("{}") })
		}
	}
	if count(ins[0].Slug) != 8 || count(ins[1].Slug) != 8 {
		t.Fatalf("kept %d and %d trends of 8", count(ins[0].Slug), count(ins[1].Slug))
	}
	ins[0].Red++
	next, err := memstore.Build(s, memstore.Change{Flags: ins[:1], LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	d.gate.swap(next)
	if n, m := count(ins[0].Slug), count(ins[1].Slug); n != 0 || m != 8 {
		t.Errorf("after a swap that changed flag 0: %d of its trends left (want 0), %d of flag 1's (want 8)", n, m)
	}
}

// TestTrendWhileHistoryLoads: before the trend history is loaded, a
// served flag's trend is a 503 with Retry-After (its table untouched), an
// unknown slug's a 404; once it is loaded, the trend.
func TestTrendWhileHistoryLoads(t *testing.T) {
	now := time.Now().UTC()
	_, st, do := keyedServer(t, nil, 1<<20)
	get := func(path string) (int, http.Header) {
		t.Helper()
		res, _ := do(path)
		return res.StatusCode, res.Header
	}
	in := testInput(1, now)
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: []memstore.FlagInput{in}, LoadedAt: now})
	if err != nil || s.Trends != nil {
		t.Fatalf("a build without history: %v, trends %v", err, s.Trends)
	}
	st.SetSnapshot(s)
	trend := "/api/public/flag/" + in.Slug + "/trend?days=7"
	if code, h := get(trend); code != 503 || h.Get("Retry-After") != "5" {
		t.Errorf("a served flag's trend while the history loads: %d, Retry-After %q; want 503, 5", code, h.Get("Retry-After"))
	}
	if code, _ := get("/api/public/flag/no-such-flag/trend?days=7"); code != 404 {
		t.Errorf("an unknown slug's trend while the history loads: %d, want 404", code)
	}
	b := memstore.NewTrendBuilder(memstore.DayOf(now) - memstore.TrendDays)
	next, err := memstore.Build(s, memstore.Change{Trends: b.Done(), LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(next)
	if code, _ := get(trend); code != 200 {
		t.Errorf("once the history is loaded: %d, want 200", code)
	}
}

// A way's tag is what a lookup reads first: an entry is found through a
// way whose tag is its slot's, never through one whose tag is another's,
// and a tag that names the looked-up slot over an entry of another key or
// stamp (a tag and an entry stored a moment apart) answers nothing.
func TestDetailsWayTags(t *testing.T) {
	d := newTable(setWays*entryCost(64), 64, entryCost(64)) // one set, no gate: the answers' table
	st := stamp{serial: 7, history: 1, route: 2}
	a, b := "a=1", "b=2"
	ra := newResponse([]byte(`{"a":1}`))
	if _, ok := d.keep(d.slotOf(a), st, a, ra); !ok {
		t.Fatal("the table kept nothing")
	}
	if r := d.found(d.slotOf(a), a, st); r != ra {
		t.Fatalf("lookup after keep = %v, want the kept response", r)
	}
	set, _ := d.set(d.slotOf(a))
	if got, want := set[0].tag.Load(), tagOf(d.slotOf(a)); got != want {
		t.Fatalf("the new entry's way has tag %d, want its slot's, %d", got, want)
	}
	set[0].tag.Store(tagOf(d.slotOf(a)) + 1)
	if r := d.found(d.slotOf(a), a, st); r != nil {
		t.Error("an entry was found through a way tagged for another slot")
	}
	set[0].tag.Store(tagOf(d.slotOf(b)))
	if r := d.found(d.slotOf(b), b, st); r != nil {
		t.Errorf("a way tagged for %q over %q's entry answered %q", b, a, r.body)
	}
	set[0].tag.Store(tagOf(d.slotOf(a)))
	if r := d.found(d.slotOf(a), a, stamp{serial: 8, history: 1, route: 2}); r != nil {
		t.Error("an entry of another stamp answered")
	}
	d.drop(func(stamp) bool { return true })
	if set[0].tag.Load() != 0 || set[0].e.Load() != nil {
		t.Error("a dropped entry's way keeps its tag or entry")
	}
}

// An entry goes to the one of its slot's two sets with more free ways,
// and a second keep of the same answer, which the first set's free ways
// now send to the other, returns the kept one: the table holds it once.
func TestDetailsTwoChoices(t *testing.T) {
	d := newTable(64*setWays*entryCost(64), 64, entryCost(64)) // 64 sets, no gate
	key, first, second := twoSetKey(d, "q=")
	slot, st := d.slotOf(key), stamp{serial: 3, history: 1, route: 2}
	first[setWays-1].e.Store(&tableEntry{key: "other", slot: -1, r: newResponse([]byte(`{}`))}) // one way taken
	r1, r2 := newResponse([]byte(`{"n":1}`)), newResponse([]byte(`{"n":2}`))
	if kept, ok := d.keep(slot, st, key, r1); !ok || kept != r1 || second[0].e.Load() == nil || second[0].e.Load().r != r1 {
		t.Fatal("the entry did not go to the set with more free ways")
	}
	if d.found(slot, key, st) != r1 {
		t.Fatal("an entry in the second set was not found")
	}
	if kept, ok := d.keep(slot, st, key, r2); !ok || kept != r1 {
		t.Fatalf("a second keep of the same answer returned %v, want the kept one", kept)
	}
	n := 0
	for _, set := range [][]way{first, second} {
		for i := range set {
			if e := set[i].e.Load(); e != nil && e.key == key {
				n++
			}
		}
	}
	if n != 1 {
		t.Errorf("the answer is held %d times", n)
	}
}

// A trend of a newer history takes the way of the same slug's outdated
// one in whichever of its two sets that is, not a neighbour's; and the
// second choices of a slug's consecutive slots (its trends' spread) fall
// apart as the first ones do.
func TestDetailsTwoChoicesOutdatedAndSpread(t *testing.T) {
	d := newTrends(64 * setWays * entryCost(1<<10)) // 64 sets
	sn := passFirst(t, d)
	key, first, second := twoSetKey(d, "s")
	slot := d.slotOf(key)
	other := func(name string) *tableEntry { return &tableEntry{key: name, slot: -1, r: newResponse([]byte(`{}`))} }
	first[0].e.Store(other("a0")) // the first set fuller: the old trend goes to the second
	if _, ok := d.keep(slot, trendStamp(sn, 1, 7, 20000), key, newResponse([]byte(`{"h":1}`))); !ok {
		t.Fatal("not kept")
	}
	for i := 1; i < setWays; i++ { // both sets full
		first[i].e.Store(other(fmt.Sprint("a", i)))
		second[i].e.Store(other(fmt.Sprint("b", i)))
	}
	d.keep(slot, trendStamp(sn, 2, 7, 20000), key, newResponse([]byte(`{"h":2}`)))
	for _, set := range [][]way{first, second} {
		for i := range set {
			if e := set[i].e.Load(); e == nil || e.key == key && e.stamp.history == 1 {
				t.Errorf("way %d: %v: the outdated trend stayed, or a way was emptied", i, e)
			}
		}
	}
	if first[setWays-1].e.Load().key != fmt.Sprint("a", setWays-1) {
		t.Error("a neighbour in the first set was evicted for the slug's newer trend")
	}
	same := 0
	for slot := range 2000 {
		a, _ := d.choices(slot * 7919)
		b, _ := d.choices(slot*7919 + 1)
		if a[1] == b[1] {
			same++
		}
	}
	if same > 200 {
		t.Errorf("%d of 2,000 consecutive slots share their second set (64 sets)", same)
	}
}

// twoSetKey is the first key prefix+N whose slot's two sets differ in d,
// and the two sets.
func twoSetKey(d *table, prefix string) (key string, first, second []way) {
	for i := 0; ; i++ {
		key = fmt.Sprint(prefix, i)
		if sets, n := d.choices(d.slotOf(key)); n == 2 {
			first, _ = d.setAt(sets[0])
			second, _ = d.setAt(sets[1])
			return key, first, second
		}
	}
}

// set is the first of slot's sets and its lock.
func (d *table) set(slot int) ([]way, *sync.Mutex) {
	sets, _ := d.choices(slot)
	return d.setAt(sets[0])
}
