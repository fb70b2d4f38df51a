package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is a cron schedule as flagpole takes them, parsed once, with
// the text it was read from. It is a cron.Schedule, so the loader runs it
// as it is.
type Schedule struct {
	cron.Schedule
	Spec string
	// byDefault: Validate gave it the default, which follows listen, as
	// the configuration left it unset (a schedule parsed from text never
	// is); a reload that cannot apply a new listen derives it from the
	// running one (Config.underListen).
	byDefault bool
}

var scheduleParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month |
	cron.Dow | cron.Descriptor)

// ParseSchedule reads a cron schedule: robfig/cron descriptors (@every
// 10s, @hourly) or five or six fields (seconds first). It refuses what
// would not run as written: an @every below one second, which robfig/cron
// rounds down to whole seconds and then up to one ("@every 0s" would run
// every second), and a schedule with no run in the next five years
// ("0 0 0 30 2 *", February the 30th), which would never load.
func ParseSchedule(spec string) (Schedule, error) {
	s, err := scheduleParser.Parse(spec)
	if err != nil {
		return Schedule{}, err
	}
	if every, ok := s.(cron.ConstantDelaySchedule); ok {
		_, text, _ := strings.Cut(spec, "@every") // after a CRON_TZ= too
		d, _ := time.ParseDuration(strings.TrimSpace(text))
		if d < time.Second || d%time.Second != 0 {
			return Schedule{}, fmt.Errorf("%q: @every takes whole seconds, at least 1s (robfig/cron would run it every %s)", spec, every.Delay)
		}
	} else if s.Next(time.Now()).IsZero() {
		return Schedule{}, fmt.Errorf("%q never runs", spec)
	}
	return Schedule{Schedule: s, Spec: spec}, nil
}

// mustSchedule is ParseSchedule for the defaults of the table.
func mustSchedule(spec string) Schedule {
	s, err := ParseSchedule(spec)
	if err != nil {
		panic("config: default schedule " + spec + ": " + err.Error())
	}
	return s
}

// String is the schedule's text.
func (s Schedule) String() string { return s.Spec }

// MarshalText writes the schedule's text, so that logs show "@every 10s".
func (s Schedule) MarshalText() ([]byte, error) { return []byte(s.Spec), nil }

// LongestGap is the longest wait between two runs of s over the year
// after now (at most 10,000 runs): a cron schedule's gaps differ ("0 0
// 9-17 * * *" waits an hour by day and sixteen overnight, "0 0 0 1-10 *
// *" a day, then three weeks). 0 for a schedule that never runs.
func (s Schedule) LongestGap(now time.Time) time.Duration {
	var longest time.Duration
	end := now.AddDate(1, 0, 0)
	t := s.Next(now)
	for n := 0; n < 10_000 && !t.IsZero() && t.Before(end); n++ {
		next := s.Next(t)
		if next.IsZero() {
			break
		}
		longest = max(longest, next.Sub(t))
		t = next
	}
	return longest
}
