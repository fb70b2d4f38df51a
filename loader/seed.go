package loader

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/flagpole/flagpole/memstore"
	"github.com/jmoiron/sqlx"
)

// SeedOptions size the demo data set.
type SeedOptions struct {
	// Flags is the number of flags. Up to DemoSize every flag has its own
	// statement; beyond it statements repeat, with numbered slugs.
	Flags, Users, Days int
	Seed               uint64
	// Now anchors every date; zero means the present.
	Now time.Time
	// Progress, when set, is told the flags written so far.
	Progress func(done, total int)
}

// seedRegions are the regions of the demo data, with weights; "" is the
// world.
var seedRegions = []struct {
	code   string
	weight int
}{{"", 40}, {"TR", 14}, {"DE", 10}, {"ES", 9}, {"US", 7}, {"GB", 4}, {"MX", 4}, {"AR", 3},
	{"AT", 2}, {"CH", 2}, {"FR", 2}, {"NL", 1}, {"BR", 1}, {"CO", 1}}

// seeder writes one demo data set; its random source makes the data a
// function of the seed (and of Now).
type seeder struct {
	o     SeedOptions
	now   time.Time
	today int32
	rng   *rand.Rand
	order []Statement // the statements in the order flags take them
	w     *batcher
}

// Seed writes a realistic, deterministic demo data set into an empty
// database: users, flags in all four languages across every category,
// context and colour, daily snapshots and votes over the last 30 days.
func (db *DB) Seed(ctx context.Context, o SeedOptions) error {
	statements, err := demoStatements()
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if err := db.checkSeedable(ctx, o); err != nil {
		return err
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	now := o.Now.UTC().Truncate(time.Millisecond)
	s := &seeder{o: o, now: now, today: memstore.DayOf(now),
		rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), order: seedOrder(statements)}

	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer tx.Rollback()
	s.w = newBatcher(ctx, tx, db.Dialect)
	users, err := s.users()
	if err != nil {
		return err
	}
	flags, err := s.flags()
	if err != nil {
		return err
	}
	if err := s.w.flush(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if err := s.votes(ctx, db, tx, users, flags); err != nil {
		return err
	}
	if o.Progress != nil {
		o.Progress(o.Flags, o.Flags)
	}
	if err := db.recordChange(ctx, tx, "seed", ""); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	return nil
}

// MaxSeed bounds the flags and the users a seed writes: ten million each,
// ten times the largest benchmark's flags.
const MaxSeed = 10_000_000

// Validate checks o's sizes, before any database is opened or made.
func (o SeedOptions) Validate() error {
	if o.Flags < 1 || o.Users < 1 || o.Flags > MaxSeed || o.Users > MaxSeed || o.Days < 0 || o.Days > 3650 {
		return fmt.Errorf("seed: want 1 to %d flags, 1 to %d users and 0 to 3650 days", MaxSeed, MaxSeed)
	}
	return nil
}

// checkSeedable refuses bad sizes and a database that already holds flags.
func (db *DB) checkSeedable(ctx context.Context, o SeedOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	var existing int
	if err := db.GetContext(ctx, &existing, "SELECT count(*) FROM flags"); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if existing > 0 {
		return fmt.Errorf("seed: the database already holds %d flags; seed writes only into an empty one", existing)
	}
	return nil
}

// users writes the users and returns their ids.
func (s *seeder) users() ([]string, error) {
	ids := make([]string, s.o.Users)
	for i := range ids {
		ids[i] = fmt.Sprintf("usr_%06d", i+1)
		created := s.now.Add(-time.Duration(s.rng.Int64N(int64(400 * 24 * time.Hour))))
		if err := s.w.add("users", []string{"id", "created_at:ts"}, ids[i], tsText(created)); err != nil {
			return nil, fmt.Errorf("seed users: %w", err)
		}
	}
	return ids, nil
}

// seededFlag is what the votes need to know of a written flag.
type seededFlag struct {
	id   string
	lean int
}

// flags writes the flags with their daily snapshots.
func (s *seeder) flags() ([]seededFlag, error) {
	out := make([]seededFlag, 0, s.o.Flags)
	for i := 0; i < s.o.Flags; i++ {
		st := &s.order[i%len(s.order)]
		id := fmt.Sprintf("flg_%08d%06x", i+1, s.rng.Uint32()&0xffffff) // ascending: appends to the key order
		slug := st.Slug
		if round := i / len(s.order); round > 0 {
			slug = fmt.Sprintf("%s-%d", st.Slug, round+1)
		}
		red, green, created, err := s.flag(id, slug, st, i < len(s.order))
		if err != nil {
			return nil, err
		}
		if err := s.snapshots(id, red, green, created); err != nil {
			return nil, err
		}
		out = append(out, seededFlag{id: id, lean: st.Lean})
		if s.o.Progress != nil && (i+1)%1000 == 0 {
			s.o.Progress(i+1, s.o.Flags)
		}
	}
	return out, nil
}

var flagColumns = []string{"id", "slug", "status", "category", "region", "text_tr", "text_en", "text_de",
	"text_es", "description_tr", "description_en", "description_de", "description_es", "contexts",
	"red_count", "green_count", "created_at:ts"}

// flag writes one flag of statement st: a status, a region, a long tail
// of popularity, and votes that split as the statement leans. A
// statement's first flag is approved, so that the demo serves every
// statement; of the repeats (bench sizes) 6 % are pending and 4 % rejected.
func (s *seeder) flag(id, slug string, st *Statement, first bool) (red, green int64, created time.Time, err error) {
	rng := s.rng
	status := "APPROVED"
	switch r := rng.IntN(100); {
	case first:
	case r < 6:
		status = "PENDING"
	case r < 10:
		status = "REJECTED"
	}
	var region any
	if code := pickRegion(rng); code != "" {
		region = code
	}
	total := int64(math.Exp(rng.NormFloat64()*1.6+5.5)) + int64(rng.IntN(3))
	share := 0.5 + float64(st.Lean)*0.28 + rng.NormFloat64()*0.12
	share = min(max(share, 0.02), 0.98)
	red = int64(math.Round(float64(total) * share))
	green = total - red
	age := time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))
	if rng.IntN(100) < 3 {
		age = time.Duration(rng.Int64N(int64(20 * time.Hour)))
	}
	created = s.now.Add(-age)
	var text, desc [memstore.NumLangs]any
	for l, code := range memstore.LangCodes {
		text[l] = st.Text[code]
		if d := st.Description[code]; d != "" {
			desc[l] = d
		}
	}
	if err := s.w.add("flags", flagColumns, id, slug, status, st.Category, region, text[0], text[1], text[2], text[3],
		desc[0], desc[1], desc[2], desc[3], strings.Join(st.Contexts, ","), red, green, tsText(created)); err != nil {
		return 0, 0, time.Time{}, fmt.Errorf("seed flags: %w", err)
	}
	return red, green, created, nil
}

// snapshots writes a flag's daily snapshots over the last Days days: the
// counters grew towards today's values since the flag was created.
func (s *seeder) snapshots(id string, red, green int64, created time.Time) error {
	createdDay := memstore.DayOf(created)
	for d := max(s.today-int32(s.o.Days)+1, createdDay); d <= s.today; d++ {
		frac := math.Pow(float64(d-createdDay+1)/float64(s.today-createdDay+1), 0.8)
		sr, sg := int64(float64(red)*frac), int64(float64(green)*frac)
		if err := s.w.add("flag_snapshots", []string{"flag_id", "day:day", "red", "green"}, id, dayText(d), sr, sg); err != nil {
			return fmt.Errorf("seed snapshots: %w", err)
		}
	}
	return nil
}

// votes casts each user's votes of the last 30 days through the contract's
// statement, so the triggers move the counters as they do for the voting
// application.
func (s *seeder) votes(ctx context.Context, db *DB, tx *sqlx.Tx, users []string, flags []seededFlag) error {
	vote, err := tx.PreparexContext(ctx, db.Rebind("INSERT INTO votes (flag_id, user_id, color, created_at) VALUES (?, ?, ?, "+
		tsParam(db.Dialect)+") ON CONFLICT (flag_id, user_id) DO NOTHING"))
	if err != nil {
		return fmt.Errorf("seed votes: %w", err)
	}
	defer vote.Close()
	for _, u := range users {
		n := s.rng.IntN(min(40, len(flags)) + 1)
		for j := 0; j < n; j++ {
			f := flags[s.rng.IntN(len(flags))]
			color := "green"
			if s.rng.Float64() < 0.5+float64(f.lean)*0.3 {
				color = "red"
			}
			at := s.now.Add(-time.Duration(s.rng.Int64N(int64(30 * 24 * time.Hour))))
			if _, err := vote.ExecContext(ctx, f.id, u, color, tsText(at)); err != nil {
				return fmt.Errorf("seed votes: %w", err)
			}
		}
	}
	return nil
}

// seedOrder deals the statements round-robin across the categories, so
// that even a small seed holds every category.
func seedOrder(statements []Statement) []Statement {
	byCat := map[string][]Statement{}
	for _, st := range statements {
		byCat[st.Category] = append(byCat[st.Category], st)
	}
	out := make([]Statement, 0, len(statements))
	for i := 0; len(out) < len(statements); i++ {
		for _, c := range memstore.Categories {
			if i < len(byCat[c]) {
				out = append(out, byCat[c][i])
			}
		}
	}
	return out
}

func pickRegion(rng *rand.Rand) string {
	total := 0
	for _, r := range seedRegions {
		total += r.weight
	}
	n := rng.IntN(total)
	for _, r := range seedRegions {
		if n < r.weight {
			return r.code
		}
		n -= r.weight
	}
	return ""
}
