package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flagpole/flagpole/config"
	"github.com/flagpole/flagpole/loader"
)

// newFlagSet is a command's flag set with the settings of scope. name is
// a key of synopses.
func newFlagSet(name string, scope config.Scope) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are one line, from main; -h prints with config.PrintFlags
	config.Bind(fs, scope)
	return fs
}

// parse parses a command's flags and resolves its configuration. -h
// prints the command's usage on stdout and returns flag.ErrHelp, which
// run turns into success.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer, getenv env) (config.Config, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: %s\n\n", synopses[fs.Name()])
			config.PrintFlags(stdout, fs)
			return config.Config{}, err
		}
		return config.Config{}, flagError(fs.Name(), err)
	}
	if err := strayBoolValue(fs, args); err != nil {
		return config.Config{}, err
	}
	return config.Resolve(fs, getenv)
}

// flagError rewrites the flag package's errors with the flags spelled
// as the documentation spells them (--name).
func flagError(cmd string, err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Errorf("%s: unknown flag --%s (flagpole %s -h lists them)", cmd, strings.TrimLeft(f, "-"), cmd)
	}
	if f, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Errorf("%s: --%s needs a value", cmd, strings.TrimLeft(f, "-"))
	}
	if strings.Contains(msg, " for flag -") {
		msg = strings.Replace(msg, " for flag -", " for --", 1)
	} else {
		msg = strings.Replace(msg, " for -", " for --", 1)
	}
	return errors.New(cmd + ": " + msg)
}

// strayBoolValue explains `--access-log false`: a bool flag alone means
// true, so the false that follows it is an argument, which no command
// takes there.
func strayBoolValue(fs *flag.FlagSet, args []string) error {
	n := len(args) - fs.NArg()
	if fs.NArg() == 0 || n == 0 || (fs.Arg(0) != "true" && fs.Arg(0) != "false") {
		return nil
	}
	name := strings.TrimLeft(args[n-1], "-")
	if f := fs.Lookup(name); f != nil && !strings.Contains(name, "=") && isBoolFlag(f) {
		return fmt.Errorf("%s: --%s takes no separate value: write --%s=%s", fs.Name(), name, name, fs.Arg(0))
	}
	return nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// positional checks a command's arguments after its flags: at least min,
// at most max. want says what the command takes, for the error.
func positional(fs *flag.FlagSet, min, max int, want string) error {
	for _, a := range fs.Args() {
		if strings.HasPrefix(a, "-") && a != "-" {
			return fmt.Errorf("%s: %q comes after the arguments: put the flags first (%s)", fs.Name(), a, synopses[fs.Name()])
		}
	}
	switch {
	case fs.NArg() > max && max == 0:
		return fmt.Errorf("%s: unexpected argument %q: it takes none (%s)", fs.Name(), fs.Arg(0), synopses[fs.Name()])
	case fs.NArg() > max, fs.NArg() < min:
		return fmt.Errorf("%s: %s (%s)", fs.Name(), want, synopses[fs.Name()])
	}
	return nil
}

// requireDatabase refuses a SQLite file that does not exist, so that a
// mistyped --db is an error instead of a new empty database. Only serve
// --demo, migrate, seed and import create one.
func requireDatabase(url string) error {
	d, path, err := loader.ParseURL(url)
	if err != nil || d != loader.SQLite {
		return nil // Open reports a bad URL; PostgreSQL databases are made by their server
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no database at %s: the SQLite file does not exist (check --db; migrate, seed and import create one)", path)
	}
	return nil
}

// openDatabase opens and migrates the database of url; create says
// whether the command may create a SQLite file.
func openDatabase(ctx context.Context, url string, create bool, opts ...loader.Option) (*loader.DB, error) {
	if !create {
		if err := requireDatabase(url); err != nil {
			return nil, err
		}
	}
	return loader.OpenMigrated(ctx, url, opts...)
}

// importTimeout is how long import waits for the server to say anything
// (loader.Timeout): its pruning and its final copy are single statements
// that write nothing back until done, 9 µs a snapshot row and 20 µs a
// changed flag here, so the default 20 s cut a copy of two million rows.
const importTimeout = 15 * time.Minute

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("migrate", config.Database)
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	db, err := loader.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.MigrateUp(ctx)
	if err != nil {
		return err
	}
	switch {
	case len(applied) == 0:
		fmt.Fprintln(stderr, "migrate: the schema is up to date; nothing to apply")
	case applied[0] == 1:
		fmt.Fprintf(stderr, "migrate: created the schema (migrations 1 to %d)\n", applied[len(applied)-1])
	default:
		fmt.Fprintf(stderr, "migrate: applied migrations %d to %d\n", applied[0], applied[len(applied)-1])
	}
	return nil
}

func runSeed(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("seed", config.Database)
	flags := fs.Int("flags", loader.DemoSize(), "number of flags (past the number of demo statements, texts repeat)")
	users := fs.Int("users", 500, "number of users")
	days := fs.Int("days", 90, "days of daily snapshots")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same data")
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	// The sizes first: a refused seed makes no database file.
	if err := (loader.SeedOptions{Flags: *flags, Users: *users, Days: *days}).Validate(); err != nil {
		return err
	}
	db, err := openDatabase(ctx, cfg.DB, true)
	if err != nil {
		return err
	}
	defer db.Close()
	p := newProgress(stderr, "seed", "flags")
	err = db.Seed(ctx, loader.SeedOptions{Flags: *flags, Users: *users, Days: *days, Seed: *seed,
		Progress: p.count})
	p.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "seeded %d flags, %d users, %d days\n", *flags, *users, *days)
	return nil
}

func runImport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("import", config.Database)
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 1, 1, "name one FILE, or - for standard input"); err != nil {
		return err
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		in = f
	}
	db, err := openDatabase(ctx, cfg.DB, true, loader.Timeout(importTimeout))
	if err != nil {
		return err
	}
	defer db.Close()
	p := newProgress(stderr, "import", "lines")
	r := newCountingReader(in)
	n, err := db.Import(ctx, r, func(lines int) { p.share(lines, r.read, r.size) })
	p.done()
	if err != nil {
		return fmt.Errorf("import: nothing written: %w", err)
	}
	if n.Records == n.Flags {
		fmt.Fprintf(stderr, "imported %d flags\n", n.Flags)
	} else { // the last of a flag's lines is what it holds
		fmt.Fprintf(stderr, "imported %d flags from %d lines (a flag on several lines counts once)\n", n.Flags, n.Records)
	}
	return nil
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("export", config.Database)
	force := fs.Bool("force", false, "replace FILE when it exists")
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 1, "name at most one FILE, or - for standard output"); err != nil {
		return err
	}
	name := fs.Arg(0)
	if err := checkTarget(name, *force); err != nil {
		return err
	}
	db, err := openDatabase(ctx, cfg.DB, false)
	if err != nil {
		return err
	}
	defer db.Close()
	out, commit, err := output(name, *force, stdout)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	p := newProgress(stderr, "export", "flags")
	n, err := db.Export(ctx, out, p.count)
	p.done()
	if err = commit(err); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d flags\n", n)
	return nil
}

// checkTarget refuses to export over an existing file unless force, and
// over anything but a regular file always, before any work is done: the
// export is renamed over its name, which would put a file in the place of
// a directory, a symbolic link, a device (/dev/null) or a pipe.
func checkTarget(name string, force bool) error {
	if name == "" || name == "-" {
		return nil
	}
	st, err := os.Lstat(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("export: %w", err)
	case st.IsDir():
		return fmt.Errorf("export: %s is a directory; name a file", name)
	case st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("export: %s is a symbolic link; name the file it points to", name)
	case !st.Mode().IsRegular():
		return fmt.Errorf("export: %s is not a regular file (a device, pipe or socket); export to - and redirect standard output", name)
	case !force:
		return fmt.Errorf("export: %s exists; add --force to replace it", name)
	}
	return nil
}

// output opens where export writes: standard output for "" or "-", else a
// temporary file beside name that commit renames over it only when the
// export succeeded, so a failed export leaves an existing file as it was.
// Without force, commit refuses a name that appeared meanwhile.
func output(name string, force bool, stdout io.Writer) (io.Writer, func(error) error, error) {
	if name == "" || name == "-" {
		return stdout, func(err error) error { return err }, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return nil, nil, err
	}
	return tmp, func(err error) error {
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = checkTarget(name, force)
		}
		if err == nil {
			err = os.Rename(tmp.Name(), name)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
		return err
	}, nil
}

func runSnapshot(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("snapshot", config.Database)
	dayFlag := fs.String("day", "", "the UTC day to record, YYYY-MM-DD; only today is accepted")
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	day, err := snapshotDay(*dayFlag, time.Now())
	if err != nil {
		return err
	}
	db, err := openDatabase(ctx, cfg.DB, false)
	if err != nil {
		return err
	}
	defer db.Close()
	n, skipped, err := db.SnapshotDayExclusive(ctx, day)
	if err != nil {
		return err
	}
	if skipped {
		fmt.Fprintf(stderr, "snapshot of %s: another process is writing it; nothing written here\n", day.Format(time.DateOnly))
		return nil
	}
	fmt.Fprintf(stderr, "snapshot of %s: %d rows written (rows already there are kept)\n", day.Format(time.DateOnly), n)
	return nil
}

// snapshotDay reads --day. A snapshot records the counters as they are
// when it runs, so only today (UTC) can be recorded: a past day's
// counters cannot be rebuilt from the votes (a changed vote keeps only its
// last colour, a removed vote leaves no row, imported counts have no votes
// at all), and writing today's under a past day would make its trend
// jump; a future day has no counters yet.
func snapshotDay(text string, now time.Time) (time.Time, error) {
	today := now.UTC().Truncate(24 * time.Hour)
	if text == "" {
		return today, nil
	}
	day, err := time.Parse(time.DateOnly, text)
	if err != nil {
		return time.Time{}, fmt.Errorf("snapshot: --day %q: want YYYY-MM-DD", text)
	}
	switch {
	case day.Before(today):
		return time.Time{}, fmt.Errorf("snapshot: --day %s is past (today is %s UTC): a snapshot records the counters as they are now, "+
			"and a past day's cannot be rebuilt from the votes; nothing written", text, today.Format(time.DateOnly))
	case day.After(today):
		return time.Time{}, fmt.Errorf("snapshot: --day %s is in the future (today is %s UTC); nothing written", text, today.Format(time.DateOnly))
	}
	return day, nil
}
