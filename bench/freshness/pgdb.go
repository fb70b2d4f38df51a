package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
)

var dbName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// pgdb manages the run's databases on the server of -url:
//
//	create -name N [-template T]  create N (a copy of T), print its URL
//	drop -name N                  drop N, forcing its connections out
//	comment -name N               print N's comment; exit 1 if N does not exist
//	finish -name N -as M -comment C  rename N to M and set its comment
//	prune -prefix P -keep N       drop the databases named P* except N
//	vacuum                        VACUUM ANALYZE the database of -url
func pgdb(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("pgdb: want create, drop, comment, finish, prune or vacuum")
	}
	fs := flag.NewFlagSet("pgdb", flag.ExitOnError)
	var o pgdbOpts
	raw := fs.String("url", "", "a PostgreSQL URL of the server (its database is where the commands run)")
	fs.StringVar(&o.name, "name", "", "the database")
	fs.StringVar(&o.template, "template", "", "create: the database to copy")
	fs.StringVar(&o.as, "as", "", "finish: the new name")
	fs.StringVar(&o.comment, "comment", "", "finish: the comment")
	fs.StringVar(&o.prefix, "prefix", "", "prune: the name prefix")
	fs.StringVar(&o.keep, "keep", "", "prune: the database to keep")
	fs.Parse(args[1:])
	for _, n := range []string{o.name, o.template, o.as, o.keep, o.prefix} {
		if n != "" && !dbName.MatchString(n) {
			return fmt.Errorf("pgdb: bad database name %q", n)
		}
	}
	if o.name == "" && args[0] != "prune" && args[0] != "vacuum" {
		return errors.New("pgdb: -name is required")
	}
	db, err := sql.Open("postgres", *raw)
	if err != nil {
		return err
	}
	defer db.Close()
	switch args[0] {
	case "create":
		return pgCreate(ctx, db, *raw, o)
	case "drop":
		_, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+o.name+" WITH (FORCE)")
		return err
	case "comment":
		return pgComment(ctx, db, o)
	case "finish":
		if _, err := db.ExecContext(ctx, "ALTER DATABASE "+o.name+" RENAME TO "+o.as); err != nil {
			return err
		}
		_, err := db.ExecContext(ctx, "COMMENT ON DATABASE "+o.as+" IS "+pqQuote(o.comment))
		return err
	case "prune":
		return pgPrune(ctx, db, o)
	case "vacuum":
		_, err := db.ExecContext(ctx, "VACUUM ANALYZE")
		return err
	}
	return fmt.Errorf("pgdb: unknown command %q", args[0])
}

// pgdbOpts are pgdb's names, each checked against dbName.
type pgdbOpts struct {
	name, template, as, comment, prefix, keep string
}

// pgCreate creates o.name (a copy of o.template) and prints its URL.
func pgCreate(ctx context.Context, db *sql.DB, raw string, o pgdbOpts) error {
	q := "CREATE DATABASE " + o.name
	if o.template != "" {
		q += " TEMPLATE " + o.template
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	u.Path = "/" + o.name
	fmt.Println(u.String())
	return nil
}

// pgComment prints o.name's comment; it exits 1 if o.name does not exist.
func pgComment(ctx context.Context, db *sql.DB, o pgdbOpts) error {
	var c sql.NullString
	err := db.QueryRowContext(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", o.name).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		os.Exit(1)
	}
	if err != nil {
		return err
	}
	fmt.Println(c.String)
	return nil
}

// pgPrune drops the databases named o.prefix* but o.keep.
func pgPrune(ctx context.Context, db *sql.DB, o pgdbOpts) error {
	if o.prefix == "" {
		return errors.New("pgdb prune: -prefix is required")
	}
	rows, err := db.QueryContext(ctx, "SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2", o.prefix, o.keep)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	for _, n := range names {
		if !dbName.MatchString(n) {
			continue
		}
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)"); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "dropped", n)
	}
	return nil
}

func pqQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
