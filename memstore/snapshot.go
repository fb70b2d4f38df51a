package memstore

import (
	"cmp"
	"iter"
	"slices"
	"sync/atomic"
	"time"
)

// orderSet holds flag positions sorted for each sort and direction:
// [sort][0] ascending, [sort][1] descending primary key.
type orderSet [NumSorts][2]order

// Snapshot is one immutable view of every approved flag, its indexes, its
// trends and the statistics. The loader builds it off to the side; the HTTP
// layer only reads it.
type Snapshot struct {
	Gen uint64 // increases with every snapshot of a process
	// serial is a number no other snapshot of the process has, larger
	// than that of every snapshot built before; base is the serial of the
	// snapshot it was built from (0 for a first build).
	serial, base uint64
	LoadedAt     time.Time // when the loader read the data
	Trends       *Trends

	// flags holds each flag in its slot, nil for a hole (see Build):
	// a flag's slot is its position in the orders, the search index and
	// attr, and stays the same from one snapshot to the next.
	flags  flagList
	live   int // the flags in slots
	bySlug lookup
	byID   lookup
	// orders are the sorted positions of every flag list, see listOf:
	// all flags, then each category, each colour and each region.
	orders []*orderSet
	regIdx map[string]int // region -> 1.., numbered in order of appearance and never renumbered
	counts []int32        // flags per filter combination, see countIndex
	// attr holds per position the flag's category, colour and region (see
	// attrOf), see attrs.
	attr    attrs
	search  *searchIndex
	lexicon *lexicon

	categories []CategoryCount
	regions    []RegionCount
	stats      Stats
	changes    Changes // against the snapshot before, see Changes
	// fresh are the slots of the flags this snapshot does not share with
	// the one before, ascending; every flag where renewed (a compaction
	// of the lexicon copied them all).
	fresh   []int32
	renewed bool
	// changed are the slots whose flag differs from the one before:
	// fresh and the slots of the flags removed or replaced, ascending;
	// remapped is set where the build renumbered the slots.
	changed  []int32
	remapped bool
}

// The lists a flag belongs to, as indexes of Snapshot.orders: every flag
// is in listAll, in its category's, its colour's and its region's.
const (
	listAll    = 0
	listCat    = 1
	listDom    = listCat + NumCategories
	listRegion = listDom + int(NumDominants) - 1 // + regIdx, which starts at 1
)

// listsOf returns the four lists of a flag with packed attributes attr.
func listsOf(attr uint32) [4]int {
	return [4]int{listAll, listCat + int(attr&attrCatMask), listDom + int(attr&attrDomMask>>attrDomShift),
		listRegion + int(attr>>attrRegShift)}
}

// countIndex locates the number of flags matching a combination of
// filters: cat and dom are the value + 1, or 0 for any; reg is regIdx's.
func (s *Snapshot) countIndex(cat, dom, reg int) int {
	return (reg*(NumCategories+1)+cat)*(int(NumDominants)+1) + dom
}

// snapshotSerials numbers the snapshots a process builds (see Serial).
var snapshotSerials atomic.Uint64

// Serial is a number no other snapshot of the process has, larger than
// that of every snapshot built before it. Gen is the same for snapshots
// built from different ones (two first builds are both 1); Serial tells
// them apart.
func (s *Snapshot) Serial() uint64 { return s.serial }

// Base is the Serial of the snapshot s was built from, 0 for a first
// build: what s.Fresh and s.Changes are against.
func (s *Snapshot) Base() uint64 { return s.base }

// Len is the number of approved flags.
func (s *Snapshot) Len() int { return s.live }

// Slots is the number of slots, at least Len: the flags' and the holes'
// (see Build).
func (s *Snapshot) Slots() int { return s.flags.len() }

// At returns the flag in slot i (0 <= i < Slots), nil for a hole. A
// first build, and one that renumbers, puts the flags in id order
// without holes.
func (s *Snapshot) At(i int) *Flag { return s.flags.at(int32(i)) }

// Flags yields every flag, in slot order.
func (s *Snapshot) Flags() iter.Seq[*Flag] {
	return func(yield func(*Flag) bool) {
		for _, f := range s.flags.all() {
			if f != nil && !yield(f) {
				return
			}
		}
	}
}

// Fresh yields the flags this snapshot holds and the one before (the
// snapshot it was built from) did not: the flags new, changed or copied
// by this build, in slot order. The others are the same *Flag values as
// before.
func (s *Snapshot) Fresh() iter.Seq[*Flag] {
	return func(yield func(*Flag) bool) {
		if s.renewed {
			for f := range s.Flags() {
				if !yield(f) {
					return
				}
			}
			return
		}
		for _, i := range s.fresh {
			if !yield(s.flags.at(i)) {
				return
			}
		}
	}
}

// ChangedSlots returns the slots whose flag differs from the snapshot s
// was built from (Base): a flag added, removed or replaced (its votes,
// status or texts changed), ascending, each once; every other slot
// holds the same *Flag in both. all reports that any slot may differ
// instead: a first build, one that renumbered the slots or renewed the
// lexicon.
func (s *Snapshot) ChangedSlots() (slots []int32, all bool) {
	if s.base == 0 || s.renewed || s.remapped {
		return nil, true
	}
	return s.changed, false
}

// FlagBySlug finds an approved flag and its position.
func (s *Snapshot) FlagBySlug(slug string) (*Flag, int, bool) {
	i, ok := s.bySlug.get(slug, &s.flags)
	if !ok {
		return nil, 0, false
	}
	return s.flags.at(i), int(i), true
}

// FlagByID finds an approved flag by its id.
func (s *Snapshot) FlagByID(id string) (*Flag, bool) {
	i, ok := s.byID.get(id, &s.flags)
	if !ok {
		return nil, false
	}
	return s.flags.at(i), true
}

// ListQuery selects a page of the flag list. Filters are applied before
// paging.
type ListQuery struct {
	Sort          Sort
	Desc          bool
	Category      Category
	HasCategory   bool
	Region        string // "" is the world when HasRegion
	HasRegion     bool
	Dominant      Dominant
	HasDominant   bool
	Limit, Offset int
}

// Page is a page of the flag list, in order.
type Page struct {
	s   *Snapshot
	pos []int32 // never written: it may be part of an order
}

// Len is the number of flags on the page.
func (p Page) Len() int { return len(p.pos) }

// At returns the k-th flag of the page.
func (p Page) At(k int) *Flag { return p.s.flags.at(p.pos[k]) }

// Pos returns the position of the k-th flag of the page in its snapshot.
func (p Page) Pos(k int) int { return int(p.pos[k]) }

// List returns the requested page and the number of flags that match all
// filters.
func (s *Snapshot) List(q ListQuery) (Page, int) {
	dir := 0
	if q.Desc {
		dir = 1
	}
	cat, dom, reg := 0, 0, 0
	var lists []*order
	if q.HasCategory {
		cat = int(q.Category) + 1
		lists = append(lists, &s.orders[listCat+int(q.Category)][q.Sort][dir])
	}
	if q.HasDominant {
		dom = int(q.Dominant) + 1
		lists = append(lists, &s.orders[listDom+int(q.Dominant)][q.Sort][dir])
	}
	if q.HasRegion {
		var ok bool
		if reg, ok = s.regIdx[q.Region]; !ok {
			return Page{s: s}, 0
		}
		lists = append(lists, &s.orders[listRegion+reg][q.Sort][dir])
	}
	if len(lists) <= 1 {
		list := &s.orders[listAll][q.Sort][dir]
		if len(lists) == 1 {
			list = lists[0]
		}
		n := list.len()
		if q.Offset >= n {
			return Page{s: s}, n
		}
		return Page{s: s, pos: list.slice(q.Offset, min(n, q.Offset+q.Limit))}, n
	}
	total := int(s.counts[s.countIndex(cat, dom, reg)])
	if q.Offset >= total {
		return Page{s: s}, total
	}
	// Walk the shortest list, matching the other filters on the packed
	// attributes: no flag is read until the page starts.
	shortest := slices.MinFunc(lists, func(a, b *order) int { return cmp.Compare(a.len(), b.len()) })
	// The colour is matched in its own array (see attrs): colourMask is 3
	// where a dominant colour is asked for.
	var mask, want uint32
	var colourMask, colour Dominant
	if q.HasCategory {
		mask, want = mask|attrCatMask, want|uint32(q.Category)
	}
	if q.HasDominant {
		colourMask, colour = 3, q.Dominant
	}
	if q.HasRegion {
		mask, want = mask|attrRegMask, want|uint32(reg)<<attrRegShift
	}
	return Page{s: s, pos: s.attr.match(shortest.blocks, mask, want, colourMask, colour, q.Offset, min(q.Limit, total-q.Offset))}, total
}

// A flag's filter attributes packed in one word: category in bits 0-3,
// dominant colour in 4-5, region index (regIdx) from bit 6.
const (
	attrCatMask  = 0xF
	attrDomShift = 4
	attrDomMask  = 0x3 << attrDomShift
	attrRegShift = 6
	attrRegMask  = uint32(0xFFFFFFFF) &^ (1<<attrRegShift - 1)
)

func (s *Snapshot) attrOf(f *Flag) uint32 {
	return uint32(f.Category) | uint32(f.Dominant)<<attrDomShift | uint32(s.regIdx[f.Region()])<<attrRegShift
}

// CategoryCount is one line of the category list.
type CategoryCount struct {
	Category Category
	Count    int
}

// RegionCount is one line of the region list; Code "" is the world.
type RegionCount struct {
	Code  string
	Count int
}

// Categories lists all eight categories by count desc, then slug asc; the
// slice is the caller's.
func (s *Snapshot) Categories() []CategoryCount { return slices.Clone(s.categories) }

// Regions lists the world first, then every region with an approved flag
// by count desc, then code asc; the slice is the caller's.
func (s *Snapshot) Regions() []RegionCount { return slices.Clone(s.regions) }

// Stats are the global statistics taken with this snapshot.
func (s *Snapshot) Stats() Stats {
	st := s.stats
	st.TopCategories = slices.Clone(st.TopCategories)
	return st
}

// Stats is the statistics object of /stats.
type Stats struct {
	FlagsTotal, RedDominant, GreenDominant, Mixed, AddedLast24h int64
	UsersTotal                                                  int64
	VotesTotal, VotesLast24h, VotesLast7d, VotesLast30d         int64
	TopCategories                                               []CategoryCount
	GeneratedAt                                                 time.Time
}

// Aggregates are the numbers of /stats that only the database knows.
type Aggregates struct {
	Users                         int64
	VotesLast24h, Last7d, Last30d int64
}
