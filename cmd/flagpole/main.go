// Command flagpole serves the public read-only flag API from memory and
// manages its database: serve, migrate, seed, import, export, snapshot and
// keys create|list|revoke.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const usage = `usage: flagpole <command> [flags]

commands:
  serve     serve the API (--demo seeds an empty database and prints a key)
  migrate   bring the database schema up to date
  seed      write the deterministic demo data set into an empty database
  import    read flags as JSON Lines (FILE or -), all or nothing
  export    write every flag as JSON Lines (FILE or -, default -)
  snapshot  record today's (or --day's) trend snapshot, once per day
  keys      create, list or revoke API keys

Run flagpole <command> -h for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the flags were printed
		}
		msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
		fmt.Fprintln(os.Stderr, "flagpole:", msg)
		os.Exit(1)
	}
}

// env is how commands read the environment: os.Getenv, or a map in tests.
type env func(string) string

// run dispatches a command line; it is main without the process around it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv env) error {
	if len(args) == 0 {
		return errors.New("a command is required (flagpole help lists them)")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdout, stderr, getenv)
	case "migrate":
		return runMigrate(ctx, rest, stderr, getenv)
	case "seed":
		return runSeed(ctx, rest, stderr, getenv)
	case "import":
		return runImport(ctx, rest, stdin, stderr, getenv)
	case "export":
		return runExport(ctx, rest, stdout, stderr, getenv)
	case "snapshot":
		return runSnapshot(ctx, rest, stderr, getenv)
	case "keys":
		return runKeys(ctx, rest, stdout, stderr, getenv)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q (flagpole help lists them)", cmd)
	}
}
