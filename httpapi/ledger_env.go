//go:build ledger

package httpapi

import (
	"os"
	"strings"
)

// A ledger build leaves out the mechanisms FLAGPOLE_LEDGER_OFF names,
// comma-separated: details, answers, spellings (see ledgerOff).
func init() {
	for _, m := range strings.Split(os.Getenv("FLAGPOLE_LEDGER_OFF"), ",") {
		switch m {
		case "details":
			ledgerOff.details = true
		case "answers":
			ledgerOff.answers = true
		case "spellings":
			ledgerOff.spellings = true
		}
	}
}
