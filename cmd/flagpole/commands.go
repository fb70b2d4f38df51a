package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/flagpole/flagpole/config"
	"github.com/flagpole/flagpole/loader"
)

// parse parses a command's flags and resolves its configuration.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer, getenv env) (config.Config, error) {
	fs.SetOutput(io.Discard) // errors are one line, from main; -h prints the flags below
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintf(stderr, "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return config.Config{}, err
	}
	return config.Resolve(fs, getenv)
}

// noArgs refuses positional arguments to a command that takes none.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func newFlagSet(name string, keys ...string) *flag.FlagSet {
	fs := flag.NewFlagSet("flagpole "+name, flag.ContinueOnError)
	config.Bind(fs, keys...)
	return fs
}

func runMigrate(ctx context.Context, args []string, stderr io.Writer, getenv env) error {
	fs := newFlagSet("migrate", "db")
	cfg, err := parse(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	db, err := loader.OpenMigrated(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(stderr, "schema is up to date")
	return nil
}

func runSeed(ctx context.Context, args []string, stderr io.Writer, getenv env) error {
	fs := newFlagSet("seed", "db")
	flags := fs.Int("flags", 2000, "number of flags")
	users := fs.Int("users", 500, "number of users")
	days := fs.Int("days", 90, "days of daily snapshots")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same data")
	cfg, err := parse(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	db, err := loader.OpenMigrated(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	p := newProgress(stderr, "seed", "flags")
	err = db.Seed(ctx, loader.SeedOptions{Flags: *flags, Users: *users, Days: *days, Seed: *seed,
		Progress: func(done, total int) { p.update(done, total) }})
	p.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "seeded %d flags, %d users, %d days\n", *flags, *users, *days)
	return nil
}

func runImport(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer, getenv env) error {
	fs := newFlagSet("import", "db")
	cfg, err := parse(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("import: name one FILE, or - for standard input")
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
	db, err := loader.OpenMigrated(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	p := newProgress(stderr, "import", "lines")
	n, err := db.Import(ctx, in, func(lines int) { p.update(lines, 0) })
	p.done()
	if err != nil {
		return fmt.Errorf("import: nothing written: %w", err)
	}
	fmt.Fprintf(stderr, "imported %d flags\n", n)
	return nil
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("export", "db")
	cfg, err := parse(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return errors.New("export: name at most one FILE, or - for standard output")
	}
	db, err := loader.OpenMigrated(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	out, commit, err := output(fs.Arg(0), stdout)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	p := newProgress(stderr, "export", "flags")
	n, err := db.Export(ctx, out, func(done int) { p.update(done, 0) })
	p.done()
	if err = commit(err); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d flags\n", n)
	return nil
}

func runSnapshot(ctx context.Context, args []string, stderr io.Writer, getenv env) error {
	fs := newFlagSet("snapshot", "db")
	dayFlag := fs.String("day", "", "the UTC day to record, YYYY-MM-DD (default today)")
	cfg, err := parse(fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	day := time.Now().UTC()
	if *dayFlag != "" {
		if day, err = time.Parse(time.DateOnly, *dayFlag); err != nil {
			return fmt.Errorf("snapshot: --day %q: want YYYY-MM-DD", *dayFlag)
		}
	}
	db, err := loader.OpenMigrated(ctx, cfg.DB)
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

func runKeys(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	if len(args) == 0 {
		return errors.New("keys: want create, list or revoke")
	}
	switch args[0] {
	case "create":
		fs := newFlagSet("keys create", "db")
		name := fs.String("name", "", "a name for the key (required)")
		user := fs.String("user", "", "the id of the user who owns the key")
		limit := fs.Int("limit", 0, "requests per minute for this key (default: the service's rate_limit)")
		cfg, err := parse(fs, args[1:], stderr, getenv)
		if err != nil {
			return err
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		if *name == "" {
			return errors.New("keys create: --name is required")
		}
		limitSet := false
		fs.Visit(func(f *flag.Flag) { limitSet = limitSet || f.Name == "limit" })
		if *limit < 0 || (limitSet && *limit == 0) {
			return errors.New("keys create: --limit must be a positive number of requests per minute")
		}
		db, err := loader.OpenMigrated(ctx, cfg.DB)
		if err != nil {
			return err
		}
		defer db.Close()
		secret, k, err := db.CreateKey(ctx, *name, *user, *limit)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "created key %s (%s); it is shown once, here:\n", k.ID, k.Name)
		fmt.Fprintln(stdout, secret)
		return nil
	case "list":
		fs := newFlagSet("keys list", "db")
		cfg, err := parse(fs, args[1:], stderr, getenv)
		if err != nil {
			return err
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		db, err := loader.OpenMigrated(ctx, cfg.DB)
		if err != nil {
			return err
		}
		defer db.Close()
		keys, err := db.ListKeys(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tPREFIX\tNAME\tUSER\tLIMIT\tCREATED\tREVOKED")
		for _, k := range keys {
			limit, revoked := "default", "-"
			if k.Limit > 0 {
				limit = fmt.Sprint(k.Limit)
			}
			if k.RevokedAt != nil {
				revoked = k.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s…\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Name, k.UserID, limit,
				k.CreatedAt.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		fs := newFlagSet("keys revoke", "db")
		cfg, err := parse(fs, args[1:], stderr, getenv)
		if err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New("keys revoke: name one key ID (see keys list)")
		}
		db, err := loader.OpenMigrated(ctx, cfg.DB)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := db.RevokeKey(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "revoked %s; every instance refuses it after its next key load\n", fs.Arg(0))
		return nil
	default:
		return fmt.Errorf("keys: unknown subcommand %q: want create, list or revoke", args[0])
	}
}

// output opens where export writes: standard output for "" or "-", else a
// temporary file beside name that commit renames over it only when the
// export succeeded, so a failed export leaves an existing file as it was.
func output(name string, stdout io.Writer) (io.Writer, func(error) error, error) {
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
			err = os.Rename(tmp.Name(), name)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
		return err
	}, nil
}
