// Command idem diagnoses duplicate effects caused by retries: see
// `idem --help`.
package main

import (
	"os"

	"github.com/idem-cli/idem/cmd"
)

func main() { os.Exit(cmd.Main()) }
