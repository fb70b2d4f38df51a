package config

import (
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is a cron schedule as flagpole takes them, parsed once, with
// the text it was read from. It is a cron.Schedule, so the loader runs it
// as it is.
type Schedule struct {
	cron.Schedule
	Spec string
}

var scheduleParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month |
	cron.Dow | cron.Descriptor)

// ParseSchedule reads a cron schedule: robfig/cron descriptors (@every
// 10s, @hourly) or five or six fields (seconds first).
func ParseSchedule(spec string) (Schedule, error) {
	s, err := scheduleParser.Parse(spec)
	if err != nil {
		return Schedule{}, err
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

// LongestGap is the longest wait between two runs of s among its next
// eight after now (a cron schedule's gaps differ: "0 0 * * * *" is an
// hour each, "0 0,10 * * * *" ten minutes then fifty).
func (s Schedule) LongestGap(now time.Time) time.Duration {
	var longest time.Duration
	t := s.Next(now)
	for range 8 {
		next := s.Next(t)
		longest = max(longest, next.Sub(t))
		t = next
	}
	return longest
}
