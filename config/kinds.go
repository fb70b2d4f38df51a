package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// kind is the type of a setting's field.
type kind interface {
	string | int | bool | time.Duration | []string | Schedule
}

// setting is one row of the table: everything the file, the environment,
// the flags and -h need to know of it, whatever its kind.
type setting struct {
	key   string
	usage string
	typ   string // the kind's name in -h: string, int, bool, duration, list, schedule
	every bool   // a flag of every command that opens the database, not only serve
	def   string // the default as text, as config.yaml and -h write it
	set   func(*Config, string) error
	get   func(*Config) string
	reset func(*Config) // sets the default
}

// row makes the setting key of default def filling field.
func row[T kind](key string, def T, usage string, field func(*Config) *T) setting {
	return setting{
		key: key, usage: usage, typ: kindName[T](), def: format(def),
		set: func(c *Config, text string) error {
			v, err := parse[T](text)
			if err == nil {
				*field(c) = v
			}
			return err
		},
		get:   func(c *Config) string { return format(*field(c)) },
		reset: func(c *Config) { *field(c) = clone(def) },
	}
}

// forEveryCommand makes the setting a flag of every command that opens
// the database (db and its kin), not of serve alone.
func (s setting) forEveryCommand() setting {
	s.every = true
	return s
}

func kindName[T kind]() string {
	var v T
	switch any(v).(type) {
	case int:
		return "int"
	case bool:
		return "bool"
	case time.Duration:
		return "duration"
	case []string:
		return "list"
	case Schedule:
		return "schedule"
	}
	return "string"
}

// parse reads a setting's text: an integer, true or false, a duration
// such as 30s, a comma-separated list, or a cron schedule.
func parse[T kind](text string) (T, error) {
	var v T
	var err error
	switch p := any(&v).(type) {
	case *string:
		*p = text
	case *int:
		if *p, err = strconv.Atoi(text); err != nil {
			err = fmt.Errorf("%q is not an integer", text)
		}
	case *bool:
		if *p, err = strconv.ParseBool(text); err != nil {
			err = fmt.Errorf("%q is not true or false", text)
		}
	case *time.Duration:
		if *p, err = time.ParseDuration(text); err != nil || *p < 0 {
			err = fmt.Errorf("%q is not a duration such as 30s or 5m", text)
		}
	case *[]string:
		*p = splitList(text)
	case *Schedule:
		*p, err = ParseSchedule(text)
	}
	return v, err
}

// format writes a value as parse reads it.
func format[T kind](v T) string {
	switch x := any(v).(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case time.Duration:
		return durationText(x)
	case []string:
		return strings.Join(x, ",")
	case Schedule:
		return x.Spec
	}
	panic("config: unknown kind")
}

// clone copies a default so that no two configurations share a list.
func clone[T kind](v T) T {
	if l, ok := any(v).([]string); ok {
		return any(append([]string(nil), l...)).(T)
	}
	return v
}

// splitList reads a comma-separated list, trimming spaces and dropping
// empty items: "" is the empty list.
func splitList(text string) []string {
	var out []string
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// durationText writes a duration as people do: 10m, not 10m0s.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
