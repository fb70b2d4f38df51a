package config

import (
	"flag"
	"fmt"
	"io"
	"strconv"
)

// PrintFlags writes the flags of fs for -h: the command's own first, then
// the settings in the table's order, each with its real default and its
// environment variable.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	var own, set []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(*flagValue); ok {
			set = append(set, f)
		} else {
			own = append(own, f)
		}
	})
	for _, f := range own {
		if f.Name == "config" {
			continue
		}
		name, usage := flag.UnquoteUsage(f)
		if isBool(f.Value) {
			name = "[=true|false]"
		} else if name != "" {
			name = " " + name
		}
		// A command's own flag with a zero default has none to show (its
		// usage says what leaving it out means), as flag.PrintDefaults.
		if def := f.DefValue; def == "" || def == "0" {
			fmt.Fprintf(w, "  --%s%s\n        %s\n", f.Name, name, usage)
		} else {
			if name == " string" {
				def = strconv.Quote(def)
			}
			fmt.Fprintf(w, "  --%s%s\n        %s\n        default %s\n", f.Name, name, usage, def)
		}
	}
	if f := fs.Lookup("config"); f != nil {
		fmt.Fprintf(w, "  --config FILE\n        %s\n        env FLAGPOLE_CONFIG\n", f.Usage)
	}
	if len(set) == 0 {
		return
	}
	fmt.Fprint(w, "\nsettings (a flag wins over its FLAGPOLE_ variable, which wins over config.yaml):\n")
	for i := range settings {
		s := &settings[i]
		if f := fs.Lookup(FlagName(s.key)); f != nil {
			usage := s.usage
			if Live(s.key) {
				usage += " (a running serve applies it on SIGHUP)"
			}
			fmt.Fprintf(w, "  --%s%s\n        %s\n        default %s, env %s\n", f.Name, typeText(s), usage, defaultText(s), EnvName(s.key))
		}
	}
}

func isBool(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// typeText is what follows a setting's flag in -h.
func typeText(s *setting) string {
	switch s.typ {
	case "bool":
		return "[=true|false]"
	case "list":
		return " a,b,..."
	}
	return " " + s.typ
}

// defaultText is a setting's default as -h shows it: quoted when it is
// text, so that an empty default shows as "".
func defaultText(s *setting) string {
	switch s.typ {
	case "string", "schedule", "list":
		return strconv.Quote(s.def)
	}
	return s.def
}
