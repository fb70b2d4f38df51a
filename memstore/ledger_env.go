//go:build ledger

package memstore

import (
	"os"
	"strings"
)

// A ledger build leaves out the mechanisms FLAGPOLE_LEDGER_OFF names,
// comma-separated: place (see ledgerOff).
func init() {
	for _, m := range strings.Split(os.Getenv("FLAGPOLE_LEDGER_OFF"), ",") {
		if m == "place" {
			ledgerOff.place = true
		}
	}
}
