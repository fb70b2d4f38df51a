package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/flagpole/flagpole/config"
)

// runKeys dispatches keys create, list and revoke.
func runKeys(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	if len(args) == 0 {
		return errors.New("keys: want create, list or revoke (flagpole keys -h)")
	}
	rest := args[1:]
	switch args[0] {
	case "create":
		return keysCreate(ctx, rest, stdout, stderr, getenv)
	case "list":
		return keysList(ctx, rest, stdout, getenv)
	case "revoke":
		return keysRevoke(ctx, rest, stdout, stderr, getenv)
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(stdout, "usage: %s\n\n  create  make a key and print it, once\n  list    list the keys (never their secrets)\n"+
			"  revoke  revoke a key by its id\n\nRun flagpole keys <subcommand> -h for its flags.\n", synopses["keys"])
		return flag.ErrHelp
	default:
		return fmt.Errorf("keys: unknown subcommand %q: want create, list or revoke", args[0])
	}
}

func keysCreate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("keys create", config.Database)
	name := fs.String("name", "", "a name for the key (required)")
	user := fs.String("user", "", "the id of the user who owns the key")
	limit := fs.Int("limit", 0, "requests per minute for this key, at least 1 (left out: the service's rate_limit)")
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	if *name == "" {
		return errors.New("keys create: --name is required")
	}
	if err := checkKeyName(*name); err != nil {
		return err
	}
	limitSet := false
	fs.Visit(func(f *flag.Flag) { limitSet = limitSet || f.Name == "limit" })
	if *limit < 0 || (limitSet && *limit == 0) {
		return errors.New("keys create: --limit must be a positive number of requests per minute")
	}
	db, err := openDatabase(ctx, cfg.DB, false)
	if err != nil {
		return err
	}
	defer db.Close()
	same, err := db.ActiveKeysNamed(ctx, *name)
	if err != nil {
		return err
	}
	secret, k, err := db.CreateKey(ctx, *name, *user, *limit)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "created key %s (%s); it is shown once, here:\n", k.ID, k.Name)
	fmt.Fprintln(stdout, secret)
	for _, o := range same {
		fmt.Fprintf(stderr, "warning: key %s (created %s) is also named %q and still works; "+
			"when its clients use the new key: flagpole keys revoke %s\n", o.ID, o.CreatedAt.Format(time.DateOnly), o.Name, o.ID)
	}
	return nil
}

// maxKeyName is the longest name a key takes, in characters: a label for
// people, shown in one column of keys list.
const maxKeyName = 200

// checkKeyName refuses a name keys list could not show on one line of its
// table as it reads: invalid UTF-8, a character that does not print but
// the space (a tab or a newline shifts the columns; a line separator, a
// zero-width or a bidirectional control hides or reorders what follows)
// or more than maxKeyName characters.
func checkKeyName(name string) error {
	if !utf8.ValidString(name) {
		return errors.New("keys create: --name is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(name); n > maxKeyName {
		return fmt.Errorf("keys create: --name has %d characters, at most %d", n, maxKeyName)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fmt.Errorf("keys create: --name has a character that does not print (%U) at byte %d", r, i)
	}
	return nil
}

func keysList(ctx context.Context, args []string, stdout io.Writer, getenv env) error {
	fs := newFlagSet("keys list", config.Database)
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	db, err := openDatabase(ctx, cfg.DB, false)
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
}

// keyID is what a key id looks like; only such an argument is ever
// repeated in an error, so that a secret pasted in its place is not.
var keyID = regexp.MustCompile(`^key_[A-Za-z0-9]{1,64}$`)

func keysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	fs := newFlagSet("keys revoke", config.Database)
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 1, 1, "name one key id (see flagpole keys list)"); err != nil {
		return err
	}
	id := fs.Arg(0)
	switch {
	case strings.HasPrefix(id, "grf_"):
		return errors.New("keys revoke: that is a key's secret, not its id (not repeated here); " +
			"name the key's id, key_..., as flagpole keys list shows it")
	case !keyID.MatchString(id):
		return errors.New("keys revoke: that is not a key id (key_ and letters or digits; not repeated here); see flagpole keys list")
	}
	db, err := openDatabase(ctx, cfg.DB, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.RevokeKey(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "revoked %s; every instance refuses it after its next key load\n", id)
	return nil
}
