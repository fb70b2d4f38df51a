package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// version and revision name the build when the linker sets them
// (-ldflags "-X main.version=v1.2.3 -X main.revision=abc123", as the
// Dockerfile does from its build arguments); left empty, they are read
// from the build information Go records: the module's version (a tag for
// go install ...@v1.2.3, a pseudo-version in a checkout) and the commit.
var version, revision string

// build says which build this binary is.
type build struct {
	Version, Revision, GoVersion string
}

// thisBuild is the build of the running binary; what nothing records is
// "unknown".
func thisBuild() build {
	b := build{Version: version, Revision: revision, GoVersion: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		if b.Revision == "" {
			b.Revision = vcsRevision(info.Settings)
		}
	}
	if b.Version == "" {
		b.Version = "unknown"
	}
	if b.Revision == "" {
		b.Revision = "unknown"
	}
	return b
}

// vcsRevision is the commit of a build from a checkout, with "-dirty"
// when it had changes not committed; "" when it was built from elsewhere.
func vcsRevision(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// registerBuildInfo adds flagpole_build_info, 1 with the build as labels:
// a dashboard shows which version each instance runs, and a roll from one
// to the next.
func registerBuildInfo(reg prometheus.Registerer) {
	b := thisBuild()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "flagpole_build_info",
		Help:        "1, with the build's version, commit (revision) and Go version as labels.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion},
	})
	g.Set(1)
	reg.MustRegister(g)
}

func runVersion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: %s\n\nPrints the version, the commit and the Go version of this build.\n", synopses["version"])
			return err
		}
		return flagError("version", err)
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	b := thisBuild()
	fmt.Fprintf(stdout, "flagpole %s (revision %s, %s)\n", b.Version, b.Revision, b.GoVersion)
	return nil
}
