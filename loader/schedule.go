package loader

import (
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// schedules runs the two loads' schedules, the safety net under the
// database's wake-ups, while Run runs; Reschedule replaces them.
type schedules struct {
	mu          sync.Mutex
	c           *cron.Cron // nil while Run is not running
	w           *wakes
	flags, keys cron.EntryID
	// fs and ks are the schedules given last, to Run or to Reschedule.
	fs, ks cron.Schedule
}

// startSchedules rings w's doorbells on fs (the flag load) and ks (the
// key load), or on what Reschedule gave before, until the function it
// returns is called.
func (l *Loader) startSchedules(w *wakes, fs, ks cron.Schedule) (stop func()) {
	s := &l.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	// A Reschedule before Run came from a later configuration than Run's.
	if s.fs == nil {
		s.fs = fs
	}
	if s.ks == nil {
		s.ks = ks
	}
	s.c, s.w = cron.New(cron.WithLocation(time.UTC)), w
	s.flags = s.c.Schedule(s.fs, cron.FuncJob(by(w.wakeFlags, BySchedule)))
	s.keys = s.c.Schedule(s.ks, cron.FuncJob(by(w.wakeKeys, BySchedule)))
	s.c.Start()
	return func() {
		s.mu.Lock()
		c := s.c
		s.c = nil
		s.mu.Unlock()
		<-c.Stop().Done()
	}
}

// Reschedule makes the flag load run on fs and the key load on ks from
// now on (the operator changed refresh or key_refresh): the next tick of
// each comes by its new schedule, not after one more of the old. A nil
// schedule leaves that load's as it is. Before Run, it replaces the
// schedules Run is given.
func (l *Loader) Reschedule(fs, ks cron.Schedule) {
	s := &l.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if fs != nil {
		s.fs = fs
	}
	if ks != nil {
		s.ks = ks
	}
	if s.c == nil {
		return
	}
	// cron computes an entry's next time when it is added, so a changed
	// schedule is a new entry, not a changed one.
	if fs != nil {
		s.c.Remove(s.flags)
		s.flags = s.c.Schedule(fs, cron.FuncJob(by(s.w.wakeFlags, BySchedule)))
	}
	if ks != nil {
		s.c.Remove(s.keys)
		s.keys = s.c.Schedule(ks, cron.FuncJob(by(s.w.wakeKeys, BySchedule)))
	}
}
