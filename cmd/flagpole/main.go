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

	"github.com/flagpole/flagpole/config"
)

const usage = `usage: flagpole <command> [flags]

commands:
  serve        serve the API (--demo seeds an empty database and prints a key)
  migrate      create the database, or bring its schema up to date
  seed         write the deterministic demo data set into an empty database
  import       read flags as JSON Lines (FILE or -), all or nothing
  export       write every flag as JSON Lines (FILE or -, default -)
  snapshot     record today's trend snapshot (UTC), once per day
  keys         create, list or revoke API keys
  healthcheck  ask the local serve whether it is ready (a container's HEALTHCHECK)
  version      print the version of this build

Run flagpole <command> -h (or flagpole help <command>) for the flags of a command.
`

// synopses say how each command is called, for its -h.
var synopses = map[string]string{
	"serve":       "flagpole serve [flags]",
	"migrate":     "flagpole migrate [flags]",
	"seed":        "flagpole seed [flags]",
	"import":      "flagpole import [flags] FILE|-",
	"export":      "flagpole export [flags] [FILE|-]",
	"snapshot":    "flagpole snapshot [flags]",
	"keys":        "flagpole keys create|list|revoke [flags]",
	"keys create": "flagpole keys create --name NAME [flags]",
	"keys list":   "flagpole keys list [flags]",
	"keys revoke": "flagpole keys revoke [flags] KEY_ID",
	"healthcheck": "flagpole healthcheck [--live] [--timeout 2s] [flags]",
	"version":     "flagpole version",
}

func main() {
	// serve drains on the first stop signal and stops on the second, and
	// reads its configuration again on SIGHUP (see followSignals); every
	// other command stops on the first of the three.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx := withSignals(context.Background(), sigs)
	for _, w := range config.UnknownEnv(os.Environ()) {
		fmt.Fprintln(os.Stderr, "flagpole: warning:", w)
	}
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv); err != nil {
		msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
		fmt.Fprintln(os.Stderr, "flagpole:", msg)
		os.Exit(1)
	}
}

// env is how commands read the environment: os.Getenv, or a map in tests.
type env func(string) string

// run dispatches a command line; it is main without the process around
// it. A request for help (-h, --help, help) prints to stdout and is no
// error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv env) error {
	err := dispatch(ctx, args, stdin, stdout, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv env) error {
	if len(args) == 0 {
		return errors.New("a command is required (flagpole help lists them)")
	}
	cmd, rest := args[0], args[1:]
	if cmd != "serve" {
		var stop context.CancelFunc
		ctx, stop = stopOnSignal(ctx)
		defer stop()
	}
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdout, stderr, getenv)
	case "migrate":
		return runMigrate(ctx, rest, stdout, stderr, getenv)
	case "seed":
		return runSeed(ctx, rest, stdout, stderr, getenv)
	case "import":
		return runImport(ctx, rest, stdin, stdout, stderr, getenv)
	case "export":
		return runExport(ctx, rest, stdout, stderr, getenv)
	case "snapshot":
		return runSnapshot(ctx, rest, stdout, stderr, getenv)
	case "keys":
		return runKeys(ctx, rest, stdout, stderr, getenv)
	case "healthcheck":
		return runHealthcheck(ctx, rest, stdout, getenv)
	case "version", "--version":
		return runVersion(rest, stdout)
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			fmt.Fprint(stdout, usage)
			return nil
		}
		if _, ok := synopses[strings.Join(rest, " ")]; !ok {
			return fmt.Errorf("help: unknown command %q (flagpole help lists them)", strings.Join(rest, " "))
		}
		return dispatch(ctx, append(rest[:len(rest):len(rest)], "-h"), stdin, stdout, stderr, getenv)
	default:
		return fmt.Errorf("unknown command %q (flagpole help lists them)", cmd)
	}
}
